package io.spillway.edge.listener;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.spillway.edge.accesslog.AccessLogs;
import io.spillway.edge.accesslog.LogInput;
import io.spillway.edge.http.HcmStats;
import io.spillway.edge.http.filter.StreamInfo;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * First handler of every downstream connection: applies the overload manager's connection-level
 * decisions (reject_incoming_connections, the tcp_listener_accept shed point, the global
 * connection limit — counted but never refused on {@code ignore_global_conn_limit} listeners) and
 * counts the connection in the listener's stats from accept to close, and in the connection
 * manager's once its filter chain is the HTTP one ({@link #httpChosen}).
 * When the listener has access logs, it also counts the connection's bytes (as they cross the
 * socket, before TLS) and writes one line per connection when it closes.
 */
@ChannelHandler.Sharable
final class ConnectionTracker extends ChannelDuplexHandler {
  private static final io.netty.util.AttributeKey<Boolean> COUNTED = io.netty.util.AttributeKey.valueOf("spillway.counted");
  /** Set when the connection's chain is the HTTP connection manager: it is then counted in the HCM's stats too. */
  private static final io.netty.util.AttributeKey<Boolean> HTTP = io.netty.util.AttributeKey.valueOf("spillway.http");
  private static final io.netty.util.AttributeKey<StreamInfo> LOGGED =
      io.netty.util.AttributeKey.valueOf("spillway.connectionLog");

  private final ListenerStats listenerStats;
  private final HcmStats hcmStats;
  private final ListenerOverload overload;
  private final boolean ignoreGlobalLimit;
  private final java.util.Map<io.netty.channel.EventLoop, io.spillway.edge.upstream.Worker> workers;
  private final AccessLogs accessLogs;
  /** This listener's open connections on every worker, kept across {@link Listener#replace}. */
  private final java.util.concurrent.atomic.AtomicLong listenerConnections;
  private final String listenerLimitKey;

  ConnectionTracker(ListenerStats listenerStats, HcmStats hcmStats, ListenerOverload overload, boolean ignoreGlobalLimit,
      java.util.Map<io.netty.channel.EventLoop, io.spillway.edge.upstream.Worker> workers, AccessLogs accessLogs,
      String listenerName, java.util.concurrent.atomic.AtomicLong listenerConnections) {
    this.accessLogs = accessLogs;
    this.listenerConnections = listenerConnections;
    this.listenerLimitKey = ListenerOverload.listenerConnectionLimitKey(listenerName);
    this.listenerStats = listenerStats;
    this.hcmStats = hcmStats;
    this.overload = overload;
    this.ignoreGlobalLimit = ignoreGlobalLimit;
    this.workers = workers;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    var state = overload.manager().state();
    var worker = workers.get(ctx.channel().eventLoop());
    if (state.isSaturated(overload.rejectIncoming())
        || (worker != null && overload.acceptShed().shouldShed(state, worker.random()))) {
      listenerStats.downstreamCxOverloadReject.inc();
      ctx.close();
      return;
    }
    var runtime = overload.runtime().snapshot();
    if (ignoreGlobalLimit) {
      overload.connections().allocateIgnoringLimit();
    } else if (!overload.connections().tryAllocate(
        runtime.getInteger(ListenerOverload.GLOBAL_MAX_CONNECTIONS_KEY, Long.MAX_VALUE))) {
      listenerStats.downstreamGlobalCxOverflow.inc();
      ctx.close();
      return;
    }
    if (!tryCountListenerConnection(runtime.getInteger(listenerLimitKey, Long.MAX_VALUE))) {
      overload.connections().deallocate();
      listenerStats.downstreamCxOverflow.inc();
      ctx.close();
      return;
    }
    ctx.channel().attr(COUNTED).set(Boolean.TRUE);
    long now = System.nanoTime();
    ctx.channel().attr(Listener.ACCEPTED_AT).set(now);
    if (!accessLogs.isEmpty()) {
      InetSocketAddress remote = ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a : null;
      StreamInfo info = new StreamInfo(now, remote == null ? "" : remote.getAddress().getHostAddress(), false);
      info.setDownstreamAddresses(remote,
          ctx.channel().localAddress() instanceof InetSocketAddress l ? l : null);
      ctx.channel().attr(LOGGED).set(info);
    }
    listenerStats.downstreamCxTotal.inc();
    listenerStats.downstreamCxActive.inc();
    if (ctx.channel().attr(HTTP).get() != null) {
      countHttp();
    }
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (ctx.channel().attr(COUNTED).getAndSet(null) == null) {
      return; // refused on accept: never counted
    }
    overload.connections().deallocate();
    listenerConnections.decrementAndGet();
    Long accepted = ctx.channel().attr(Listener.ACCEPTED_AT).get();
    long ms = accepted == null ? 0 : TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - accepted);
    listenerStats.downstreamCxActive.dec();
    listenerStats.downstreamCxDestroy.inc();
    listenerStats.downstreamCxLengthMs.record(ms);
    if (ctx.channel().attr(HTTP).getAndSet(null) != null) {
      hcmStats.downstreamCxActive.dec();
      hcmStats.downstreamCxDestroy.inc();
      hcmStats.downstreamCxLengthMs.record(ms);
    }
    StreamInfo info = ctx.channel().attr(LOGGED).getAndSet(null);
    if (info != null) {
      info.markEnd(System.nanoTime());
      var worker = workers.get(ctx.channel().eventLoop());
      accessLogs.log(new LogInput(info, null, null, null,
          worker != null ? worker.random() : java.util.concurrent.ThreadLocalRandom.current()));
    }
    ctx.fireChannelInactive();
  }

  /**
   * The connection's chain is the HTTP connection manager: counted in its stats from now (or from
   * when the connection is accepted, if it is not yet) until it closes.
   */
  void httpChosen(io.netty.channel.Channel ch) {
    ch.attr(HTTP).set(Boolean.TRUE);
    if (ch.attr(COUNTED).get() != null) {
      countHttp();
    }
  }

  private void countHttp() {
    hcmStats.downstreamCxTotal.inc();
    hcmStats.downstreamCxActive.inc();
  }

  /** One more connection on this listener, if that stays within its runtime limit. */
  private boolean tryCountListenerConnection(long limit) {
    long current;
    do {
      current = listenerConnections.get();
      if (current >= limit) {
        return false;
      }
    } while (!listenerConnections.compareAndSet(current, current + 1));
    return true;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof ByteBuf b && !accessLogs.isEmpty()) {
      StreamInfo info = ctx.channel().attr(LOGGED).get();
      if (info != null) {
        info.addBytesReceived(b.readableBytes());
      }
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof ByteBuf b && !accessLogs.isEmpty()) {
      StreamInfo info = ctx.channel().attr(LOGGED).get();
      if (info != null) {
        info.addBytesSent(b.readableBytes());
      }
    }
    ctx.write(msg, promise);
  }
}
