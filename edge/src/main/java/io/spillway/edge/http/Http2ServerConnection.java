package io.spillway.edge.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.ReferenceCountUtil;
import io.spillway.edge.config.OverloadConfig;
import io.spillway.edge.http2.EdgeHttp2ConnectionHandler;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Connection-level life of a downstream HTTP/2 connection, after the codec: the idle timeout
 * (no open streams), the maximum connection duration, graceful drain — GOAWAY, then close once
 * the open streams finish or the drain timeout passes (RFC 9113 §6.8) — and Envoy's premature
 * reset protection.
 *
 * <p>Premature resets: a stream that closes without response headers before its lifetime, in
 * whole seconds as Envoy measures it, exceeds {@value #PREMATURE_RESET_MIN_STREAM_LIFETIME_SECONDS}
 * is premature. Once {@value #PREMATURE_RESET_TOTAL_STREAM_COUNT} streams have closed,
 * a connection on which at least half were premature is closed; before that, one with
 * {@value #PREMATURE_RESET_TOTAL_STREAM_COUNT}/2 premature streams already is (it could not get
 * below half any more). Both numbers are Envoy's defaults, which the runtime keys
 * {@value #PREMATURE_RESET_MIN_STREAM_LIFETIME_KEY} and {@value #PREMATURE_RESET_TOTAL_STREAM_COUNT_KEY}
 * override for connections opened after they are set. It gets GOAWAY(ENHANCE_YOUR_CALM) (Envoy aborts without one) and is
 * counted in {@code downstream_rq_too_many_premature_resets}. This is Envoy's defence against
 * rapid-reset floods (CVE-2023-44487); Netty's own limit on received RST_STREAM frames is off.
 *
 * <p>Protocol errors: the codec sends GOAWAY with the error's code and last stream id and closes
 * the connection itself once it is written; this handler only counts the error.
 */
final class Http2ServerConnection extends ChannelInboundHandlerAdapter {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Http2ServerConnection.class);

  /** Envoy's runtime key for the lifetime below which a reset stream is premature, in seconds. */
  static final String PREMATURE_RESET_MIN_STREAM_LIFETIME_KEY = "overload.premature_reset_min_stream_lifetime_seconds";
  /** Its default. */
  static final long PREMATURE_RESET_MIN_STREAM_LIFETIME_SECONDS = 1;
  /** Envoy's runtime key for the closed streams after which the premature share decides. */
  static final String PREMATURE_RESET_TOTAL_STREAM_COUNT_KEY = "overload.premature_reset_total_stream_count";
  /** Its default. */
  static final long PREMATURE_RESET_TOTAL_STREAM_COUNT = 500;

  private final HttpConnectionManager hcm;
  private final EdgeHttp2ConnectionHandler codec;
  private final Http2ServerStreams streams;
  private ChannelHandlerContext ctx;
  private ScheduledFuture<?> idleTimer;
  private boolean goingAway;
  private long idleSince = System.nanoTime();
  private final long openedAt = System.nanoTime();
  private ScheduledFuture<?> maxDurationTimer;
  private Http2Connection.PropertyKey openedAtKey;
  private long closedStreams;
  private long prematureResets;
  private boolean tooManyPrematureResets;
  /** The two premature-reset thresholds, read from the runtime when the connection opens. */
  private long prematureMinLifetimeSeconds = PREMATURE_RESET_MIN_STREAM_LIFETIME_SECONDS;
  private long prematureTotalStreamCount = PREMATURE_RESET_TOTAL_STREAM_COUNT;
  private final Runnable afterStreamClosed = this::afterStreamClosed;

  Http2ServerConnection(HttpConnectionManager hcm, EdgeHttp2ConnectionHandler codec, Http2ServerStreams streams) {
    this.hcm = hcm;
    this.codec = codec;
    this.streams = streams;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    var runtime = hcm.runtime();
    prematureMinLifetimeSeconds = runtime.getInteger(PREMATURE_RESET_MIN_STREAM_LIFETIME_KEY,
        PREMATURE_RESET_MIN_STREAM_LIFETIME_SECONDS);
    prematureTotalStreamCount = runtime.getInteger(PREMATURE_RESET_TOTAL_STREAM_COUNT_KEY,
        PREMATURE_RESET_TOTAL_STREAM_COUNT);
    hcm.stats().downstreamCxHttp2Total.inc();
    hcm.stats().downstreamCxHttp2Active.inc();
    openedAtKey = codec.connection().newKey();
    codec.connection().addListener(new Http2ConnectionAdapter() {
      @Override
      public void onStreamAdded(Http2Stream stream) {
        stream.setProperty(openedAtKey, System.nanoTime());
      }

      @Override
      public void onStreamActive(Http2Stream stream) {
        onStreamsChanged();
      }

      @Override
      public void onStreamClosed(Http2Stream stream) {
        countClosed(stream);
        ctx.executor().execute(afterStreamClosed);
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
    if (evt instanceof DownstreamEvents.ResetHighMemory r) {
      streams.onResetHighMemory(r);
      return;
    }
    if (evt instanceof DownstreamEvents.RescaleTimers) {
      if (maxDurationTimer != null && !goingAway) {
        scheduleMaxDuration();
      }
      streams.rescaleTimers();
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
    // The codec passes nothing up: its frames go to the stream listener.
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

  /** Counts a closed stream for the premature reset check (Envoy's ConnectionManagerImpl). */
  private void countClosed(Http2Stream stream) {
    closedStreams++;
    Long opened = stream.getProperty(openedAtKey);
    long lifetimeSeconds = opened == null ? 0 : TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - opened);
    if (!stream.isHeadersSent() && lifetimeSeconds <= prematureMinLifetimeSeconds) {
      prematureResets++;
    }
  }

  /** Closes the connection when too many of its streams were reset prematurely. */
  private void checkPrematureResets() {
    if (tooManyPrematureResets || prematureResets == 0) {
      return;
    }
    long seen = Math.max(closedStreams, prematureTotalStreamCount);
    if (prematureResets * 2 < seen || !ctx.channel().isActive()) {
      return;
    }
    tooManyPrematureResets = true;
    hcm.stats().downstreamRqTooManyPrematureResets.inc();
    ChannelHandlerContext codecCtx = ctx.pipeline().context(codec);
    if (codecCtx != null) {
      // As if the codec had found it: GOAWAY(ENHANCE_YOUR_CALM) with the last stream id, then close.
      // (Not a hard shutdown, so that the GOAWAY names the last stream created.)
      codec.onError(codecCtx, true, new Http2Exception(Http2Error.ENHANCE_YOUR_CALM, "too many premature resets: "
          + prematureResets + " of " + closedStreams + " streams", Http2Exception.ShutdownHint.NO_SHUTDOWN));
    } else {
      ctx.close();
    }
  }

  /** (Re)arms max_connection_duration from when the connection opened, scaled by reduce_timeouts now. */
  private void scheduleMaxDuration() {
    maxDurationTimer = hcm.armMaxConnectionDuration(ctx.executor(), openedAt, maxDurationTimer, () -> {
      maxDurationTimer = null;
      hcm.stats().downstreamCxMaxDurationReached.inc();
      goAway();
    });
  }

  /** After a stream closed (run later: the codec's stream count is updated after its callbacks). */
  private void afterStreamClosed() {
    checkPrematureResets();
    onStreamsChanged();
  }

  void onStreamsChanged() {
    if (activeStreams() == 0) {
      idleSince = System.nanoTime();
      if (goingAway) {
        ctx.close();
      } else {
        armIdleTimer();
      }
    }
  }

  private int activeStreams() {
    return codec.connection().numActiveStreams();
  }

  /**
   * Arms the idle timer for the idle period that started at {@link #idleSince}, unless one is
   * pending already. Streams opening and closing never cancel it: when it fires it checks whether
   * the connection really has been idle long enough, and re-arms for the rest if it is idle now.
   */
  private void armIdleTimer() {
    long nanos = idleNanos();
    if (nanos > 0 && idleTimer == null) {
      idleTimer = ctx.executor().schedule(this::onIdle, Math.max(1, idleSince + nanos - System.nanoTime()),
          TimeUnit.NANOSECONDS);
    }
  }

  private long idleNanos() {
    return hcm.overload().scaled(OverloadConfig.TimerType.HTTP_DOWNSTREAM_CONNECTION_IDLE,
        hcm.config().idleTimeout()).toNanos();
  }

  private void onIdle() {
    idleTimer = null;
    if (activeStreams() != 0 || !ctx.channel().isActive()) {
      return; // busy again: the last stream to close arms the timer anew
    }
    long nanos = idleNanos();
    if (nanos > 0 && System.nanoTime() - idleSince >= nanos) {
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
    ChannelHandlerContext codecCtx = ctx.pipeline().context(codec);
    if (codecCtx != null) {
      codec.goAway(codecCtx, codec.connection().remote().lastStreamCreated(), Http2Error.NO_ERROR.code(),
          Unpooled.EMPTY_BUFFER, codecCtx.newPromise());
      ctx.flush();
    }
    if (activeStreams() == 0) {
      ctx.close();
      return;
    }
    long grace = Math.max(1, hcm.config().drainTimeout().toMillis());
    ctx.executor().schedule(() -> ctx.close(), grace, TimeUnit.MILLISECONDS);
  }
}
