package io.spillway.edge.listener;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.spillway.edge.http.HcmStats;
import java.util.concurrent.TimeUnit;

/**
 * First handler of every downstream connection: counts it in the listener's and the connection
 * manager's stats from accept to close.
 */
@ChannelHandler.Sharable
final class ConnectionTracker extends ChannelInboundHandlerAdapter {

  private final ListenerStats listenerStats;
  private final HcmStats hcmStats;

  ConnectionTracker(ListenerStats listenerStats, HcmStats hcmStats) {
    this.listenerStats = listenerStats;
    this.hcmStats = hcmStats;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    ctx.channel().attr(Listener.ACCEPTED_AT).set(System.nanoTime());
    listenerStats.downstreamCxTotal.inc();
    listenerStats.downstreamCxActive.inc();
    hcmStats.downstreamCxTotal.inc();
    hcmStats.downstreamCxActive.inc();
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
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
