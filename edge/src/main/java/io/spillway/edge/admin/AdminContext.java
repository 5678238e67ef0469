package io.spillway.edge.admin;

import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.spillway.edge.config.EdgeConfig;
import io.spillway.edge.listener.Listener;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.upstream.ClusterManager;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** What the admin endpoints read and control of the running edge. */
public interface AdminContext {

  /** Started, not draining and the health check not failed by /healthcheck/fail. */
  boolean isReady();

  boolean isDraining();

  boolean healthCheckFailed();

  void setHealthCheckFailed(boolean failed);

  StatsStore stats();

  EdgeConfig config();

  /** The bootstrap as loaded, for /config_dump. */
  Bootstrap bootstrap();

  ClusterManager clusters();

  List<Listener> listeners();

  Instant startedAt();

  /** The clock {@link #startedAt()} was read from; uptime is measured with it. */
  Clock clock();

  /** The overload manager's latest published state, or null before start-up. */
  io.spillway.edge.overload.OverloadDescription overload();

  /**
   * An admin connection opened or closed: counted in the global downstream connection resource but
   * never refused by it (as in Envoy).
   */
  /** The ADS client's state; empty for an edge configured only by its bootstrap. */
  default java.util.Optional<io.spillway.edge.xds.XdsStatus> xdsStatus() {
    return java.util.Optional.empty();
  }

  /** The admin listener's access logs ({@code admin.access_log}, {@code access_log_path}). */
  default io.spillway.edge.accesslog.AccessLogs adminAccessLogs() {
    return io.spillway.edge.accesslog.AccessLogs.NONE;
  }

  /** Reopens the access log files ({@code POST /reopen_logs}). */
  default void reopenAccessLogs() {}

  /**
   * {@code /stats} (any format) or {@code /stats/prometheus} is about to render: with
   * {@code stats_flush_on_admin}, the stats sinks are flushed (Envoy's flush on admin). Must not block.
   */
  default void statsRead() {}

  default void adminConnectionOpened() {}

  default void adminConnectionClosed() {}

  /** The runtime, for /runtime and /runtime_modify. */
  io.spillway.edge.runtime.Runtime runtime();

  /** The policy's rate limits, for /ratelimits; null when none are wired. */
  default io.spillway.edge.filters.policylimit.PolicyRateLimits policyRateLimits() {
    return null;
  }

  /** Inbound admission, for /overload; null when none is running. */
  default io.spillway.edge.admission.AdmissionController admission() {
    return null;
  }

  /** Worker event loops. */
  int concurrency();

  /** "epoll", "io_uring" or "nio". */
  String transportName();

  long activeRequests();

  /** Stops accepting on every listener; with {@code graceful}, also drains open connections. */
  void drainListeners(boolean graceful);

  /** Drains for up to {@code drainTime}, stops and exits the process with status 0. Returns at once. */
  void exitAfterDrain(Duration drainTime);

  /** The hot restart protocol version ({@code GET /hot_restart_version}), or {@code disabled}. */
  default String hotRestartVersion() {
    return "disabled";
  }

  /** {@code --restart-epoch}: 0 for the first process of a hot restart chain. */
  default int restartEpoch() {
    return 0;
  }
}
