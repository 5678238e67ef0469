package io.spillway.testkit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The first handler of every origin connection: reads just enough of the first bytes to tell an
 * HTTP/2 client with prior knowledge (the connection preface of RFC 9113 §3.4) from an HTTP/1.x
 * one, installs that protocol's handlers behind itself and steps aside, handing them every byte.
 */
final class OriginProtocolSniffer extends ByteToMessageDecoder {

    private static final byte[] HTTP2_PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_HEADER_BYTES = 64 * 1024;
    private static final int HTTP2_WINDOW_BYTES = 1024 * 1024;

    private final OriginState state;
    private final int connectionId;

    OriginProtocolSniffer(OriginState state, int connectionId) {
        this.state = state;
        this.connectionId = connectionId;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        int seen = Math.min(in.readableBytes(), HTTP2_PREFACE.length);
        for (int i = 0; i < seen; i++) {
            if (in.getByte(in.readerIndex() + i) != HTTP2_PREFACE[i]) {
                addHttp1(ctx.pipeline(), ctx.name());
                ctx.pipeline().remove(this);
                return;
            }
        }
        if (seen == HTTP2_PREFACE.length) {
            addHttp2(ctx.pipeline(), ctx.name());
            ctx.pipeline().remove(this);
        }
    }

    private void addHttp1(ChannelPipeline pipeline, String after) {
        HttpDecoderConfig decoderConfig = new HttpDecoderConfig()
                .setMaxInitialLineLength(MAX_HEADER_BYTES)
                .setMaxHeaderSize(MAX_HEADER_BYTES);
        pipeline.addAfter(after, "http1-codec", new HttpServerCodec(decoderConfig));
        pipeline.addAfter("http1-codec", "http1-expect-continue", new HttpServerExpectContinueHandler());
        pipeline.addAfter("http1-expect-continue", "http1-origin", new Http1OriginHandler(state, connectionId));
    }

    private void addHttp2(ChannelPipeline pipeline, String after) {
        Http2Settings settings = Http2Settings.defaultSettings()
                .initialWindowSize(HTTP2_WINDOW_BYTES)
                .maxHeaderListSize(MAX_HEADER_BYTES);
        pipeline.addAfter(after, "http2-codec", Http2FrameCodecBuilder.forServer().initialSettings(settings).build());
        pipeline.addAfter("http2-codec", "http2-streams", new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
            @Override
            protected void initChannel(Http2StreamChannel stream) {
                stream.pipeline().addLast(new Http2OriginStreamHandler(state, connectionId));
            }
        }));
    }
}
