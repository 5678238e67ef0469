package io.spillway.edge.filters.router;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.config.Route;
import io.spillway.edge.guard.Outcome;
import io.spillway.edge.guard.PeerGuard;
import io.spillway.edge.guard.Refusal;
import io.spillway.edge.http.filter.DecoderFilter;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.FilterTrailersStatus;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.message.GrpcStatus;
import io.spillway.edge.http.message.GrpcTimeout;
import io.spillway.edge.http.message.HopByHop;
import io.spillway.edge.http.message.UpgradeHeaders;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.upstream.Cluster;
import io.spillway.edge.upstream.StreamCallbacks.PoolFailure;
import io.spillway.edge.upstream.UpstreamCall;
import io.spillway.edge.upstream.UpstreamStream;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Envoy's router, the terminal filter: answers direct responses and redirects, picks the cluster,
 * sends the request to the upstream one try at a time ({@link UpstreamCall}) through the peer's
 * outbound guard, retries by the route's policy ({@link RetryState}), enforces the route timeout
 * (from the end of the request, Envoy's rule) and per-try timeout, streams the body both ways with
 * back-pressure, and hands the response to the encoder filters. An upgrade request (allowed by
 * the connection manager) keeps its Upgrade and Connection fields; a 101 answer keeps them too and
 * turns the exchange into a tunnel whose bytes are the request and response bodies, without the
 * route timeout or retries. A CONNECT on a route with {@code connect_config} is terminated here:
 * the try's stream is a TCP connection to the host, whose 200 opens the same kind of tunnel. The
 * route's {@code request_mirror_policies} copy the request to their clusters as it streams
 * ({@link RequestMirrors}), fire and forget.
 */
final class RouterFilter implements DecoderFilter, UpstreamCall.Listener {
  private static final AsciiString X_UPSTREAM_SERVICE_TIME = AsciiString.cached("x-envoy-upstream-service-time");
  private static final String RESET_BEFORE_HEADERS = "upstream connect error or disconnect/reset before headers. reset reason: ";

  private final RouterFactory factory;
  private DecoderFilterCallbacks callbacks;
  private RequestHeaders request;
  private RouteEntry entry;
  private Cluster cluster;
  private PeerGuard guard;
  private RetryState retry;
  private RequestBody body;
  private UpstreamCall attempt;
  private boolean perTryTimerArmed;
  private ScheduledFuture<?> retryTimer;
  private boolean readingPaused;
  private boolean destroyed;
  private int status;
  private boolean routeTimerStarted;
  /** The request's Upgrade value when it asks to switch protocols (the connection manager allowed it), else null. */
  private String upgrade;
  /** A CONNECT the route terminates ({@code connect_config}): each try is a TCP connection. */
  private boolean terminateConnect;
  /** A CONNECT sent on to the upstream as it is (its bytes wait, as every forwarded upgrade's: {@link #holdsUntilSwitch}). */
  private boolean forwardConnect;
  /** The upstream answered the upgrade with 101: the stream is a tunnel, the route timeout no longer applies. */
  private boolean upgraded;
  private RequestHash requestHash = RequestHash.NONE;
  /** Set-Cookie values a cookie hash policy generated, added to the upstream's response; null when none. */
  private java.util.List<String> setCookies;
  /** The span of the current try: its own CLIENT span with spawn_upstream_span, else the request's. */
  private io.spillway.edge.http.filter.ActiveSpan trySpan = io.spillway.edge.http.filter.ActiveSpan.NONE;
  /** The current try's response status, 0 until its headers came. */
  private int tryStatus;
  /** The request's copies for the route's request_mirror_policies; null when it has none. */
  private RequestMirrors mirrors;

  RouterFilter(RouterFactory factory) {
    this.factory = factory;
  }

  io.spillway.edge.upstream.Worker worker() {
    return callbacks.worker();
  }

  @Override
  public void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks) {
    this.callbacks = callbacks;
  }

  // ---- the request ---------------------------------------------------------------------------

  @Override
  public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
    request = headers;
    upgrade = callbacks.streamInfo().upgrade();
    entry = callbacks.route();
    if (entry == null) {
      factory.stats().noRoute().inc();
      callbacks.sendLocalReply(404, "", ResponseFlag.NR);
      return FilterHeadersStatus.STOP_ITERATION;
    }
    switch (entry.route().action()) {
      case Route.DirectResponse direct -> {
        factory.stats().rqDirectResponse().inc();
        callbacks.sendLocalReply(direct.status(), direct.body().orElse(""), null,
            h -> HeaderMutator.apply(entry.responseHeaders(), h, () -> stream(headers, null)));
      }
      case Route.Redirect redirect -> {
        factory.stats().rqRedirect().inc();
        String location = Redirects.location(redirect, entry, headers, factory.context().tls());
        callbacks.sendLocalReply(redirect.responseCode(), "", null, h -> {
          h.set(HttpHeaderNames.LOCATION, location);
          HeaderMutator.apply(entry.responseHeaders(), h, () -> stream(headers, null));
        });
      }
      case Route.RouteAction action -> forward(action, endStream);
    }
    return FilterHeadersStatus.STOP_ITERATION;
  }

  private void forward(Route.RouteAction action, boolean endStream) {
    String clusterName = action.clusterHeader().isPresent()
        ? request.headers().get(action.clusterHeader().get())
        : entry.pickCluster(worker().random());
    cluster = clusterName == null ? null : factory.context().clusters().get(clusterName);
    if (cluster == null) {
      factory.stats().noCluster().inc();
      callbacks.sendLocalReply(503, "", ResponseFlag.NC);
      return;
    }
    terminateConnect = UpgradeHeaders.CONNECT.equals(upgrade) && action.terminatesConnect();
    forwardConnect = UpgradeHeaders.CONNECT.equals(upgrade) && !terminateConnect;
    if (upgrade != null && !forwardConnect && !terminateConnect
        && cluster.config().protocol() == ClusterConfig.UpstreamProtocol.HTTP2) {
      // Envoy would send an extended CONNECT (RFC 8441); the edge's HTTP/2 upstreams cannot.
      callbacks.sendLocalReply(503, "upgrade to an HTTP/2 upstream is not supported", null);
      return;
    }
    factory.stats().rqTotal().inc();
    // Envoy hashes the request as it arrived, before the route's rewrites and header changes.
    requestHash = action.hashPolicies().isEmpty() || !cluster.config().lbPolicy().hashed() ? RequestHash.NONE
        : RequestHash.of(action.hashPolicies(), request, callbacks.streamInfo(), this::setCookie);
    callbacks.setDownstreamWatermarkCallbacks(this::onDownstreamWritability);
    guard = factory.context().guards() == null ? null : factory.context().guards().guard(cluster.name());
    retry = new RetryState(entry.retryPolicy(), cluster, guard);
    // A tunnel's bytes are never kept for a retry: an upgrade request is not replayed past its head.
    body = new RequestBody(retry.enabled() && upgrade == null, callbacks.decoderBufferLimit());
    if (endStream) {
      body.endWithoutBody();
    }
    finalizeRequestHeaders(action);
    if (action.maxStreamDuration().isPresent()) {
      startStreamDurationTimer(action.maxStreamDuration().get());
    }
    if (!action.mirrorPolicies().isEmpty() && upgrade == null) {
      mirrors = RequestMirrors.start(action.mirrorPolicies(), request, endStream, factory, callbacks,
          action.timeout().toNanos());
    }
    if (endStream) {
      startRouteTimer();
    }
    startAttempt();
  }

  /** A cookie hash policy's generated cookie: set on the response, and its value's hash is the request's. */
  private long setCookie(String name, String value, String path, java.time.Duration ttl) {
    StringBuilder c = new StringBuilder(name).append("=\"").append(value).append('"');
    if (ttl.toSeconds() != 0) { // Envoy takes the ttl's whole seconds
      c.append("; Max-Age=").append(ttl.toSeconds());
    }
    if (!path.isEmpty()) {
      c.append("; Path=").append(path);
    }
    c.append("; HttpOnly");
    if (setCookies == null) {
      setCookies = new java.util.ArrayList<>(1);
    }
    setCookies.add(c.toString());
    return io.spillway.edge.upstream.lb.XxHash64.hash(value);
  }

  /** The route's changes to the request (Envoy's finalizeRequestHeaders): rewrites and header mutations. */
  private void finalizeRequestHeaders(Route.RouteAction action) {
    if (action.prefixRewrite().isPresent()) {
      request.setPathAndQuery(Redirects.rewritePath(entry, request, action.prefixRewrite().get()));
    }
    if (action.hostRewriteLiteral().isPresent()) {
      request.setAuthority(action.hostRewriteLiteral().get());
    }
    HeaderMutator.apply(entry.requestHeaders(), request.headers(), () -> stream(request, null));
    if (forwardConnect) {
      return; // a CONNECT is its own request: no Upgrade field
    }
    if (upgrade != null && !terminateConnect) {
      UpgradeHeaders.restore(request.headers(), upgrade);
    } else if (UpgradeHeaders.requested(request.headers()) != null) {
      // Only an upgrade the connection manager let through goes upstream as one.
      request.headers().remove(HttpHeaderNames.UPGRADE);
    }
  }

  /** What header values with command operators read: the stream so far. */
  private io.spillway.edge.accesslog.LogInput stream(RequestHeaders requestHeaders, ResponseHeaders response) {
    return new io.spillway.edge.accesslog.LogInput(callbacks.streamInfo(), requestHeaders, response, null,
        callbacks.worker().random());
  }

  @Override
  public FilterDataStatus decodeData(ByteBuf data, boolean endStream) {
    if (body == null || destroyed) {
      data.release(); // a local reply is on its way; nothing to forward
      return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
    }
    if (mirrors != null) {
      mirrors.onData(data, endStream);
    }
    body.add(data, endStream);
    if (endStream) {
      startRouteTimer();
    }
    sendBodyOrHold();
    if (endStream && attempt != null && attempt.stream() != null) {
      startPerTryTimer(attempt);
    }
    return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
  }

  @Override
  public FilterTrailersStatus decodeTrailers(HttpHeaders trailers) {
    if (body == null || destroyed) {
      return FilterTrailersStatus.STOP_ITERATION;
    }
    if (mirrors != null) {
      mirrors.onTrailers(trailers);
    }
    body.addTrailers(trailers);
    startRouteTimer();
    sendBodyOrHold();
    if (attempt != null && attempt.stream() != null) {
      startPerTryTimer(attempt);
    }
    return FilterTrailersStatus.STOP_ITERATION;
  }

  /**
   * An upgrade (or CONNECT) sent on to the upstream: the client's bytes wait until the upstream's
   * answer opens the tunnel. Over HTTP/1.1 the connection manager reads nothing before the switch;
   * over HTTP/2 (CONNECT, extended CONNECT) DATA may come right behind the request's HEADERS.
   */
  private boolean holdsUntilSwitch() {
    return upgrade != null && !terminateConnect;
  }

  private void sendBodyOrHold() {
    if (attempt != null && attempt.stream() != null && !(holdsUntilSwitch() && !upgraded)) {
      body.writeTo(attempt.stream());
      if (readingPaused && attempt.stream().isWritable()) {
        pauseDownstream(false);
      }
    } else if (body.unsentBytes() > callbacks.decoderBufferLimit()) {
      pauseDownstream(true);
    }
  }

  @Override
  public long bufferedBytes() {
    return body == null || destroyed ? 0 : body.heldBytes();
  }

  // ---- tries ---------------------------------------------------------------------------------

  /**
   * A try: through the peer's outbound guard to a host (not the one that just failed, if there are
   * others), within the downstream connection's share of the cluster's request budget.
   */
  private void startAttempt() {
    retryTimer = null;
    if (destroyed) {
      return;
    }
    UpstreamCall call = new UpstreamCall(cluster, guard, worker(), this, callbacks.connectionShare());
    if (requestHash.present()) {
      call.hash(requestHash.value());
    }
    if (terminateConnect) {
      call.terminateConnect();
    }
    attempt = call;
    trySpan = callbacks.activeSpan().spawnUpstream(cluster.name());
    tryStatus = 0;
    perTryTimerArmed = false;
    body.rewind();
    call.start(retry.hostToAvoid());
  }

  /** Ends the try's span (once; nothing when the try has the request's span): host, status, flags. */
  private void endTry(UpstreamCall a) {
    io.spillway.edge.upstream.Host host = a == null ? null : a.host();
    trySpan.finishUpstream(host == null ? null : host.addressString(),
        cluster != null && cluster.config().protocol() == ClusterConfig.UpstreamProtocol.HTTP2 ? "HTTP/2" : "HTTP/1.1",
        tryStatus, callbacks.streamInfo().responseFlags());
  }

  @Override
  public void onCallRefused(UpstreamCall call, Refusal reason) {
    endTry(call);
    attempt = null;
    // 503, flag GR: the guard's own refusals never count against the peer.
    callbacks.sendLocalReply(503, "upstream guard refused the call: " + reason.label(), ResponseFlag.GR);
  }

  @Override
  public void onCallUnavailable(UpstreamCall call, boolean noHost) {
    endTry(call);
    attempt = null;
    if (noHost) {
      callbacks.sendLocalReply(503, "no healthy upstream", ResponseFlag.UH);
    } else {
      callbacks.sendLocalReply(503, RESET_BEFORE_HEADERS + "overflow", ResponseFlag.UO);
    }
  }

  @Override
  public void onCallReady(UpstreamCall a) {
    if (a != attempt || destroyed) {
      a.cancel();
      return;
    }
    UpstreamStream stream = a.stream();
    callbacks.streamInfo().setUpstreamHost(a.host());
    trySpan.injectContext(request.headers());
    if (entry.routeAction().autoHostRewrite()
        && cluster.config().discoveryType().resolvesNames()) {
      // Envoy rewrites to the host's DNS name; STATIC and EDS hosts have none, so their Host stays.
      request.setAuthority(a.host().hostname());
    }
    if (holdsUntilSwitch()) {
      stream.writeHeaders(request, true, false); // the bytes follow the upstream's answer
    } else if (body.empty()) {
      stream.writeHeaders(request, false, true);
    } else {
      stream.writeHeaders(request, !body.complete() || body.hasContent(), false);
      body.writeTo(stream);
    }
    if (body.complete()) {
      startPerTryTimer(a);
    }
    if (!stream.isWritable()) {
      pauseDownstream(true);
    } else if (readingPaused) {
      // Reading paused while the stream was not there (the body passed the buffer limit): the
      // stream took that body and can take more, and no writability change will say so.
      pauseDownstream(false);
    }
  }

  @Override
  public void onCallFailed(UpstreamCall a, PoolFailure failure, String detail) {
    if (a != attempt || destroyed) {
      return;
    }
    endTry(a);
    attempt = null;
    if (failure == PoolFailure.OVERFLOW) {
      callbacks.sendLocalReply(503, RESET_BEFORE_HEADERS + "overflow", ResponseFlag.UO);
      return;
    }
    retry.failedOn(a.host());
    if (retry.retriesPoolFailure(failure) && scheduleRetry()) {
      return;
    }
    callbacks.sendLocalReply(503, RESET_BEFORE_HEADERS + "connection failure", ResponseFlag.UF);
  }

  // ---- the response --------------------------------------------------------------------------

  @Override
  public void onResponseHeaders(UpstreamCall a, ResponseHeaders response, boolean endStream) {
    if (a != attempt || destroyed) {
      return;
    }
    callbacks.touch();
    int code = response.status();
    tryStatus = code;
    a.setOutcome(Outcome.ofStatus(code));
    a.cancelTimers(); // the guard's and the per-try timeout run until the response headers
    a.cluster().stats().responseCode(code);
    if (retry.retriesStatus(code) && retryAfter(a)) {
      return;
    }
    HttpHeaders headers = response.headers();
    a.host().loadReport(headers);
    String switchedTo = upgrade != null && code == 101 ? UpgradeHeaders.requested(headers) : null;
    HopByHop.strip(headers);
    if (switchedTo != null && !endStream) {
      // The switch goes through to the client (RFC 9110 §15.2.2).
      UpgradeHeaders.restore(headers, switchedTo);
    }
    boolean connectOpened = (terminateConnect || forwardConnect) && UpgradeHeaders.opensTunnel(upgrade, code);
    if (!endStream && (switchedTo != null || connectOpened)) {
      // The tunnel is open; the route timeout stops here (Envoy).
      upgraded = true;
      a.switchedProtocols();
      if (routeTimerStarted) {
        callbacks.setResponseDeadline(0, null);
      }
    }
    headers.set(X_UPSTREAM_SERVICE_TIME, Long.toString(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - a.readyNanos())));
    if (setCookies != null) {
      for (String c : setCookies) {
        headers.add(HttpHeaderNames.SET_COOKIE, c);
      }
    }
    HeaderMutator.apply(entry.responseHeaders(), headers, () -> stream(request, response));
    status = code;
    if (endStream) {
      completed(a);
    }
    callbacks.encodeHeaders(response, endStream);
    if (holdsUntilSwitch() && upgraded && !destroyed && attempt != null) {
      // What the client sent ahead of the tunnel goes now (a CONNECT that ended with its head: the end).
      if (body.empty()) {
        attempt.stream().writeData(io.netty.buffer.Unpooled.EMPTY_BUFFER, true);
      } else {
        sendBodyOrHold();
      }
    }
  }

  @Override
  public void onResponseData(UpstreamCall a, ByteBuf data, boolean endStream) {
    if (a != attempt || destroyed) {
      data.release();
      return;
    }
    callbacks.touch();
    if (endStream) {
      completed(a);
    }
    callbacks.encodeData(data, endStream);
    if (!endStream && !callbacks.downstreamWritable() && attempt != null && attempt.stream() != null) {
      attempt.stream().pauseReading(true);
    }
  }

  @Override
  public void onResponseTrailers(UpstreamCall a, HttpHeaders trailers) {
    if (a != attempt || destroyed) {
      return;
    }
    a.host().loadReport(trailers);
    completed(a);
    callbacks.encodeTrailers(trailers);
  }

  /** The response is whole: account for the try and give back its slot, before the last part goes out. */
  private void completed(UpstreamCall a) {
    recordCompletion(a);
    endTry(a);
    a.complete(status < 500);
    attempt = null;
  }

  /** Upstream accounting, done before the last byte goes downstream so that stats never lag the response. */
  private void recordCompletion(UpstreamCall a) {
    Cluster c = a.cluster();
    c.stats().upstreamRqTime.record(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - a.readyNanos()));
    if (retry.retriesUsed() > 0 && status < 500) {
      c.stats().upstreamRqRetrySuccess.inc();
    }
  }

  @Override
  public void onCallReset(UpstreamCall a, String reason) {
    if (a != attempt || destroyed) {
      return;
    }
    endTry(a);
    attempt = null;
    if (callbacks.responseStarted()) {
      factory.stats().rqResetAfterDownstreamResponseStarted().inc();
      callbacks.resetStream(ResponseFlag.UR);
      return;
    }
    retry.failedOn(a.host());
    if (retry.retriesReset() && scheduleRetry()) {
      return;
    }
    callbacks.sendLocalReply(503, RESET_BEFORE_HEADERS + reason, ResponseFlag.UR);
  }

  @Override
  public void onReadComplete(UpstreamCall a) {
    if (!destroyed) {
      callbacks.flushResponse();
    }
  }

  @Override
  public void onWritabilityChanged(UpstreamCall a, boolean writable) {
    if (writable) {
      if (readingPaused && body.unsentBytes() <= callbacks.decoderBufferLimit()) {
        pauseDownstream(false);
      }
    } else {
      pauseDownstream(true);
    }
  }

  private void onDownstreamWritability(boolean writable) {
    if (attempt != null && attempt.stream() != null) {
      attempt.stream().pauseReading(!writable);
    }
  }

  // ---- retries and timeouts ------------------------------------------------------------------

  /** Abandons try {@code current} for a retry, if one may be taken. */
  private boolean retryAfter(UpstreamCall current) {
    if (!retry.mayRetry(callbacks.responseStarted(), body.replayable())) {
      markExhausted();
      return false;
    }
    endTry(current);
    current.cancel();
    attempt = null;
    retry.failedOn(current.host());
    return scheduleRetry();
  }

  private boolean scheduleRetry() {
    if (!retry.mayRetry(callbacks.responseStarted(), body.replayable())) {
      markExhausted();
      return false;
    }
    long delay = retry.takeRetry(worker().random());
    if (delay < 0) {
      return false;
    }
    retryTimer = schedule(this::startAttempt, delay);
    return true;
  }

  private void markExhausted() {
    if (retry.exhausted()) {
      callbacks.streamInfo().setResponseFlag(ResponseFlag.URX);
    }
  }

  /**
   * A route with {@code max_stream_duration} limits the stream from its start instead of timing
   * the response (Envoy's connection manager); a gRPC call's upstream then gets the limit as its
   * {@code grpc-timeout}, or none when there is no limit.
   */
  private void startStreamDurationTimer(Route.MaxStreamDuration limits) {
    routeTimerStarted = true; // the route's timeout is not used (Envoy: usingNewTimeouts)
    io.netty.handler.codec.http.HttpHeaders h = request.headers();
    boolean grpc = GrpcStatus.isGrpcContentType(h.get(HttpHeaderNames.CONTENT_TYPE));
    long nanos = limits.limitNanos(grpc ? GrpcTimeout.parseNanos(h.get(GrpcTimeout.HEADER)) : GrpcTimeout.NONE);
    if (nanos == Route.MaxStreamDuration.NONE) {
      if (grpc) {
        h.remove(GrpcTimeout.HEADER);
      }
      return;
    }
    if (grpc) {
      h.set(GrpcTimeout.HEADER, GrpcTimeout.format(nanos));
    }
    callbacks.setMaxStreamDuration(nanos);
  }

  /** The route timeout runs from the moment the whole request has been received (Envoy's rule). */
  private void startRouteTimer() {
    long nanos = entry.routeAction().timeout().toNanos();
    if (nanos > 0 && !routeTimerStarted && !upgraded) {
      routeTimerStarted = true;
      callbacks.setResponseDeadline(System.nanoTime() + nanos, this::onRouteTimeout);
    }
  }

  private void onRouteTimeout() {
    if (destroyed) {
      return;
    }
    cluster.stats().upstreamRqTimeout.inc();
    if (attempt != null) {
      endTry(attempt);
      attempt.setOutcome(Outcome.TIMEOUT);
      if (attempt.host() != null) {
        attempt.host().requestTimedOut();
      }
      attempt.cancel();
      attempt = null;
    }
    if (callbacks.responseStarted()) {
      callbacks.resetStream(null);
    } else {
      callbacks.sendLocalReply(504, "upstream request timeout", ResponseFlag.UT);
    }
  }

  private void startPerTryTimer(UpstreamCall a) {
    long nanos = retry.perTryTimeoutNanos();
    if (nanos > 0 && !perTryTimerArmed) {
      perTryTimerArmed = true;
      a.cancelOnEnd(schedule(() -> onPerTryTimeout(a), nanos));
    }
  }

  private void onPerTryTimeout(UpstreamCall a) {
    if (a != attempt || destroyed || callbacks.responseStarted()) {
      return;
    }
    a.cluster().stats().upstreamRqPerTryTimeout.inc();
    a.host().requestTimedOut();
    a.setOutcome(Outcome.TIMEOUT);
    if (retry.retriesPerTryTimeout() && retryAfter(a)) {
      return;
    }
    endTry(a);
    a.cancel();
    attempt = null;
    callbacks.sendLocalReply(504, "upstream request timeout", ResponseFlag.UT);
  }

  /** The outbound guard's request timeout (enforce): no response headers in time → 504. */
  @Override
  public void onCallTimedOut(UpstreamCall a) {
    if (a != attempt || destroyed) {
      return;
    }
    endTry(a);
    attempt = null;
    callbacks.sendLocalReply(504, "upstream request timeout", ResponseFlag.UT);
  }

  private ScheduledFuture<?> schedule(Runnable task, long nanos) {
    return worker().loop().schedule(task, nanos, TimeUnit.NANOSECONDS);
  }

  private void pauseDownstream(boolean paused) {
    if (readingPaused != paused) {
      readingPaused = paused;
      callbacks.readDisable(paused);
    }
  }

  // ---- the end -------------------------------------------------------------------------------

  @Override
  public void onDestroy() {
    destroyed = true;
    if (mirrors != null) {
      mirrors.onRequestDestroyed();
    }
    if (retryTimer != null) {
      retryTimer.cancel(false);
      retryTimer = null;
    }
    if (attempt != null) {
      endTry(attempt);
      attempt.cancel();
      attempt = null;
    }
    if (retry != null) {
      retry.releaseSlot();
    }
    if (body != null) {
      body.release();
    }
    if (readingPaused) {
      pauseDownstream(false);
    }
  }
}
