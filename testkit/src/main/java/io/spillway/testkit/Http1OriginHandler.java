package io.spillway.testkit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Serves the HTTP/1.x requests of one origin connection; sits after {@code HttpServerCodec} and
 * {@code HttpServerExpectContinueHandler}. Answers in request order as RFC 9112 §9.3.2 requires
 * of pipelined requests: one that arrives while the previous answer is pending waits in a backlog,
 * and reading pauses until it is served. Keeps the connection open unless the request asked for
 * {@code Connection: close} (or was HTTP/1.0 without keep-alive); a malformed request gets 400 and
 * a close.
 */
final class Http1OriginHandler extends ChannelInboundHandlerAdapter {

    private final OriginState state;
    private final int connectionId;
    private final ArrayDeque<HttpObject> backlog = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private OriginExchange current;
    private boolean requestInFlight;
    private boolean bodyPaused;
    private boolean draining;
    private boolean closing;

    Http1OriginHandler(OriginState state, int connectionId) {
        this.state = state;
        this.connectionId = connectionId;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof HttpObject object)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (closing) {
            ReferenceCountUtil.release(msg);
        } else if (!backlog.isEmpty() || awaitingResponse()) {
            backlog.add(object);
            updateAutoRead();
        } else {
            handle(object);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (current != null) {
            current.onReadComplete();
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (current != null) {
            current.onWritable();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (current != null) {
            current.onClosed();
            current = null;
        }
        backlog.forEach(ReferenceCountUtil::release);
        backlog.clear();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }

    private boolean awaitingResponse() {
        return current != null && !requestInFlight;
    }

    private void handle(HttpObject object) {
        if (object.decoderResult().isFailure()) {
            ReferenceCountUtil.release(object);
            rejectMalformed();
            return;
        }
        if (object instanceof HttpRequest request) {
            startExchange(request);
        }
        if (object instanceof HttpContent content) {
            OriginExchange exchange = requestInFlight ? current : null;
            ByteBuf data = content.content();
            if (exchange != null && data.isReadable()) {
                exchange.onRequestContent(data);
            } else {
                content.release();
            }
            if (content instanceof LastHttpContent) {
                requestInFlight = false;
                if (exchange != null) {
                    exchange.onRequestEnd();
                }
            }
        }
    }

    private void startExchange(HttpRequest request) {
        List<HeaderField> headers = new ArrayList<>(request.headers().size());
        for (Map.Entry<String, String> entry : request.headers()) {
            headers.add(new HeaderField(entry.getKey(), entry.getValue()));
        }
        RequestHead head = new RequestHead(request.protocolVersion().text(), request.method().name(),
                request.uri(), request.headers().get(HttpHeaderNames.HOST, ""), headers, connectionId);
        Http1Response response = new Http1Response(
                request.protocolVersion().equals(HttpVersion.HTTP_1_0), HttpUtil.isKeepAlive(request),
                "HEAD".equals(head.method()));
        current = new OriginExchange(state, head, response);
        requestInFlight = true;
        current.onRequestHead();
    }

    private void rejectMalformed() {
        if (current != null) {
            current.onClosed();
            current = null;
        }
        closing = true;
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.BAD_REQUEST,
                Unpooled.copiedBuffer(state.name() + " malformed request\n", StandardCharsets.UTF_8));
        response.headers().set("x-origin", state.name())
                .set(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes())
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    private void responseFinished(Http1Response response, boolean keepAlive, ChannelFuture written) {
        if (current != null && current.isAnsweredBy(response)) {
            current = null;
        }
        bodyPaused = false;
        if (!keepAlive) {
            closing = true;
            written.addListener(ChannelFutureListener.CLOSE);
            return;
        }
        drainBacklog();
    }

    private void drainBacklog() {
        if (draining) {
            return;
        }
        draining = true;
        try {
            while (!backlog.isEmpty() && !awaitingResponse() && !closing) {
                handle(backlog.poll());
            }
        } finally {
            draining = false;
        }
        updateAutoRead();
    }

    private void updateAutoRead() {
        ctx.channel().config().setAutoRead(!bodyPaused && backlog.isEmpty());
    }

    /** The HTTP/1 framing of one response: chunked when the length is unknown, keep-alive as the request asked. */
    private final class Http1Response implements ResponseChannel {

        private final boolean http10;
        private final boolean headRequest;
        private boolean keepAlive;
        private boolean finished;

        Http1Response(boolean http10, boolean keepAlive, boolean headRequest) {
            this.http10 = http10;
            this.keepAlive = keepAlive;
            this.headRequest = headRequest;
        }

        @Override
        public void sendHead(int status, HttpHeaders headers, boolean endOfStream) {
            HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), headers);
            boolean hasLength = headers.contains(HttpHeaderNames.CONTENT_LENGTH);
            boolean bodyAllowed = !headRequest && status != 204 && status != 304;
            if (!hasLength && bodyAllowed) {
                if (endOfStream) {
                    headers.set(HttpHeaderNames.CONTENT_LENGTH, 0);
                } else if (http10) {
                    keepAlive = false;
                } else {
                    HttpUtil.setTransferEncodingChunked(response, true);
                }
            }
            if (!keepAlive) {
                headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            } else if (http10) {
                headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            }
            ctx.write(response);
            if (endOfStream) {
                finish(LastHttpContent.EMPTY_LAST_CONTENT);
            }
        }

        @Override
        public void sendContent(ByteBuf content, boolean endOfStream) {
            if (finished) {
                content.release();
            } else if (endOfStream) {
                finish(new DefaultLastHttpContent(content));
            } else {
                ctx.write(new DefaultHttpContent(content));
            }
        }

        private void finish(LastHttpContent last) {
            finished = true;
            responseFinished(this, keepAlive, ctx.write(last));
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
            ctx.channel().close();
        }

        @Override
        public void pauseRequestBody(boolean paused) {
            bodyPaused = paused;
            updateAutoRead();
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
