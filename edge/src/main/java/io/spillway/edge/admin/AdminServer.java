package io.spillway.edge.admin;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.spillway.edge.config.SocketAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The admin listener: a small HTTP/1.1 server on its own event loop (never a worker), exempt from
 * connection limits. Each path maps to one {@link AdminEndpoint}; mutating endpoints accept POST
 * only and answer 405 otherwise.
 */
public final class AdminServer implements AutoCloseable {

  private final AdminContext context;
  private final Map<String, AdminEndpoint> endpoints;
  private Channel channel;

  public AdminServer(AdminContext context) {
    this.context = context;
    this.endpoints = AdminEndpoints.all(context);
  }

  /** Binds the admin listener; blocking, on the main thread. */
  public void bind(EventLoopGroup group, SocketAddress address) throws InterruptedException {
    channel = new ServerBootstrap()
        .group(group)
        .channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast(new HttpServerCodec());
            ch.pipeline().addLast(new HttpServerKeepAliveHandler());
            ch.pipeline().addLast(new HttpObjectAggregator(1024 * 1024));
            ch.pipeline().addLast(new Dispatcher());
          }
        })
        .bind(address.host(), address.port()).sync().channel();
  }

  public InetSocketAddress localAddress() {
    return channel == null ? null : (InetSocketAddress) channel.localAddress();
  }

  @Override
  public void close() {
    if (channel != null) {
      channel.close().awaitUninterruptibly();
    }
  }

  /** Routes a request to its endpoint. */
  private final class Dispatcher extends SimpleChannelInboundHandler<FullHttpRequest> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      QueryStringDecoder uri = new QueryStringDecoder(request.uri());
      AdminEndpoint endpoint = endpoints.get(uri.path());
      AdminResponse response;
      if (endpoint == null) {
        response = AdminResponse.text(404, "invalid path: " + uri.path() + "\n" + index());
      } else if (endpoint.mutating() && !request.method().equals(HttpMethod.POST)) {
        response = AdminResponse.text(405, "This endpoint requires POST\n");
      } else {
        try {
          response = endpoint.handle(new AdminRequest(request.method().name(), uri.path(), uri.parameters(),
              request.content().toString(StandardCharsets.UTF_8)));
        } catch (RuntimeException e) {
          response = AdminResponse.text(500, "error: " + e.getMessage() + "\n");
        }
      }
      FullHttpResponse out = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
          HttpResponseStatus.valueOf(response.status()), Unpooled.wrappedBuffer(response.body()));
      out.headers().set(HttpHeaderNames.CONTENT_TYPE, response.contentType());
      out.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.body().length);
      out.headers().set("cache-control", "no-cache, max-age=0");
      out.headers().set("x-content-type-options", "nosniff");
      HttpUtil.setKeepAlive(out, HttpUtil.isKeepAlive(request));
      if (HttpUtil.isKeepAlive(request)) {
        ctx.writeAndFlush(out);
      } else {
        ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  private String index() {
    StringBuilder sb = new StringBuilder("admin commands are:\n");
    for (Map.Entry<String, AdminEndpoint> e : endpoints.entrySet()) {
      sb.append("  ").append(e.getKey()).append(e.getValue().mutating() ? " (POST)" : "").append(": ")
          .append(e.getValue().help()).append('\n');
    }
    return sb.toString();
  }
}
