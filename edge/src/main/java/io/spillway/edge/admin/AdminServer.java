package io.spillway.edge.admin;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
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
import io.spillway.edge.config.SocketAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The admin listener: a small HTTP/1.1 server on its own event loop (never a worker), exempt from
 * connection limits (its connections are counted in the global connection resource, never
 * refused). Each path maps to one {@link AdminEndpoint}; mutating endpoints accept POST
 * only and answer 405 otherwise.
 */
public final class AdminServer implements AutoCloseable {

  private final AdminContext context;
  private final Map<String, AdminEndpoint> endpoints;
  private final java.util.SplittableRandom random = new java.util.SplittableRandom(); // admin loop only
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
            context.adminConnectionOpened();
            ch.closeFuture().addListener(f -> context.adminConnectionClosed());
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
      long start = System.nanoTime();
      AdminRequest adminRequest = AdminRequest.of(request.method().name(), request.uri(),
          request.content().toString(StandardCharsets.UTF_8));
      AdminResponse response = dispatch(adminRequest);
      FullHttpResponse out = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
          HttpResponseStatus.valueOf(response.status()), Unpooled.wrappedBuffer(response.body()));
      out.headers().set(HttpHeaderNames.CONTENT_TYPE, response.contentType());
      out.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.body().length);
      out.headers().set("cache-control", "no-cache, max-age=0");
      out.headers().set("x-content-type-options", "nosniff");
      boolean keepAlive = HttpUtil.isKeepAlive(request);
      HttpUtil.setKeepAlive(out, keepAlive);
      io.spillway.edge.accesslog.AccessLogs logs = context.adminAccessLogs();
      if (!logs.isEmpty()) {
        logs.log(logInput(ctx, request, out, start, response.body().length));
      }
      ChannelFuture written = ctx.writeAndFlush(out);
      if (response.afterSent() != null) {
        written.addListener(f -> response.afterSent().run());
      }
      if (!keepAlive) {
        written.addListener(ChannelFutureListener.CLOSE);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  /** An admin request's access log line input (the response counts as sent when it is handed to the socket). */
  private io.spillway.edge.accesslog.LogInput logInput(ChannelHandlerContext ctx, FullHttpRequest request,
      FullHttpResponse out, long start, int bodyBytes) {
    InetSocketAddress remote = ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a : null;
    var info = new io.spillway.edge.http.filter.StreamInfo(start,
        remote == null ? "" : remote.getAddress().getHostAddress(), false);
    info.setDownstreamAddresses(remote, ctx.channel().localAddress() instanceof InetSocketAddress l ? l : null);
    info.addBytesReceived(request.content().readableBytes());
    info.addBytesSent(bodyBytes);
    info.setResponseCode(out.status().code());
    long now = System.nanoTime();
    info.markLastDownstreamRx(start);
    info.markEnd(now);
    String host = request.headers().get(HttpHeaderNames.HOST, "");
    var head = new io.spillway.edge.http.message.RequestHeaders(request.method().name(), "http", host, request.uri(),
        request.headers());
    return new io.spillway.edge.accesslog.LogInput(info, head,
        new io.spillway.edge.http.message.ResponseHeaders(out.status().code(), out.headers()), null, random);
  }

  private AdminResponse dispatch(AdminRequest request) {
    AdminEndpoint endpoint = endpoints.get(request.path());
    if (endpoint == null) {
      return AdminResponse.text(404, "invalid path: " + request.path() + "\n" + HelpEndpoint.index(endpoints));
    }
    if (endpoint.mutating() && !request.method().equals(HttpMethod.POST.name())) {
      return AdminResponse.text(405, "This endpoint requires POST\n");
    }
    try {
      return endpoint.handle(request);
    } catch (RuntimeException e) {
      return AdminResponse.text(500, "error: " + e.getMessage() + "\n");
    }
  }
}
