package io.spillway.edge.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.SocketChannelConfig;
import io.netty.util.ReferenceCountUtil;
import io.spillway.edge.http.filter.DownstreamTls;
import io.spillway.edge.http.message.HopByHop;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.http.message.UpgradeHeaders;
import io.spillway.edge.upstream.ConnectionShare;
import io.spillway.edge.upstream.Worker;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Supplier;

/**
 * The last handler of an HTTP/1.1 downstream connection: turns decoded messages into
 * {@link HttpStream}s, one at a time (RFC 9112 §9.3.2: pipelined requests are answered in
 * order; while one is in flight the next waits and reading pauses), and owns the connection's
 * persistence — {@code Connection: close} when the client, a drain or the connection's age asks
 * for it (RFC 9112 §9.6) — and its idle and request-header timeouts. A request that asks to
 * upgrade (RFC 9110 §7.8) and is answered 101, or a CONNECT (RFC 9110 §9.3.6) answered 2xx, turns
 * the connection into a tunnel: the codec goes and the bytes both ways are that stream's body until
 * it ends, which ends the connection.
 */
final class Http1ServerHandler extends ChannelInboundHandlerAdapter implements Downstream, Http1ConnectionTimer.Owner {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Http1ServerHandler.class);

  private static final int PAUSE_BACKPRESSURE = 1;
  private static final int PAUSE_PIPELINING = 2;
  /** An upgrade request is waiting for its answer: nothing is read until the switch (or the close). */
  private static final int PAUSE_UPGRADE = 4;
  private static final int MAX_PIPELINED = 16;

  private final HttpConnectionManager hcm;
  private final Worker worker;
  private final Http1RequestValidator validator;
  private final ArrayDeque<Object> pipelined = new ArrayDeque<>();
  private final ConnectionShare share = new ConnectionShare();
  private ChannelHandlerContext ctx;
  /** The connection's TLS facts, read on the first request that asks. */
  private DownstreamTls tls;
  private boolean tlsRead;
  private final Supplier<DownstreamTls> tlsReader = this::readTls;
  private String remoteAddress;
  private HttpStream current;
  private boolean currentBodyDone;
  private boolean keepAlive = true;
  private boolean closing;
  private int pauseReasons;
  private Http1ConnectionTimer timer;
  private final long openedAt = System.nanoTime();
  private ScheduledFuture<?> maxDurationTimer;
  private boolean skipEmptyLast;
  private boolean currentHead;
  /**
   * What the current request asks to switch to (its Upgrade value, or {@link UpgradeHeaders#CONNECT}),
   * whether or not its route allows it; null for other requests.
   */
  private String currentUpgrade;
  /**
   * A 101 went out: the HTTP/1.1 codec is gone and the connection's bytes, both ways, are the
   * current stream's body (Envoy's upgraded stream); the connection ends with the stream.
   */
  private boolean tunnel;

  Http1ServerHandler(HttpConnectionManager hcm, Worker worker, Http1RequestValidator validator) {
    this.hcm = hcm;
    this.worker = worker;
    this.validator = validator;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    remoteAddress = ctx.channel().remoteAddress() instanceof InetSocketAddress isa
        ? isa.getAddress().getHostAddress() : "127.0.0.1";
    hcm.stats().downstreamCxHttp1Total.inc();
    hcm.stats().downstreamCxHttp1Active.inc();
    timer = new Http1ConnectionTimer(hcm, ctx.executor(), this);
    timer.startIdle();
    scheduleMaxDuration();
  }

  // ---- inbound ---------------------------------------------------------------------------------

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (closing) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (tunnel) {
      HttpStream r = current;
      if (r != null && msg instanceof ByteBuf bytes) {
        r.onRequestData(bytes, false);
      } else {
        ReferenceCountUtil.release(msg);
      }
      return;
    }
    if (current != null && currentBodyDone) {
      // A pipelined request decoded from the same read: it waits its turn.
      if (pipelined.size() >= MAX_PIPELINED) {
        ReferenceCountUtil.release(msg);
        ctx.close();
        return;
      }
      pipelined.add(msg);
      if (!(msg instanceof LastHttpContent lc && lc.content().readableBytes() == 0 && pipelined.size() == 1)) {
        // A real pipelined request: stop reading more until the one in flight is answered.
        pause(PAUSE_PIPELINING, true);
      }
      return;
    }
    dispatch(msg);
  }

  private void dispatch(Object msg) {
    if (msg instanceof HttpRequest req) {
      OverloadHooks overload = hcm.overload();
      if (overload.http1AbortDispatch().shouldShed(overload.manager().state(), worker.random())) {
        // http1_server_abort_dispatch: stop dispatching this connection and close it.
        ReferenceCountUtil.release(msg);
        closing = true;
        ctx.close();
        return;
      }
      timer.onRequest();
      keepAlive = HttpUtil.isKeepAlive(req);
      boolean noBody = !HttpUtil.isTransferEncodingChunked(req) && HttpUtil.getContentLength(req, 0L) == 0L;
      current = new HttpStream(hcm, this);
      currentBodyDone = noBody;
      skipEmptyLast = noBody;
      currentHead = req.method().equals(HttpMethod.HEAD);
      boolean connect = req.method().equals(HttpMethod.CONNECT);
      String upgrade = connect ? UpgradeHeaders.CONNECT
          : Http1RequestDecoder.asksToUpgrade(req) ? UpgradeHeaders.requested(req.headers()) : null;
      RequestHeaders headers = requestHeaders(req);
      if (headers == null) {
        hcm.stats().downstreamRqNonRelativePath.inc();
        current.onInvalidRequest(new RequestHeaders(req.method().name(), scheme(), "", "/", req.headers()), noBody,
            "invalid request target");
      } else if (upgrade != null && !noBody) {
        // Where a body would end and the new protocol begin is for each hop to guess: refused
        // (Envoy passes every byte after the head on as upgrade payload, ignoring the framing).
        current.onRefusedRequest(headers, false, 400, "upgrade request with a body");
      } else if (upgrade != null) {
        // RFC 9110 §7.8: the request's end is the new protocol's start. The stream's body is the
        // tunnel (Envoy's upgrade), so the request does not end with its head.
        if (!connect) {
          UpgradeHeaders.restore(headers.headers(), upgrade);
        }
        currentUpgrade = upgrade;
        pause(PAUSE_UPGRADE, true);
        current.onRequestHeaders(headers, false);
      } else {
        current.onRequestHeaders(headers, noBody);
      }
    } else if (msg instanceof HttpContent content) {
      if (skipEmptyLast && content instanceof LastHttpContent) {
        // The decoder's end marker of a body-less request, already reported as end of stream.
        skipEmptyLast = false;
        content.release();
        return;
      }
      HttpStream r = current;
      if (r == null) {
        content.release();
        return;
      }
      if (content instanceof LastHttpContent last) {
        currentBodyDone = true;
        HttpHeaders trailers = last.trailingHeaders();
        if (trailers.isEmpty()) {
          r.onRequestData(last.content(), true);
        } else {
          if (last.content().isReadable()) {
            r.onRequestData(last.content(), false);
          } else {
            last.release();
          }
          r.onRequestTrailers(trailers);
        }
      } else {
        r.onRequestData(content.content(), false);
      }
    } else {
      ReferenceCountUtil.release(msg);
    }
  }

  /**
   * The request as the filter chain sees it: Host as the authority, connection-specific fields
   * removed (RFC 9110 §7.6.1). {@link Http1RequestConformance} has already made an absolute-form
   * target origin-form and checked a CONNECT's authority-form target, which becomes the authority
   * (a CONNECT has no path); anything else not in origin form (asterisk-form) gives null.
   */
  private RequestHeaders requestHeaders(HttpRequest req) {
    String uri = req.uri();
    boolean connect = req.method().equals(HttpMethod.CONNECT);
    if (!connect && !uri.startsWith("/")) {
      return null;
    }
    HttpHeaders headers = req.headers();
    String authority = connect ? uri : headers.get(HttpHeaderNames.HOST);
    headers.remove(HttpHeaderNames.HOST);
    HopByHop.strip(headers);
    return new RequestHeaders(req.method().name(), scheme(), authority, connect ? "" : uri, headers);
  }

  private String scheme() {
    return hcm.tls() ? "https" : "http";
  }

  /** Bytes arrived: if no request is in flight, the request-header timer starts now. */
  void onBytes() {
    if (current == null) {
      timer.onBytesWhileIdle();
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof ChannelInputShutdownEvent && tunnel) {
      // The client half-closed the tunnel: the end of the request, passed on to the upstream.
      HttpStream r = current;
      if (r != null) {
        r.onRequestData(Unpooled.EMPTY_BUFFER, true);
      } else {
        ctx.close();
      }
      return;
    }
    if (evt instanceof Http1RequestValidator.ProtocolError) {
      closing = true;
      HttpStream r = current;
      current = null;
      if (r != null) {
        r.onDownstreamReset();
      }
      return;
    }
    if (evt instanceof DownstreamEvents.CloseIdle close) {
      if (current == null && !closing && System.nanoTime() - timer.idleSince() >= close.idleNanos()) {
        hcm.stats().downstreamCxOverloadCloseIdle.inc();
        closing = true;
        ctx.close();
      }
      return;
    }
    if (evt instanceof DownstreamEvents.RescaleTimers) {
      if (maxDurationTimer != null && !closing) {
        scheduleMaxDuration();
      }
      if (current != null) {
        current.rescaleTimers();
      } else if (!closing) {
        timer.rescaleIdle();
      }
      return;
    }
    if (evt instanceof DownstreamEvents.Drain) {
      onDrain();
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    HttpStream r = current;
    if (r != null) {
      r.onDownstreamWritability(ctx.channel().isWritable());
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    closing = true;
    timer.stop();
    hcm.stats().downstreamCxHttp1Active.dec();
    HttpStream r = current;
    current = null;
    if (r != null && !r.isFinished()) {
      hcm.stats().downstreamCxDestroyRemoteActiveRq.inc();
      r.onDownstreamReset();
    }
    Object m;
    while ((m = pipelined.poll()) != null) {
      ReferenceCountUtil.release(m);
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("downstream HTTP/1 connection error on {}: {}", ctx.channel(), cause.toString());
    ctx.close();
  }

  // ---- Downstream --------------------------------------------------------------------------------

  @Override
  public Worker worker() {
    return worker;
  }

  @Override
  public boolean isHttp2() {
    return false;
  }

  @Override
  public ConnectionShare connectionShare() {
    return share;
  }

  @Override
  public String remoteAddress() {
    return remoteAddress;
  }

  @Override
  public InetSocketAddress remoteSocketAddress() {
    return ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a : null;
  }

  @Override
  public InetSocketAddress localSocketAddress() {
    return ctx.channel().localAddress() instanceof InetSocketAddress a ? a : null;
  }

  @Override
  public Supplier<DownstreamTls> tls() {
    return tlsReader;
  }

  private DownstreamTls readTls() {
    if (!tlsRead) {
      tls = DownstreamTls.of(ctx.pipeline());
      // A request is only decoded after the handshake finished: what is read now holds for the connection.
      tlsRead = true;
    }
    return tls;
  }

  @Override
  public void sendHeaders(ResponseHeaders response, boolean endStream) {
    HttpHeaders headers = response.headers();
    validator.responding(true);
    if (!endStream && UpgradeHeaders.opensTunnel(currentUpgrade, response.status())) {
      // Connection: upgrade stays as the upstream sent it, draining or not (Envoy's rule). A 2xx
      // to CONNECT has no framing fields (RFC 9110 §9.3.6): the tunnel starts after its head.
      headers.remove(HttpHeaderNames.CONTENT_LENGTH);
      headers.remove(HttpHeaderNames.TRANSFER_ENCODING);
      ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
          HttpResponseStatus.valueOf(response.status()), Unpooled.EMPTY_BUFFER, headers, EmptyHttpHeaders.INSTANCE),
          ctx.voidPromise());
      openTunnel();
      return;
    }
    if (currentUpgrade != null) {
      keepAlive = false; // any other answer to an upgrade request ends the connection: say so
    }
    // A local reply that ends the connection (protocol violations) says so itself.
    if (headers.containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true)) {
      keepAlive = false;
    }
    if (!keepAlive || hcm.drain().isDraining()) {
      keepAlive = false;
      headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    if (!currentHead && response.mayHaveBody() && !headers.contains(HttpHeaderNames.CONTENT_LENGTH)) {
      // RFC 9112 §6.3: without a length a response would run to the close; chunk it, or say 0.
      if (endStream) {
        headers.set(HttpHeaderNames.CONTENT_LENGTH, HttpHeaderValues.ZERO);
      } else {
        headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
      }
    }
    HttpResponseStatus status = HttpResponseStatus.valueOf(response.status());
    if (endStream) {
      ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.EMPTY_BUFFER, headers,
          EmptyHttpHeaders.INSTANCE), ctx.voidPromise());
    } else {
      ctx.write(new DefaultHttpResponse(HttpVersion.HTTP_1_1, status, headers), ctx.voidPromise());
    }
  }

  @Override
  public void send100Continue() {
    ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE,
        Unpooled.EMPTY_BUFFER), ctx.voidPromise());
  }

  @Override
  public void sendData(ByteBuf data, boolean endStream) {
    if (tunnel) {
      // The stream's end closes the connection (requestFinished), after what was written.
      if (endStream) {
        ctx.writeAndFlush(data, ctx.voidPromise());
      } else {
        ctx.write(data, ctx.voidPromise());
      }
      return;
    }
    if (endStream) {
      ctx.writeAndFlush(new DefaultLastHttpContent(data, EmptyHttpHeaders.INSTANCE), ctx.voidPromise());
    } else {
      ctx.write(new DefaultHttpContent(data), ctx.voidPromise());
    }
  }

  @Override
  public void sendTrailers(HttpHeaders trailers) {
    DefaultLastHttpContent last = new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER);
    last.trailingHeaders().set(trailers);
    ctx.writeAndFlush(last, ctx.voidPromise());
  }

  @Override
  public void flush() {
    ctx.flush();
  }

  @Override
  public boolean isWritable() {
    return ctx.channel().isWritable();
  }

  @Override
  public void pauseReading(boolean paused) {
    pause(PAUSE_BACKPRESSURE, paused);
  }

  @Override
  public void disableKeepAlive() {
    keepAlive = false;
  }

  @Override
  public void resetStream() {
    closing = true;
    hcm.stats().downstreamRqTxReset.inc();
    ctx.close();
  }

  @Override
  public void requestFinished(HttpStream request, boolean requestBodyComplete) {
    if (request != current) {
      return;
    }
    validator.responding(false);
    if (closing) {
      current = null;
      return;
    }
    if (!requestBodyComplete || !keepAlive || currentUpgrade != null || hcm.drain().isDraining()) {
      // The rest of the request body, if any, is never read: the connection ends here. After an
      // upgrade request it ends whatever the answer (the bytes that follow are not HTTP/1.1).
      closing = true;
      current = null;
      if (hcm.drain().isDraining()) {
        hcm.stats().downstreamCxDrainClose.inc();
      }
      ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
      return;
    }
    current = null;
    currentBodyDone = false;
    pause(PAUSE_BACKPRESSURE, false);
    while (current == null && !pipelined.isEmpty()) {
      dispatch(pipelined.poll());
      if (current != null && !currentBodyDone) {
        // Its body is still arriving: keep reading.
        break;
      }
    }
    if (current == null || !currentBodyDone) {
      pause(PAUSE_PIPELINING, false);
    }
    if (current == null) {
      timer.startIdle();
    }
  }

  /**
   * The 101 is written: from here on the connection carries the new protocol. The encoder and the
   * request checks go now, so that what the upstream sends next is written as it is; the decoder
   * goes once this event is over (any bytes it holds, sent early by the client, then arrive as the
   * stream's first body part), and reading resumes, with half-closure on so that the client's FIN
   * ends only the request.
   */
  private void openTunnel() {
    tunnel = true;
    HttpPipelines.removeHttp1CodecOutbound(ctx.pipeline());
    ctx.executor().execute(() -> {
      if (closing || !ctx.channel().isActive()) {
        return;
      }
      if (ctx.channel().config() instanceof SocketChannelConfig socket) {
        socket.setAllowHalfClosure(true);
      }
      HttpPipelines.removeHttp1Decoder(ctx.pipeline());
      pause(PAUSE_UPGRADE, false);
    });
  }

  // ---- timers and drain ------------------------------------------------------------------------

  private void pause(int reason, boolean paused) {
    int before = pauseReasons;
    pauseReasons = paused ? before | reason : before & ~reason;
    if ((before == 0) != (pauseReasons == 0)) {
      ctx.channel().config().setAutoRead(pauseReasons == 0);
    }
  }

  @Override
  public void armTimer(long deadlineNanos) {
    if (!closing) {
      timer.arm(deadlineNanos);
    }
  }

  @Override
  public boolean onStreamTimer() {
    HttpStream r = current;
    if (closing || r == null || r.isFinished()) {
      return closing;
    }
    r.onTimer(); // acts on its own expired deadlines, or re-arms for them
    return true;
  }

  @Override
  public void onRequestHeadersTimeout() {
    hcm.stats().downstreamRqHeaderTimeout.inc();
    closing = true;
    ctx.close();
  }

  @Override
  public void onIdleTimeout() {
    hcm.stats().downstreamCxIdleTimeout.inc();
    closing = true;
    ctx.close();
  }

  /** (Re)arms max_connection_duration from when the connection opened, scaled by reduce_timeouts now. */
  private void scheduleMaxDuration() {
    maxDurationTimer = hcm.armMaxConnectionDuration(ctx.executor(), openedAt, maxDurationTimer, this::onMaxDuration);
  }


  private void onMaxDuration() {
    maxDurationTimer = null;
    hcm.stats().downstreamCxMaxDurationReached.inc();
    onDrain();
  }

  /** Close now if idle, else after the response in flight. */
  private void onDrain() {
    keepAlive = false;
    if (current == null && !closing) {
      closing = true;
      ctx.close();
    }
  }
}
