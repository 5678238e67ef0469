package io.spillway.edge.tcp;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.spillway.edge.upstream.Cluster;
import io.spillway.edge.upstream.Host;
import io.spillway.edge.upstream.Worker;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * The last handler of a {@code tcp_proxy} chain's downstream connection, one per connection: picks
 * the cluster and, with the cluster's balancer and within its {@code max_connections}, a host;
 * connects to it from the downstream's own event loop (up to {@code max_connect_attempts} times)
 * and relays bytes both ways. Back-pressure: when the side written to is not writable, reading
 * from the other side stops until it is. A half-close (FIN) is passed on as a half-close, and the
 * connections close when both directions have ended or either side closes — after what it sent
 * has been flushed to the other. Idle time ({@code idle_timeout}) and the connection's age
 * ({@code max_downstream_connection_duration}) close both. Bytes that arrive before the upstream
 * is connected (at most one read, plus what a listener filter peeked at) wait here.
 */
public final class TcpProxySession extends ChannelInboundHandlerAdapter {
  private final TcpProxyFactory factory;
  private final TcpProxyStats stats;
  private final Worker worker;
  private final ArrayDeque<ByteBuf> early = new ArrayDeque<>();
  private Channel downstream;
  private Channel upstream;
  private Cluster cluster;
  private int attempts;
  private boolean holdsConnectionSlot;
  private boolean downstreamEnded;
  private boolean upstreamEnded;
  private boolean closing;
  private long lastActivity;
  private ScheduledFuture<?> idleTimer;
  private ScheduledFuture<?> durationTimer;

  TcpProxySession(TcpProxyFactory factory, Worker worker) {
    this.factory = factory;
    this.stats = factory.stats();
    this.worker = worker;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    downstream = ctx.channel();
    downstream.config().setAutoRead(false);
    downstream.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
    stats.downstreamCxTotal.inc();
    lastActivity = factory.nanoTime();
    cluster = factory.pickCluster(worker);
    if (cluster == null) {
      stats.downstreamCxNoRoute.inc();
      downstream.close();
      return;
    }
    long idle = factory.config().idleTimeout().toNanos();
    if (idle > 0) {
      idleTimer = downstream.eventLoop().schedule(this::checkIdle, idle, TimeUnit.NANOSECONDS);
    }
    factory.config().maxDownstreamConnectionDuration().ifPresent(d ->
        durationTimer = downstream.eventLoop().schedule(() -> {
          stats.maxDownstreamConnectionDurationReached.inc();
          closeBoth();
        }, d.toNanos(), TimeUnit.NANOSECONDS));
    connect();
  }

