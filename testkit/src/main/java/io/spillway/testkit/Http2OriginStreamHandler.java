package io.spillway.testkit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Serves one HTTP/2 stream of an origin connection; the only handler of a child channel of
 * {@code Http2MultiplexHandler}. The first HEADERS frame is the request (RFC 9113 §8.1), DATA frames
 * its body, a later HEADERS frame its trailers; END_STREAM on any of them ends the request. Flow
 * control comes from the child channel: pausing its reads withholds WINDOW_UPDATE, and its
 * writability follows the peer's window.
 */
final class Http2OriginStreamHandler extends ChannelInboundHandlerAdapter {

    private final OriginState state;
    private final int connectionId;
    private ChannelHandlerContext ctx;
    private OriginExchange exchange;
    private boolean requestEnded;

    Http2OriginStreamHandler(OriginState state, int connectionId) {
        this.state = state;
        this.connectionId = connectionId;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Http2HeadersFrame frame) {
            if (exchange == null) {
                start(frame.headers());
            }
            if (frame.isEndStream()) {
                endRequest();
            }
        } else if (msg instanceof Http2DataFrame frame) {
            boolean endStream = frame.isEndStream();
            if (exchange != null && !requestEnded && frame.content().isReadable()) {
                exchange.onRequestContent(frame.content());
            } else {
                frame.release();
            }
            if (endStream) {
                endRequest();
            }
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (exchange != null) {
            exchange.onReadComplete();
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (exchange != null) {
            exchange.onWritable();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (exchange != null) {
            exchange.onClosed();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }

    private void start(Http2Headers headers) {
        List<HeaderField> fields = new ArrayList<>(headers.size());
        for (Map.Entry<CharSequence, CharSequence> entry : headers) {
            fields.add(new HeaderField(entry.getKey().toString(), entry.getValue().toString()));
        }
        RequestHead head = new RequestHead("HTTP/2", text(headers.method()), text(headers.path()),
                text(headers.authority()), fields, connectionId);
        exchange = new OriginExchange(state, head, new Http2Response());
        exchange.onRequestHead();
    }

    private void endRequest() {
        if (exchange != null && !requestEnded) {
            requestEnded = true;
            exchange.onRequestEnd();
        }
    }

    private static String text(CharSequence value) {
        return value == null ? "" : value.toString();
    }

    /** HEADERS and DATA frames on this stream; RST_STREAM(CANCEL) to give up. */
    private final class Http2Response implements ResponseChannel {

        @Override
        public void sendHead(int status, HttpHeaders headers, boolean endOfStream) {
            Http2Headers http2 = new DefaultHttp2Headers();
            http2.status(Integer.toString(status));
            for (Map.Entry<String, String> entry : headers) {
                http2.add(entry.getKey().toLowerCase(Locale.ROOT), entry.getValue());
            }
            ctx.write(new DefaultHttp2HeadersFrame(http2, endOfStream));
        }

        @Override
        public void sendContent(ByteBuf content, boolean endOfStream) {
            ctx.write(new DefaultHttp2DataFrame(content, endOfStream));
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
        public boolean isOpen() {
            return ctx.channel().isActive();
        }

        @Override
        public void abort() {
            ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL));
        }

        @Override
        public void pauseRequestBody(boolean paused) {
            ctx.channel().config().setAutoRead(!paused);
        }

        @Override
        public ByteBufAllocator alloc() {
            return ctx.alloc();
        }

        @Override
        public EventExecutor executor() {
            return ctx.executor();
        }
    }
}
