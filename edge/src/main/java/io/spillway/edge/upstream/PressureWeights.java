package io.spillway.edge.upstream;

import io.spillway.edge.config.PressureConfig;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Gauge;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.upstream.lb.Ewma;
import io.spillway.edge.upstream.lb.OrcaLoadReport;
import io.spillway.edge.upstream.lb.OrcaLoadReportParser;
import io.spillway.edge.upstream.lb.OrcaLoadReportParser.MalformedLoadReportException;
import io.spillway.edge.upstream.lb.StrideScheduler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pressure policy's control side. Every {@code weight_update_period} the control thread takes
 * each host's signals (its latest ORCA report, requests in flight, latency and errors since the
 * last update), turns them into a raw score ({@link PressureScore}), smooths it ({@link Ewma}),
 * decides ejections and returns, and publishes one immutable {@link Schedule}: the hosts in
 * rotation and a stride scheduler over their weights. Workers read that one reference; nothing
 * here runs on the request path.
 *
 * <p>Missing data is never zero pressure: a host without data for the blackout period, or whose
 * data is older than the expiration period, gets the median weight of the scored hosts; with fewer
 * than two scored hosts there is no scheduler and workers pick by power of two choices on
 * requests in flight.
 */
final class PressureWeights {
  private static final long NEVER = Long.MIN_VALUE;

  /**
   * What workers pick from.
   *
   * @param hosts the host set it was built for (a worker seeing another set falls back to P2C over it)
   * @param members the hosts in rotation (ejected ones left out, unless in panic)
   * @param scheduler weights over {@code members}, or null: power of two choices on in-flight
   * @param views each host of {@code hosts} as the admin pages show it, in the same order
   * @param panic whether too few hosts were left and ejections are ignored
   */
  record Schedule(HostSet hosts, Host[] members, StrideScheduler scheduler, List<Cluster.HostPressure> views, boolean panic) {}

  /** The policy's stats under {@code cluster.<name>.lb_pressure_*}. */
  static final class Stats {
    final Counter ejectionsTotal;
    final Counter ejectionsOverflow;
    final Counter returnsTotal;
    final Gauge ejectionsActive;
    final Counter staleTotal;
    final Gauge hostsScored;
    final Counter reportParseError;
    final Counter panicTotal;

    Stats(Scope cluster) {
      ejectionsTotal = cluster.counter("lb_pressure_ejections_total");
      ejectionsOverflow = cluster.counter("lb_pressure_ejections_overflow");
      returnsTotal = cluster.counter("lb_pressure_returns_total");
      ejectionsActive = cluster.gauge("lb_pressure_ejections_active");
      staleTotal = cluster.counter("lb_pressure_stale");
      hostsScored = cluster.gauge("lb_pressure_hosts_scored");
      reportParseError = cluster.counter("lb_pressure_report_parse_error");
      panicTotal = cluster.counter("lb_pressure_panic");
    }
  }

  /** A host's state across updates; control thread only. */
  private final class HostState {
    final Ewma score;
    final Ewma latency;
    OrcaLoadReport report;
    /** The latest report of either kind (on a response, or polled). */
    long reportNanos = NEVER;
    /** When {@link #report} (on a response) came. */
    long responseReportNanos = NEVER;
    /** The latest report of the metrics poller, and when it came. */
    OrcaLoadReport polled;
    long polledNanos = NEVER;
    long localNanos = NEVER;
    long firstDataNanos = NEVER;
    double errorRate = Double.NaN;
    long seenCompleted;
    long seenErrors;
    long seenLatencySum;
    long seenLatencyCount;
    int above;
    boolean ejected;
    long ejectedAtNanos;
    long ejectedUntilNanos;
    int ejections;
    long lastDecrementNanos;
    long returnedNanos = NEVER;
    boolean stale;
    /** A load report or a finished request arrived since the previous update. */
    boolean newData;

    HostState(Host h) {
      score = new Ewma(settings.smoothingTimeConstant().toNanos(), settings.peakSensitive());
      latency = new Ewma(settings.smoothingTimeConstant().toNanos(), false);
      seenCompleted = h.rqSuccess.sum() + h.rqError.sum();
      seenErrors = h.rqError.sum();
      seenLatencySum = h.latencyNanos.sum();
      seenLatencyCount = h.latencyCount.sum();
    }

    long lastDataNanos() {
      return Math.max(reportNanos, localNanos);
    }
  }

  /** How far above the median score of the other hosts in rotation a host's score must be to be ejected. */
  static final double EJECT_MARGIN = 0.1;

