package io.spillway.edge.http;

import io.spillway.edge.http2.Http2CodecStats;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Gauge;
import io.spillway.edge.stats.Histogram;
import io.spillway.edge.stats.Scope;

/**
 * An HTTP connection manager's stats under {@code http.<stat_prefix>.*}, with Envoy's names, and
 * the HTTP/1 and HTTP/2 codec stats its connections count in ({@code http1.*}, {@code http2.*},
 * shared as in Envoy).
 */
public final class HcmStats {
  private final Scope scope;
  public final Http1CodecStats http1;
  public final Http2CodecStats http2;
  public final Counter downstreamCxTotal;
  public final Gauge downstreamCxActive;
  public final Counter downstreamCxHttp1Total;
  public final Gauge downstreamCxHttp1Active;
  public final Counter downstreamCxHttp2Total;
  public final Gauge downstreamCxHttp2Active;
  public final Counter downstreamCxSslTotal;
  public final Counter downstreamCxDestroy;
  public final Counter downstreamCxProtocolError;
  public final Counter downstreamCxIdleTimeout;
  public final Counter downstreamCxMaxDurationReached;
  public final Counter downstreamCxDrainClose;
  public final Counter downstreamCxDestroyRemoteActiveRq;
  public final Histogram downstreamCxLengthMs;
  public final Counter downstreamRqTotal;
  public final Gauge downstreamRqActive;
  public final Counter downstreamRqHttp1Total;
  public final Counter downstreamRqHttp2Total;
  public final Counter downstreamRqCompleted;
  public final Counter downstreamRqRxReset;
  public final Counter downstreamRqTxReset;
  public final Counter downstreamRqTimeout;
  public final Counter downstreamRqIdleTimeout;
  /** Streams that reached their route's {@code max_stream_duration}. */
  public final Counter downstreamRqMaxDurationReached;
  public final Counter downstreamRqHeaderTimeout;
  public final Counter downstreamRqTooLarge;
  public final Counter downstreamRqNonRelativePath;
  public final Counter downstreamRqResponseBeforeRqComplete;
  public final Counter[] downstreamRqClass;
  public final Histogram downstreamRqTime;
  public final Counter downstreamRqOverloadClose;
  public final Counter downstreamCxOverloadDisableKeepalive;
  public final Counter downstreamCxOverloadCloseIdle;
  public final Counter downstreamRqTooManyPrematureResets;
  /** Streams switched to another protocol (101 sent): every upgrade type counts here, as in Envoy. */
  public final Counter downstreamCxUpgradesTotal;
  public final Gauge downstreamCxUpgradesActive;
  /** Upgrade requests on a route (or connection manager) where that upgrade is not enabled: 403. */
  public final Counter downstreamRqWsOnNonWsRoute;
  /** Requests refused with 400 by path normalization (or a redirect a gRPC request cannot follow). */
  public final Counter downstreamRqFailedPathNormalization;
  /** Requests answered 307 to their unescaped path (UNESCAPE_AND_REDIRECT). */
  public final Counter downstreamRqRedirectedWithNormalizedPath;

  /**
   * @param scope {@code http.<stat_prefix>.}
   * @param http1 the downstream HTTP/1 codec stats
   * @param http2 the downstream HTTP/2 codec stats
   */
  public HcmStats(Scope scope, Http1CodecStats http1, Http2CodecStats http2) {
    this.scope = scope;
    this.http1 = http1;
    this.http2 = http2;
    downstreamCxTotal = scope.counter("downstream_cx_total");
    downstreamCxActive = scope.gauge("downstream_cx_active");
    downstreamCxHttp1Total = scope.counter("downstream_cx_http1_total");
    downstreamCxHttp1Active = scope.gauge("downstream_cx_http1_active");
    downstreamCxHttp2Total = scope.counter("downstream_cx_http2_total");
    downstreamCxHttp2Active = scope.gauge("downstream_cx_http2_active");
    downstreamCxSslTotal = scope.counter("downstream_cx_ssl_total");
    downstreamCxDestroy = scope.counter("downstream_cx_destroy");
    downstreamCxProtocolError = scope.counter("downstream_cx_protocol_error");
    downstreamCxIdleTimeout = scope.counter("downstream_cx_idle_timeout");
    downstreamCxMaxDurationReached = scope.counter("downstream_cx_max_duration_reached");
    downstreamCxDrainClose = scope.counter("downstream_cx_drain_close");
    downstreamCxDestroyRemoteActiveRq = scope.counter("downstream_cx_destroy_remote_active_rq");
    downstreamCxLengthMs = scope.histogram("downstream_cx_length_ms", Histogram.Unit.MILLISECONDS);
    downstreamRqTotal = scope.counter("downstream_rq_total");
    downstreamRqActive = scope.gauge("downstream_rq_active");
    downstreamRqHttp1Total = scope.counter("downstream_rq_http1_total");
    downstreamRqHttp2Total = scope.counter("downstream_rq_http2_total");
    downstreamRqCompleted = scope.counter("downstream_rq_completed");
    downstreamRqRxReset = scope.counter("downstream_rq_rx_reset");
    downstreamRqTxReset = scope.counter("downstream_rq_tx_reset");
    downstreamRqTimeout = scope.counter("downstream_rq_timeout");
    downstreamRqIdleTimeout = scope.counter("downstream_rq_idle_timeout");
    downstreamRqMaxDurationReached = scope.counter("downstream_rq_max_duration_reached");
    downstreamRqHeaderTimeout = scope.counter("downstream_rq_header_timeout");
    downstreamRqTooLarge = scope.counter("downstream_rq_too_large");
    downstreamRqNonRelativePath = scope.counter("downstream_rq_non_relative_path");
    downstreamRqResponseBeforeRqComplete = scope.counter("downstream_rq_response_before_rq_complete");
    downstreamRqClass = new Counter[6];
    for (int c = 1; c <= 5; c++) {
      downstreamRqClass[c] = scope.responseCodeClassCounter("downstream_rq", c);
    }
    downstreamRqTime = scope.histogram("downstream_rq_time", Histogram.Unit.MILLISECONDS);
    downstreamRqOverloadClose = scope.counter("downstream_rq_overload_close");
    downstreamCxOverloadDisableKeepalive = scope.counter("downstream_cx_overload_disable_keepalive");
    downstreamCxOverloadCloseIdle = scope.counter("downstream_cx_overload_close_idle");
    downstreamRqTooManyPrematureResets = scope.counter("downstream_rq_too_many_premature_resets");
    downstreamCxUpgradesTotal = scope.counter("downstream_cx_upgrades_total");
    downstreamCxUpgradesActive = scope.gauge("downstream_cx_upgrades_active");
    downstreamRqWsOnNonWsRoute = scope.counter("downstream_rq_ws_on_non_ws_route");
    downstreamRqFailedPathNormalization = scope.counter("downstream_rq_failed_path_normalization");
    downstreamRqRedirectedWithNormalizedPath = scope.counter("downstream_rq_redirected_with_normalized_path");
  }

  /** The scope {@code http.<stat_prefix>.}, for the stats of the connection manager's HTTP filters. */
  public Scope scope() {
    return scope;
  }

  /** Counts a response sent downstream by status class. */
  public void responseCode(int status) {
    int c = status / 100;
    if (c >= 1 && c <= 5) {
      downstreamRqClass[c].inc();
    }
  }
}
