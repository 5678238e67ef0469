package io.spillway.edge.e2e;

import io.netty.bootstrap.Bootstrap;
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
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An HTTP/2 prior-knowledge connection that shows what the testkit's {@code H2cClient} does not:
 * the GOAWAY frame and the connection's close, and it sends header blocks larger than the server's
 * SETTINGS_MAX_HEADER_LIST_SIZE (Netty's encoder would otherwise refuse them on the client side),
 * so the server's own limit is what gets tested. Bodies are counted, not kept.
 */
final class H2Probe implements AutoCloseable {

  private final EventLoopGroup group;
  private final Channel channel;
  private final CompletableFuture<Long> goAway = new CompletableFuture<>();
  private final CompletableFuture<Void> closed = new CompletableFuture<>();

  private H2Probe(int port) {
    group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("h2-probe", true), NioIoHandler.newFactory());
    Bootstrap bootstrap = new Bootstrap()
        .group(group)
        .channel(NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .handler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline().addLast(Http2FrameCodecBuilder.forClient().encoderIgnoreMaxHeaderListSize(true).build());
            ch.pipeline().addLast(new Http2MultiplexHandler(new ChannelInitializer<Channel>() {
              @Override
              protected void initChannel(Channel pushed) {
                // the server never pushes to us
              }
            }));
            ch.pipeline().addLast(new ConnectionEvents());
          }
        });
    try {
      channel = bootstrap.connect(new InetSocketAddress("127.0.0.1", port)).syncUninterruptibly().channel();
    } catch (RuntimeException e) {
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).syncUninterruptibly();
      throw new UncheckedIOException(new IOException("cannot connect to 127.0.0.1:" + port, e));
    }
  }

  static H2Probe connect(int port) {
    return new H2Probe(port);
  }

  /** Opens a stream with a body-less request; extra header names must be lower case. */
  CompletableFuture<Exchange> request(String method, String path, Map<String, String> extraHeaders) {
    Http2Headers headers = new DefaultHttp2Headers()
        .method(method)
        .path(path)
        .scheme("http")
        .authority(((InetSocketAddress) channel.remoteAddress()).getHostString() + ":"
            + ((InetSocketAddress) channel.remoteAddress()).getPort());
    extraHeaders.forEach(headers::add);
    StreamEvents events = new StreamEvents();
    new Http2StreamChannelBootstrap(channel).handler(events).open().addListener(f -> {
      if (f.isSuccess()) {
        ((Channel) f.getNow()).writeAndFlush(new DefaultHttp2HeadersFrame(headers, true));
      } else {
        events.result.completeExceptionally(f.cause());
      }
    });
    return events.result;
  }

  /**
   * Opens a stream whose response is never read: the stream does not consume what arrives, so no
   * WINDOW_UPDATE is sent and the server's side of the stream fills up. Completes when the stream
   * ends or is reset.
   */
  CompletableFuture<Exchange> requestWithoutReading(String method, String path) {
    Http2Headers headers = new DefaultHttp2Headers()
        .method(method)
        .path(path)
        .scheme("http")
        .authority(((InetSocketAddress) channel.remoteAddress()).getHostString() + ":"
            + ((InetSocketAddress) channel.remoteAddress()).getPort());
    StreamEvents events = new StreamEvents();
    new Http2StreamChannelBootstrap(channel).option(ChannelOption.AUTO_READ, false).handler(events).open()
        .addListener(f -> {
          if (f.isSuccess()) {
            ((Channel) f.getNow()).writeAndFlush(new DefaultHttp2HeadersFrame(headers, true));
          } else {
            events.result.completeExceptionally(f.cause());
          }
        });
    return events.result;
  }

  /** Completes with the GOAWAY's error code when the server sends one. */
  CompletableFuture<Long> goAway() {
    return goAway;
  }

  /** Completes when the connection is closed (by either side). */
  CompletableFuture<Void> closed() {
    return closed;
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /**
   * How one stream ended.
   *
   * @param status     the final {@code :status}, 0 when none arrived
   * @param bodyBytes  DATA bytes received
   * @param reset      whether the server sent RST_STREAM
   * @param resetCode  its error code
   */
  record Exchange(int status, long bodyBytes, boolean reset, long resetCode) {}

  private final class ConnectionEvents extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof Http2GoAwayFrame frame) {
        goAway.complete(frame.errorCode());
      }
      ReferenceCountUtil.release(msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      closed.complete(null);
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  private static final class StreamEvents extends ChannelInboundHandlerAdapter {
    final CompletableFuture<Exchange> result = new CompletableFuture<>();
    private int status;
    private long bodyBytes;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (msg instanceof Http2HeadersFrame frame) {
          CharSequence code = frame.headers().status();
          if (code != null && status == 0 && Integer.parseInt(code.toString()) >= 200) {
            status = Integer.parseInt(code.toString());
          }
          if (frame.isEndStream()) {
            result.complete(new Exchange(status, bodyBytes, false, 0));
          }
        } else if (msg instanceof Http2DataFrame frame) {
          bodyBytes += frame.content().readableBytes();
          if (frame.isEndStream()) {
            result.complete(new Exchange(status, bodyBytes, false, 0));
          }
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof Http2ResetFrame reset) {
        result.complete(new Exchange(status, bodyBytes, true, reset.errorCode()));
      }
      ReferenceCountUtil.release(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      result.completeExceptionally(new IOException("stream closed before it ended (status so far " + status + ")"));
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      result.completeExceptionally(cause);
      ctx.close();
    }
  }
}