  private final PressureConfig settings;
  private final Stats stats;
  private final boolean readsReports;
  private final Map<Host, HostState> states = new IdentityHashMap<>();
  private volatile Schedule schedule;

  PressureWeights(PressureConfig settings, Stats stats) {
    this.settings = settings;
    this.stats = stats;
    this.readsReports = settings.dimensions().usesLoadReports();
  }

  PressureConfig settings() {
    return settings;
  }

  /** The last published schedule, or null before the first update. */
  Schedule schedule() {
    return schedule;
  }

  /** Takes the hosts' signals, updates scores and ejections and publishes a schedule; control thread only. */
  synchronized void update(HostSet set, long now) {
    List<Host> hosts = set.hosts();
    int n = hosts.size();
    java.util.Set<Host> present = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    present.addAll(hosts);
    states.keySet().retainAll(present); // hosts that left take their state with them
    HostState[] st = new HostState[n];
    long expiration = settings.expirationPeriod().toNanos();
    boolean anyFreshReport = false;
    double bestLatency = Double.NaN;
    for (int i = 0; i < n; i++) {
      Host h = hosts.get(i);
      HostState s = states.computeIfAbsent(h, HostState::new);
      st[i] = s;
      collect(h, s, now);
      if (s.reportNanos != NEVER && now - s.reportNanos < expiration) {
        anyFreshReport = true;
      }
      double l = s.latency.value();
      if (!Double.isNaN(l) && (Double.isNaN(bestLatency) || l < bestLatency)) {
        bestLatency = l;
      }
    }

    // Scores: every host with data is smoothed, blackout or not; only a host past its blackout with
    // fresh data (a fresh report too, while other hosts report) is scored.
    boolean[] scored = new boolean[n];
    int scoredCount = 0;
    for (int i = 0; i < n; i++) {
      HostState s = st[i];
      if (s.ejected && !s.newData) {
        // Out of rotation and silent: nothing new is known. Its idle connections and ageing report
        // are not a recovery, so the score it left with stands, however long it stays out.
        if (s.firstDataNanos != NEVER && now - s.firstDataNanos >= settings.blackoutPeriod().toNanos()
            && !Double.isNaN(s.score.value())) {
          scored[i] = true;
          scoredCount++;
        }
        continue;
      }
      boolean reportFresh = s.reportNanos != NEVER && now - s.reportNanos < expiration;
      boolean fresh = s.lastDataNanos() != NEVER && now - s.lastDataNanos() < expiration
          && (!readsReports || !anyFreshReport || reportFresh);
      if (s.firstDataNanos != NEVER && !fresh) {
        if (!s.stale) {
          s.stale = true;
          stats.staleTotal.inc();
        }
        s.firstDataNanos = NEVER; // the blackout starts again with the next data
        s.score.reset();
      }
      if (s.firstDataNanos == NEVER) {
        s.above = 0;
        continue;
      }
      s.stale = false;
      double raw = PressureScore.raw(settings.dimensions(), settings.normalization(), freshReport(s, now, expiration),
          hosts.get(i).activeRequests(), settings.capacity(), s.latency.value(), bestLatency, s.errorRate);
      if (!Double.isNaN(raw)) {
        s.score.add(raw, now);
      }
      if (now - s.firstDataNanos >= settings.blackoutPeriod().toNanos() && !Double.isNaN(s.score.value())) {
        scored[i] = true;
        scoredCount++;
      }
    }
    stats.hostsScored.set(scoredCount);

    eject(hosts, st, scored, now);

    int ejected = 0;
    for (HostState s : st) {
      if (s.ejected) {
        ejected++;
      }
    }
    boolean panic = ejected > 0 && 100.0 * (n - ejected) / n < settings.panicThresholdPercent();
    if (panic) {
      stats.panicTotal.inc();
    }
    stats.ejectionsActive.set(ejected);

    double[] weights = new double[n];
    List<Double> scoredWeights = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (scored[i] && (!st[i].ejected || panic)) {
        weights[i] = PressureScore.weight(st[i].score.value());
        scoredWeights.add(weights[i]);
      }
    }
    double median = median(scoredWeights);
    List<Host> members = new ArrayList<>(n);
    List<Double> memberWeights = new ArrayList<>(n);
    List<Cluster.HostPressure> views = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      HostState s = st[i];
      boolean inRotation = !s.ejected || panic;
      double w = 0;
      if (inRotation) {
        w = (scored[i] ? weights[i] : median) * slowStart(s, now);
        members.add(hosts.get(i));
        memberWeights.add(w);
      }
      views.add(new Cluster.HostPressure(s.score.value(), w, scored[i], s.lastDataNanos() == NEVER ? -1 : now - s.lastDataNanos(),
          s.ejected, s.ejections));
    }
    StrideScheduler scheduler = null;
    if (scoredWeights.size() >= 2 && members.size() >= 2) {
      double[] mw = new double[members.size()];
      for (int i = 0; i < mw.length; i++) {
        mw[i] = memberWeights.get(i);
      }
      scheduler = StrideScheduler.of(mw);
    }
    schedule = new Schedule(set, members.toArray(Host[]::new), scheduler, List.copyOf(views), panic);
  }

  /**
   * The host's load report as the score reads it: its latest report on a response and its latest
   * polled one, each while younger than the expiration period; with both, each dimension takes the
   * larger value (a polled report leaves the dimensions it has no metric for NaN: no value). Null
   * when neither is fresh.
   */
  private static OrcaLoadReport freshReport(HostState s, long now, long expiration) {
    OrcaLoadReport onResponse = s.responseReportNanos != NEVER && now - s.responseReportNanos < expiration
        ? s.report : null;
    OrcaLoadReport polled = s.polledNanos != NEVER && now - s.polledNanos < expiration ? s.polled : null;
    if (polled == null || onResponse == null) {
      return polled == null ? onResponse : polled;
    }
    Map<String, Double> named = new java.util.HashMap<>(onResponse.namedMetrics());
    polled.namedMetrics().forEach((k, v) -> named.merge(k, v, Math::max));
    return new OrcaLoadReport(larger(onResponse.cpuUtilization(), polled.cpuUtilization()),
        larger(onResponse.memUtilization(), polled.memUtilization()),
        larger(onResponse.applicationUtilization(), polled.applicationUtilization()),
        onResponse.rpsFractional(), onResponse.eps(), named, onResponse.utilization(), onResponse.requestCost());
  }

  /** The larger of two values, NaN (no value) losing to any number. */
  private static double larger(double a, double b) {
    return Double.isNaN(a) ? b : Double.isNaN(b) ? a : Math.max(a, b);
  }

  /** Takes the host's new report and request counters since the last update. */
  private void collect(Host h, HostState s, long now) {
    s.newData = false;
    if (readsReports) {
      OrcaLoadReport r = takeReport(h);
      if (r != null) {
        s.report = r;
        s.reportNanos = now;
        s.responseReportNanos = now;
        s.newData = true;
        if (s.firstDataNanos == NEVER) {
          s.firstDataNanos = now;
        }
      }
      OrcaLoadReport polled = h.pendingPolledReport.getAndSet(null);
      if (polled != null) {
        s.polled = polled;
        s.polledNanos = now;
        s.reportNanos = now;
        s.newData = true;
        if (s.firstDataNanos == NEVER) {
          s.firstDataNanos = now;
        }
      }
    }
    long completed = h.rqSuccess.sum() + h.rqError.sum();
    long errors = h.rqError.sum();
    long latencySum = h.latencyNanos.sum();
    long latencyCount = h.latencyCount.sum();
    long dCompleted = completed - s.seenCompleted;
    if (dCompleted > 0) {
      s.errorRate = (double) (errors - s.seenErrors) / dCompleted;
      s.localNanos = now;
      s.newData = true;
      if (s.firstDataNanos == NEVER) {
        s.firstDataNanos = now;
      }
    }
    long dCount = latencyCount - s.seenLatencyCount;
    if (dCount > 0) {
      s.latency.add((double) (latencySum - s.seenLatencySum) / dCount, now);
    }
    s.seenCompleted = completed;
    s.seenErrors = errors;
    s.seenLatencySum = latencySum;
    s.seenLatencyCount = latencyCount;
  }

  /**
   * Ejections and returns. A scored host above the eject threshold for {@code eject_after_updates}
   * updates in a row is ejected for {@code min(base × count, max)}, while fewer than {@code
   * max(1, n × max_ejection_percent / 100)} hosts are out and at least one host stays. An ejected
   * host returns once its time is up, unless data still arrived in the last update (requests it
   * had in flight finishing) with its score at or above the return threshold; it comes back with
   * the score it has — a light weight when it left saturated — which its new data and slow start
   * then raise. Only a host clearly worse than its peers is ejected: its score must also exceed
   * the median score of the other hosts in rotation by {@link #EJECT_MARGIN}, so when every host is
   * saturated (the edge's own backlog, a fleet-wide slow-down) none is removed to overload the rest.
   * A host in rotation with a score at or below the eject threshold loses one ejection count per
   * base ejection time.
   */
  private void eject(List<Host> hosts, HostState[] st, boolean[] scored, long now) {
    int n = hosts.size();
    long base = settings.baseEjectionTime().toNanos();
    long max = settings.maxEjectionTime().toNanos();
    int out = 0;
    for (int i = 0; i < n; i++) {
      HostState s = st[i];
      if (!s.ejected) {
        continue;
      }
      if (now - s.ejectedUntilNanos < 0) {
        out++;
        continue;
      }
      // Still draining what it had in flight, and still bad: wait. Otherwise nothing more can come
      // while it is out, so it returns (with the score it has) to show how it does now.
      if (s.newData && scored[i] && s.score.value() >= settings.returnThreshold()) {
        out++;
        continue;
      }
      s.ejected = false;
      s.above = 0;
      s.returnedNanos = now;
      s.lastDecrementNanos = now;
      stats.returnsTotal.inc();
    }
    int allowed = settings.maxEjectionPercent() == 0 ? 0
        : Math.min(n - 1, Math.max(1, n * settings.maxEjectionPercent() / 100));
    double[] inRotation = scoresInRotation(st, scored);
    for (int i = 0; i < n; i++) {
      HostState s = st[i];
      if (s.ejected) {
        continue;
      }
      boolean silentSinceReturn = s.returnedNanos != NEVER && s.lastDataNanos() <= s.returnedNanos;
      if (!scored[i] || s.score.value() <= settings.ejectThreshold() || silentSinceReturn
          || s.score.value() < medianWithout(inRotation, s.score.value()) + EJECT_MARGIN) {
        // (A returned host is judged again on data it sends after its return, not on the score it
        // came back with.)
        s.above = 0;
        if (scored[i] && !silentSinceReturn && s.ejections > 0 && now - s.lastDecrementNanos >= base) {
          s.ejections--;
          s.lastDecrementNanos = now;
        }
        continue;
      }
      if (++s.above < settings.ejectAfterUpdates()) {
        continue;
      }
      if (out >= allowed) {
        stats.ejectionsOverflow.inc();
        continue;
      }
      s.ejected = true;
      s.ejections++;
      s.ejectedAtNanos = now;
      s.ejectedUntilNanos = now + Math.min(Math.max(base, max), base * s.ejections);
      s.above = 0;
      out++;
      stats.ejectionsTotal.inc();
    }
  }

  /** The scores of the scored hosts in rotation, sorted. */
  private static double[] scoresInRotation(HostState[] st, boolean[] scored) {
    double[] v = new double[st.length];
    int m = 0;
    for (int i = 0; i < st.length; i++) {
      if (scored[i] && !st[i].ejected) {
        v[m++] = st[i].score.value();
      }
    }
    double[] sorted = Arrays.copyOf(v, m);
    Arrays.sort(sorted);
    return sorted;
  }

  /** The median of {@code sorted} without one occurrence of {@code own} (the other hosts'); NaN when none is left. */
  private static double medianWithout(double[] sorted, double own) {
    int at = Arrays.binarySearch(sorted, own);
    int m = sorted.length - (at >= 0 ? 1 : 0);
    if (m <= 0) {
      return Double.NaN;
    }
    int mid = m / 2;
    double upper = othersAt(sorted, at, mid);
    return m % 2 == 1 ? upper : (othersAt(sorted, at, mid - 1) + upper) / 2;
  }

  /** The k-th of {@code sorted} with the entry at {@code removed} (if at least 0) taken out. */
  private static double othersAt(double[] sorted, int removed, int k) {
    return removed >= 0 && k >= removed ? sorted[k + 1] : sorted[k];
  }

  /** The slow-start factor of a host that returned from ejection less than the window ago; 1 otherwise. */
  private double slowStart(HostState s, long now) {
    if (settings.slowStart() == null || s.returnedNanos == NEVER) {
      return 1.0;
    }
    return LoadBalancer.SlowStart.ramp(settings.slowStart(), now - s.returnedNanos);
  }

  private static double median(List<Double> values) {
    if (values.isEmpty()) {
      return 1.0;
    }
    double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(v);
    int m = v.length / 2;
    return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
  }

  /** The host's latest load report since the last update, or null (none, or unreadable: counted). */
  private OrcaLoadReport takeReport(Host h) {
    String bin = h.pendingBinaryReport.getAndSet(null);
    String text = h.pendingTextReport.getAndSet(null);
    try {
      if (bin != null) {
        return OrcaLoadReportParser.parseBinary(bin);
      }
      return text == null ? null : OrcaLoadReportParser.parseHeader(text);
    } catch (MalformedLoadReportException e) {
      stats.reportParseError.inc();
      return null;
    }
  }
}
