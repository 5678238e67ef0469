package io.spillway.edge.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.spillway.edge.upstream.Worker;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The last handler of an HTTP/1.1 downstream connection: turns decoded messages into
 * {@link ActiveRequest}s, one at a time (RFC 9112 §9.3.2: pipelined requests are answered in
 * order; while one is in flight the next waits and reading pauses), and owns the connection's
 * persistence — {@code Connection: close} when the client, a drain or the connection's age asks
 * for it (RFC 9112 §9.6) — and its idle and request-header timeouts.
 */
final class Http1ServerHandler extends ChannelInboundHandlerAdapter implements Downstream {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Http1ServerHandler.class);

  private static final int PAUSE_BACKPRESSURE = 1;
  private static final int PAUSE_PIPELINING = 2;
  private static final int MAX_PIPELINED = 16;

  private final HttpConnectionManager hcm;
  private final Worker worker;
  private final Http1RequestValidator validator;
  private final ArrayDeque<Object> pipelined = new ArrayDeque<>();
  private ChannelHandlerContext ctx;
  private String remoteAddress;
  private ActiveRequest current;
  private boolean currentBodyDone;
  private boolean keepAlive = true;
  private boolean closing;
  private int pauseReasons;
  private ScheduledFuture<?> idleTimer;
  private ScheduledFuture<?> headersTimer;

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
    armIdleTimer();
    long maxAge = hcm.config().maxConnectionDuration().toNanos();
    if (maxAge > 0) {
      ctx.executor().schedule(this::onMaxDuration, maxAge, TimeUnit.NANOSECONDS);
    }
  }

  // ---- inbound ---------------------------------------------------------------------------------

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (closing) {
      ReferenceCountUtil.release(msg);
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
      cancelTimers();
      keepAlive = HttpUtil.isKeepAlive(req);
      boolean noBody = !HttpUtil.isTransferEncodingChunked(req) && HttpUtil.getContentLength(req, 0L) == 0L;
      current = new ActiveRequest(hcm, this);
      currentBodyDone = noBody;
      skipEmptyLast = noBody;
      current.onRequestHeaders(req, noBody);
    } else if (msg instanceof HttpContent content) {
      if (skipEmptyLast && content instanceof LastHttpContent) {
        // The decoder's end marker of a body-less request, already reported as end of stream.
        skipEmptyLast = false;
        content.release();
        return;
      }
      ActiveRequest r = current;
      if (r == null) {
        content.release();
        return;
      }
      if (content instanceof LastHttpContent) {
        currentBodyDone = true;
      }
      r.onRequestData(content);
    } else {
      ReferenceCountUtil.release(msg);
    }
  }

  private boolean skipEmptyLast;

  /** Bytes arrived: if no request is in flight, the request-header timer starts now. */
  void onBytes() {
    if (current == null && headersTimer == null) {
      long nanos = hcm.config().requestHeadersTimeout().toNanos();
      if (nanos > 0) {
        headersTimer = ctx.executor().schedule(this::onHeadersTimeout, nanos, TimeUnit.NANOSECONDS);
      }
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof Http1RequestValidator.ProtocolError) {
      closing = true;
      ActiveRequest r = current;
      current = null;
      if (r != null) {
        r.onDownstreamReset();
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
    ActiveRequest r = current;
    if (r != null) {
      r.onDownstreamWritability(ctx.channel().isWritable());
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    closing = true;
    cancelTimers();
    hcm.stats().downstreamCxHttp1Active.dec();
    ActiveRequest r = current;
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
  public String remoteAddress() {
    return remoteAddress;
  }

  @Override
  public void sendHeaders(HttpResponse response, boolean endStream) {
    if (response.status().code() >= 200) {
      validator.responding(true);
      // A local reply that ends the connection (protocol violations) says so itself.
      if (response.headers().containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true)) {
        keepAlive = false;
      }
      if (!keepAlive || hcm.drain().isDraining()) {
        keepAlive = false;
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      }
    }
    if (endStream) {
      ctx.writeAndFlush(response, ctx.voidPromise());
    } else {
      ctx.write(response, ctx.voidPromise());
      if (response.status().code() < 200) {
        ctx.flush();
      }
    }
  }

  @Override
  public void sendData(HttpContent content) {
    if (content instanceof LastHttpContent) {
      ctx.writeAndFlush(content, ctx.voidPromise());
    } else {
      ctx.write(content, ctx.voidPromise());
    }
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
  public void resetStream() {
    closing = true;
    hcm.stats().downstreamRqTxReset.inc();
    ctx.close();
  }

  @Override
  public void requestFinished(ActiveRequest request, boolean requestBodyComplete) {
    if (request != current) {
      return;
    }
    validator.responding(false);
    if (closing) {
      current = null;
      return;
    }
    if (!requestBodyComplete || !keepAlive || hcm.drain().isDraining()) {
      // The rest of the request body, if any, is never read: the connection ends here.
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
      armIdleTimer();
    }
  }

  // ---- timers and drain ------------------------------------------------------------------------

  private void pause(int reason, boolean paused) {
    int before = pauseReasons;
    pauseReasons = paused ? before | reason : before & ~reason;
    if ((before == 0) != (pauseReasons == 0)) {
      ctx.channel().config().setAutoRead(pauseReasons == 0);
    }
  }

  private void armIdleTimer() {
    long nanos = hcm.config().idleTimeout().toNanos();
    if (nanos > 0 && idleTimer == null) {
      idleTimer = ctx.executor().schedule(this::onIdleTimeout, nanos, TimeUnit.NANOSECONDS);
    }
  }

  private void cancelTimers() {
    if (idleTimer != null) {
      idleTimer.cancel(false);
      idleTimer = null;
    }
    if (headersTimer != null) {
      headersTimer.cancel(false);
      headersTimer = null;
    }
  }

  private void onIdleTimeout() {
    idleTimer = null;
    if (current == null && !closing) {
      hcm.stats().downstreamCxIdleTimeout.inc();
      closing = true;
      ctx.close();
    }
  }

  private void onHeadersTimeout() {
    headersTimer = null;
    if (current == null && !closing) {
      hcm.stats().downstreamRqHeaderTimeout.inc();
      closing = true;
      ctx.close();
    }
  }

  private void onMaxDuration() {
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