  private void connect() {
    attempts++;
    if (!cluster.limits().tryAcquireConnection()) {
      cluster.stats().upstreamCxOverflow.inc();
      downstream.close();
      return;
    }
    holdsConnectionSlot = true;
    Host host = cluster.pickHost(worker);
    if (host == null) {
      releaseSlot();
      cluster.stats().upstreamCxNoneHealthy.inc();
      downstream.close();
      return;
    }
    long started = factory.nanoTime();
    cluster.stats().upstreamCxTotal.inc();
    Bootstrap b = new Bootstrap()
        .group(downstream.eventLoop())
        .channelFactory(() -> worker.channelFactory().get())
        .option(ChannelOption.ALLOCATOR, worker.allocator())
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.AUTO_READ, false)
        .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
        .option(ChannelOption.WRITE_BUFFER_WATER_MARK, downstream.config().getWriteBufferWaterMark())
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
            (int) Math.min(Integer.MAX_VALUE, Math.max(1, cluster.config().connectTimeout().toMillis())))
        .handler(new ChannelInitializer<>() {
          @Override
          protected void initChannel(Channel ch) {
            SslHandler tls = cluster.newRawConnectionTls(ch.alloc(), host);
            if (tls != null) {
              ch.pipeline().addLast("tls", tls);
            }
            ch.pipeline().addLast("relay", new UpstreamSide());
          }
        });
    b.connect(host.address()).addListener((ChannelFuture f) -> onConnect(f, started));
  }

  private void onConnect(ChannelFuture f, long started) {
    if (!f.isSuccess()) {
      cluster.stats().upstreamCxConnectFail.inc();
      if (f.cause() instanceof ConnectTimeoutException) {
        cluster.stats().upstreamCxConnectTimeout.inc();
      }
      releaseSlot();
      if (attempts < factory.config().maxConnectAttempts() && downstream.isActive()) {
        connect();
      } else {
        downstream.close();
      }
      return;
    }
    upstream = f.channel();
    cluster.stats().upstreamCxActive.inc(); // its close counts it down and gives the slot back
    cluster.stats().upstreamCxConnectMs.record((factory.nanoTime() - started) / 1_000_000);
    if (!downstream.isActive()) {
      upstream.close(); // the downstream left while connecting
      return;
    }
    while (!early.isEmpty()) {
      ByteBuf b = early.poll();
      cluster.stats().upstreamCxTxBytesTotal.add(b.readableBytes());
      upstream.write(b);
    }
    if (downstreamEnded) {
      shutdownOutputAfterFlush(upstream);
    } else {
      upstream.flush();
      downstream.config().setAutoRead(upstream.isWritable());
    }
    upstream.config().setAutoRead(downstream.isWritable());
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf b)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    lastActivity = factory.nanoTime();
    stats.downstreamCxRxBytesTotal.add(b.readableBytes());
    if (upstream == null) {
      early.add(b);
      return;
    }
    cluster.stats().upstreamCxTxBytesTotal.add(b.readableBytes());
    upstream.write(b);
    if (!upstream.isWritable() && downstream.config().isAutoRead()) {
      downstream.config().setAutoRead(false);
      stats.downstreamFlowControlPausedReadingTotal.inc();
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (upstream != null) {
      upstream.flush();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    // The downstream drained (or filled): the upstream's reads follow.
    if (upstream != null && !upstreamEnded) {
      upstream.config().setAutoRead(downstream.isWritable());
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof ChannelInputShutdownEvent) {
      downstreamEnded = true;
      if (upstream != null) {
        shutdownOutputAfterFlush(upstream);
      }
      if (upstreamEnded) {
        closeBothAfterFlush();
      }
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    cancelTimers();
    while (!early.isEmpty()) {
      early.poll().release();
    }
    if (upstream != null && upstream.isActive()) {
      // What the downstream sent is written before the upstream closes (Envoy's upstream flush).
      stats.upstreamFlushTotal.inc();
      stats.upstreamFlushActive.inc();
      upstream.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> {
        stats.upstreamFlushActive.dec();
        upstream.close();
      });
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    closeBoth(); // a reset or I/O error: nothing more can be relayed
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    cancelTimers();
  }

  private void checkIdle() {
    long idle = factory.config().idleTimeout().toNanos();
    long quiet = factory.nanoTime() - lastActivity;
    if (quiet >= idle) {
      stats.idleTimeout.inc();
      closeBoth();
    } else if (downstream.isOpen()) {
      idleTimer = downstream.eventLoop().schedule(this::checkIdle, idle - quiet, TimeUnit.NANOSECONDS);
    }
  }

  private void closeBoth() {
    if (closing) {
      return;
    }
    closing = true;
    cancelTimers();
    if (upstream != null) {
      upstream.close();
    }
    downstream.close();
  }

  private void cancelTimers() {
    if (idleTimer != null) {
      idleTimer.cancel(false);
    }
    if (durationTimer != null) {
      durationTimer.cancel(false);
    }
  }

  private void releaseSlot() {
    if (holdsConnectionSlot) {
      holdsConnectionSlot = false;
      cluster.limits().releaseConnection();
    }
  }

  /** Both directions ended: each connection closes once what was written to it is on its socket. */
  private void closeBothAfterFlush() {
    if (closing) {
      return;
    }
    closing = true;
    cancelTimers();
    if (upstream != null) {
      upstream.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }
    downstream.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
  }

  /**
   * Passes a FIN on once every byte written before it is on the socket: Netty's
   * {@code shutdownOutput} fails what is still queued, which under back-pressure is the tail of
   * what the other side sent before its FIN.
   */
  private static void shutdownOutputAfterFlush(Channel ch) {
    ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> shutdownOutput(ch));
  }

  private static void shutdownOutput(Channel ch) {
    if (ch instanceof DuplexChannel duplex && !duplex.isOutputShutdown()) {
      duplex.shutdownOutput();
    } else if (!(ch instanceof DuplexChannel)) {
      ch.close();
    }
  }

  /** The upstream connection's handler: its bytes go to the downstream. */
  private final class UpstreamSide extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (!(msg instanceof ByteBuf b)) {
        ReferenceCountUtil.release(msg);
        return;
      }
      lastActivity = factory.nanoTime();
      int n = b.readableBytes();
      cluster.stats().upstreamCxRxBytesTotal.add(n);
      stats.downstreamCxTxBytesTotal.add(n);
      downstream.write(b);
      if (!downstream.isWritable()) {
        ctx.channel().config().setAutoRead(false);
      }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      downstream.flush();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      boolean writable = ctx.channel().isWritable();
      if (!downstreamEnded && downstream.isActive() && writable != downstream.config().isAutoRead()) {
        downstream.config().setAutoRead(writable);
        if (writable) {
          stats.downstreamFlowControlResumedReadingTotal.inc();
        } else {
          stats.downstreamFlowControlPausedReadingTotal.inc();
        }
      }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof ChannelInputShutdownEvent) {
        upstreamEnded = true;
        shutdownOutputAfterFlush(downstream);
        if (downstreamEnded) {
          closeBothAfterFlush();
        }
        return;
      }
      ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      cluster.stats().upstreamCxActive.dec();
      cluster.stats().upstreamCxDestroy.inc();
      releaseSlot();
      if (downstream.isActive()) {
        downstream.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      closeBoth();
    }
  }
}
