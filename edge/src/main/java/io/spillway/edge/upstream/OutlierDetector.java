package io.spillway.edge.upstream;

import io.spillway.edge.config.HostHealthConfig;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Gauge;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.upstream.OutlierMonitor.EjectionType;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * A cluster's outlier detection (Envoy's {@code envoy.config.cluster.v3.OutlierDetection}). Runs
 * on the control thread only: consecutive-failure ejections as soon as a host's monitor reports
 * the crossing, and every {@code interval} a sweep that returns hosts whose ejection time passed,
 * shortens the next ejection of hosts that stayed healthy, and ejects by success rate and failure
 * percentage. Every change is published to the workers as a new {@link Cluster.Routing}.
 *
 * <p>An ejection lasts {@code base_ejection_time × n} (n grows by one per ejection and shrinks by one
 * per interval the host stays in), at most {@code max_ejection_time}, plus a random part of
 * {@code max_ejection_time_jitter}. No ejection takes the ejected share past
 * {@code max_ejection_percent}, except a first one with {@code always_eject_one_host}.
 */
final class OutlierDetector {
  private final HostHealthConfig.Outlier config;
  private final Executor control;
  private final LongSupplier nanoClock;
  private final RandomGenerator random;
  private Cluster cluster;
  final Gauge ejectionsActive;
  final Counter ejectionsEnforcedTotal;
  final Counter ejectionsOverflow;
  private final Map<EjectionType, Counter> detected = new EnumMap<>(EjectionType.class);
  private final Map<EjectionType, Counter> enforced = new EnumMap<>(EjectionType.class);

  /**
   * @param control runs tasks on the control thread
   * @param scope {@code cluster.<name>.outlier_detection}
   */
  OutlierDetector(HostHealthConfig.Outlier config, Scope scope, Executor control, LongSupplier nanoClock,
      RandomGenerator random) {
    this.config = config;
    this.control = control;
    this.nanoClock = nanoClock;
    this.random = random;
    ejectionsActive = scope.gauge("ejections_active");
    ejectionsEnforcedTotal = scope.counter("ejections_enforced_total");
    ejectionsOverflow = scope.counter("ejections_overflow");
    for (EjectionType t : EjectionType.values()) {
      detected.put(t, scope.counter("ejections_detected_" + t.statName));
      enforced.put(t, scope.counter("ejections_enforced_" + t.statName));
    }
  }

  void attach(Cluster cluster) {
    this.cluster = cluster;
  }

  HostHealthConfig.Outlier config() {
    return config;
  }

  Counter detected(EjectionType type) {
    return detected.get(type);
  }

  Counter enforced(EjectionType type) {
    return enforced.get(type);
  }

  /** From a worker: the host's run of failures reached its threshold. */
  void onConsecutiveFailure(Host host, EjectionType type) {
    control.execute(() -> consecutiveFailure(host, type));
  }

  /** On the control thread. */
  void consecutiveFailure(Host host, EjectionType type) {
    if (host.outlier().ejected || !cluster.hosts().hosts().contains(host)) {
      return;
    }
    detected.get(type).inc();
    if (eject(host, type)) {
      cluster.publishRouting();
    }
  }

  private int enforcing(EjectionType type) {
    return switch (type) {
      case CONSECUTIVE_5XX -> config.enforcingConsecutive5xx();
      case CONSECUTIVE_GATEWAY_FAILURE -> config.enforcingConsecutiveGatewayFailure();
      case CONSECUTIVE_LOCAL_ORIGIN_FAILURE -> config.enforcingConsecutiveLocalOriginFailure();
      case SUCCESS_RATE -> config.enforcingSuccessRate();
      case LOCAL_ORIGIN_SUCCESS_RATE -> config.enforcingLocalOriginSuccessRate();
      case FAILURE_PERCENTAGE -> config.enforcingFailurePercentage();
      case FAILURE_PERCENTAGE_LOCAL_ORIGIN -> config.enforcingFailurePercentageLocalOrigin();
    };
  }

  /** Ejects if the share allows and the enforcing percentage says so; true when it did. */
  private boolean eject(Host host, EjectionType type) {
    List<Host> hosts = cluster.hosts().hosts();
    int active = 0;
    for (Host h : hosts) {
      if (h.outlier().ejected) {
        active++;
      }
    }
    double share = 100.0 * (active + 1) / hosts.size();
    if (share > config.maxEjectionPercent() && !(config.alwaysEjectOneHost() && active == 0)) {
      ejectionsOverflow.inc();
      return false;
    }
    if (random.nextInt(100) >= enforcing(type)) {
      return false;
    }
    OutlierMonitor m = host.outlier();
    long base = config.baseEjectionTime().toNanos();
    long max = Math.max(config.maxEjectionTime().toNanos(), base);
    if ((long) m.backoff * base < max) {
      m.backoff++;
    }
    m.ejections++;
    m.ejected = true;
    m.ejectedAtNanos = nanoClock.getAsLong();
    long jitter = config.maxEjectionTimeJitter().toNanos();
    m.ejectionNanos = Math.min(base * m.backoff, max) + (jitter > 0 ? random.nextLong(jitter) : 0);
    m.resetConsecutive();
    host.setHealthFlags(Host.FAILED_OUTLIER_CHECK, 0);
    ejectionsEnforcedTotal.inc();
    enforced.get(type).inc();
    return true;
  }

