package io.spillway.edge.filters.ratelimit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.GlobalRateLimitConfig;
import io.spillway.edge.config.RateLimitPolicy;
import io.spillway.edge.guard.GuardedCall;
import io.spillway.edge.guard.Outcome;
import io.spillway.edge.guard.Refusal;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.FilterTrailersStatus;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamFilter;
import io.spillway.edge.http.message.HeaderRules;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.rls.RateLimitAnswer;
import io.spillway.edge.rls.RateLimitClient;
import io.spillway.edge.rls.RateLimitRequest;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.upstream.ClusterStats;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * One request's global rate limit check (Envoy's {@code extensions/filters/http/ratelimit}
 * {@code Filter}). On the request's headers, for a forwarding route and a request of the filter's
 * {@code request_type} and enabled for it ({@code filter_enabled}), it builds the descriptors ({@link RequestDescriptors}: the
 * {@code RateLimitPerRoute}'s own {@code rate_limits}, else the route's and virtual host's entries of
 * the filter's stage); with none the request goes on untouched. Else it holds the request and asks
 * the rate limit service ({@code ShouldRateLimit}) off the worker — through the outbound guard of
 * the service's cluster, the guard's request timeout capping the filter's — and acts on the answer
 * back on the request's worker:
 *
 * <ul>
 *   <li>OK: the request goes on with the answer's {@code request_headers_to_add}; its
 *       {@code response_headers_to_add} (and the x-ratelimit headers, when enabled) wait for the response.
 *   <li>OVER_LIMIT, enforced for the request ({@code filter_enforced}; else as OK): the client gets {@code rate_limited_status} (429) with the answer's
 *       {@code raw_body}, its {@code response_headers_to_add}, {@code x-envoy-ratelimited: true}
 *       (unless disabled) and the filter's {@code response_headers_to_add}; flag {@code RL}.
 *   <li>A failed call (gRPC error, deadline, {@code UNKNOWN}) or a guard refusal: through, counted as
 *       {@code failure_mode_allowed}; with {@code failure_mode_deny} the client gets
 *       {@code status_on_error} (500), flag {@code RLSE} — or, refused by the guard, {@code 503}
 *       with flag {@code GR}.
 * </ul>
 *
 * Headers the service asks for that are not settable (framing headers, bad names or values) are skipped.
 */
final class GlobalRateLimitFilter implements StreamFilter, GuardedCall.Steps {
  static final String X_ENVOY_RATELIMITED = "x-envoy-ratelimited";

  private enum State { IDLE, CALLING, DONE }

  private final GlobalRateLimitFactory factory;
  private DecoderFilterCallbacks decoder;
  private RequestHeaders requestHeaders;
  private ClusterStats stats;
  private RateLimitRequest request;
  private State state = State.IDLE;
  private boolean inStart;
  /** Set when the check answered the request itself. */
  private boolean replied;
  private GuardedCall guarded;
  private RateLimitClient.PendingCall pending;
  /** What goes on the response: the OK answer's headers and the x-ratelimit ones. */
  private List<RateLimitAnswer.Header> responseHeaders = List.of();
  private String[] xRateLimit;

  GlobalRateLimitFilter(GlobalRateLimitFactory factory) {
    this.factory = factory;
  }

  @Override
  public void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks) {
    this.decoder = callbacks;
  }

  @Override
  public void setEncoderFilterCallbacks(EncoderFilterCallbacks callbacks) {}

  @Override
  public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
    RouteEntry route = decoder.route();
    if (route == null || route.routeAction() == null || !appliesTo(headers)
        || !factory.enabled(decoder.worker().random())) {
      return FilterHeadersStatus.CONTINUE;
    }
    GlobalRateLimitConfig config = factory.config();
    GlobalRateLimitConfig.PerRoute perRoute = factory.perRoute(route);
    List<List<RateLimitPolicy.Entry>> descriptors = RequestDescriptors.of(perRoute.rateLimits(), config.stage(),
        perRoute.vhRateLimits(), headers, decoder.streamInfo().downstreamAddress(), route, factory.localCluster());
    if (descriptors.isEmpty()) {
      return FilterHeadersStatus.CONTINUE;
    }
    requestHeaders = headers;
    stats = factory.stats(route, headers);
    request = new RateLimitRequest(perRoute.domain().orElse(config.domain()), descriptors);
    state = State.CALLING;
    inStart = true;
    guarded = new GuardedCall(factory.guard(), config.timeout(), this);
    try {
      guarded.start(decoder.worker().guardLoop());
    } finally {
      inStart = false;
    }
    // Answered at once (a guard refusal): through, or a local reply already sent.
    return state == State.DONE && !replied ? FilterHeadersStatus.CONTINUE : FilterHeadersStatus.STOP_ITERATION;
  }

  /** {@code request_type}: internal requests carry {@code x-envoy-internal: true}. */
  private boolean appliesTo(RequestHeaders headers) {
    return switch (factory.config().requestType()) {
      case BOTH -> true;
      case INTERNAL -> "true".equals(headers.header("x-envoy-internal"));
      case EXTERNAL -> !"true".equals(headers.header("x-envoy-internal"));
    };
  }

  @Override
  public void call(Duration timeout) {
    RateLimitRequest asked = request;
    request = null;
    pending = factory.client().shouldRateLimit(asked, timeout, decoder.worker().loop(), this::onAnswer);
  }

  @Override
  public void refused(Refusal reason) {
    failed(reason);
  }

  /** The service's answer, on the request's worker. */
  void onAnswer(RateLimitAnswer answer) {
    if (state != State.CALLING) {
      return; // the request went away first
    }
    pending = null;
    switch (answer.code()) {
      case OK -> {
        release(Outcome.SUCCESS);
        count(stats == null ? null : stats.ratelimitOk);
        through(answer);
      }
      case OVER_LIMIT -> {
        release(Outcome.SUCCESS);
        count(stats == null ? null : stats.ratelimitOverLimit);
        if (factory.enforced(decoder.worker().random())) {
          refuse(answer);
        } else {
          through(answer); // not enforced for this request: as if under the limit, without x-envoy-ratelimited
        }
      }
      case ERROR -> {
        release(answer.timedOut() ? Outcome.TIMEOUT : Outcome.TRANSPORT_ERROR);
        failed(null);
      }
    }
  }

  /** On with the answer's request headers; its response headers and the x-ratelimit ones wait for the response. */
  private void through(RateLimitAnswer answer) {
    addAll(answer.requestHeadersToAdd(), requestHeaders.headers());
    responseHeaders = answer.responseHeadersToAdd();
    xRateLimit = xRateLimitHeaders(answer.statuses());
    proceed();
  }

  /**
   * The call failed, or the guard refused it ({@code refusal}, else null): with
   * {@code failure_mode_deny} a failed call gets {@code status_on_error} (flag {@code RLSE}) and a
   * refused one {@code 503} (flag {@code GR}, as every guard refusal: the edge shedding load on a
   * busy peer, not the service failing).
   */
  private void failed(Refusal refusal) {
    count(stats == null ? null : stats.ratelimitError);
    if (factory.config().failureModeDeny()) {
      if (refusal != null) {
        byte[] text = ("upstream guard refused the rate limit call: " + refusal.label()).getBytes(StandardCharsets.UTF_8);
        reply(503, new DefaultHttpHeaders(), Unpooled.wrappedBuffer(text), ResponseFlag.GR, "rate_limiter_error");
      } else {
        reply(factory.config().statusOnError(), new DefaultHttpHeaders(), Unpooled.EMPTY_BUFFER, ResponseFlag.RLSE,
            "rate_limiter_error");
      }
      return;
    }
    count(stats == null ? null : stats.ratelimitFailureModeAllowed);
    proceed();
  }

  private void refuse(RateLimitAnswer answer) {
    GlobalRateLimitConfig config = factory.config();
    HttpHeaders headers = new DefaultHttpHeaders();
    byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
    addAll(answer.responseHeadersToAdd(), headers);
    String[] x = xRateLimitHeaders(answer.statuses());
    if (x != null) {
      setXRateLimit(x, headers);
    }
    if (config.xEnvoyRateLimitedHeader()) {
      headers.set(X_ENVOY_RATELIMITED, "true");
    }
    LocalRateLimit.add(config.responseHeadersToAdd(), headers);
    reply(config.rateLimitedStatus(), headers, body.length == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body),
        ResponseFlag.RL, "request_rate_limited");
  }

  /**
   * A reply to the client; a HEAD request's carries no body (its content-length stays).
   *
   * @param details Envoy's {@code %RESPONSE_CODE_DETAILS%} of the reply
   */
  private void reply(int status, HttpHeaders headers, ByteBuf body, ResponseFlag flag, String details) {
    state = State.DONE;
    replied = true;
    decoder.streamInfo().setResponseCodeDetails(details);
    headers.setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
    if (body.isReadable() && !headers.contains(HttpHeaderNames.CONTENT_TYPE)) {
      headers.set(HttpHeaderNames.CONTENT_TYPE, "text/plain");
    }
    ByteBuf sent = body;
    if (requestHeaders.isHead() || !body.isReadable()) {
      body.release();
      sent = null;
    }
    decoder.sendLocalReply(new ResponseHeaders(status, headers), sent, flag);
  }

  /** Through to the next filter: at once when the answer came inline, else by resuming the chain. */
  private void proceed() {
    state = State.DONE;
    if (!inStart) {
      decoder.continueDecoding();
    }
  }

  private void release(Outcome outcome) {
    guarded.release(outcome);
  }

  private static void count(io.spillway.edge.stats.Counter counter) {
    if (counter != null) {
      counter.inc();
    }
  }

  @Override
  public FilterDataStatus decodeData(ByteBuf data, boolean endStream) {
    return state == State.CALLING ? FilterDataStatus.STOP_ITERATION_AND_WATERMARK : FilterDataStatus.CONTINUE;
  }

  @Override
  public FilterTrailersStatus decodeTrailers(HttpHeaders trailers) {
    return state == State.CALLING ? FilterTrailersStatus.STOP_ITERATION : FilterTrailersStatus.CONTINUE;
  }

  @Override
  public FilterHeadersStatus encodeHeaders(ResponseHeaders headers, boolean endStream) {
    if (!responseHeaders.isEmpty()) {
      addAll(responseHeaders, headers.headers());
      responseHeaders = List.of();
    }
    if (xRateLimit != null) {
      setXRateLimit(xRateLimit, headers.headers());
      xRateLimit = null;
    }
    return FilterHeadersStatus.CONTINUE;
  }

  @Override
  public void onDestroy() {
    if (state != State.CALLING) {
      return;
    }
    state = State.DONE;
    if (pending != null) {
      pending.cancel();
      pending = null;
    }
    guarded.abandon();
  }

  /** Adds the service's headers (names lower-cased); those that may not be set are skipped. */
  private static void addAll(List<RateLimitAnswer.Header> add, HttpHeaders headers) {
    for (int i = 0; i < add.size(); i++) {
      RateLimitAnswer.Header h = add.get(i);
      String name = h.name().toLowerCase(Locale.ROOT);
      if (HeaderRules.settable(name, h.value())) {
        headers.add(name, h.value());
      }
    }
  }

  private static void setXRateLimit(String[] x, HttpHeaders headers) {
    headers.set("x-ratelimit-limit", x[0]);
    headers.set("x-ratelimit-remaining", x[1]);
    headers.set("x-ratelimit-reset", x[2]);
  }

  /**
   * The x-ratelimit headers (DRAFT_VERSION_03, Envoy's {@code XRateLimitHeaderUtils::create}) of the
   * statuses that carry a limit: of the one closest to its limit (the least remaining), the limit
   * followed by every limit's quota policy ({@code , <n>;w=<seconds>[;name="<name>"]}), the
   * remaining count and the seconds until reset; null when no status carries a limit.
   *
   * @return {@code [limit, remaining, reset]}
   */
  String[] xRateLimitHeaders(List<RateLimitAnswer.DescriptorStatus> statuses) {
    if (!factory.config().xRateLimitHeaders()) {
      return null;
    }
    RateLimitAnswer.DescriptorStatus min = null;
    StringBuilder policy = new StringBuilder();
    for (int i = 0; i < statuses.size(); i++) {
      RateLimitAnswer.DescriptorStatus s = statuses.get(i);
      if (!s.limited()) {
        continue;
      }
      if (min == null || s.remaining() < min.remaining()) {
        min = s;
      }
      if (s.unitSeconds() > 0) {
        policy.append(", ").append(s.requestsPerUnit()).append(";w=").append(s.unitSeconds());
        if (!s.name().isEmpty()) {
          policy.append(";name=\"").append(s.name()).append('"');
        }
      }
    }
    if (min == null) {
      return null;
    }
    return new String[] {min.requestsPerUnit() + policy.toString(), Long.toString(min.remaining()),
        Long.toString(min.resetSeconds())};
  }
}
