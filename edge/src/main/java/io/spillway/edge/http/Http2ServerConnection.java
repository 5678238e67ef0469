package io.spillway.edge.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.DefaultHttp2GoAwayFrame;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.ReferenceCountUtil;
import io.spillway.edge.config.OverloadConfig;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Connection-level life of a downstream HTTP/2 connection, after the multiplexer: the idle timeout
 * (no open streams), the maximum connection duration, and graceful drain — GOAWAY, then close once
 * the open streams finish or the drain timeout passes (RFC 9113 §6.8).
 *
 * <p>Protocol errors: the codec sends GOAWAY with the error's code and last stream id and closes
 * the connection itself once it is written; this handler only counts the error.
 */
final class Http2ServerConnection extends ChannelInboundHandlerAdapter {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Http2ServerConnection.class);

  private final HttpConnectionManager hcm;
  private final Http2FrameCodec codec;
  private ChannelHandlerContext ctx;
  private ScheduledFuture<?> idleTimer;
  private boolean goingAway;
  private long idleSince = System.nanoTime();
  private final long openedAt = System.nanoTime();
  private ScheduledFuture<?> maxDurationTimer;
  /** Open stream channels, kept only when reduce_timeouts scales stream idle timers (event loop only). */
  private final java.util.Set<io.netty.channel.Channel> streams = new java.util.HashSet<>();

  Http2ServerConnection(HttpConnectionManager hcm, Http2FrameCodec codec) {
    this.hcm = hcm;
    this.codec = codec;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    hcm.stats().downstreamCxHttp2Total.inc();
    hcm.stats().downstreamCxHttp2Active.inc();
    codec.connection().addListener(new Http2ConnectionAdapter() {
      @Override
      public void onStreamActive(Http2Stream stream) {
        onStreamsChanged();
      }

      @Override
      public void onStreamClosed(Http2Stream stream) {
        ctx.executor().execute(Http2ServerConnection.this::onStreamsChanged);
      }
    });
    armIdleTimer();
    scheduleMaxDuration();
    if (hcm.drain().isDraining()) {
      ctx.executor().execute(this::goAway);
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof DownstreamEvents.CloseIdle close) {
      if (activeStreams() == 0 && ctx.channel().isActive() && System.nanoTime() - idleSince >= close.idleNanos()) {
        hcm.stats().downstreamCxOverloadCloseIdle.inc();
        goAway();
      }
      return;
    }
    if (evt instanceof DownstreamEvents.ResetHighMemory) {
      for (io.netty.channel.Channel stream : new java.util.ArrayList<>(streams)) {
        stream.pipeline().fireUserEventTriggered(evt);
      }
      return;
    }
    if (evt instanceof DownstreamEvents.RescaleTimers) {
      if (maxDurationTimer != null && !goingAway) {
        scheduleMaxDuration();
      }
      for (io.netty.channel.Channel stream : new java.util.ArrayList<>(streams)) {
        stream.pipeline().fireUserEventTriggered(evt);
      }
      if (idleTimer != null) {
        idleTimer.cancel(false);
        idleTimer = null;
        long nanos = hcm.overload().scaled(OverloadConfig.TimerType.HTTP_DOWNSTREAM_CONNECTION_IDLE,
            hcm.config().idleTimeout()).toNanos();
        if (nanos > 0) {
          idleTimer = ctx.executor().schedule(this::onIdle, Math.max(1, idleSince + nanos - System.nanoTime()),
              TimeUnit.NANOSECONDS);
        }
      }
      return;
    }
    if (evt instanceof DownstreamEvents.Drain) {
      hcm.stats().downstreamCxDrainClose.inc();
      goAway();
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    // Connection-level frames the codec passes up (SETTINGS acks, PING, GOAWAY): nothing to do.
    ReferenceCountUtil.release(msg);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (idleTimer != null) {
      idleTimer.cancel(false);
    }
    hcm.stats().downstreamCxHttp2Active.dec();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (Http2CodecUtil.getEmbeddedHttp2Exception(cause) != null) {
      // A connection error the codec found (stream errors stay with their stream). The codec is
      // writing GOAWAY with its code and closes once it is sent; closing here first would send
      // Http2ConnectionHandler.close's own GOAWAY(NO_ERROR) instead.
      hcm.stats().downstreamCxProtocolError.inc();
      log.debug("downstream HTTP/2 protocol error on {}: {}", ctx.channel(), cause.toString());
      return;
    }
    log.debug("downstream HTTP/2 connection error on {}: {}", ctx.channel(), cause.toString());
    ctx.close();
  }

  /** (Re)arms max_connection_duration from when the connection opened, scaled by reduce_timeouts now. */
  private void scheduleMaxDuration() {
    maxDurationTimer = hcm.armMaxConnectionDuration(ctx.executor(), openedAt, maxDurationTimer, () -> {
      maxDurationTimer = null;
      hcm.stats().downstreamCxMaxDurationReached.inc();
      goAway();
    });
  }


  /** Remembers an open stream channel until it closes (it is told when reduce_timeouts changes). */
  void track(io.netty.channel.Channel stream) {
    streams.add(stream);
    stream.closeFuture().addListener(f -> streams.remove(stream));
  }

  void onStreamsChanged() {
    if (activeStreams() == 0) {
      idleSince = System.nanoTime();
      if (goingAway) {
        ctx.close();
      } else {
        armIdleTimer();
      }
    } else if (idleTimer != null) {
      idleTimer.cancel(false);
      idleTimer = null;
    }
  }

  private int activeStreams() {
    return codec.connection().numActiveStreams();
  }

  private void armIdleTimer() {
    long nanos = hcm.overload().scaled(OverloadConfig.TimerType.HTTP_DOWNSTREAM_CONNECTION_IDLE,
        hcm.config().idleTimeout()).toNanos();
    if (nanos > 0 && idleTimer == null) {
      idleTimer = ctx.executor().schedule(this::onIdle, nanos, TimeUnit.NANOSECONDS);
    }
  }

  private void onIdle() {
    idleTimer = null;
    if (activeStreams() == 0 && ctx.channel().isActive()) {
      hcm.stats().downstreamCxIdleTimeout.inc();
      goAway();
    } else {
      armIdleTimer();
    }
  }

  /** Sends GOAWAY and closes when the open streams are done (bounded by the drain timeout). */
  void goAway() {
    if (goingAway || !ctx.channel().isActive()) {
      return;
    }
    goingAway = true;
    ctx.writeAndFlush(new DefaultHttp2GoAwayFrame(Http2Error.NO_ERROR));
    if (activeStreams() == 0) {
      ctx.close();
      return;
    }
    long grace = Math.max(1, hcm.config().drainTimeout().toMillis());
    ctx.executor().schedule(() -> ctx.close(), grace, TimeUnit.MILLISECONDS);
  }
}
