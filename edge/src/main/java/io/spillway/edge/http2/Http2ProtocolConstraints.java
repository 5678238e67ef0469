package io.spillway.edge.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2FrameTypes;
import io.netty.handler.codec.http2.Http2Stream;
import io.spillway.edge.config.Http2Options;

/**
 * Envoy's HTTP/2 flood limits for one connection. Sits just before the frame codec, where both
 * directions are still bytes: it reads each frame's 9-byte header (RFC 9113 §4.1) and skips the
 * payload, so it costs a few reads per frame and holds no buffer.
 *
 * <ul>
 *   <li>Inbound, checked on each frame, all counted over the connection's life as Envoy does:
 *       consecutive DATA/HEADERS/CONTINUATION frames with an empty payload and no END_STREAM;
 *       PRIORITY frames against {@code per stream * (1 + opened streams)}; WINDOW_UPDATE frames
 *       against {@code 5 + 2 * (opened streams + per DATA * DATA frames sent)}, where a stream is
 *       opened when the first HEADERS frame of its response (downstream) or request (upstream) is
 *       sent; and CONTINUATION frames per header block, at most {@code maxContinuations} (ours;
 *       Netty only caps the block's bytes, so tiny or empty fragments could go on for ever). A
 *       breach stops the bytes at the offending frame and hands the codec a connection error
 *       ENHANCE_YOUR_CALM (RFC 9113 §5.4.1): GOAWAY with the last stream id, then close.</li>
 *   <li>Outbound: frames written and not yet taken by the socket, all types against
 *       {@code max_outbound_frames} and PING/SETTINGS/RST_STREAM against
 *       {@code max_outbound_control_frames}. A breach means the peer is not reading: GOAWAY
 *       ENHANCE_YOUR_CALM is written and the connection closed at once, without waiting for it.
 *       Frames are counted as they are written and taken off per flush: each flush that follows
 *       new frames writes an empty buffer behind them, whose promise completes once the socket
 *       has taken everything before it (one promise per flush, not one per write).</li>
 * </ul>
 *
 * <p>Each breach is counted once in its {@code http2.*} stat; RST_STREAM frames are counted in
 * {@code rx_reset} / {@code tx_reset}. Event loop only: plain fields, no locks.
 */
final class Http2ProtocolConstraints extends ChannelDuplexHandler {

  private static final int FRAME_HEADER_LENGTH = 9;
  private static final int PREFACE_LENGTH = Http2CodecUtil.connectionPrefaceBuf().readableBytes();
  private static final int END_STREAM = 0x1;
  private static final int END_HEADERS = 0x4;
  private static final int PADDED = 0x8;

  private final Http2ConnectionHandler codec;
  private final Http2Connection connection;
  private final Http2Options limits;
  private final int maxContinuations;
  private final Http2CodecStats stats;

  private final FrameReader inbound;
  private final FrameReader outbound;
  private boolean failed;

  private long openedStreams;
  private long dataFramesSent;
  private int consecutiveEmptyFrames;
  private long priorityFrames;
  private long windowUpdateFrames;
  private int continuationsInBlock;

  private int queuedFrames;
  private int queuedControlFrames;
  /** Frames written since the last flush: the batch the next flush's marker takes off when sent. */
  private int unflushedFrames;
  private int unflushedControlFrames;

  /**
   * @param maxContinuations CONTINUATION frames allowed after one HEADERS frame
   */
  Http2ProtocolConstraints(Http2ConnectionHandler codec, Http2Options limits, int maxContinuations, Http2CodecStats stats) {
    this.codec = codec;
    this.connection = codec.connection();
    this.limits = limits;
    this.maxContinuations = maxContinuations;
    this.stats = stats;
    boolean server = connection.isServer();
    this.inbound = new FrameReader(server ? PREFACE_LENGTH : 0);
    this.outbound = new FrameReader(server ? 0 : PREFACE_LENGTH);
    connection.addListener(new Http2ConnectionAdapter() {
      @Override
      public void onStreamActive(Http2Stream stream) {
        stats.streamsActive.inc();
      }

      @Override
      public void onStreamClosed(Http2Stream stream) {
        stats.streamsActive.dec();
      }
    });
  }

