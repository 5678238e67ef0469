package io.spillway.edge.server;

import io.spillway.edge.admission.AdmissionController;
import io.spillway.edge.admission.Tier;
import io.spillway.edge.guard.GuardRegistry;
import io.spillway.edge.guard.PeerGuard;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.xds.AdsClient;
import io.spillway.edge.xds.EdgeReporter;
import io.spillway.policy.Mode;
import io.spillway.report.EdgeReportProto;
import io.spillway.report.EdgeReportProto.EdgeReport;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Wires the {@link EdgeReporter} to the ADS client (unless {@code --report-interval} is 0), on a
 * thread of its own, and reads the report's gauges: inbound admission's limit, in flight and
 * refusal counters, the executor lag, and each guarded peer's in flight, waiting and breaker — all
 * values admission and the guards keep for their metrics anyway (atomics and striped counters, no lock).
 */
final class EdgeReports {

  private EdgeReports() {}

  /** Adds a reporter to {@code client} (closed with it) and returns the client. */
  static AdsClient attach(AdsClient client, EdgeServer server, String nodeId, Scope root) {
    Duration interval = server.options().reportInterval();
    if (interval.isZero()) {
      return client;
    }
    ScheduledThreadPoolExecutor thread = new ScheduledThreadPoolExecutor(1, runnable -> {
      Thread t = new Thread(runnable, "spillway-report");
      t.setDaemon(true);
      return t;
    });
    thread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    EdgeReporter reporter = new EdgeReporter(nodeId, interval, () -> gauges(server.admission(), server.guards()), root,
        thread, server.clock(), server.startedAt());
    client.addHook(reporter);
    reporter.start();
    return client;
  }

  /** The report's admission, executor lag and peer fields, read now. */
  static EdgeReport.Builder gauges(AdmissionController admission, GuardRegistry guards) {
    EdgeReportProto.Admission.Builder a = EdgeReportProto.Admission.newBuilder()
        .setMode(admission.mode().jsonName())
        .setLimit(admission.limit())
        .setInFlight(Math.max(0, admission.inFlight()));
    for (Tier tier : Tier.values()) {
      if (tier != Tier.EXEMPT) {
        a.addRefused(EdgeReportProto.TierRefusals.newBuilder().setTier(tier.metadataName())
            .setEnforce(admission.refused(tier, Mode.ENFORCE)).setShadow(admission.refused(tier, Mode.SHADOW)));
      }
    }
    EdgeReport.Builder report = EdgeReport.newBuilder().setAdmission(a)
        .setExecutorLagMs((int) Math.min(Integer.MAX_VALUE,
            TimeUnit.NANOSECONDS.toMillis(admission.adaptiveLimit().executorLagNanos())));
    for (PeerGuard guard : guards.guards().values()) {
      report.addPeers(EdgeReportProto.Peer.newBuilder().setName(guard.peer())
          .setInFlight(Math.max(0, guard.inFlight())).setWaiting(Math.max(0, guard.waiting()))
          .setBreaker(switch (guard.breakerState()) {
            case CLOSED -> EdgeReportProto.BreakerState.CLOSED;
            case OPEN -> EdgeReportProto.BreakerState.OPEN;
            case HALF_OPEN -> EdgeReportProto.BreakerState.HALF_OPEN;
          }));
    }
    return report;
  }
}
