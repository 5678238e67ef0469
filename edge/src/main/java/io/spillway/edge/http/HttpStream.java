package io.spillway.edge.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import io.spillway.edge.config.HttpConnectionManagerConfig;
import io.spillway.edge.config.Route;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.DownstreamWatermarkCallbacks;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.GrpcStatus;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.http.message.UpgradeHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.upstream.ConnectionShare;
import io.spillway.edge.upstream.Worker;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One request and its response inside the HTTP connection manager (Envoy's {@code ActiveStream}):
 * the checks and header changes the connection manager makes before any filter, the route lookup,
 * the filter chain in both directions, local replies, the stream's timers and stats. The codecs
 * call in ({@code onRequest*}, {@code onDownstream*}); filters call back through the callbacks it
 * implements; what passes the last encoder filter goes to the {@link Downstream}. Lives on one
 * worker's loop.
 *
 * <p>Every path ends in {@link #finish()}, exactly once: timers cancelled, filters destroyed,
 * buffers released, the connection told.
 */
final class HttpStream implements DecoderFilterCallbacks, StreamTimers.Expiry {

  private static final AsciiString X_LOCAL_OVERLOADED = AsciiString.cached("x-envoy-local-overloaded");
  /** Envoy's response code details for every answer path normalization gives (the 307 too). */
  static final String PATH_NORMALIZATION_FAILED = "path_normalization_failed";
  static final String HTTP1_UNEXPECTED_UNDERSCORE = "http1.unexpected_underscore";
  static final String HTTP2_UNEXPECTED_UNDERSCORE = "http2.unexpected_underscore";

  private final HttpConnectionManager hcm;
  private final HttpConnectionManagerConfig config;
  private final Downstream downstream;
  private final HcmStats stats;
  private final StreamInfo info;
  private final FilterChain chain;
  private RequestHeaders request;
  private RouteEntry route;
  /** The route table the stream matched in (a filter may ask for a new match in it). */
  private io.spillway.edge.router.RouteTable routeTable;
  private ResponseHeaders responseHeaders; // as sent, for the access log
  private HttpHeaders responseTrailers;
  /** The request's downstream span, or null when the connection manager does not trace it. */
  private io.spillway.edge.tracing.RequestSpan span;

  /**
   * The request's Upgrade value when it asks to switch protocols (HTTP/1.1, or HTTP/2's extended
   * CONNECT), CONNECT's, else null.
   */
  private String upgrade;
  /** A 101 (a 2xx to CONNECT) went out: the stream is a tunnel (counted in downstream_cx_upgrades_active). */
  private boolean upgraded;
  /** The request, as it arrived, is a gRPC call: its local replies are trailers-only gRPC answers. */
  private boolean grpc;
  private boolean requestComplete;
  private boolean decodingStopped;
  private boolean responseStarted;
  private boolean finished;
  private int readDisables;
  private DownstreamWatermarkCallbacks watermarkCallbacks;

  private final StreamTimers timers;

  HttpStream(HttpConnectionManager hcm, Downstream downstream) {
    this.hcm = hcm;
    this.config = hcm.config();
    this.downstream = downstream;
    this.stats = hcm.stats();
    long now = System.nanoTime();
    this.timers = new StreamTimers(hcm, downstream, this, now);
    this.info = new StreamInfo(now, downstream.remoteAddress(), downstream.isHttp2());
    info.setDownstreamAddresses(downstream.remoteSocketAddress(), downstream.localSocketAddress());
    info.setDownstreamTls(downstream.tls());
    this.chain = new FilterChain(this, hcm.filterFactories().size());
    chain.setDecoderBufferLimitDefault(hcm.bufferLimitBytes());
  }

  /** A local reply went out or the stream ended: no decoder filter sees this request again. */
  boolean decodingStopped() {
    return decodingStopped || finished;
  }

  HcmStats hcmStats() {
    return stats;
  }

  boolean isFinished() {
    return finished;
  }

  // ---- from the codec --------------------------------------------------------------------------

  /** The request head arrived; {@code endStream} when it has no body. */
  void onRequestHeaders(RequestHeaders headers, boolean endStream) {
    started(headers, endStream);
    boolean http2 = downstream.isHttp2();
    if (UnderscoreHeaders.refuses(headers.headers(), config.headersWithUnderscores(),
        http2 ? stats.http2.droppedHeadersWithUnderscores : stats.http1.droppedHeadersWithUnderscores)) {
      refuseUnderscores(http2);
      return;
    }
    RequestChecks refusal = RequestChecks.refusal(headers, config);
    if (refusal != null) {
      if (refusal.tooLarge()) {
        stats.downstreamRqTooLarge.inc();
      }
      sendLocalReply(refusal.status(), refusal.detail(), ResponseFlag.DPE);
      return;
    }
    if (hcm.overload().shedsNewRequest(worker().random())) {
      stats.downstreamRqOverloadClose.inc();
      sendLocalReply(503, "envoy overloaded", ResponseFlag.OM, config.appendLocalOverload()
          ? h -> h.set(X_LOCAL_OVERLOADED, "true") : null);
      return;
    }
    boolean connect = headers.method().equals("CONNECT");
    if (!connect && !pathNormalized(headers)) { // a CONNECT has no path
      return;
    }
    if (!endStream) {
      timers.startRequestTimer(config.requestTimeout().toNanos());
    }
    HttpHeaders h = headers.headers();
    if (h.containsValue(HttpHeaderNames.EXPECT, HttpHeaderValues.CONTINUE, true)) {
      h.remove(HttpHeaderNames.EXPECT);
      if (!endStream) {
        downstream.send100Continue();
      }
    }
    String trustedClient = ForwardedHeaders.apply(headers, config, downstream.remoteAddress(), hcm.tls(),
        worker().random());
    if (trustedClient != null) {
      info.setTrustedClient(trustedClient);
    }
    routeTable = hcm.routes();
    route = routeTable.match(headers);
    info.setRoute(route);
    timers.setRoute(route);
    // On HTTP/2 only an extended CONNECT, which the codec turned into one, carries the upgrade fields.
    upgrade = connect ? UpgradeHeaders.CONNECT : UpgradeHeaders.requested(h);
    if (upgrade != null && (!upgradeAllowed() || !connect && upgrade.equalsIgnoreCase(UpgradeHeaders.CONNECT))) {
      // Envoy: 403 without a body, details upgrade_failed; the connection then closes.
      stats.downstreamRqWsOnNonWsRoute.inc();
      localReply(403, "", "upgrade_failed", null, null);
      return;
    }
    info.setUpgrade(upgrade);
    startSpan(headers);
    hcm.createFilterChain(chain, route);
    chain.decodeHeaders(headers, endStream);
    timers.arm();
  }

  /** Envoy's traceRequest: the downstream span, once the route (and so its decorator) is known. */
  private void startSpan(RequestHeaders headers) {
    var tracer = hcm.tracer();
    if (tracer != null) {
      Route.Decorator decorator = route == null ? null : route.route().decorator().orElse(null);
      span = tracer.startDownstream(headers, info, decorator, worker().random());
    }
  }

  /**
   * {@code headers_with_underscores_action: REJECT_REQUEST} refused the request (Envoy's codecs):
   * on HTTP/1 a 400, after which the connection closes, on HTTP/2 a reset of the stream.
   */
  private void refuseUnderscores(boolean http2) {
    if (http2) {
      stats.http2.requestsRejectedWithUnderscoresInHeaders.inc();
      info.setResponseCodeDetails(HTTP2_UNEXPECTED_UNDERSCORE);
      resetStream(ResponseFlag.DPE);
    } else {
      stats.http1.requestsRejectedWithUnderscoresInHeaders.inc();
      stats.downstreamCxProtocolError.inc();
      refuse(400, "Bad Request", HTTP1_UNEXPECTED_UNDERSCORE, ResponseFlag.DPE, null);
    }
  }

  /**
   * {@code path_with_escaped_slashes_action}, {@code normalize_path} and {@code merge_slashes}
   * (Envoy's {@code maybeNormalizePath}), before the route is chosen: 400 when the path cannot be
   * normalized or holds escaped slashes under REJECT_REQUEST, and on HTTP/1 the connection then
   * closes, as after any 400 Envoy makes; 307 to the new path under UNESCAPE_AND_REDIRECT, except
   * for gRPC, whose clients do not follow redirects: 400. A path with a fragment ({@code #}) is
   * refused the same way whatever the settings, as Envoy does by default (RFC 9110 §7.1: a
   * fragment is never part of a request target); HTTP/1 already refuses it while parsing.
   *
   * @return whether the request goes on
   */
  private boolean pathNormalized(RequestHeaders headers) {
    PathNormalizer.Outcome outcome = headers.pathAndQuery().indexOf('#') >= 0
        ? PathNormalizer.Outcome.REJECT : hcm.pathNormalizer().apply(headers);
    if (outcome == PathNormalizer.Outcome.CONTINUE) {
      return true;
    }
    if (outcome == PathNormalizer.Outcome.REDIRECT && !grpc) {
      stats.downstreamRqRedirectedWithNormalizedPath.inc();
      String location = headers.pathAndQuery();
      refuse(307, "", PATH_NORMALIZATION_FAILED, null, h -> h.set(HttpHeaderNames.LOCATION, location));
      return false;
    }
    stats.downstreamRqFailedPathNormalization.inc();
    refuse(400, "", PATH_NORMALIZATION_FAILED, null,
        downstream.isHttp2() ? null : h -> h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE));
    return false;
  }

  /** A local reply whose response code details are not its body. */
  private void refuse(int code, String body, String details, ResponseFlag flag, Consumer<HttpHeaders> modifyHeaders) {
    localReply(code, body, details, flag, modifyHeaders);
  }

  /** The upgrade is enabled for the route, or for the connection manager when the route says nothing. */
  private boolean upgradeAllowed() {
    Route.RouteAction action = route == null ? null : route.routeAction();
    return config.upgradeAllowed(upgrade, action == null ? Map.of() : action.upgradeConfigs());
  }

  /** A request the codec could not turn into a routable head (a bad target): 400, and nothing else runs. */
  void onInvalidRequest(RequestHeaders headers, boolean endStream, String detail) {
    onRefusedRequest(headers, endStream, 400, detail);
  }

  /** A request the codec refuses before any filter ({@code status}: 400 or 403), counted as a request. */
  void onRefusedRequest(RequestHeaders headers, boolean endStream, int status, String detail) {
    started(headers, endStream);
    sendLocalReply(status, detail, ResponseFlag.DPE);
  }

  private void started(RequestHeaders headers, boolean endStream) {
    this.request = headers;
    // Envoy's Grpc::Common::isGrpcRequestHeaders, once, before any filter can change the content type.
    this.grpc = GrpcStatus.isGrpcContentType(headers.headers().get(HttpHeaderNames.CONTENT_TYPE));
    this.requestComplete = endStream;
    if (endStream) {
      info.markLastDownstreamRx(System.nanoTime());
    }
    stats.downstreamRqTotal.inc();
    stats.downstreamRqActive.inc();
    (downstream.isHttp2() ? stats.downstreamRqHttp2Total : stats.downstreamRqHttp1Total).inc();
  }

  /** A request body part arrived; the stream owns it. */
  void onRequestData(ByteBuf data, boolean endStream) {
    if (endStream) {
      markRequestComplete();
    }
    if (finished || decodingStopped) {
      data.release();
      return;
    }
    info.addBytesReceived(data.readableBytes());
    touch();
    chain.decodeData(data, endStream);
  }

  /** The request's trailers arrived; they end the request. */
  void onRequestTrailers(HttpHeaders trailers) {
    markRequestComplete();
    if (finished || decodingStopped) {
      return;
    }
    touch();
    chain.decodeTrailers(trailers);
  }

  private void markRequestComplete() {
    requestComplete = true;
    info.markLastDownstreamRx(System.nanoTime());
    timers.cancelRequestTimer();
  }

  /** The client went away or reset the stream. */
  void onDownstreamReset() {
    if (finished) {
      return;
    }
    info.setResponseFlag(ResponseFlag.DC);
    stats.downstreamRqRxReset.inc();
    finish();
  }

  void onDownstreamWritability(boolean writable) {
    if (watermarkCallbacks != null && !finished) {
      watermarkCallbacks.onDownstreamWritabilityChanged(writable);
    }
  }

  /** Request body bytes the edge holds for this stream (reset_high_memory_stream's account). */
  long heldRequestBytes() {
    return finished ? 0 : chain.heldRequestBytes();
  }

  /** reset_high_memory_stream picked this stream: reset it downstream and end everything upstream. */
  void resetForMemory() {
    resetStream(ResponseFlag.OM);
  }

  // ---- filter callbacks ------------------------------------------------------------------------

  @Override
  public Worker worker() {
    return downstream.worker();
  }

  @Override
  public ConnectionShare connectionShare() {
    return downstream.connectionShare();
  }

  @Override
  public RouteEntry route() {
    return route;
  }

  @Override
  public void clearRouteCache() {
    if (routeTable == null || request == null) {
      return;
    }
    route = routeTable.match(request);
    info.setRoute(route);
    timers.setRoute(route);
  }

  @Override
  public RequestHeaders requestHeaders() {
    return request;
  }

  @Override
  public StreamInfo streamInfo() {
    return info;
  }

  @Override
  public io.spillway.edge.http.filter.ActiveSpan activeSpan() {
    return span == null ? io.spillway.edge.http.filter.ActiveSpan.NONE : span;
  }

  @Override
  public boolean responseStarted() {
    return responseStarted;
  }

  @Override
  public void continueDecoding() {
    if (!finished && !decodingStopped) {
      chain.continueDecoding();
    }
  }

  @Override
  public long decoderBufferLimit() {
    return chain.decoderBufferLimit();
  }

  @Override
  public void setDecoderBufferLimit(long bytes) {
    chain.setDecoderBufferLimit(bytes);
  }

  @Override
  public void encodeHeaders(ResponseHeaders headers, boolean endStream) {
    if (finished) {
      return;
    }
    responseStarted = true;
    info.markFirstUpstreamRx(System.nanoTime());
    info.setResponseCodeDetails("via_upstream");
    touch();
    chain.encodeHeaders(headers, endStream);
  }

  @Override
  public void encodeData(ByteBuf data, boolean endStream) {
    if (finished) {
      data.release();
      return;
    }
    touch();
    chain.encodeData(data, endStream);
  }

  @Override
  public void encodeTrailers(HttpHeaders trailers) {
    if (!finished) {
      chain.encodeTrailers(trailers);
    }
  }

  @Override
  public void flushResponse() {
    if (!finished) {
      downstream.flush();
    }
  }

  @Override
  public void readDisable(boolean disable) {
    if (finished) {
      return;
    }
    int before = readDisables;
    readDisables = Math.max(0, before + (disable ? 1 : -1));
    if ((before == 0) != (readDisables == 0)) {
      downstream.pauseReading(readDisables > 0);
    }
  }

  @Override
  public boolean downstreamWritable() {
    return downstream.isWritable();
  }

  @Override
  public void setDownstreamWatermarkCallbacks(DownstreamWatermarkCallbacks callbacks) {
    this.watermarkCallbacks = callbacks;
  }

  @Override
  public void setResponseDeadline(long deadlineNanos, Runnable onExpiry) {
    timers.setResponseDeadline(deadlineNanos, onExpiry);
  }

  @Override
  public void setMaxStreamDuration(long nanos) {
    timers.setResponseDeadline(info.startNanos() + nanos, () -> {
      if (responseStarted) {
        info.setResponseFlag(ResponseFlag.DT);
      }
      expire(stats.downstreamRqMaxDurationReached, 408, "downstream duration timeout", ResponseFlag.DT,
          grpc ? h -> h.set("grpc-status", "4") : null); // DEADLINE_EXCEEDED, as Envoy answers a gRPC call
    });
  }

  @Override
  public void touch() {
    timers.touch();
  }

  @Override
  public void sendLocalReply(int code, String text, ResponseFlag flag, Consumer<HttpHeaders> modifyHeaders) {
    localReply(code, text, text, flag, modifyHeaders);
  }

  /** A text local reply: {@code details} is its {@code %RESPONSE_CODE_DETAILS%}. */
  private void localReply(int code, String text, String details, ResponseFlag flag,
      Consumer<HttpHeaders> modifyHeaders) {
    if (finished) {
      return;
    }
    if (flag != null) {
      info.setResponseFlag(flag);
    }
    info.setResponseCodeDetails(details);
    if (responseStarted) {
      resetStream(null);
      return;
    }
    LocalReply reply = LocalReply.of(code, text, flag, modifyHeaders, replyTarget());
    encodeLocalReply(reply.headers(), reply.body());
  }

  @Override
  public void sendLocalReply(ResponseHeaders headers, ByteBuf body, ResponseFlag flag) {
    if (finished || responseStarted) {
      sendResponse(headers, body, flag); // released, or a reset
      return;
    }
    if (flag != null) {
      info.setResponseFlag(flag);
    }
    LocalReply reply = LocalReply.of(headers, body, replyTarget());
    encodeLocalReply(reply.headers(), reply.body());
  }

  /** What a local reply made now is made for: this stream, its request and the connection manager's rewriter. */
  private LocalReply.Target replyTarget() {
    return new LocalReply.Target(hcm.localReplies(), request, info, downstream.isHttp2(),
        request != null && request.isHead(), grpc, worker().random(), System.nanoTime());
  }

  @Override
  public void sendResponse(ResponseHeaders headers, ByteBuf body, ResponseFlag flag) {
    if (finished) {
      if (body != null) {
        body.release();
      }
      return;
    }
    if (flag != null) {
      info.setResponseFlag(flag);
    }
    if (responseStarted) {
      if (body != null) {
        body.release();
      }
      resetStream(null);
      return;
    }
    encodeLocalReply(headers, body);
  }

  private void encodeLocalReply(ResponseHeaders headers, ByteBuf body) {
    decodingStopped = true;
    responseStarted = true;
    chain.encodeLocalReply(headers, body);
  }

  @Override
  public void resetStream(ResponseFlag flag) {
    if (finished) {
      return;
    }
    if (flag != null) {
      info.setResponseFlag(flag);
    }
    if (flag == ResponseFlag.UR && upgraded && UpgradeHeaders.CONNECT.equals(upgrade)) {
      downstream.resetConnectTunnel(); // the host's TCP connection was reset (RFC 9113 §8.5)
    } else {
      downstream.resetStream();
    }
    finish();
  }

  /** The encoder filters' callbacks: the stream's, plus continuing the response's iteration. */
  EncoderFilterCallbacks encoderCallbacks() {
    return new EncoderCallbacks(this);
  }

  /** An encoder filter continues the response's iteration. */
  void continueEncoding() {
    if (!finished) {
      chain.continueEncoding();
    }
  }

  @Override
  public void injectDecodedData(ByteBuf data) {
    if (finished) {
      data.release();
      return;
    }
    chain.injectDecodedData(data);
  }

  /** An encoder filter passes on a body part it made, from its data or trailers callback. */
  void injectEncodedData(ByteBuf data) {
    if (finished) {
      data.release();
      return;
    }
    chain.injectEncodedData(data);
  }

  // ---- after the last encoder filter ---------------------------------------------------------

  void sendResponseHeaders(ResponseHeaders headers, boolean endStream) {
    int code = headers.status();
    info.setResponseCode(code);
    responseHeaders = headers;
    stats.responseCode(code); // charged when the headers go out, as Envoy does
    if (!endStream && UpgradeHeaders.opensTunnel(upgrade, code)) {
      upgraded = true;
      stats.downstreamCxUpgradesTotal.inc();
      stats.downstreamCxUpgradesActive.inc();
      timers.cancelRequestTimer(); // the request never ends while the tunnel is up
      info.tunnelOpened();
    }
    headers.headers().set(HttpHeaderNames.SERVER, config.serverName());
    if (span != null) {
      hcm.tracer().onResponseHeaders(span, headers.headers());
    }
    maybeDisableKeepAlive();
    downstream.sendHeaders(headers, endStream);
    if (endStream) {
      responseComplete();
    }
  }

  void sendResponseData(ByteBuf data, boolean endStream) {
    info.addBytesSent(data.readableBytes());
    downstream.sendData(data, endStream);
    if (endStream) {
      responseComplete();
    }
  }

  void sendResponseTrailers(HttpHeaders trailers) {
    responseTrailers = trailers;
    downstream.sendTrailers(trailers);
    responseComplete();
  }

  private void responseComplete() {
    if (!requestComplete) {
      stats.downstreamRqResponseBeforeRqComplete.inc();
    }
    finish();
  }

  /** A buffered response grew past the limit: 500 before the response started, else a reset. */
  void responseOverLimit() {
    resetStream(null);
  }

  /** disable_http_keepalive: this response may end its connection. */
  private void maybeDisableKeepAlive() {
    if (hcm.overload().closesConnection(worker().random())) {
      stats.downstreamCxOverloadDisableKeepalive.inc();
      downstream.disableKeepAlive();
    }
  }

  // ---- timers --------------------------------------------------------------------------------

  /** reduce_timeouts changed: the idle deadline is recomputed from the last activity and re-armed. */
  void rescaleTimers() {
    timers.arm();
  }

  /** The connection's timer fired for this stream. */
  void onTimer() {
    timers.onTimer();
  }

  @Override
  public void onIdleTimeout() {
    expire(stats.downstreamRqIdleTimeout, requestComplete ? 504 : 408, "stream timeout", ResponseFlag.SI, null);
  }

  @Override
  public void onRequestTimeout() {
    if (finished || requestComplete) {
      return;
    }
    expire(stats.downstreamRqTimeout, 408, "request timeout", null, null);
  }

  /** A stream timer's end: counted, then a local reply, or a reset once the response has started. */
  private void expire(Counter counter, int code, String text, ResponseFlag flag,
      Consumer<HttpHeaders> modifyHeaders) {
    counter.inc();
    if (responseStarted) {
      resetStream(null);
    } else {
      sendLocalReply(code, text, flag, modifyHeaders);
    }
  }

  // ---- the end -------------------------------------------------------------------------------

  /** Ends the stream exactly once, on every path. */
  private void finish() {
    if (finished) {
      return;
    }
    finished = true;
    timers.stop();
    chain.destroy();
    if (readDisables > 0) {
      readDisables = 0;
      downstream.pauseReading(false);
    }
    stats.downstreamRqActive.dec();
    stats.downstreamRqCompleted.inc();
    if (upgraded) {
      stats.downstreamCxUpgradesActive.dec();
    }
    long now = System.nanoTime();
    stats.downstreamRqTime.record(TimeUnit.NANOSECONDS.toMillis(now - info.startNanos()));
    info.markEnd(now);
    if (span != null) {
      hcm.tracer().finishDownstream(span, request, info, now);
    }
    hcm.logStream(info, request, responseHeaders, responseTrailers, worker().random());
    downstream.requestFinished(this, requestComplete);
  }

  CompositeByteBuf newBuffer() {
    return worker().allocator().compositeBuffer(64);
  }
}
