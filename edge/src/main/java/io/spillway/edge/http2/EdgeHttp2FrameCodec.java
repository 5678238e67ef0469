package io.spillway.edge.http2;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import java.util.List;

/**
 * Netty's {@link Http2FrameCodec} (the upstream side's codec) with the edge's error handling and
 * connection window ({@link CodecErrors}).
 *
 * <p>Stream errors (RFC 9113 §5.4.2): Netty leaves the RST_STREAM of a stream it has handed to the
 * multiplexer to that stream's channel, which resets with CANCEL if its handler closes it first;
 * here the RST_STREAM carries the codec's own error code before the stream channel hears of the
 * error.
 */
final class EdgeHttp2FrameCodec extends Http2FrameCodec {

  private final CodecErrors errors;

  EdgeHttp2FrameCodec(Http2ConnectionEncoder encoder, Http2ConnectionDecoder decoder, Http2Settings initialSettings,
      boolean decoupleCloseAndGoAway, boolean flushPreface, CodecErrors errors) {
    super(encoder, decoder, initialSettings, decoupleCloseAndGoAway, flushPreface);
    this.errors = errors;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
    errors.beforeDecode(connection());
    super.decode(ctx, in, out);
  }

  @Override
  public void onError(ChannelHandlerContext ctx, boolean outbound, Throwable cause) {
    Http2Exception.StreamException streamError = errors.inboundStreamError(outbound, cause);
    if (streamError != null) {
      Http2Exception connectionError = errors.asConnectionError(streamError, cause);
      if (connectionError != null) {
        super.onError(ctx, false, connectionError);
        return;
      }
      Http2Stream stream = connection().stream(streamError.streamId());
      if (stream != null && !stream.isResetSent()) {
        resetStream(ctx, streamError.streamId(), streamError.error().code(), ctx.newPromise());
      }
    }
    super.onError(ctx, outbound, cause);
  }
}