  private void uneject(Host host) {
    OutlierMonitor m = host.outlier();
    m.ejected = false;
    m.resetConsecutive();
    host.setHealthFlags(0, Host.FAILED_OUTLIER_CHECK);
  }

  /** An active health check passed and the cluster returns ejected hosts on that (control thread). */
  void healthCheckPassed(Host host) {
    if (config.unejectOnHealthCheckPass() && host.outlier().ejected) {
      uneject(host);
      cluster.publishRouting();
    }
  }

  /** The interval's sweep (control thread). */
  void sweep() {
    long now = nanoClock.getAsLong();
    boolean changed = false;
    List<Host> hosts = cluster.hosts().hosts();
    for (Host h : hosts) {
      OutlierMonitor m = h.outlier();
      if (m.ejected) {
        if (now - m.ejectedAtNanos >= m.ejectionNanos) {
          uneject(h);
          changed = true;
        }
      } else if (m.backoff > 0 && now - m.ejectedAtNanos >= m.ejectionNanos + config.interval().toNanos()) {
        m.backoff--; // in for a whole interval since it returned: the next ejection is shorter
      }
    }
    changed |= rateEjections(hosts);
    if (changed) {
      cluster.publishRouting();
    }
  }

  /** Success-rate and failure-percentage ejections over the requests of the last interval. */
  private boolean rateEjections(List<Host> hosts) {
    int n = hosts.size();
    long[] extTotal = new long[n];
    long[] extFailed = new long[n];
    long[] locTotal = new long[n];
    long[] locFailed = new long[n];
    for (int i = 0; i < n; i++) {
      OutlierMonitor m = hosts.get(i).outlier();
      long t = m.externalTotal.sum();
      long f = m.externalFailed.sum();
      extTotal[i] = t - m.lastExternalTotal;
      extFailed[i] = f - m.lastExternalFailed;
      m.lastExternalTotal = t;
      m.lastExternalFailed = f;
      t = m.localTotal.sum();
      f = m.localFailed.sum();
      locTotal[i] = t - m.lastLocalTotal;
      locFailed[i] = f - m.lastLocalFailed;
      m.lastLocalTotal = t;
      m.lastLocalFailed = f;
    }
    boolean changed = rates(hosts, extTotal, extFailed, false);
    if (config.splitExternalLocalOriginErrors()) {
      changed |= rates(hosts, locTotal, locFailed, true);
    }
    return changed;
  }

  private boolean rates(List<Host> hosts, long[] total, long[] failed, boolean local) {
    boolean changed = false;
    List<Integer> srHosts = new ArrayList<>();
    List<Integer> fpHosts = new ArrayList<>();
    for (int i = 0; i < hosts.size(); i++) {
      if (hosts.get(i).outlier().ejected) {
        continue;
      }
      if (total[i] >= config.successRateRequestVolume() && total[i] > 0) {
        srHosts.add(i);
      }
      if (total[i] >= config.failurePercentageRequestVolume() && total[i] > 0) {
        fpHosts.add(i);
      }
    }
    for (int i = 0; i < hosts.size(); i++) {
      double rate = srHosts.contains(i) ? 100.0 * (total[i] - failed[i]) / total[i] : -1;
      if (local) {
        hosts.get(i).outlier().localOriginSuccessRate = rate;
      } else {
        hosts.get(i).outlier().successRate = rate;
      }
    }
    if (srHosts.size() >= config.successRateMinimumHosts() && !srHosts.isEmpty()) {
      double sum = 0;
      for (int i : srHosts) {
        sum += 100.0 * (total[i] - failed[i]) / total[i];
      }
      double mean = sum / srHosts.size();
      double variance = 0;
      for (int i : srHosts) {
        double d = 100.0 * (total[i] - failed[i]) / total[i] - mean;
        variance += d * d;
      }
      double stdev = Math.sqrt(variance / srHosts.size());
      double threshold = mean - stdev * (config.successRateStdevFactor() / 1000.0);
      EjectionType type = local ? EjectionType.LOCAL_ORIGIN_SUCCESS_RATE : EjectionType.SUCCESS_RATE;
      for (int i : srHosts) {
        Host h = hosts.get(i);
        if (!h.outlier().ejected && 100.0 * (total[i] - failed[i]) / total[i] < threshold) {
          detected.get(type).inc();
          changed |= eject(h, type);
        }
      }
    }
    if (fpHosts.size() >= config.failurePercentageMinimumHosts() && !fpHosts.isEmpty()) {
      EjectionType type = local ? EjectionType.FAILURE_PERCENTAGE_LOCAL_ORIGIN : EjectionType.FAILURE_PERCENTAGE;
      for (int i : fpHosts) {
        Host h = hosts.get(i);
        if (!h.outlier().ejected && 100.0 * failed[i] / total[i] >= config.failurePercentageThreshold()) {
          detected.get(type).inc();
          changed |= eject(h, type);
        }
      }
    }
    return changed;
  }
}
