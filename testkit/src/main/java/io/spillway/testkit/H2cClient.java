package io.spillway.testkit;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An HTTP/2 client over cleartext with prior knowledge (RFC 9113 §3.3), one connection to
 * 127.0.0.1 on its own event loop, for tests: the JDK {@code HttpClient} only reaches h2c through
 * an HTTP/1.1 Upgrade. Requests run concurrently as streams of that connection. Bodies can be
 * generated lazily with back-pressure (any size); responses keep at most
 * {@link #MAX_CAPTURED_BODY} bytes of body but count all of them.
 */
public final class H2cClient implements AutoCloseable {

    /** How many leading response body bytes {@link Response#body()} keeps. */
    public static final int MAX_CAPTURED_BODY = 1024 * 1024;

    private static final Duration BLOCKING_TIMEOUT = Duration.ofSeconds(30);
    private static final int WINDOW_BYTES = 1024 * 1024;

    private final EventLoopGroup group;
    private final Channel channel;
    private final String authority;

    private H2cClient(int port) {
        this.authority = "127.0.0.1:" + port;
        this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("h2c-client", true), NioIoHandler.newFactory());
        Http2Settings settings = Http2Settings.defaultSettings().initialWindowSize(WINDOW_BYTES).pushEnabled(false);
        Bootstrap bootstrap = new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(Http2FrameCodecBuilder.forClient().initialSettings(settings).build());
                        ch.pipeline().addLast(new Http2MultiplexHandler(new ChannelInitializer<Channel>() {
                            @Override
                            protected void initChannel(Channel pushed) {
                                // push is disabled; nothing to serve
                            }
                        }));
                    }
                });
        try {
            this.channel = bootstrap.connect(new InetSocketAddress("127.0.0.1", port)).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).syncUninterruptibly();
            throw new UncheckedIOException(new IOException("cannot connect to " + authority, e));
        }
    }

    /** Connects to 127.0.0.1:{@code port} and sends the HTTP/2 connection preface. */
    public static H2cClient connect(int port) {
        return new H2cClient(port);
    }

    /** A GET, waiting up to 30 s for the whole response. */
    public Response get(String path) {
        return await(send("GET", path, List.of(), null));
    }

    /**
     * Sends a request with an optional body ({@code null}: none, END_STREAM on HEADERS).
     * {@code :scheme}, {@code :authority} ({@code 127.0.0.1:<port>}) and {@code content-length} are
     * filled in unless {@code headers} sets them; a pseudo-header in {@code headers} replaces the
     * default one. Names are sent in lower case.
     */
    public CompletableFuture<Response> send(String method, String path, List<HeaderField> headers, byte[] body) {
        return open(requestHeaders(method, path, headers, body == null ? -1 : body.length),
                new StreamHandler(body, -1));
    }

    /**
     * Sends a request whose body is {@code bodyLength} generated bytes (the byte at offset i is
     * {@code 'a' + i % 26}, as {@link OriginServer}'s {@code /bytes}), written as the stream's flow
     * control window allows.
     */
    public CompletableFuture<Response> upload(String method, String path, List<HeaderField> headers, long bodyLength) {
        if (bodyLength < 0) {
            throw new IllegalArgumentException("bodyLength must be >= 0, got " + bodyLength);
        }
        return open(requestHeaders(method, path, headers, bodyLength), new StreamHandler(null, bodyLength));
    }

    /** Waits up to 30 s for a response. @throws UncheckedIOException when it failed or did not come */
    public static Response await(CompletableFuture<Response> response) {
        try {
            return response.get(BLOCKING_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new UncheckedIOException(new IOException("HTTP/2 exchange failed", e.getCause()));
        } catch (TimeoutException e) {
            throw new UncheckedIOException(new IOException("no HTTP/2 response within " + BLOCKING_TIMEOUT, e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new IOException("interrupted waiting for an HTTP/2 response", e));
        }
    }

    /** Whether the connection is still open. */
    public boolean isOpen() {
        return channel.isActive();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private Http2Headers requestHeaders(String method, String path, List<HeaderField> extra, long bodyLength) {
        Http2Headers headers = new DefaultHttp2Headers()
                .method(Objects.requireNonNull(method, "method"))
                .path(Objects.requireNonNull(path, "path"))
                .scheme("http")
                .authority(authority);
        for (HeaderField field : extra) {
            String name = field.name().toLowerCase(Locale.ROOT);
            if (name.startsWith(":")) {
                headers.set(name, field.value());
            } else {
                headers.add(name, field.value());
            }
        }
        if (bodyLength >= 0 && !headers.contains("content-length")) {
            headers.set("content-length", Long.toString(bodyLength));
        }
        return headers;
    }

    private CompletableFuture<Response> open(Http2Headers headers, StreamHandler handler) {
        new Http2StreamChannelBootstrap(channel).handler(handler).open().addListener(future -> {
            if (future.isSuccess()) {
                handler.start(headers);
            } else {
                handler.result.completeExceptionally(future.cause());
            }
        });
        return handler.result;
    }

    /**
     * One HTTP/2 response.
     *
     * @param status             the final {@code :status}, or 0 when the stream was reset before it
     * @param headers            the final response's header fields, {@code :status} included
     * @param body               the first {@link #MAX_CAPTURED_BODY} bytes of the body
     * @param bodyLength         how many body bytes arrived
     * @param bodyMatchesPattern whether every body byte equals the generated pattern
     *                           ({@code 'a' + offset % 26}), as {@code /bytes} and an echoed upload produce
     * @param trailers           trailer fields, if any
     * @param reset              whether the server reset the stream (RST_STREAM) instead of ending it
     * @param resetCode          the RST_STREAM error code, when reset
     */
    public record Response(
            int status,
            List<HeaderField> headers,
            byte[] body,
            long bodyLength,
            boolean bodyMatchesPattern,
            List<HeaderField> trailers,
            boolean reset,
            long resetCode) {

        public Response {
            headers = List.copyOf(headers);
            trailers = List.copyOf(trailers);
            Objects.requireNonNull(body, "body");
        }

        /** The first value of the named header (case-insensitive), or {@code null}. */
        public String header(String name) {
            for (HeaderField field : headers) {
                if (field.is(name)) {
                    return field.value();
                }
            }
            return null;
        }

        /** The captured body decoded as UTF-8. */
        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** Writes one request on its stream channel and collects the response frames. */
    private static final class StreamHandler extends ChannelInboundHandlerAdapter {

        final CompletableFuture<Response> result = new CompletableFuture<>();
        private final byte[] body;
        private long generatedLeft;
        private long generatedOffset;
        private boolean pumping;
        private ChannelHandlerContext ctx;
        private int status;
        private List<HeaderField> headers = List.of();
        private final List<HeaderField> trailers = new ArrayList<>();
        private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        private long received;
        private boolean matchesPattern = true;
        private final byte[] scratch = new byte[BodyPattern.CHUNK_SIZE];

        StreamHandler(byte[] body, long generatedLength) {
            this.body = body;
            this.generatedLeft = Math.max(0, generatedLength);
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }

        void start(Http2Headers requestHeaders) {
            boolean noBody = body == null && generatedLeft == 0;
            ctx.write(new DefaultHttp2HeadersFrame(requestHeaders, noBody));
            if (body != null) {
                ctx.write(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(body), true));
            }
            pump();
        }

        /** Writes while writable; nested calls from writability events return at once (see OriginExchange). */
        private void pump() {
            if (pumping) {
                return;
            }
            pumping = true;
            try {
                do {
                    while (generatedLeft > 0 && ctx.channel().isWritable()) {
                        int size = (int) Math.min(BodyPattern.CHUNK_SIZE, generatedLeft);
                        var chunk = ctx.alloc().buffer(size);
                        BodyPattern.write(chunk, generatedOffset, size);
                        generatedOffset += size;
                        generatedLeft -= size;
                        ctx.write(new DefaultHttp2DataFrame(chunk, generatedLeft == 0));
                    }
                    ctx.flush();
                } while (generatedLeft > 0 && ctx.channel().isWritable());
            } finally {
                pumping = false;
            }
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (generatedLeft > 0) {
                pump();
            }
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof Http2HeadersFrame frame) {
                    onHeaders(frame);
                } else if (msg instanceof Http2DataFrame frame) {
                    onData(frame);
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        private void onHeaders(Http2HeadersFrame frame) {
            List<HeaderField> fields = new ArrayList<>();
            for (Map.Entry<CharSequence, CharSequence> entry : frame.headers()) {
                fields.add(new HeaderField(entry.getKey().toString(), entry.getValue().toString()));
            }
            CharSequence statusText = frame.headers().status();
            if (status == 0 && statusText != null) {
                int code = Integer.parseInt(statusText.toString());
                if (code >= 200) {
                    status = code;
                    headers = fields;
                }
            } else if (status != 0) {
                trailers.addAll(fields);
            }
            if (frame.isEndStream()) {
                complete(false, 0);
            }
        }

        private void onData(Http2DataFrame frame) {
            var content = frame.content();
            int length = content.readableBytes();
            matchesPattern = matchesPattern && BodyPattern.matches(content, received, scratch);
            int room = MAX_CAPTURED_BODY - captured.size();
            if (room > 0) {
                byte[] bytes = new byte[Math.min(room, length)];
                content.getBytes(content.readerIndex(), bytes);
                captured.writeBytes(bytes);
            }
            received += length;
            if (frame.isEndStream()) {
                complete(false, 0);
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (event instanceof Http2ResetFrame reset) {
                complete(true, reset.errorCode());
            }
            ReferenceCountUtil.release(event);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            generatedLeft = 0;
            result.completeExceptionally(new IOException("stream closed before its response ended"));
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            result.completeExceptionally(cause);
            ctx.close();
        }

        private void complete(boolean reset, long resetCode) {
            if (generatedLeft > 0 && !reset) {
                ctx.channel().close();
            }
            generatedLeft = 0;
            result.complete(new Response(status, headers, captured.toByteArray(), received,
                    matchesPattern, trailers, reset, resetCode));
        }
    }
}
