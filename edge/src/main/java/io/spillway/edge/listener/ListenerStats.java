package io.spillway.edge.listener;

import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Gauge;
import io.spillway.edge.stats.Histogram;
import io.spillway.edge.stats.Scope;

/** A listener's stats under {@code listener.<address>.*} (address with ':' as '_'), Envoy's names. */
public final class ListenerStats {
  public final Counter downstreamCxTotal;
  public final Gauge downstreamCxActive;
  public final Counter downstreamCxDestroy;
  public final Histogram downstreamCxLengthMs;
  public final Counter sslHandshakeError;
  /** Connections closed because their TLS handshake outlasted {@code transport_socket_connect_timeout}. */
  public final Counter transportSocketConnectTimeout;
  public final Counter downstreamGlobalCxOverflow;
  public final Counter downstreamCxOverloadReject;
  /** Connections closed because the listener had its runtime connection limit's worth open. */
  public final Counter downstreamCxOverflow;
  /** Connections closed because no filter chain (and no default chain) matched them. */
  public final Counter noFilterChainMatch;

  public ListenerStats(Scope scope) {
    downstreamCxTotal = scope.counter("downstream_cx_total");
    downstreamCxActive = scope.gauge("downstream_cx_active");
    downstreamCxDestroy = scope.counter("downstream_cx_destroy");
    downstreamCxLengthMs = scope.histogram("downstream_cx_length_ms", Histogram.Unit.MILLISECONDS);
    sslHandshakeError = scope.counter("ssl.handshake_error");
    transportSocketConnectTimeout = scope.counter("downstream_cx_transport_socket_connect_timeout");
    downstreamGlobalCxOverflow = scope.counter("downstream_global_cx_overflow");
    downstreamCxOverloadReject = scope.counter("downstream_cx_overload_reject");
    downstreamCxOverflow = scope.counter("downstream_cx_overflow");
    noFilterChainMatch = scope.counter("no_filter_chain_match");
  }
}
