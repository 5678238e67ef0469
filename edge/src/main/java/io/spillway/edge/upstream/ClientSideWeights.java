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
 * parses it, updates the host's {@link EndpointWeight} and publishes one immutable {@link Schedule}
 * per host set the routing balances over — the healthy hosts, or every host in panic (with degraded
 * hosts, their set too), as Envoy weights the hosts in rotation; a routing published after a
 * health or membership change is scheduled again at once from the weights already known. Workers
 * read that reference and pick from it without locks. A set with fewer than two hosts with a
 * usable weight has no schedule, and its workers round-robin.
 */
final class ClientSideWeights {

  /** A schedule and the host set it was built for. */
  record Schedule(HostSet hosts, StrideScheduler scheduler) {}

  private static final Schedule[] NONE = new Schedule[0];

  private final WeightedRoundRobin settings;
  private final Counter parseErrors;
  private volatile Schedule[] schedules = NONE;

  ClientSideWeights(WeightedRoundRobin settings, Counter parseErrors) {
    this.settings = settings;
    this.parseErrors = parseErrors;
  }

  /** The last published schedule for exactly this host set (the same instance), or null. */
  Schedule schedule(HostSet set) {
    for (Schedule s : schedules) {
      if (s.hosts() == set) {
        return s;
      }
    }
    return null;
  }

  /** The host's weight in the first published schedule that holds it (scaled), 0 when none does. */
  int scaledWeight(Host h) {
    for (Schedule s : schedules) {
      int i = s.hosts().hosts().indexOf(h);
      if (i >= 0) {
        return s.scheduler().scaledWeight(i);
      }
    }
    return 0;
  }

  WeightedRoundRobin settings() {
    return settings;
  }

  /**
   * Takes the new reports of every host of {@code all} and publishes the weights that count at
   * {@code nowNanos} for each of {@code sets}; control thread only.
   */
  synchronized void update(HostSet all, List<HostSet> sets, long nowNanos) {
    for (Host h : all.hosts()) {
      OrcaLoadReport report = takeReport(h);
      if (report != null) {
        h.endpointWeight.update(EndpointWeight.fromReport(report, settings.metricNamesForComputingUtilization(),
            settings.errorUtilizationPenalty()), nowNanos);
      }
    }
    reschedule(sets, nowNanos);
  }

  /**
   * Publishes a schedule for each of {@code sets} from the hosts' weights as they count at
   * {@code nowNanos}: a host without one (blackout, expired, never reported) gets the mean of the
   * set's others; no schedule for a set with fewer than two. Control side.
   */
  synchronized void reschedule(List<HostSet> sets, long nowNanos) {
    long blackout = settings.blackoutPeriod().toNanos();
    long expiration = settings.weightExpirationPeriod().toNanos();
    List<Schedule> out = new java.util.ArrayList<>(sets.size());
    for (HostSet set : sets) {
      List<Host> hosts = set.hosts();
      double[] weights = new double[hosts.size()];
      for (int i = 0; i < weights.length; i++) {
        weights[i] = hosts.get(i).endpointWeight.current(nowNanos, blackout, expiration);
      }
      StrideScheduler scheduler = StrideScheduler.of(weights);
      if (scheduler != null) {
        out.add(new Schedule(set, scheduler));
      }
    }
    schedules = out.toArray(Schedule[]::new);
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
