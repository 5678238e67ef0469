package io.spillway.bench.overload;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * A backend with a known, fixed capacity for the overload benchmark: {@code --slots N} requests are
 * served at a time, each held for {@code --service-ms S}; the excess waits in one FIFO queue (a
 * queued request whose connection has closed is skipped, as a real server would). Capacity
 * C = N / S requests per second; above C the call time grows linearly with the queue, which is
 * the server model of docs/admission.md.
 *
 * <p>Everything runs on ONE event loop, so the slot count and the queue need no locking and the
 * backend's own CPU use is bounded to one thread. HTTP/1.1 keep-alive, body {@code "ok\n"}.
 * {@code GET /__stats} is answered at once (never queued): in service, queued, served, dropped.
 * {@code GET /__service?ms=M} changes the service time from then on (a backend that turns slow and
 * recovers). {@code GET /__flush} answers every queued request with 503 at once (used between benchmark
 * phases so a backlog from one phase cannot leak into the next). The queue is bounded by
 * {@code --max-queue} (default 200000); beyond it a request gets 503 at once and is counted.
 *
 * <p>Usage: {@code java -cp spillway-jmh.jar io.spillway.bench.overload.CapacityBackend --port P
 * --slots 20 --service-ms 50}. Prints {@code listening on 127.0.0.1:P} when ready.
 */
public final class CapacityBackend {
  private static final byte[] OK = "ok\n".getBytes(StandardCharsets.US_ASCII);

  private final int slots;
  private long serviceNanos; // changed only on the event loop, by /__service
  private final int maxQueue;
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private int busy;
  private long served;
  private long droppedClosed;
  private long rejectedQueueFull;
  private long flushed;
  private long received;

  private record Pending(ChannelHandlerContext ctx, boolean keepAlive, long arrivedNanos) {}

  /** With {@code --orca-cpu X}: the floor of the cpu_utilization reported in ORCA's header; NaN: no report. */
  private double orcaCpu = Double.NaN;

  private CapacityBackend(int slots, long serviceNanos, int maxQueue) {
    this.slots = slots;
    this.serviceNanos = serviceNanos;
    this.maxQueue = maxQueue;
  }

  public static void main(String[] args) throws Exception {
    int port = 0;
    int slots = 20;
    double serviceMs = 50;
    int maxQueue = 200_000;
    double orcaCpu = Double.NaN;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--port" -> port = Integer.parseInt(args[++i]);
        case "--slots" -> slots = Integer.parseInt(args[++i]);
        case "--service-ms" -> serviceMs = Double.parseDouble(args[++i]);
        case "--max-queue" -> maxQueue = Integer.parseInt(args[++i]);
        case "--orca-cpu" -> orcaCpu = Double.parseDouble(args[++i]);
        default -> {
          System.err.println("usage: CapacityBackend [--port N] [--slots N] [--service-ms MS] [--max-queue N]"
              + " [--orca-cpu X]");
          System.exit(2);
        }
      }
    }
    if (slots < 1 || serviceMs <= 0 || maxQueue < 1) {
      System.err.println("slots, service-ms and max-queue must be positive");
      System.exit(2);
    }
    CapacityBackend backend = new CapacityBackend(slots, (long) (serviceMs * 1_000_000), maxQueue);
    backend.orcaCpu = orcaCpu;
    boolean epoll = Epoll.isAvailable();
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
        epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    ServerBootstrap b = new ServerBootstrap()
        .group(group)
        .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
        .option(ChannelOption.SO_BACKLOG, 8192)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(64 * 1024), backend.new Handler());
          }
        });
    Channel ch = b.bind("127.0.0.1", port).sync().channel();
    int bound = ((java.net.InetSocketAddress) ch.localAddress()).getPort();
    System.out.printf("listening on 127.0.0.1:%d slots=%d service_ms=%.1f capacity_rps=%.1f%n",
        bound, slots, serviceMs, slots * 1000.0 / serviceMs);
    System.out.flush();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> group.shutdownGracefully(0, 1, TimeUnit.SECONDS)));
    ch.closeFuture().sync();
  }

  private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
      boolean keepAlive = HttpUtil.isKeepAlive(req);
      String uri = req.uri();
      if (uri.startsWith("/__stats")) {
        String body = String.format(
            "{\"in_service\":%d,\"queued\":%d,\"received\":%d,\"served\":%d,\"dropped_closed\":%d,"
                + "\"rejected_queue_full\":%d,\"flushed\":%d}%n",
            busy, queue.size(), received, served, droppedClosed, rejectedQueueFull, flushed);
        write(ctx, keepAlive, HttpResponseStatus.OK, body.getBytes(StandardCharsets.US_ASCII));
        return;
      }
      if (uri.startsWith("/__service?ms=")) {
        double ms = Double.parseDouble(uri.substring("/__service?ms=".length()));
        if (ms <= 0) {
          write(ctx, keepAlive, HttpResponseStatus.BAD_REQUEST, "service time must be positive\n".getBytes(StandardCharsets.US_ASCII));
          return;
        }
        serviceNanos = (long) (ms * 1_000_000);
        write(ctx, keepAlive, HttpResponseStatus.OK, ("{\"service_ms\":" + ms + "}\n").getBytes(StandardCharsets.US_ASCII));
        return;
      }
      if (uri.startsWith("/__flush")) {
        int n = 0;
        Pending p;
        while ((p = queue.poll()) != null) {
          if (p.ctx.channel().isActive()) {
            write(p.ctx, false, HttpResponseStatus.SERVICE_UNAVAILABLE, OK);
          }
          n++;
        }
        flushed += n;
        write(ctx, keepAlive, HttpResponseStatus.OK, ("{\"flushed\":" + n + "}\n").getBytes(StandardCharsets.US_ASCII));
        return;
      }
      received++;
      Pending p = new Pending(ctx, keepAlive, System.nanoTime());
      if (busy < slots) {
        busy++;
        serve(p);
      } else if (queue.size() >= maxQueue) {
        rejectedQueueFull++;
        write(ctx, keepAlive, HttpResponseStatus.SERVICE_UNAVAILABLE, OK);
      } else {
        queue.add(p);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  /** Holds a slot for the service time, answers, then hands the slot to the next live queued request. */
  private void serve(Pending p) {
    p.ctx.executor().schedule(() -> {
      if (p.ctx.channel().isActive()) {
        served++;
        write(p.ctx, p.keepAlive, HttpResponseStatus.OK, OK);
      } else {
        droppedClosed++;
      }
      Pending next;
      while ((next = queue.poll()) != null) {
        if (next.ctx.channel().isActive()) {
          serve(next);
          return;
        }
        droppedClosed++;
      }
      busy--;
    }, serviceNanos, TimeUnit.NANOSECONDS);
  }

  private void write(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, byte[] body) {
    ByteBuf buf = Unpooled.wrappedBuffer(body);
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, buf);
    if (!Double.isNaN(orcaCpu)) {
      // ORCA: the busy share of the slots (at least the configured floor: a "hot" backend), and
      // the capacity in requests/s as rps_fractional, so client-side weighted round robin has a qps.
      double cpu = Math.max(orcaCpu, (double) busy / slots);
      r.headers().set("endpoint-load-metrics", String.format(java.util.Locale.ROOT,
          "TEXT cpu_utilization=%.3f, rps_fractional=%.1f", Math.min(1.0, cpu), slots * 1e9 / serviceNanos));
    }
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain");
    r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    if (keepAlive) {
      r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
      ctx.writeAndFlush(r, ctx.voidPromise());
    } else {
      r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
    }
  }
}
