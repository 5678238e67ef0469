package io.spillway.edge.listener;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.spillway.edge.http.HcmStats;
import java.util.concurrent.TimeUnit;

/**
 * First handler of every downstream connection: applies the overload manager's connection-level
 * decisions (reject_incoming_connections, the tcp_listener_accept shed point, the global
 * connection limit — counted but never refused on {@code ignore_global_conn_limit} listeners) and
 * counts the connection in the listener's and the connection manager's stats from accept to close.
 */
@ChannelHandler.Sharable
final class ConnectionTracker extends ChannelInboundHandlerAdapter {
  private static final io.netty.util.AttributeKey<Boolean> COUNTED = io.netty.util.AttributeKey.valueOf("spillway.counted");

  private final ListenerStats listenerStats;
  private final HcmStats hcmStats;
  private final ListenerOverload overload;
  private final boolean ignoreGlobalLimit;
  private final java.util.Map<io.netty.channel.EventLoop, io.spillway.edge.upstream.Worker> workers;

  ConnectionTracker(ListenerStats listenerStats, HcmStats hcmStats, ListenerOverload overload, boolean ignoreGlobalLimit,
      java.util.Map<io.netty.channel.EventLoop, io.spillway.edge.upstream.Worker> workers) {
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
    if (ignoreGlobalLimit) {
      overload.connections().allocateIgnoringLimit();
    } else if (!overload.connections().tryAllocate()) {
      listenerStats.downstreamGlobalCxOverflow.inc();
      ctx.close();
      return;
    }
    ctx.channel().attr(COUNTED).set(Boolean.TRUE);
    ctx.channel().attr(Listener.ACCEPTED_AT).set(System.nanoTime());
    listenerStats.downstreamCxTotal.inc();
    listenerStats.downstreamCxActive.inc();
    hcmStats.downstreamCxTotal.inc();
    hcmStats.downstreamCxActive.inc();
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (ctx.channel().attr(COUNTED).getAndSet(null) == null) {
      return; // refused on accept: never counted
    }
    overload.connections().deallocate();
    Long accepted = ctx.channel().attr(Listener.ACCEPTED_AT).get();
    long ms = accepted == null ? 0 : TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - accepted);
    listenerStats.downstreamCxActive.dec();
    listenerStats.downstreamCxDestroy.inc();
    listenerStats.downstreamCxLengthMs.record(ms);
    hcmStats.downstreamCxActive.dec();
    hcmStats.downstreamCxDestroy.inc();
    hcmStats.downstreamCxLengthMs.record(ms);
    ctx.fireChannelInactive();
  }
}
