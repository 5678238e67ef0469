package io.spillway.edge.http;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.spillway.edge.admission.Permit;
import io.spillway.edge.admission.Tier;
import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.config.HttpConnectionManagerConfig;
import io.spillway.edge.config.OverloadConfig;
import io.spillway.edge.config.RetryPolicy;
import io.spillway.edge.overload.OverloadState;
import io.spillway.edge.config.RetryPolicy.RetryOn;
import io.spillway.edge.config.Route;
import io.spillway.edge.router.RequestView;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.upstream.Cluster;
import io.spillway.edge.upstream.Host;
import io.spillway.edge.upstream.StreamCallbacks;
import io.spillway.edge.upstream.UpstreamStream;
import io.spillway.edge.upstream.Worker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.UUID;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One downstream request from its headers to the end of its response (Envoy's ActiveStream with
 * the router filter): validation, routing, local replies, upstream tries with retries, timeouts,
 * body streaming with back-pressure in both directions, and stats. Lives on one worker's loop.
 *
 * <p>Every path ends in {@link #finish()}, exactly once: it cancels timers, gives back the
 * upstream slot, releases buffered body parts and tells the connection the request is over.
 */
final class ActiveRequest implements RequestView {

  private static final AsciiString X_FORWARDED_FOR = AsciiString.cached("x-forwarded-for");
  private static final AsciiString X_FORWARDED_PROTO = AsciiString.cached("x-forwarded-proto");
  private static final AsciiString X_REQUEST_ID = AsciiString.cached("x-request-id");
  private static final AsciiString X_LOCAL_OVERLOADED = AsciiString.cached("x-envoy-local-overloaded");
  private static final AsciiString X_UPSTREAM_SERVICE_TIME = AsciiString.cached("x-envoy-upstream-service-time");

  private final HttpConnectionManager hcm;
  private final HttpConnectionManagerConfig config;
  private final Downstream downstream;
  private final HcmStats stats;
  private final long startNanos = System.nanoTime();

  private HttpRequest request;
  private String authority = "";
  private String path = "/";
  private String query = "";
  private boolean head;
  private RouteEntry entry;
  private Cluster cluster;
  private RetryPolicy retry = RetryPolicy.NONE;
  private int retriesUsed;
  private boolean retrySlotHeld;
  private Host lastFailedHost;
  private UpstreamAttempt attempt;

  /** Request body parts not yet written to the current try, or (while replayable) all of them. */
  private final ArrayList<HttpContent> body = new ArrayList<>(2);
  private int sentParts;
  private long bodyBytes;
  private long unsentBytes;
  private boolean replayable;
  private boolean waitForFullBody;
  private boolean requestComplete;
  private boolean readingPaused;

  private boolean responseStarted;
  private boolean finished;
  /** The admission permit of a forwarded request; released exactly once in {@link #finish()}. */
  private Permit permit;
  /** The ext_authz check in progress; the request waits for its verdict before going upstream. */
  private ExtAuthzCheck authz;
  /** Headers of an OK ext_authz answer for the client's response (allowed_client_headers_on_success). */
  private HttpHeaders authzClientHeaders;
  /** A try waiting in the outbound guard's queue; cancelled if the request ends first. */
  private io.spillway.edge.guard.Ticket guardTicket;
  private int status;
  private int flags;
  private long lastActivityNanos = startNanos;
  /** Route deadline (System.nanoTime), 0 until the request is complete or without a route timeout. */
  private long routeDeadline;
  private ScheduledFuture<?> requestTimer;
  private ScheduledFuture<?> retryTimer;

  ActiveRequest(HttpConnectionManager hcm, Downstream downstream) {
    this.hcm = hcm;
    this.config = hcm.config();
    this.downstream = downstream;
    this.stats = hcm.stats();
  }

  Worker worker() {
    return downstream.worker();
  }

  boolean isFinished() {
    return finished;
  }

  int responseFlags() {
    return flags;
  }

  int status() {
    return status;
  }

  // ---- RequestView ---------------------------------------------------------------------------

  @Override
  public String authority() {
    return authority;
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public String query() {
    return query;
  }

  @Override
  public String header(String name) {
    if (name.charAt(0) == ':') {
      return switch (name) {
        case ":authority" -> authority;
        case ":method" -> request.method().name();
        case ":path" -> request.uri();
        case ":scheme" -> hcm.tls() ? "https" : "http";
        default -> null;
      };
    }
    return request.headers().get(name);
  }

  // ---- downstream events ---------------------------------------------------------------------

  /** The request head arrived; {@code endStream} when it has no body. */
  void onRequestHeaders(HttpRequest req, boolean endStream) {
    this.request = req;
    this.requestComplete = endStream;
    stats.downstreamRqTotal.inc();
    stats.downstreamRqActive.inc();
    (downstream.isHttp2() ? stats.downstreamRqHttp2Total : stats.downstreamRqHttp1Total).inc();
    head = req.method().equals(HttpMethod.HEAD);
    if (!parseTarget(req)) {
      return;
    }
    OverloadHooks overload = hcm.overload();
    OverloadState overloadState = overload.manager().state();
    // Shed points in the order a request meets them: decoded headers, then the filter check.
    if (overloadState.isSaturated(overload.stopAcceptingRequests())
        || overload.decodeHeaders().shouldShed(overloadState, worker().random())
        || overload.filterCheck().shouldShed(overloadState, worker().random())) {
      stats.downstreamRqOverloadClose.inc();
      overloadReply();
      return;
    }
    if (!endStream && config.requestTimeout().toNanos() > 0) {
      requestTimer = schedule(this::onRequestTimeout, config.requestTimeout().toNanos());
    }
    HttpHeaders headers = req.headers();
    if (HttpUtil.is100ContinueExpected(req)) {
      headers.remove(HttpHeaderNames.EXPECT);
      if (!endStream) {
        // A complete 1xx message: the encoders then expect the real response head next.
        downstream.sendHeaders(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE,
            Unpooled.EMPTY_BUFFER), true);
      }
    }
    entry = hcm.routes().match(this);
    if (entry == null) {
      stats.noRoute.inc();
      localReply(404, "", ResponseFlag.NR);
      return;
    }
    switch (entry.route().action()) {
      case Route.DirectResponse direct -> {
        stats.rqDirectResponse.inc();
        localReply(direct.status(), direct.body().orElse(""), null);
      }
      case Route.Redirect redirect -> {
        stats.rqRedirect.inc();
        sendRedirect(redirect);
      }
      case Route.RouteAction action -> forward(action);
    }
    armStreamTimer();
  }

  /** Validates the request target and authority; answers 400 and returns false when broken. */
  private boolean parseTarget(HttpRequest req) {
    HttpHeaders headers = req.headers();
    if (headers.size() > config.maxRequestHeadersCount()) {
      stats.downstreamRqTooLarge.inc();
      localReply(431, "Request Header Fields Too Large", ResponseFlag.DPE);
      return false;
    }
    if (req.method().equals(HttpMethod.CONNECT)) {
      localReply(400, "CONNECT is not supported", ResponseFlag.DPE);
      return false;
    }
    String upgrade = headers.get(HttpHeaderNames.UPGRADE);
    if (upgrade != null && !upgrade.equalsIgnoreCase("h2c")) {
      localReply(403, "upgrade is not supported", ResponseFlag.DPE);
      return false;
    }
    String uri = req.uri();
    if (!uri.startsWith("/")) {
      int scheme = uri.indexOf("://");
      if (scheme <= 0 || downstream.isHttp2()) {
        stats.downstreamRqNonRelativePath.inc();
        localReply(400, "invalid request target", ResponseFlag.DPE);
        return false;
      }
      // absolute-form (RFC 9112 §3.2.2): the target's authority replaces Host.
      int slash = uri.indexOf('/', scheme + 3);
      String targetAuthority = slash < 0 ? uri.substring(scheme + 3) : uri.substring(scheme + 3, slash);
      uri = slash < 0 ? "/" : uri.substring(slash);
      req.setUri(uri);
      headers.set(HttpHeaderNames.HOST, targetAuthority);
    }
    String host = headers.get(HttpHeaderNames.HOST);
    if (host == null || host.isEmpty()) {
      localReply(400, "missing host header", ResponseFlag.DPE);
      return false;
    }
    authority = host;
    int q = uri.indexOf('?');
    if (q < 0) {
      path = uri;
      query = "";
    } else {
      path = uri.substring(0, q);
      query = uri.substring(q + 1);
    }
    return true;
  }

  /** A request body part arrived. The callee owns it. */
  void onRequestData(HttpContent content) {
    boolean last = content instanceof LastHttpContent;
    if (last) {
      requestComplete = true;
      cancel(requestTimer);
      requestTimer = null;
    }
    if (finished) {
      content.release();
      return;
    }
    touch();
    int size = content.content().readableBytes();
    bodyBytes += size;
    if (config.maxRequestBodyBytes().isPresent() && bodyBytes > config.maxRequestBodyBytes().get()) {
      content.release();
      stats.downstreamRqTooLarge.inc();
      localReply(413, "Payload Too Large", ResponseFlag.DPE);
      return;
    }
    if (cluster == null) {
      content.release(); // a local reply is on its way; nothing to forward
      return;
    }
    body.add(content);
    unsentBytes += size;
    if (replayable && bodyBytes > hcm.bufferLimitBytes()) {
      stopKeepingBody();
    }
    if (authz != null) {
      // Kept until the verdict, as the router would keep it while connecting.
      if (unsentBytes > hcm.bufferLimitBytes()) {
        pauseDownstream(true);
      }
      return;
    }
    if (last) {
      startRouteTimer();
    }
    if (waitForFullBody) {
      if (last) {
        waitForFullBody = false;
        startAttempt();
      }
      return;
    }
    if (attempt != null && attempt.stream() != null) {
      writeBody(attempt.stream());
      if (last) {
        startPerTryTimer(attempt);
      }
    } else if (unsentBytes > hcm.bufferLimitBytes()) {
      pauseDownstream(true);
    }
  }

  /** Request body bytes the edge holds: not yet written upstream, or kept whole for a retry. */
  long heldRequestBytes() {
    return finished ? 0 : Math.max(unsentBytes, replayable ? bodyBytes : 0);
  }

  /** reset_high_memory_stream picked this stream: reset it downstream and end everything upstream. */
  void resetForMemory() {
    if (finished) {
      return;
    }
    flags |= ResponseFlag.OM.bit();
    downstream.resetStream();
    finish();
  }

  /** The client went away or reset the stream. */
  void onDownstreamReset() {
    if (finished) {
      return;
    }
    flags |= ResponseFlag.DC.bit();
    stats.downstreamRqRxReset.inc();
    finish();
  }

  void onDownstreamWritability(boolean writable) {
    if (attempt != null && attempt.stream() != null) {
      attempt.stream().pauseReading(!writable);
    }
  }

  // ---- routing and upstream tries ------------------------------------------------------------

  private void forward(Route.RouteAction action) {
    String clusterName;
    if (action.clusterHeader().isPresent()) {
      clusterName = request.headers().get(action.clusterHeader().get());
    } else {
      clusterName = entry.pickCluster(worker().random());
    }
    cluster = clusterName == null ? null : hcm.clusters().get(clusterName);
    if (cluster == null) {
      stats.noCluster.inc();
      localReply(503, "", ResponseFlag.NC);
      return;
    }
    stats.rqTotal.inc();
    Permit p = hcm.admission().tryAcquire(Tier.fromMetadata(entry.metadata(Tier.METADATA_KEY)));
    if (p.refused()) {
      admissionReply();
      return;
    }
    permit = p;
    retry = entry.retryPolicy();
    replayable = retry.enabled();
    if (config.maxRequestBodyBytes().isPresent()) {
      long declared = HttpUtil.getContentLength(request, -1L);
      if (declared > config.maxRequestBodyBytes().get()) {
        stats.downstreamRqTooLarge.inc();
        localReply(413, "Payload Too Large", ResponseFlag.DPE);
        return;
      }
      waitForFullBody = !requestComplete;
    }
    if (hcm.extAuthz() != null && !entry.filterDisabled(hcm.extAuthz().config().filterName())) {
      // Envoy's filter order: ext_authz decides before the router sees the request (unless the
      // route's typed_per_filter_config turns it off).
      authz = new ExtAuthzCheck(hcm.extAuthz(), this, hcm, request, head);
      authz.start();
      return;
    }
    continueForward(action);
  }

  /** After the HTTP filters: the router's part of forwarding. */
  private void continueForward(Route.RouteAction action) {
    if (waitForFullBody && requestComplete) {
      waitForFullBody = false;
    }
    prepareUpstreamHeaders(action);
    if (requestComplete) {
      startRouteTimer();
    }
    if (!waitForFullBody) {
      startAttempt();
    }
  }

  /** ext_authz let the request through (OK, or a failure with failure_mode_allow). */
  void onAuthzAllowed(HttpHeaders clientHeaders) {
    authz = null;
    if (finished) {
      return;
    }
    authzClientHeaders = clientHeaders;
    continueForward(entry.routeAction());
  }

  /** ext_authz answered the request itself: denied, failed, or its call refused by the guard. */
  void onAuthzReply(FullHttpResponse response, ResponseFlag flag) {
    authz = null;
    if (finished) {
      response.release();
      return;
    }
    sendLocal(response, flag);
  }

  private void prepareUpstreamHeaders(Route.RouteAction action) {
    HttpHeaders headers = request.headers();
    HopByHop.strip(headers);
    String remote = downstream.remoteAddress();
    if (config.useRemoteAddress()) {
      String xff = headers.get(X_FORWARDED_FOR);
      headers.set(X_FORWARDED_FOR, xff == null ? remote : xff + "," + remote);
      headers.set(X_FORWARDED_PROTO, hcm.tls() ? "https" : "http");
    } else if (!headers.contains(X_FORWARDED_PROTO)) {
      headers.set(X_FORWARDED_PROTO, hcm.tls() ? "https" : "http");
    }
    if (config.generateRequestId()) {
      boolean keep = headers.contains(X_REQUEST_ID)
          && (config.preserveExternalRequestId() || !config.useRemoteAddress());
      if (!keep) {
        headers.set(X_REQUEST_ID, requestId());
      }
    }
    if (action.prefixRewrite().isPresent()) {
      rewritePath(action.prefixRewrite().get());
    }
    if (action.hostRewriteLiteral().isPresent()) {
      headers.set(HttpHeaderNames.HOST, action.hostRewriteLiteral().get());
    }
    HeaderMutator.apply(entry.requestHeaders(), headers);
    request.setProtocolVersion(HttpVersion.HTTP_1_1);
    if ((!requestComplete || bodyBytes > 0) && !headers.contains(HttpHeaderNames.CONTENT_LENGTH)) {
      // (a body already received in full — while ext_authz decided — still needs framing)
      headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    }
  }

  private void rewritePath(String replacement) {
    Route.PathMatch match = entry.route().match().path();
    String rewritten;
    if (match instanceof Route.PathMatch.Prefix p) {
      rewritten = replacement + path.substring(Math.min(p.prefix().length(), path.length()));
    } else {
      rewritten = replacement;
    }
    if (rewritten.isEmpty() || rewritten.charAt(0) != '/') {
      rewritten = "/" + rewritten;
    }
    request.setUri(query.isEmpty() ? rewritten : rewritten + "?" + query);
  }

  private String requestId() {
    var random = worker().random();
    long msb = (random.nextLong() & ~0xF000L) | 0x4000L;
    long lsb = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new UUID(msb, lsb).toString();
  }

  private io.spillway.edge.guard.PeerGuard guard() {
    return hcm.guards() == null ? null : hcm.guards().guard(cluster.name());
  }

  /** A try first passes the peer's outbound guard: admitted now, refused, or queued. */
  private void startAttempt() {
    retryTimer = null;
    if (finished) {
      return;
    }
    io.spillway.edge.guard.PeerGuard guard = guard();
    if (guard == null) {
      startAdmittedAttempt(null);
      return;
    }
    io.spillway.edge.guard.Admission admission = guard.tryAcquire(
        worker().guardLoop(), new io.spillway.edge.guard.QueueCallback() {
          @Override
          public void onAdmitted(io.spillway.edge.guard.Permit admitted) {
            guardTicket = null;
            if (finished) {
              admitted.release(io.spillway.edge.guard.Outcome.ABANDONED);
            } else {
              startAdmittedAttempt(admitted);
            }
          }

          @Override
          public void onRefused(io.spillway.edge.guard.Refusal reason) {
            guardTicket = null;
            guardReply(reason);
          }
        });
    switch (admission) {
      case io.spillway.edge.guard.Permit admitted -> startAdmittedAttempt(admitted);
      case io.spillway.edge.guard.Refusal reason -> guardReply(reason);
      case io.spillway.edge.guard.Ticket ticket -> guardTicket = ticket;
    }
  }

  /** The outbound guard refused the call: 503, flag GR (its own refusals never count against the peer). */
  private void guardReply(io.spillway.edge.guard.Refusal reason) {
    localReply(503, "upstream guard refused the call: " + reason.label(), ResponseFlag.GR);
  }

  private void startAdmittedAttempt(io.spillway.edge.guard.Permit guardPermit) {
    if (finished) {
      if (guardPermit != null) {
        guardPermit.release(io.spillway.edge.guard.Outcome.ABANDONED);
      }
      return;
    }
    Host host = cluster.pickHost(worker());
    if (host != null && host == lastFailedHost && cluster.hosts().hosts().size() > 1) {
      for (int i = 0; i < 3 && host == lastFailedHost; i++) {
        host = cluster.pickHost(worker());
      }
    }
    if (host == null) {
      if (guardPermit != null) {
        guardPermit.release(io.spillway.edge.guard.Outcome.ABANDONED);
      }
      cluster.stats().upstreamCxNoneHealthy.inc();
      localReply(503, "no healthy upstream", ResponseFlag.UH);
      return;
    }
    if (!cluster.limits().tryAcquireRequest()) {
      if (guardPermit != null) {
        guardPermit.release(io.spillway.edge.guard.Outcome.ABANDONED);
      }
      cluster.stats().upstreamRqPendingOverflow.inc();
      localReply(503, "upstream connect error or disconnect/reset before headers. reset reason: overflow",
          ResponseFlag.UO);
      return;
    }
    cluster.stats().upstreamRqTotal.inc();
    cluster.stats().upstreamRqActive.inc();
    host.requestStarted();
    UpstreamAttempt a = new UpstreamAttempt(this, cluster, host);
    a.guardPermit = guardPermit;
    attempt = a;
    sentParts = 0;
    java.util.OptionalInt guardTimeout = guardPermit == null ? java.util.OptionalInt.empty()
        : guard().requestTimeoutMillis();
    if (guardTimeout.isPresent()) {
      a.guardTimer = schedule(() -> onGuardTimeout(a), TimeUnit.MILLISECONDS.toNanos(guardTimeout.getAsInt()));
    }
    a.start();
  }

  void hostFinished(Host host, boolean success) {
    host.requestFinished(success);
  }

  void onAttemptReady(UpstreamAttempt a) {
    if (a != attempt || finished) {
      a.cancel();
      return;
    }
    UpstreamStream stream = a.stream();
    a.startNanos = System.nanoTime();
    Route.RouteAction action = entry.routeAction();
    if (action.autoHostRewrite() && cluster.config().discoveryType() == ClusterConfig.DiscoveryType.STRICT_DNS) {
      // Envoy rewrites to the host's DNS name; STATIC hosts have none, so their Host stays.
      request.headers().set(HttpHeaderNames.HOST, a.host().hostname());
    }
    if (requestComplete && bodyBytes == 0) {
      stream.write(new DefaultFullHttpRequest(request.protocolVersion(), request.method(), request.uri(),
          Unpooled.EMPTY_BUFFER, request.headers(), io.netty.handler.codec.http.EmptyHttpHeaders.INSTANCE), true);
    } else {
      stream.write(new DefaultHttpRequest(request.protocolVersion(), request.method(), request.uri(),
          request.headers()), body.isEmpty());
      writeBody(stream);
    }
    if (requestComplete) {
      startPerTryTimer(a);
    }
    if (!stream.isWritable()) {
      pauseDownstream(true);
    }
  }

  private void writeBody(UpstreamStream stream) {
    int n = body.size();
    if (sentParts == n) {
      return;
    }
    for (int i = sentParts; i < n; i++) {
      HttpContent part = body.get(i);
      stream.write(replayable ? part.retainedDuplicate() : part, i == n - 1);
    }
    if (replayable) {
      sentParts = n;
    } else {
      body.clear();
      sentParts = 0;
    }
    unsentBytes = 0;
    if (readingPaused && stream.isWritable()) {
      pauseDownstream(false);
    }
  }

  /** The body grew past the buffer limit: it can no longer be replayed, so retries end here. */
  private void stopKeepingBody() {
    replayable = false;
    for (int i = 0; i < sentParts; i++) {
      body.get(i).release();
    }
    body.subList(0, sentParts).clear();
    sentParts = 0;
  }

  void onAttemptFailure(UpstreamAttempt a, StreamCallbacks.PoolFailure failure, String detail) {
    if (a != attempt || finished) {
      return;
    }
    a.outcome = failure == StreamCallbacks.PoolFailure.OVERFLOW
        ? io.spillway.edge.guard.Outcome.ABANDONED : io.spillway.edge.guard.Outcome.TRANSPORT_ERROR;
    a.failed();
    attempt = null;
    if (failure == StreamCallbacks.PoolFailure.OVERFLOW) {
      localReply(503, "upstream connect error or disconnect/reset before headers. reset reason: overflow",
          ResponseFlag.UO);
      return;
    }
    lastFailedHost = a.host();
    boolean retriable = retry.retryOn().contains(RetryOn.CONNECT_FAILURE)
        || retry.retryOn().contains(RetryOn.FIVE_XX)
        || retry.retryOn().contains(RetryOn.GATEWAY_ERROR)
        || (failure == StreamCallbacks.PoolFailure.CONNECTION_TERMINATED && retry.retryOn().contains(RetryOn.RESET));
    if (retriable && tryScheduleRetry()) {
      return;
    }
    localReply(503, "upstream connect error or disconnect/reset before headers. reset reason: connection failure",
        ResponseFlag.UF);
  }

  void onUpstreamHeaders(UpstreamAttempt a, HttpResponse response) {
    if (a != attempt || finished) {
      ReferenceCountUtil.release(response);
      return;
    }
    touch();
    int code = response.status().code();
    a.outcome = io.spillway.edge.guard.Outcome.ofStatus(code);
    if (a.guardTimer != null) {
      a.guardTimer.cancel(false);
      a.guardTimer = null;
    }
    a.cluster().stats().responseCode(code);
    if (isRetriableStatus(code) && tryScheduleRetry(a)) {
      ReferenceCountUtil.release(response);
      return;
    }
    if (a.perTryTimer != null) {
      a.perTryTimer.cancel(false);
      a.perTryTimer = null;
    }
    HttpHeaders headers = response.headers();
    HopByHop.strip(headers);
    headers.set(X_UPSTREAM_SERVICE_TIME,
        Long.toString(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - a.startNanos)));
    headers.set(HttpHeaderNames.SERVER, config.serverName());
    HeaderMutator.apply(entry.responseHeaders(), headers);
    if (authzClientHeaders != null) {
      headers.add(authzClientHeaders);
    }
    response.setProtocolVersion(HttpVersion.HTTP_1_1);
    boolean endStream = response instanceof FullHttpResponse;
    if (!downstream.isHttp2() && !endStream && !head && mayHaveBody(code)
        && !headers.contains(HttpHeaderNames.CONTENT_LENGTH)) {
      headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    }
    responseStarted = true;
    status = code;
    stats.responseCode(code); // charged when the headers go out, as Envoy does
    maybeDisableKeepAlive();
    if (endStream) {
      recordUpstreamCompletion(a);
    }
    downstream.sendHeaders(response, endStream);
    if (endStream) {
      onUpstreamComplete(a);
    }
  }

  void onUpstreamData(UpstreamAttempt a, HttpContent content) {
    if (a != attempt || finished) {
      content.release();
      return;
    }
    touch();
    if (content instanceof LastHttpContent) {
      recordUpstreamCompletion(a);
      downstream.sendData(content);
      onUpstreamComplete(a);
      return;
    }
    downstream.sendData(content);
    if (!downstream.isWritable()) {
      a.stream().pauseReading(true);
    }
  }

  /** Upstream accounting, done before the last byte goes downstream so that stats never lag the response. */
  private void recordUpstreamCompletion(UpstreamAttempt a) {
    Cluster c = a.cluster();
    c.stats().upstreamRqTime.record(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - a.startNanos));
    if (retriesUsed > 0 && status < 500) {
      c.stats().upstreamRqRetrySuccess.inc();
    }
  }

  private void onUpstreamComplete(UpstreamAttempt a) {
    a.complete(status < 500);
    attempt = null;
    if (!requestComplete) {
      stats.downstreamRqResponseBeforeRqComplete.inc();
    }
    finish();
  }

  void onUpstreamReset(UpstreamAttempt a, String reason) {
    if (a != attempt || finished) {
      return;
    }
    a.outcome = io.spillway.edge.guard.Outcome.TRANSPORT_ERROR;
    a.failed();
    attempt = null;
    if (responseStarted) {
      stats.rqResetAfterDownstreamResponseStarted.inc();
      flags |= ResponseFlag.UR.bit();
      downstream.resetStream();
      finish();
      return;
    }
    lastFailedHost = a.host();
    boolean retriable = retry.retryOn().contains(RetryOn.RESET) || retry.retryOn().contains(RetryOn.FIVE_XX);
    if (retriable && tryScheduleRetry()) {
      return;
    }
    localReply(503, "upstream connect error or disconnect/reset before headers. reset reason: " + reason,
        ResponseFlag.UR);
  }

  void onUpstreamReadComplete() {
    if (!finished) {
      downstream.flush();
    }
  }

  void onUpstreamWritability(boolean writable) {
    if (writable) {
      if (readingPaused && unsentBytes <= hcm.bufferLimitBytes()) {
        pauseDownstream(false);
      }
    } else {
      pauseDownstream(true);
    }
  }

  private boolean isRetriableStatus(int code) {
    if (retry.retryOn().isEmpty()) {
      return false;
    }
    return (code >= 500 && retry.retryOn().contains(RetryOn.FIVE_XX))
        || ((code == 502 || code == 503 || code == 504) && retry.retryOn().contains(RetryOn.GATEWAY_ERROR))
        || (retry.retryOn().contains(RetryOn.RETRIABLE_STATUS_CODES) && retry.retriableStatusCodes().contains(code));
  }

  private boolean tryScheduleRetry(UpstreamAttempt current) {
    if (!canRetry()) {
      return false;
    }
    current.cancel();
    attempt = null;
    lastFailedHost = current.host();
    return scheduleRetry();
  }

  private boolean tryScheduleRetry() {
    return canRetry() && scheduleRetry();
  }

  private boolean canRetry() {
    if (responseStarted || retriesUsed >= retry.numRetries()) {
      if (retry.enabled() && retriesUsed >= retry.numRetries()) {
        flags |= ResponseFlag.URX.bit();
      }
      return false;
    }
    // The body must be replayable: kept whole, or there was none.
    return replayable || (requestComplete && bodyBytes == 0);
  }

  /** The outbound guard's request timeout (enforce): no response headers in time → 504. */
  private void onGuardTimeout(UpstreamAttempt a) {
    a.guardTimer = null;
    if (a != attempt || finished || responseStarted) {
      return;
    }
    a.outcome = io.spillway.edge.guard.Outcome.TIMEOUT;
    a.host().requestTimedOut();
    a.cancel();
    attempt = null;
    localReply(504, "upstream request timeout", ResponseFlag.UT);
  }

  private boolean scheduleRetry() {
    io.spillway.edge.guard.PeerGuard guard = guard();
    if (guard != null && !guard.canRetry()) {
      return false; // the retry budget is spent; counted by the guard, never a peer failure
    }
    if (retrySlotHeld) {
      cluster.limits().releaseRetry();
      retrySlotHeld = false;
    }
    if (!cluster.limits().tryAcquireRetry()) {
      cluster.stats().upstreamRqRetryOverflow.inc();
      return false;
    }
    retrySlotHeld = true;
    retriesUsed++;
    cluster.stats().upstreamRqRetry.inc();
    long base = Math.max(1, retry.backoffBase().toNanos());
    long cap = Math.max(base, retry.backoffMax().toNanos());
    long ceiling = Math.min(cap, base << Math.min(retriesUsed - 1, 20));
    long delay = (long) (worker().random().nextDouble() * ceiling);
    retryTimer = schedule(this::startAttempt, Math.max(1, delay));
    return true;
  }

  // ---- timers --------------------------------------------------------------------------------

  private ScheduledFuture<?> schedule(Runnable task, long nanos) {
    return worker().loop().schedule(task, nanos, TimeUnit.NANOSECONDS);
  }

  private static void cancel(ScheduledFuture<?> timer) {
    if (timer != null) {
      timer.cancel(false);
    }
  }

  private void touch() {
    lastActivityNanos = System.nanoTime();
  }

  private Duration idleTimeout() {
    Route.RouteAction action = entry == null ? null : entry.routeAction();
    Duration configured = action != null && action.idleTimeout().isPresent()
        ? action.idleTimeout().get() : config.streamIdleTimeout();
    return hcm.overload().scaled(OverloadConfig.TimerType.HTTP_DOWNSTREAM_STREAM_IDLE, configured);
  }

  /** reduce_timeouts changed: the idle deadline is recomputed from the last activity and re-armed. */
  void rescaleTimers() {
    armStreamTimer();
  }

  /**
   * Asks the downstream for a timer callback at the earlier of the route deadline and the idle
   * deadline. Activity does not move the timer: when it fires, {@link #onTimer()} checks what
   * really expired and asks again for the rest.
   */
  private void armStreamTimer() {
    if (finished) {
      return;
    }
    long idle = idleTimeout().toNanos();
    long next = Long.MAX_VALUE;
    if (idle > 0) {
      next = lastActivityNanos + idle;
    }
    if (routeDeadline != 0) {
      next = Math.min(next, routeDeadline);
    }
    if (next != Long.MAX_VALUE) {
      downstream.armTimer(next);
    }
  }

  /** The downstream's timer fired: act on an expired route or idle deadline, else re-arm. */
  void onTimer() {
    if (finished) {
      return;
    }
    long now = System.nanoTime();
    if (routeDeadline != 0 && now - routeDeadline >= 0) {
      onRouteTimeout();
      return;
    }
    long idle = idleTimeout().toNanos();
    if (idle > 0 && now - lastActivityNanos >= idle) {
      onIdleTimeout();
      return;
    }
    armStreamTimer();
  }

  private void onIdleTimeout() {
    stats.downstreamRqIdleTimeout.inc();
    if (responseStarted) {
      downstream.resetStream();
      finish();
    } else {
      localReply(requestComplete ? 504 : 408, "stream timeout", ResponseFlag.SI);
    }
  }

  private void onRequestTimeout() {
    requestTimer = null;
    if (finished || requestComplete) {
      return;
    }
    stats.downstreamRqTimeout.inc();
    if (responseStarted) {
      downstream.resetStream();
      finish();
    } else {
      localReply(408, "request timeout", null);
    }
  }

  /** The route timeout runs from the moment the whole request has been received (Envoy's rule). */
  private void startRouteTimer() {
    Route.RouteAction action = entry == null ? null : entry.routeAction();
    if (action == null || routeDeadline != 0) {
      return;
    }
    long nanos = action.timeout().toNanos();
    if (nanos > 0) {
      routeDeadline = System.nanoTime() + nanos;
      armStreamTimer();
    }
  }

  private void onRouteTimeout() {
    if (finished) {
      return;
    }
    cluster.stats().upstreamRqTimeout.inc();
    if (attempt != null) {
      attempt.outcome = io.spillway.edge.guard.Outcome.TIMEOUT;
      attempt.host().requestTimedOut();
      attempt.cancel();
      attempt = null;
    }
    if (responseStarted) {
      downstream.resetStream();
      finish();
    } else {
      localReply(504, "upstream request timeout", ResponseFlag.UT);
    }
  }

  private void startPerTryTimer(UpstreamAttempt a) {
    long nanos = retry.perTryTimeout().toNanos();
    if (nanos > 0 && a.perTryTimer == null) {
      a.perTryTimer = schedule(() -> onPerTryTimeout(a), nanos);
    }
  }

  private void onPerTryTimeout(UpstreamAttempt a) {
    a.perTryTimer = null;
    if (a != attempt || finished || responseStarted) {
      return;
    }
    a.cluster().stats().upstreamRqPerTryTimeout.inc();
    a.host().requestTimedOut();
    a.outcome = io.spillway.edge.guard.Outcome.TIMEOUT;
    boolean retriable = retry.retryOn().contains(RetryOn.FIVE_XX)
        || retry.retryOn().contains(RetryOn.GATEWAY_ERROR)
        || retry.retryOn().contains(RetryOn.RESET);
    if (retriable && tryScheduleRetry(a)) {
      return;
    }
    a.cancel();
    attempt = null;
    localReply(504, "upstream request timeout", ResponseFlag.UT);
  }

  // ---- replies and completion ----------------------------------------------------------------

  private void sendRedirect(Route.Redirect r) {
    String scheme = r.scheme().orElse(hcm.tls() ? "https" : "http");
    String hostPart = r.host().orElse(DomainlessAuthority.host(authority));
    String port = r.port().map(p -> ":" + p).orElse(r.host().isPresent() ? "" : DomainlessAuthority.port(authority));
    if (r.port().isPresent() && ((scheme.equals("http") && r.port().get() == 80)
        || (scheme.equals("https") && r.port().get() == 443))) {
      port = "";
    }
    String newPath = path;
    if (r.path().isPresent()) {
      newPath = r.path().get();
    } else if (r.prefixRewrite().isPresent()) {
      // As for forwarding: a prefix match has its prefix replaced, an exact path match the whole path.
      newPath = entry.route().match().path() instanceof Route.PathMatch.Prefix p
          ? r.prefixRewrite().get() + path.substring(Math.min(p.prefix().length(), path.length()))
          : r.prefixRewrite().get();
    }
    String location = scheme + "://" + hostPart + port + newPath
        + (r.stripQuery() || query.isEmpty() ? "" : "?" + query);
    FullHttpResponse response = localResponse(r.responseCode(), "");
    response.headers().set(HttpHeaderNames.LOCATION, location);
    sendLocal(response, null);
  }

  /**
   * Answers locally. Before the response started: a small text/plain reply. After: the response
   * can no longer change, so the stream is reset.
   */
  void localReply(int code, String text, ResponseFlag flag) {
    if (finished) {
      return;
    }
    if (responseStarted) {
      if (flag != null) {
        flags |= flag.bit();
      }
      downstream.resetStream();
      finish();
      return;
    }
    sendLocal(localResponse(code, text), flag);
  }

  /** Inbound admission refused the request: 503 with Retry-After, response flag AR. */
  private void admissionReply() {
    FullHttpResponse response = localResponse(503, "overloaded, retry later");
    response.headers().setInt(HttpHeaderNames.RETRY_AFTER, hcm.admission().retryAfterSeconds());
    sendLocal(response, ResponseFlag.AR);
  }

  /** Envoy's overload reply: 503, flag OM, and x-envoy-local-overloaded when the HCM asks for it. */
  private void overloadReply() {
    FullHttpResponse response = localResponse(503, "envoy overloaded");
    if (config.appendLocalOverload()) {
      response.headers().set(X_LOCAL_OVERLOADED, "true");
    }
    sendLocal(response, ResponseFlag.OM);
  }

  /**
   * disable_http_keepalive: with the action's state as probability (1 when saturated), this
   * response ends its connection.
   */
  private void maybeDisableKeepAlive() {
    OverloadHooks overload = hcm.overload();
    double p = overload.manager().state().actionState(overload.disableKeepalive());
    if (p > 0 && (p >= 1 || worker().random().nextDouble() < p)) {
      stats.downstreamCxOverloadDisableKeepalive.inc();
      downstream.disableKeepAlive();
    }
  }

  private FullHttpResponse localResponse(int code, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
        HttpResponseStatus.valueOf(code), head || bytes.length == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(bytes));
    HttpHeaders h = response.headers();
    if (bytes.length > 0) {
      h.set(HttpHeaderNames.CONTENT_TYPE, "text/plain");
    }
    h.setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
    h.set(HttpHeaderNames.SERVER, config.serverName());
    return response;
  }

  private void sendLocal(FullHttpResponse response, ResponseFlag flag) {
    if (attempt != null) {
      attempt.cancel();
      attempt = null;
    }
    if (flag != null) {
      flags |= flag.bit();
    }
    if (flag == ResponseFlag.DPE && !downstream.isHttp2()) {
      // A request that broke the protocol's limits ends its HTTP/1 connection, as in Envoy.
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    if (entry != null && !(entry.route().action() instanceof Route.RouteAction)) {
      HeaderMutator.apply(entry.responseHeaders(), response.headers());
    }
    if (authzClientHeaders != null) {
      response.headers().add(authzClientHeaders);
    }
    responseStarted = true;
    status = response.status().code();
    stats.responseCode(status);
    maybeDisableKeepAlive();
    downstream.sendHeaders(response, true);
    finish();
  }

  private void pauseDownstream(boolean paused) {
    if (readingPaused != paused) {
      readingPaused = paused;
      downstream.pauseReading(paused);
    }
  }

  private static boolean mayHaveBody(int code) {
    return code >= 200 && code != 204 && code != 304;
  }

  /** Ends the request exactly once, on every path. */
  private void finish() {
    if (finished) {
      return;
    }
    finished = true;
    cancel(requestTimer);
    cancel(retryTimer);
    if (attempt != null) {
      attempt.cancel();
      attempt = null;
    }
    if (guardTicket != null) {
      guardTicket.cancel();
      guardTicket = null;
    }
    if (authz != null) {
      authz.cancel(); // gives back the auth call's guard permit and cluster slot, once
      authz = null;
    }
    if (retrySlotHeld) {
      cluster.limits().releaseRetry();
      retrySlotHeld = false;
    }
    for (int i = 0; i < body.size(); i++) {
      body.get(i).release();
    }
    body.clear();
    if (readingPaused) {
      pauseDownstream(false);
    }
    if (permit != null) {
      // Exactly once, on every path: success, error, reset, timeout, client disconnect.
      boolean success = status > 0 && status < 500 && (flags & (ResponseFlag.DC.bit() | ResponseFlag.UR.bit())) == 0;
      permit.release(System.nanoTime() - startNanos, success);
      permit = null;
    }
    stats.downstreamRqActive.dec();
    stats.downstreamRqCompleted.inc();
    stats.downstreamRqTime.record(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
    downstream.requestFinished(this, requestComplete);
  }

  /** Splits "host:port" for redirects. */
  private static final class DomainlessAuthority {
    static String host(String authority) {
      int colon = authority.lastIndexOf(':');
      return colon > 0 && authority.indexOf(']') < colon ? authority.substring(0, colon) : authority;
    }

    static String port(String authority) {
      int colon = authority.lastIndexOf(':');
      return colon > 0 && authority.indexOf(']') < colon ? authority.substring(colon) : "";
    }
  }
}
