package io.spillway.edge.upstream;

import io.spillway.edge.http2.Http2CodecStats;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Gauge;
import io.spillway.edge.stats.Histogram;
import io.spillway.edge.stats.Scope;

/** A cluster's stats under {@code cluster.<name>.*}, with Envoy's names, created once per cluster. */
public final class ClusterStats {
  /** {@code cluster.<name>.http2.*}: the HTTP/2 codec stats of an HTTP/2 cluster, null for HTTP/1.1. */
  public final Http2CodecStats http2;
  public final Counter upstreamCxTotal;
  public final Gauge upstreamCxActive;
  public final Counter upstreamCxConnectFail;
  public final Counter upstreamCxConnectTimeout;
  public final Counter upstreamCxDestroy;
  /** Bytes read from the cluster's hosts over TCP proxy connections. */
  public final Counter upstreamCxRxBytesTotal;
  /** Bytes written to the cluster's hosts over TCP proxy connections. */
  public final Counter upstreamCxTxBytesTotal;
  public final Counter upstreamCxOverflow;
  public final Counter upstreamCxIdleTimeout;
  public final Counter upstreamCxReclaimed;
  public final Counter upstreamCxNoneHealthy;
  public final Counter upstreamCxHttp1Total;
  public final Counter upstreamCxHttp2Total;
  public final Counter upstreamRqTotal;
  public final Gauge upstreamRqActive;
  public final Counter upstreamRqPendingTotal;
  public final Gauge upstreamRqPendingActive;
  public final Counter upstreamRqPendingOverflow;
  public final Counter upstreamRqShareOverflow;
  public final Counter upstreamRqPendingFailureEject;
  public final Counter upstreamRqTimeout;
  public final Counter upstreamRqPerTryTimeout;
  public final Counter upstreamRqRxReset;
  public final Counter upstreamRqTxReset;
  public final Counter upstreamRqRetry;
  public final Counter upstreamRqRetrySuccess;
  public final Counter upstreamRqRetryOverflow;
  public final Counter upstreamRqCompleted;
  public final Counter[] upstreamRqClass;
  public final Histogram upstreamRqTime;
  public final Histogram upstreamCxConnectMs;
  public final Gauge membershipTotal;
  /** Hosts neither unhealthy nor degraded (Envoy's count of its healthy hosts). */
  public final Gauge membershipHealthy;
  /** Degraded hosts (EDS {@code health_status: DEGRADED}, or {@code x-envoy-degraded} on their health check). */
  public final Gauge membershipDegraded;
  /** ORCA load reports on responses that could not be read (client-side weighted round robin). */
  public final Counter lbOrcaReportParseError;
  /** Picks made over every host because too few were healthy (Envoy's panic mode). */
  public final Counter lbHealthyPanic;
  /** Membership updates attempted by service discovery (a STRICT_DNS / LOGICAL_DNS resolution). */
  public final Counter updateAttempt;
  public final Counter updateSuccess;
  public final Counter updateFailure;
  /** {@code ratelimit.*}: the global rate limit filter's calls for requests routed to this cluster. */
  public final Counter ratelimitOk;
  public final Counter ratelimitOverLimit;
  public final Counter ratelimitError;
  public final Counter ratelimitFailureModeAllowed;

  /** {@code cluster.<name>}: where policies add their own stats. */
  final Scope scope;

  /** @param http2 whether the cluster speaks HTTP/2 to its hosts (it then has codec stats) */
  public ClusterStats(Scope scope, boolean http2) {
    this.scope = scope;
    this.http2 = http2 ? new Http2CodecStats(scope.scope("http2")) : null;
    upstreamCxTotal = scope.counter("upstream_cx_total");
    upstreamCxActive = scope.gauge("upstream_cx_active");
    upstreamCxConnectFail = scope.counter("upstream_cx_connect_fail");
    upstreamCxConnectTimeout = scope.counter("upstream_cx_connect_timeout");
    upstreamCxDestroy = scope.counter("upstream_cx_destroy");
    upstreamCxRxBytesTotal = scope.counter("upstream_cx_rx_bytes_total");
    upstreamCxTxBytesTotal = scope.counter("upstream_cx_tx_bytes_total");
    upstreamCxOverflow = scope.counter("upstream_cx_overflow");
    upstreamCxIdleTimeout = scope.counter("upstream_cx_idle_timeout");
    upstreamCxReclaimed = scope.counter("upstream_cx_reclaimed");
    upstreamCxNoneHealthy = scope.counter("upstream_cx_none_healthy");
    upstreamCxHttp1Total = scope.counter("upstream_cx_http1_total");
    upstreamCxHttp2Total = scope.counter("upstream_cx_http2_total");
    upstreamRqTotal = scope.counter("upstream_rq_total");
    lbOrcaReportParseError = scope.counter("lb_orca_report_parse_error");
    upstreamRqActive = scope.gauge("upstream_rq_active");
    upstreamRqPendingTotal = scope.counter("upstream_rq_pending_total");
    upstreamRqPendingActive = scope.gauge("upstream_rq_pending_active");
    upstreamRqPendingOverflow = scope.counter("upstream_rq_pending_overflow");
    upstreamRqShareOverflow = scope.counter("upstream_rq_share_overflow");
    upstreamRqPendingFailureEject = scope.counter("upstream_rq_pending_failure_eject");
    upstreamRqTimeout = scope.counter("upstream_rq_timeout");
    upstreamRqPerTryTimeout = scope.counter("upstream_rq_per_try_timeout");
    upstreamRqRxReset = scope.counter("upstream_rq_rx_reset");
    upstreamRqTxReset = scope.counter("upstream_rq_tx_reset");
    upstreamRqRetry = scope.counter("upstream_rq_retry");
    upstreamRqRetrySuccess = scope.counter("upstream_rq_retry_success");
    upstreamRqRetryOverflow = scope.counter("upstream_rq_retry_overflow");
    upstreamRqCompleted = scope.counter("upstream_rq_completed");
    upstreamRqClass = new Counter[6];
    for (int c = 1; c <= 5; c++) {
      upstreamRqClass[c] = scope.responseCodeClassCounter("upstream_rq", c);
    }
    upstreamRqTime = scope.histogram("upstream_rq_time", Histogram.Unit.MILLISECONDS);
    upstreamCxConnectMs = scope.histogram("upstream_cx_connect_ms", Histogram.Unit.MILLISECONDS);
    membershipTotal = scope.gauge("membership_total");
    membershipHealthy = scope.gauge("membership_healthy");
    membershipDegraded = scope.gauge("membership_degraded");
    lbHealthyPanic = scope.counter("lb_healthy_panic");
    updateAttempt = scope.counter("update_attempt");
    updateSuccess = scope.counter("update_success");
    updateFailure = scope.counter("update_failure");
    Scope ratelimit = scope.scope("ratelimit");
    ratelimitOk = ratelimit.counter("ok");
    ratelimitOverLimit = ratelimit.counter("over_limit");
    ratelimitError = ratelimit.counter("error");
    ratelimitFailureModeAllowed = ratelimit.counter("failure_mode_allowed");
  }

  /** Counts a completed upstream response by status class. */
  public void responseCode(int status) {
    int c = status / 100;
    if (c >= 1 && c <= 5) {
      upstreamRqClass[c].inc();
    }
  }
}