  // --- inbound -----------------------------------------------------------------------------

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf buf)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (failed) {
      buf.release();
      return;
    }
    int start = buf.readerIndex();
    int end = buf.writerIndex();
    int i = start;
    int frameStart = start; // where the frame being read starts; a frame begun in an earlier buffer, here
    while (i < end) {
      if (inbound.atBoundary()) {
        frameStart = i;
      }
      i = inbound.advance(buf, i, end);
      if (!inbound.hasFrame) {
        continue;
      }
      inbound.hasFrame = false;
      Http2Exception breach = onInboundFrame(inbound.type, inbound.flags, inbound.length, inbound.padding);
      if (breach != null) {
        failed = true;
        if (frameStart > start) {
          ctx.fireChannelRead(buf.retainedSlice(start, frameStart - start));
        }
        buf.release();
        ctx.fireExceptionCaught(breach);
        return;
      }
    }
    ctx.fireChannelRead(buf);
  }

  /** Counts one inbound frame; returns the connection error it causes, if any. */
  private Http2Exception onInboundFrame(byte type, int flags, int length, int padding) {
    switch (type) {
      case Http2FrameTypes.DATA, Http2FrameTypes.HEADERS, Http2FrameTypes.CONTINUATION -> {
        if (length - padding <= 0 && (flags & END_STREAM) == 0) {
          if (++consecutiveEmptyFrames > limits.maxConsecutiveInboundFramesWithEmptyPayload()) {
            stats.inboundEmptyFramesFlood.inc();
            return calm("too many consecutive frames with an empty payload");
          }
        } else {
          consecutiveEmptyFrames = 0;
        }
        if (type == Http2FrameTypes.HEADERS) {
          continuationsInBlock = 0;
        } else if (type == Http2FrameTypes.CONTINUATION && ++continuationsInBlock > maxContinuations) {
          stats.inboundContinuationFramesFlood.inc();
          return calm("more than " + maxContinuations + " CONTINUATION frames in one header block");
        }
      }
      case Http2FrameTypes.PRIORITY -> {
        if (++priorityFrames > (long) limits.maxInboundPriorityFramesPerStream() * (1 + openedStreams)) {
          stats.inboundPriorityFramesFlood.inc();
          return calm("too many PRIORITY frames");
        }
      }
      case Http2FrameTypes.WINDOW_UPDATE -> {
        long allowed = 5 + 2 * (openedStreams
            + (long) limits.maxInboundWindowUpdateFramesPerDataFrameSent() * dataFramesSent);
        if (++windowUpdateFrames > allowed) {
          stats.inboundWindowUpdateFramesFlood.inc();
          return calm("too many WINDOW_UPDATE frames");
        }
      }
      case Http2FrameTypes.RST_STREAM -> stats.rxReset.inc();
      default -> { }
    }
    return null;
  }

  /**
   * A connection error ENHANCE_YOUR_CALM. Not a hard shutdown: Netty then sends 2^31-1 as the
   * last stream id, being unsure what a frame it failed to read did; a frame stopped here never
   * reached the codec, so the GOAWAY can carry the last stream the codec did create.
   */
  private static Http2Exception calm(String why) {
    return new Http2Exception(Http2Error.ENHANCE_YOUR_CALM, "flood: " + why, Http2Exception.ShutdownHint.NO_SHUTDOWN);
  }

  // --- outbound ----------------------------------------------------------------------------

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (!(msg instanceof ByteBuf buf) || failed) {
      ctx.write(msg, promise);
      return;
    }
    int frames = 0;
    int control = 0;
    int end = buf.writerIndex();
    int i = buf.readerIndex();
    while (i < end) {
      i = outbound.advance(buf, i, end);
      if (!outbound.hasFrame) {
        continue;
      }
      outbound.hasFrame = false;
      frames++;
      switch (outbound.type) {
        case Http2FrameTypes.DATA -> dataFramesSent++;
        case Http2FrameTypes.HEADERS -> {
          // Before the codec marks the headers sent: this is the stream's first HEADERS frame.
          Http2Stream stream = connection.stream(outbound.streamId);
          if (stream != null && !stream.isHeadersSent()) {
            openedStreams++;
          }
        }
        case Http2FrameTypes.RST_STREAM -> {
          stats.txReset.inc();
          control++;
        }
        case Http2FrameTypes.PING, Http2FrameTypes.SETTINGS -> control++;
        default -> { }
      }
    }
    if (frames == 0) {
      ctx.write(msg, promise);
      return;
    }
    queuedFrames += frames;
    queuedControlFrames += control;
    unflushedFrames += frames;
    unflushedControlFrames += control;
    ctx.write(msg, promise);
    if (queuedFrames > limits.maxOutboundFrames() || queuedControlFrames > limits.maxOutboundControlFrames()) {
      flush(ctx); // what the socket takes now is no longer queued
      if (queuedFrames > limits.maxOutboundFrames()) {
        stats.outboundFlood.inc();
        closeFlooded(ctx, "more than " + limits.maxOutboundFrames() + " frames waiting for the socket");
      } else if (queuedControlFrames > limits.maxOutboundControlFrames()) {
        stats.outboundControlFlood.inc();
        closeFlooded(ctx, "more than " + limits.maxOutboundControlFrames() + " control frames waiting for the socket");
      }
    }
  }

  @Override
  public void flush(ChannelHandlerContext ctx) {
    if (unflushedFrames > 0 && !failed) {
      int frames = unflushedFrames;
      int control = unflushedControlFrames;
      unflushedFrames = 0;
      unflushedControlFrames = 0;
      // Completes when the socket has taken every frame written before it (the buffer is FIFO).
      ctx.write(Unpooled.EMPTY_BUFFER, ctx.newPromise().addListener((ChannelFutureListener) f -> sent(frames, control)));
    }
    ctx.flush();
  }

  private void sent(int frames, int control) {
    queuedFrames -= frames;
    queuedControlFrames -= control;
  }

  private void closeFlooded(ChannelHandlerContext ctx, String why) {
    failed = true;
    ChannelHandlerContext codecCtx = ctx.pipeline().context(codec);
    if (codecCtx != null) {
      codec.onError(codecCtx, true, calm(why));
    }
    ctx.close();
  }

  /**
   * Finds frame headers in one direction's byte stream, across buffer boundaries: copies header
   * bytes until it has nine, then skips the payload (reading the pad length of a padded DATA or
   * HEADERS frame on the way).
   */
  private static final class FrameReader {
    private final byte[] header = new byte[FRAME_HEADER_LENGTH];
    private int headerLength;
    /** Payload bytes of the current frame still to pass; at first, the connection preface. */
    int skip;
    private boolean awaitingPadLength;
    boolean hasFrame;
    byte type;
    int flags;
    int length;
    int streamId;
    /** The padding of the frame, pad length byte included; 0 when not padded. */
    int padding;

    FrameReader(int prefaceLength) {
      this.skip = prefaceLength;
    }

    /** Whether the next byte starts a frame. */
    boolean atBoundary() {
      return headerLength == 0 && skip == 0 && !awaitingPadLength;
    }

    /** Reads from {@code i} until a frame header is complete (then {@link #hasFrame}) or {@code end}. */
    int advance(ByteBuf buf, int i, int end) {
      if (awaitingPadLength) {
        awaitingPadLength = false;
        padding = 1 + buf.getUnsignedByte(i);
        skip = length - 1;
        hasFrame = true;
        return i + 1;
      }
      if (skip > 0) {
        int n = Math.min(skip, end - i);
        skip -= n;
        return i + n;
      }
      int n = Math.min(FRAME_HEADER_LENGTH - headerLength, end - i);
      buf.getBytes(i, header, headerLength, n);
      headerLength += n;
      i += n;
      if (headerLength < FRAME_HEADER_LENGTH) {
        return i;
      }
      headerLength = 0;
      length = (header[0] & 0xFF) << 16 | (header[1] & 0xFF) << 8 | (header[2] & 0xFF);
      type = header[3];
      flags = header[4] & 0xFF;
      streamId = ((header[5] & 0x7F) << 24) | (header[6] & 0xFF) << 16 | (header[7] & 0xFF) << 8 | (header[8] & 0xFF);
      padding = 0;
      if ((flags & PADDED) != 0 && length > 0
          && (type == Http2FrameTypes.DATA || type == Http2FrameTypes.HEADERS)) {
        awaitingPadLength = true;
        return i;
      }
      skip = length;
      hasFrame = true;
      return i;
    }
  }
}
