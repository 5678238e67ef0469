package io.spillway.edge.upstream;

import io.spillway.edge.config.ClusterConfig.WeightedRoundRobin;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.upstream.lb.EndpointWeight;
import io.spillway.edge.upstream.lb.OrcaLoadReport;
import io.spillway.edge.upstream.lb.OrcaLoadReportParser;
import io.spillway.edge.upstream.lb.OrcaLoadReportParser.MalformedLoadReportException;
import io.spillway.edge.upstream.lb.StrideScheduler;
import java.util.List;

/**
 * The weights of a cluster under {@code client_side_weighted_round_robin}. Every {@code
 * weight_update_period} the control thread takes the latest load report each host was handed,
 * parses it, updates the host's {@link EndpointWeight} and publishes one immutable {@link Schedule};
 * workers read that reference and pick from it without locks. Until a schedule for the current
 * host set exists (fewer than two hosts with a usable weight, or membership just changed) the
 * workers round-robin.
 */
final class ClientSideWeights {

  /** A schedule and the host set it was built for. */
  record Schedule(HostSet hosts, StrideScheduler scheduler) {}

  private final WeightedRoundRobin settings;
  private final Counter parseErrors;
  private volatile Schedule schedule;

  ClientSideWeights(WeightedRoundRobin settings, Counter parseErrors) {
    this.settings = settings;
    this.parseErrors = parseErrors;
  }

  /** The last published schedule, or null. */
  Schedule schedule() {
    return schedule;
  }

  WeightedRoundRobin settings() {
    return settings;
  }

  /** Takes the hosts' new reports and publishes the weights that count at {@code nowNanos}; control thread only. */
  void update(HostSet set, long nowNanos) {
    List<Host> hosts = set.hosts();
    double[] weights = new double[hosts.size()];
    long blackout = settings.blackoutPeriod().toNanos();
    long expiration = settings.weightExpirationPeriod().toNanos();
    for (int i = 0; i < weights.length; i++) {
      Host h = hosts.get(i);
      OrcaLoadReport report = takeReport(h);
      if (report != null) {
        h.endpointWeight.update(EndpointWeight.fromReport(report, settings.metricNamesForComputingUtilization(),
            settings.errorUtilizationPenalty()), nowNanos);
      }
      weights[i] = h.endpointWeight.current(nowNanos, blackout, expiration);
    }
    StrideScheduler scheduler = StrideScheduler.of(weights);
    schedule = scheduler == null ? null : new Schedule(set, scheduler);
  }

  /** The host's latest report since the last update, or null (none, or unreadable: counted). */
  private OrcaLoadReport takeReport(Host h) {
    String bin = h.pendingBinaryReport.getAndSet(null);
    String text = h.pendingTextReport.getAndSet(null);
    try {
      if (bin != null) {
        return OrcaLoadReportParser.parseBinary(bin);
      }
      return text == null ? null : OrcaLoadReportParser.parseHeader(text);
    } catch (MalformedLoadReportException e) {
      parseErrors.inc();
      return null;
    }
  }
}
