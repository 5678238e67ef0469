package io.spillway.edge.filters.extauthz;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.authz.AuthzHeader;
import io.spillway.edge.config.ExtAuthzConfig;
import io.spillway.edge.guard.Outcome;
import io.spillway.edge.guard.PeerGuard;
import io.spillway.edge.guard.Refusal;
import io.spillway.edge.http.filter.FilterContext;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.message.HopByHop;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.upstream.Cluster;
import io.spillway.edge.upstream.ConnectionShare;
import io.spillway.edge.upstream.StreamCallbacks.PoolFailure;
import io.spillway.edge.upstream.UpstreamCall;
import io.spillway.edge.upstream.Worker;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One request's call to the external HTTP authorization service (Envoy's ext_authz
 * {@code RawHttpClientImpl} request; with {@code with_request_body} it carries the buffered body),
 * made on the request's worker through the auth cluster's
 * per-worker pools, like an upstream try. The call passes the outbound guard of its cluster (the
 * {@code auth} peer) exactly as a router try does: admitted, queued or refused, and its permit is
 * released exactly once with the call's {@link Outcome}, on every path — answer, transport error,
 * timeout, or the request going away mid-check ({@link #cancel()}).
 *
 * <p>The verdict, Envoy's: {@code 200} → OK (allowed headers copied to the upstream request);
 * {@code 5xx}, a transport error, a timeout, no host or an overflowing cluster → error
 * ({@code status_on_error}, or through with {@code failure_mode_allow}); any other status → denied
 * (that status, its allowed headers and body to the client). A guard refusal answers {@code 503}
 * with flag {@code GR}, or lets the request through with {@code failure_mode_allow}.
 */
final class ExtAuthzCheck implements UpstreamCall.Listener, AuthzCheck {

  static final String FAILURE_MODE_ALLOWED_HEADER = "x-envoy-auth-failure-mode-allowed";

  private final ExtAuthzFactory filter;
  private final Verdict request;
  private final FilterContext context;
  private final Worker worker;
  private final RequestHeaders downstreamRequest;
  private final boolean head;
  /** The client connection's share of the auth cluster's slots, as for the router's tries. */
  private final ConnectionShare share;

  private Cluster cluster;
  private UpstreamCall call;
  private ScheduledFuture<?> timer;
  private boolean done;
  private int status;
  private HttpHeaders responseHeaders;
  private CompositeByteBuf body;
  /** with_request_body: what goes after the check request's head, until it is written. */
  private ByteBuf requestBody;
  private boolean partialBody;
  private int bodyLength;

  ExtAuthzCheck(ExtAuthzFactory filter, Verdict request, FilterContext context, Worker worker,
      RequestHeaders downstreamRequest, ConnectionShare share) {
    this.share = share;
    this.filter = filter;
    this.request = request;
    this.context = context;
    this.worker = worker;
    this.downstreamRequest = downstreamRequest;
    this.head = downstreamRequest.isHead();
  }

  @Override
  public void start(ByteBuf buffered, boolean partial) {
    if (buffered != null) {
      requestBody = buffered.retainedDuplicate();
      partialBody = partial;
    }
    ExtAuthzConfig config = filter.config();
    cluster = context.clusters().get(config.cluster());
    if (cluster == null) {
      finishWithError(); // removed by CDS since the listener was built
      return;
    }
    PeerGuard guard = context.guards() == null ? null : context.guards().guard(config.cluster());
    call = new UpstreamCall(cluster, guard, worker, this, share);
    long timeoutNanos = config.timeout().toNanos();
    if (timeoutNanos > 0) {
      timer = worker.loop().schedule(this::onTimeout, timeoutNanos, TimeUnit.NANOSECONDS);
    }
    call.start(null);
  }

  @Override
  public void cancel() {
    if (done) {
      return;
    }
    done = true;
    call.cancel();
    end();
  }

  // ---- the call ------------------------------------------------------------------------------

  @Override
  public void onCallRefused(UpstreamCall c, Refusal reason) {
    if (done) {
      return;
    }
    done = true;
    end();
    filter.error.inc();
    if (filter.config().failureModeAllow()) {
      allowOnFailure();
    } else {
      reply(503, textBody("upstream guard refused the auth call: " + reason.label()), null, ResponseFlag.GR);
    }
  }

  @Override
  public void onCallUnavailable(UpstreamCall c, boolean noHost) {
    finishWithError();
  }

  @Override
  public void onCallFailed(UpstreamCall c, PoolFailure failure, String detail) {
    finishWithError();
  }

  @Override
  public void onCallReady(UpstreamCall c) {
    if (done) {
      c.cancel();
      return;
    }
    ByteBuf content = requestBody;
    requestBody = null;
    bodyLength = content == null ? 0 : content.readableBytes();
    if (content == null || !content.isReadable()) {
      if (content != null) {
        content.release();
      }
      c.stream().writeHeaders(checkRequest(content != null), false, true);
    } else {
      c.stream().writeHeaders(checkRequest(true), true, false);
      c.stream().writeData(content, true);
    }
  }

  @Override
  public void onCallTimedOut(UpstreamCall c) {
    cluster.stats().upstreamRqTimeout.inc();
    finishWithError();
  }

  /**
   * The request's method and path (behind path_prefix), the allowed headers, and the buffered body
   * with {@code x-envoy-auth-partial-body} when there is one (Envoy's {@code RawHttpClientImpl}).
   */
  private RequestHeaders checkRequest(boolean withBody) {
    ExtAuthzConfig config = filter.config();
    HttpHeaders headers = new DefaultHttpHeaders();
    for (Map.Entry<String, String> h : downstreamRequest.headers()) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      if (!name.equals("content-length") && !name.equals(CheckAttributes.PARTIAL_BODY_HEADER)
          && filter.sendsRequestHeader(name)) {
        headers.add(name, h.getValue());
      }
    }
    headers.remove(HttpHeaderNames.HOST);
    HopByHop.strip(headers);
    for (ExtAuthzConfig.Header h : config.headersToAdd()) {
      headers.set(h.name(), h.value());
    }
    if (withBody) {
      headers.set(CheckAttributes.PARTIAL_BODY_HEADER, partialBody ? "true" : "false");
    }
    headers.set(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(bodyLength));
    return new RequestHeaders(downstreamRequest.method(), "http", downstreamRequest.authority(),
        config.pathPrefix() + downstreamRequest.pathAndQuery(), headers);
  }

  @Override
  public void onResponseHeaders(UpstreamCall c, ResponseHeaders response, boolean endStream) {
    if (done) {
      return;
    }
    status = response.status();
    c.setOutcome(Outcome.ofStatus(status));
    cluster.stats().responseCode(status);
    responseHeaders = response.headers();
    if (isDenied()) {
      body = worker.allocator().compositeBuffer();
    }
    if (endStream) {
      onComplete();
    }
  }

  @Override
  public void onResponseData(UpstreamCall c, ByteBuf part, boolean endStream) {
    if (done) {
      part.release();
      return;
    }
    if (body != null) {
      if (body.readableBytes() + part.readableBytes() > context.bufferLimitBytes()) {
        part.release();
        c.cancel(); // a denial too large to relay: the check failed
        finishWithError();
        return;
      }
      if (part.isReadable()) {
        body.addComponent(true, part.retain());
      }
    }
    part.release();
    if (endStream) {
      onComplete();
    }
  }

  @Override
  public void onResponseTrailers(UpstreamCall c, HttpHeaders trailers) {
    if (!done) {
      onComplete();
    }
  }

  @Override
  public void onCallReset(UpstreamCall c, String reason) {
    finishWithError();
  }

  private void onTimeout() {
    timer = null;
    if (done) {
      return;
    }
    call.setOutcome(Outcome.TIMEOUT);
    if (call.host() != null) {
      call.host().requestTimedOut();
    }
    cluster.stats().upstreamRqTimeout.inc();
    call.cancel();
    finishWithError();
  }

  private boolean isDenied() {
    return status != 200 && status < 500;
  }

  /** The whole answer arrived (the stream goes back to its pool by itself). */
  private void onComplete() {
    ByteBuf denial = body; // kept past end(), which releases a body still held
    body = null;
    done = true;
    call.complete(status < 500);
    end();
    if (status == 200) {
      filter.ok.inc();
      List<AuthzHeader> clientHeaders = new ArrayList<>();
      for (Map.Entry<String, String> h : responseHeaders) {
        String name = h.getKey().toLowerCase(Locale.ROOT);
        if (filter.toUpstream(name)) {
          downstreamRequest.headers().set(name, h.getValue());
        }
        if (filter.toClientOnSuccess(name)) {
          clientHeaders.add(new AuthzHeader(name, h.getValue(), AuthzHeader.Action.ADD));
        }
      }
      request.onAuthzAllowed(clientHeaders);
    } else if (status >= 500) {
      onError();
    } else {
      filter.denied.inc();
      HttpHeaders headers = new DefaultHttpHeaders();
      for (Map.Entry<String, String> h : responseHeaders) {
        String name = h.getKey().toLowerCase(Locale.ROOT);
        if (filter.toClientOnDenied(name)) {
          headers.add(name, h.getValue());
        }
      }
      HopByHop.strip(headers);
      headers.remove(HttpHeaderNames.CONTENT_LENGTH);
      headers.remove(HttpHeaderNames.SERVER);
      reply(status, denial, headers, ResponseFlag.UAEX);
    }
  }

  private void finishWithError() {
    if (done) {
      return;
    }
    done = true;
    if (call != null) {
      call.cancel();
    }
    end();
    onError();
  }

  /** Envoy's error verdict: status_on_error with UAEX, or through with failure_mode_allow. */
  private void onError() {
    filter.error.inc();
    if (filter.config().failureModeAllow()) {
      allowOnFailure();
    } else {
      reply(filter.config().statusOnError(), Unpooled.EMPTY_BUFFER, null, ResponseFlag.UAEX);
    }
  }

  private void allowOnFailure() {
    filter.failureModeAllowed.inc();
    if (filter.config().failureModeAllowHeaderAdd()) {
      downstreamRequest.headers().set(FAILURE_MODE_ALLOWED_HEADER, "true");
    }
    request.onAuthzAllowed(List.of());
  }

  /** Gives back what the check holds besides the call: its timer, a request body not sent, a denial body. */
  private void end() {
    if (requestBody != null) {
      requestBody.release();
      requestBody = null;
    }
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
    if (body != null) {
      body.release();
      body = null;
    }
  }

  private static ByteBuf textBody(String text) {
    return Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.UTF_8));
  }

  /** A reply to the client; a HEAD request's carries no body (its content-length stays). */
  private void reply(int code, ByteBuf content, HttpHeaders extra, ResponseFlag flag) {
    int length = content.readableBytes();
    ByteBuf sent = content;
    if (head && length > 0) {
      content.release();
      sent = Unpooled.EMPTY_BUFFER;
    }
    HttpHeaders headers = new DefaultHttpHeaders();
    if (length > 0 && code == 503) {
      headers.set(HttpHeaderNames.CONTENT_TYPE, "text/plain");
    }
    headers.setInt(HttpHeaderNames.CONTENT_LENGTH, length);
    if (extra != null) {
      headers.add(extra);
    }
    request.onAuthzReply(code, headers, sent, flag);
  }
}
