package io.spillway.edge.it;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP/1.1 WebSocket server on 127.0.0.1 (Netty's RFC 6455 handshake, which requires
 * {@code Sec-WebSocket-Key}): paths containing {@code /ws} upgrade and echo text and binary
 * messages ({@code close-please} makes it close with 4000); any other path is a 404 "nope".
 */
final class WebSocketEchoServer implements AutoCloseable {
  /** HTTP requests the server got (handshakes and 404s alike). */
  final AtomicInteger requests = new AtomicInteger();
  private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Channel server;

  WebSocketEchoServer(int maxFramePayloadLength) throws InterruptedException {
    server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(65536));
            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof FullHttpRequest) {
                  requests.incrementAndGet();
                }
                if (msg instanceof FullHttpRequest req && !req.uri().contains("/ws")) {
                  req.release();
                  DefaultFullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                      HttpResponseStatus.NOT_FOUND, Unpooled.copiedBuffer("nope", StandardCharsets.US_ASCII));
                  r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 4);
                  ctx.writeAndFlush(r);
                  return;
                }
                ctx.fireChannelRead(msg);
              }
            });
            ch.pipeline().addLast(new WebSocketServerProtocolHandler(WebSocketServerProtocolConfig.newBuilder()
                .websocketPath("/").checkStartsWith(true).maxFramePayloadLength(maxFramePayloadLength).build()));
            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof TextWebSocketFrame t && t.text().equals("close-please")) {
                  t.release();
                  ctx.writeAndFlush(new CloseWebSocketFrame(4000, "bye")).addListener(ChannelFutureListener.CLOSE);
                } else if (msg instanceof TextWebSocketFrame || msg instanceof BinaryWebSocketFrame) {
                  ctx.writeAndFlush(((WebSocketFrame) msg).retain());
                  ReferenceCountUtil.release(msg);
                } else {
                  ReferenceCountUtil.release(msg);
                }
              }
            });
          }
        }).bind("127.0.0.1", 0).sync().channel();
  }

  int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
