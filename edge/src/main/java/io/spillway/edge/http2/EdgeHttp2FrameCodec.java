package io.spillway.edge.http2;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import java.util.List;

/**
 * Netty's {@link Http2FrameCodec} with the edge's error handling and connection window.
 *
 * <p>Stream errors (RFC 9113 §5.4.2): Netty leaves the RST_STREAM of a stream it has handed to the
 * multiplexer to that stream's channel, which resets with CANCEL if its handler closes it first;
 * here the RST_STREAM carries the codec's own error code before the stream channel hears of the
 * error. A malformed message (RFC 9113 §8.1.1, a PROTOCOL_ERROR stream error: content-length
 * mismatch, invalid header fields) is counted in {@code rx_messaging_error} and, unless
 * {@code stream_error_on_invalid_http_message} is set, becomes a connection error: GOAWAY with
 * PROTOCOL_ERROR and the last stream id, then close, as Envoy's default does. A header list over
 * the limit keeps Netty's answer (431, or RST_STREAM) and is counted in {@code header_overflow}.
 *
 * <p>Connection window: Netty opens the connection window to twice the stream window less 65535;
 * with {@code initial_connection_window_size} the window is kept at that size instead from the
 * first read on (window updates can only grow the window already granted, RFC 9113 §6.9).
 */
final class EdgeHttp2FrameCodec extends Http2FrameCodec {

  private final boolean streamErrorOnInvalidHttpMessage;
  private final int connectionWindow;
  private final Http2CodecStats stats;
  private boolean connectionWindowSet;

  /** @param connectionWindow the connection window to keep, or 0 for Netty's */
  EdgeHttp2FrameCodec(Http2ConnectionEncoder encoder, Http2ConnectionDecoder decoder, Http2Settings initialSettings,
      boolean decoupleCloseAndGoAway, boolean flushPreface, boolean streamErrorOnInvalidHttpMessage,
      int connectionWindow, Http2CodecStats stats) {
    super(encoder, decoder, initialSettings, decoupleCloseAndGoAway, flushPreface);
    this.streamErrorOnInvalidHttpMessage = streamErrorOnInvalidHttpMessage;
    this.connectionWindow = connectionWindow;
    this.stats = stats;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
    if (!connectionWindowSet) {
      // Netty has sent its connection WINDOW_UPDATE by now (server: when added; client: with the preface).
      connectionWindowSet = true;
      if (connectionWindow > 0) {
        Http2Stream connectionStream = connection().connectionStream();
        var flow = connection().local().flowController();
        flow.incrementWindowSize(connectionStream, connectionWindow - flow.initialWindowSize(connectionStream));
      }
    }
    super.decode(ctx, in, out);
  }

  @Override
  public void onError(ChannelHandlerContext ctx, boolean outbound, Throwable cause) {
    Http2Exception embedded = Http2CodecUtil.getEmbeddedHttp2Exception(cause);
    if (!outbound && embedded instanceof Http2Exception.StreamException streamError) {
      if (streamError instanceof Http2Exception.HeaderListSizeException) {
        stats.headerOverflow.inc();
      } else if (streamError.error() == Http2Error.PROTOCOL_ERROR) {
        stats.rxMessagingError.inc();
        if (!streamErrorOnInvalidHttpMessage) {
          // The stream was read whole: the GOAWAY can name the last stream created (not a hard shutdown).
          super.onError(ctx, false, new Http2Exception(Http2Error.PROTOCOL_ERROR, "malformed message on stream "
              + streamError.streamId() + ": " + streamError.getMessage(), cause,
              Http2Exception.ShutdownHint.NO_SHUTDOWN));
          return;
        }
      }
      Http2Stream stream = connection().stream(streamError.streamId());
      if (stream != null && !stream.isResetSent()) {
        resetStream(ctx, streamError.streamId(), streamError.error().code(), ctx.newPromise());
      }
    }
    super.onError(ctx, outbound, cause);
  }
}
