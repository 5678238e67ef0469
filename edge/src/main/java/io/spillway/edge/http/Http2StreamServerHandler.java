package io.spillway.edge.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.util.ReferenceCountUtil;
import io.spillway.edge.upstream.Worker;

/**
 * The last handler of one downstream HTTP/2 stream (after {@code Http2StreamFrameToHttpObjectCodec}):
 * one {@link ActiveRequest} per stream. Back-pressure pauses the stream channel's reads, which
 * withholds WINDOW_UPDATEs (RFC 9113 §5.2); an aborted response is RST_STREAM(INTERNAL_ERROR), a
 * response that ends before the request is followed by RST_STREAM(NO_ERROR) (RFC 9113 §8.1).
 */
final class Http2StreamServerHandler extends ChannelInboundHandlerAdapter implements Downstream {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Http2StreamServerHandler.class);

  private final HttpConnectionManager hcm;
  private final Worker worker;
  private final String remoteAddress;
  private ChannelHandlerContext ctx;
  private ActiveRequest request;
  private boolean reset;
  private java.util.concurrent.ScheduledFuture<?> timer;
  private long timerAt;

  Http2StreamServerHandler(HttpConnectionManager hcm, Worker worker, String remoteAddress) {
    this.hcm = hcm;
    this.worker = worker;
    this.remoteAddress = remoteAddress;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof HttpRequest req) {
      if (request != null) {
        ReferenceCountUtil.release(msg);
        return;
      }
      OverloadHooks overload = hcm.overload();
      var state = overload.manager().state();
      if (overload.http2GoAwayAndClose().shouldShed(state, worker.random())) {
        // http2_server_go_away_and_close_on_dispatch wins over the plain GOAWAY point.
        ReferenceCountUtil.release(msg);
        ctx.channel().parent().close();
        return;
      }
      if (overload.http2GoAway().shouldShed(state, worker.random())) {
        disableKeepAlive(); // GOAWAY; this stream is still served
      }
      request = new ActiveRequest(hcm, this);
      boolean endStream = msg instanceof FullHttpRequest;
      if (endStream) {
        ((FullHttpRequest) msg).release(); // no body: only the head is used
      }
      request.onRequestHeaders(req, endStream);
    } else if (msg instanceof HttpContent content) {
      if (request == null) {
        content.release();
        return;
      }
      request.onRequestData(content);
    } else {
      ReferenceCountUtil.release(msg);
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof DownstreamEvents.ResetHighMemory r) {
      int slot = worker.index();
      if (request != null && !reset && r.budget()[slot] > 0
          && request.heldRequestBytes() + pendingResponseBytes() >= r.thresholdBytes()) {
        r.budget()[slot]--;
        r.resets().inc();
        request.resetForMemory();
      }
      return;
    }
    if (evt instanceof DownstreamEvents.RescaleTimers) {
      if (request != null) {
        request.rescaleTimers();
      }
      return;
    }
    if (evt instanceof Http2ResetFrame) {
      reset = true;
      if (request != null) {
        request.onDownstreamReset();
      }
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (request != null) {
      request.onDownstreamWritability(ctx.channel().isWritable());
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (request != null && !request.isFinished()) {
      request.onDownstreamReset();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("downstream HTTP/2 stream error on {}: {}", ctx.channel(), cause.toString());
    ctx.close();
  }

  @Override
  public Worker worker() {
    return worker;
  }

  @Override
  public boolean isHttp2() {
    return true;
  }

  @Override
  public String remoteAddress() {
    return remoteAddress;
  }

  @Override
  public void sendHeaders(HttpResponse response, boolean endStream) {
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
    if (content instanceof io.netty.handler.codec.http.LastHttpContent) {
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
    ctx.channel().config().setAutoRead(!paused);
  }

  @Override
  public void disableKeepAlive() {
    ctx.channel().parent().pipeline().fireUserEventTriggered(DownstreamEvents.Drain.INSTANCE);
  }

  /**
   * Response bytes written to this stream and not yet sent on the socket (held by the stream's
   * flow control), from the stream channel's writability accounting.
   */
  private long pendingResponseBytes() {
    io.netty.channel.Channel ch = ctx.channel();
    if (ch.isWritable()) {
      return Math.max(0, ch.config().getWriteBufferHighWaterMark() - ch.bytesBeforeUnwritable() + 1);
    }
    return ch.config().getWriteBufferLowWaterMark() + ch.bytesBeforeWritable() - 1;
  }

  @Override
  public void resetStream() {
    if (!reset) {
      reset = true;
      hcm.stats().downstreamRqTxReset.inc();
      ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.INTERNAL_ERROR));
    }
  }

  @Override
  public void armTimer(long deadlineNanos) {
    if (timer != null) {
      if (timerAt - deadlineNanos <= 0) {
        return;
      }
      timer.cancel(false);
    }
    timerAt = deadlineNanos;
    timer = ctx.executor().schedule(this::onTimer, Math.max(1, deadlineNanos - System.nanoTime()),
        java.util.concurrent.TimeUnit.NANOSECONDS);
  }

  private void onTimer() {
    timer = null;
    if (request != null) {
      request.onTimer();
    }
  }

  @Override
  public void requestFinished(ActiveRequest r, boolean requestBodyComplete) {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
    if (!requestBodyComplete && !reset) {
      reset = true;
      ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.NO_ERROR));
    }
  }
}
