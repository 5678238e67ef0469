package io.spillway.edge.listener;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http2.Http2CodecUtil;
import java.util.List;

/**
 * For cleartext listeners with codec AUTO: reads just enough of the first bytes to tell the
 * HTTP/2 connection preface (RFC 9113 §3.4) from an HTTP/1.x request line, installs the matching
 * pipeline and removes itself; the bytes read so far go to the new handlers.
 */
final class ProtocolSniffer extends ByteToMessageDecoder {

  private static final ByteBuf PREFACE = Http2CodecUtil.connectionPrefaceBuf();

  /** Installs the pipeline for the chosen protocol. */
  interface Choice {
    void http1(ChannelHandlerContext ctx);

    void http2(ChannelHandlerContext ctx);
  }

  private final Choice choice;

  ProtocolSniffer(Choice choice) {
    this.choice = choice;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    int n = Math.min(in.readableBytes(), PREFACE.readableBytes());
    if (n == 0) {
      return;
    }
    boolean prefix = ByteBufUtil.equals(in, in.readerIndex(), PREFACE, 0, n);
    if (prefix && n < PREFACE.readableBytes()) {
      return; // could still be HTTP/2: wait for more
    }
    if (prefix) {
      choice.http2(ctx);
    } else {
      choice.http1(ctx);
    }
    ctx.pipeline().remove(this);
  }
}
