package io.spillway.edge.http2;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2LocalFlowController;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import java.util.List;

/**
 * The edge's HTTP/2 codec, both sides: Netty's connection handler (frames, HPACK, flow control,
 * stream states, error codes) with the edge's error handling and connection window
 * ({@link CodecErrors}). Frames reach one {@link io.netty.handler.codec.http2.Http2FrameListener}
 * per connection, set by the connection manager (downstream) or the pool (upstream); there are
 * no frame objects and no channel per stream. Netty resets a stream that
 * had an error with the error's own code (RFC 9113 §5.4.2), or answers an oversized header list
 * with 431. A connection error is passed on as an exception after the GOAWAY is written, so that
 * the connection manager can count it.
 */
public final class EdgeHttp2ConnectionHandler extends Http2ConnectionHandler {

  private final CodecErrors errors;
  /** The stream window this side announces in its first SETTINGS, if any. */
  private final Integer streamWindow;
  private boolean connectionWindowOpened;

  EdgeHttp2ConnectionHandler(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder,
      Http2Settings initialSettings, boolean decoupleCloseAndGoAway, boolean flushPreface, CodecErrors errors) {
    super(decoder, encoder, initialSettings, decoupleCloseAndGoAway, flushPreface);
    this.errors = errors;
    this.streamWindow = initialSettings.initialWindowSize();
  }

  /**
   * Once the preface is out (when added to an active channel, or when the channel becomes active),
   * opens the connection window beyond the 65535 bytes RFC 9113 §6.9.2 starts it at, as Netty's
   * frame codec does: by twice what the stream window exceeds it, so that one stream cannot use
   * the whole connection window ({@code initial_connection_window_size}, when set, replaces this
   * on the first read).
   */
  @Override
  public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    super.handlerAdded(ctx);
    if (ctx.channel().isActive()) {
      openConnectionWindow(ctx);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    super.channelActive(ctx);
    openConnectionWindow(ctx);
  }

  private void openConnectionWindow(ChannelHandlerContext ctx) throws Http2Exception {
    if (connectionWindowOpened) {
      return;
    }
    connectionWindowOpened = true;
    Http2Stream connectionStream = connection().connectionStream();
    Http2LocalFlowController flow = connection().local().flowController();
    int delta = streamWindow == null ? 0 : streamWindow - flow.initialWindowSize(connectionStream);
    if (delta > 0) {
      flow.incrementWindowSize(connectionStream, Math.max(delta << 1, delta));
      flush(ctx);
    }
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
    errors.beforeDecode(connection());
    super.decode(ctx, in, out);
  }

  /**
   * Inbound stream errors as {@link CodecErrors} says. An outbound stream error on a stream that
   * is already closed or reset — frames still queued for a stream the peer reset fail that way —
   * needs no RST_STREAM: answering each with RST_STREAM(STREAM_CLOSED) would only use up Netty's
   * allowance of sent resets. One on a stream still open resets it with the error's code.
   */
  @Override
  public void onError(ChannelHandlerContext ctx, boolean outbound, Throwable cause) {
    if (outbound && Http2CodecUtil.getEmbeddedHttp2Exception(cause) instanceof Http2Exception.StreamException e) {
      Http2Stream stream = connection().stream(e.streamId());
      if (stream == null || stream.isResetSent() || stream.state() == Http2Stream.State.CLOSED) {
        return;
      }
    }
    Http2Exception.StreamException streamError = errors.inboundStreamError(outbound, cause);
    if (streamError != null) {
      Http2Exception connectionError = errors.asConnectionError(streamError, cause);
      if (connectionError != null) {
        super.onError(ctx, false, connectionError);
        return;
      }
    }
    super.onError(ctx, outbound, cause);
  }

  @Override
  protected void onConnectionError(ChannelHandlerContext ctx, boolean outbound, Throwable cause,
      Http2Exception http2Ex) {
    super.onConnectionError(ctx, outbound, cause, http2Ex);
    if (!outbound) {
      ctx.fireExceptionCaught(http2Ex != null ? http2Ex : cause);
    }
  }
}
