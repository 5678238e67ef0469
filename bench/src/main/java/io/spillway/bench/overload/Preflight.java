package io.spillway.bench.overload;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpVersion;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Warms the generator before the clock starts (class loading, JIT of the send path, native
 * transport): each event loop sends a few requests of the first stream on one connection, and
 * these are not counted. Without it the first second shows the generator's own start-up as
 * send lag. Bounded: 5 s at most.
 */
final class Preflight {

  private Preflight() {}

  static void run(EventLoop[] loops, String host, int port, String path, int perLoop) throws InterruptedException {
    CountDownLatch done = new CountDownLatch(loops.length * perLoop);
    for (EventLoop loop : loops) {
      loop.execute(() -> {
        Bootstrap b = new Bootstrap().group(loop).channel(Epoll.isAvailable() ? EpollSocketChannel.class : NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .handler(new ChannelInitializer<SocketChannel>() {
              int left = perLoop;

              @Override
              protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(1 << 20),
                    new SimpleChannelInboundHandler<FullHttpResponse>() {
                      @Override
                      protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse msg) {
                        done.countDown();
                        if (--left > 0) {
                          ctx.writeAndFlush(request(host, path));
                        } else {
                          ctx.close();
                        }
                      }
                    });
              }
            });
        b.connect(host, port).addListener((ChannelFuture f) -> {
          if (f.isSuccess()) {
            f.channel().writeAndFlush(request(host, path));
          }
        });
      });
    }
    done.await(5, TimeUnit.SECONDS);
  }

  private static DefaultFullHttpRequest request(String host, String path) {
    DefaultFullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path);
    req.headers().set(HttpHeaderNames.HOST, host);
    return req;
  }
}
