package io.spillway.edge.tcp;

import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Gauge;
import io.spillway.edge.stats.Scope;

/** A TCP proxy's stats under {@code tcp.<stat_prefix>.*}, Envoy's names. */
public final class TcpProxyStats {
  public final Counter downstreamCxTotal;
  /** Connections whose cluster does not exist. */
  public final Counter downstreamCxNoRoute;
  public final Counter downstreamCxRxBytesTotal;
  public final Counter downstreamCxTxBytesTotal;
  public final Counter downstreamFlowControlPausedReadingTotal;
  public final Counter downstreamFlowControlResumedReadingTotal;
  public final Counter idleTimeout;
  public final Counter maxDownstreamConnectionDurationReached;
  /** Upstream connections still writing what the downstream sent before it closed. */
  public final Gauge upstreamFlushActive;
  public final Counter upstreamFlushTotal;

  public TcpProxyStats(Scope scope) {
    downstreamCxTotal = scope.counter("downstream_cx_total");
    downstreamCxNoRoute = scope.counter("downstream_cx_no_route");
    downstreamCxRxBytesTotal = scope.counter("downstream_cx_rx_bytes_total");
    downstreamCxTxBytesTotal = scope.counter("downstream_cx_tx_bytes_total");
    downstreamFlowControlPausedReadingTotal = scope.counter("downstream_flow_control_paused_reading_total");
    downstreamFlowControlResumedReadingTotal = scope.counter("downstream_flow_control_resumed_reading_total");
    idleTimeout = scope.counter("idle_timeout");
    maxDownstreamConnectionDurationReached = scope.counter("max_downstream_connection_duration");
    upstreamFlushActive = scope.gauge("upstream_flush_active");
    upstreamFlushTotal = scope.counter("upstream_flush_total");
  }
}
