package io.spillway.edge.upstream;

import io.spillway.edge.config.HostHealthConfig;
import java.util.random.RandomGenerator;

/**
 * One host's active health-check state machine (Envoy's {@code ActiveHealthCheckSession}):
 * counts passes and failures against the thresholds and says how long to wait before the next
 * check. Pure logic with no clock or I/O, driven by the checker's session on the health-check loop.
 *
 * <p>A new host is unhealthy and pending; its first passed check makes it healthy at once. A
 * healthy host becomes unhealthy after {@code unhealthy_threshold} failures in a row, or at once
 * when the failure is immediate (an unexpected, non-retriable HTTP status, or
 * {@code x-envoy-immediate-health-check-fail}). An unhealthy host becomes healthy after
 * {@code healthy_threshold} passes in a row.
 */
final class HealthCheckState {

  /** What a result did to the host. */
  enum Transition { NONE, BECAME_HEALTHY, BECAME_UNHEALTHY }

  private enum Edge { NONE, HEALTHY, UNHEALTHY }

  private final HostHealthConfig.HealthCheck config;
  private boolean healthy;
  private boolean pending = true;
  private int passes;
  private int failures;
  private Edge edge = Edge.NONE;

  HealthCheckState(HostHealthConfig.HealthCheck config) {
    this.config = config;
  }

  boolean healthy() {
    return healthy;
  }

  /** Whether no check has finished yet. */
  boolean pending() {
    return pending;
  }

  Transition onPass() {
    failures = 0;
    boolean first = pending;
    pending = false;
    if (healthy) {
      return Transition.NONE;
    }
    if (first || ++passes >= config.healthyThreshold()) {
      healthy = true;
      passes = 0;
      edge = Edge.HEALTHY;
      return Transition.BECAME_HEALTHY;
    }
    return Transition.NONE;
  }

  /** @param immediate whether the failure marks a healthy host unhealthy without waiting for the threshold */
  Transition onFailure(boolean immediate) {
    passes = 0;
    pending = false;
    if (!healthy) {
      return Transition.NONE;
    }
    if (immediate || ++failures >= config.unhealthyThreshold()) {
      healthy = false;
      failures = 0;
      edge = Edge.UNHEALTHY;
      return Transition.BECAME_UNHEALTHY;
    }
    return Transition.NONE;
  }

  /** The wait before the first check: a random part of {@code initial_jitter}. */
  long initialDelayNanos(RandomGenerator random) {
    long jitter = config.initialJitter().toNanos();
    return jitter > 0 ? random.nextLong(jitter) : 0;
  }

  /**
   * The wait before the next check (Envoy's rule): the no-traffic interval while the cluster has
   * had no request, else the edge interval right after a change, else the healthy or unhealthy
   * interval; plus a random part of {@code interval × interval_jitter_percent / 100} and of
   * {@code interval_jitter}. Consumes the edge.
   */
  long nextIntervalNanos(boolean noTraffic, RandomGenerator random) {
    long base;
    if (noTraffic) {
      base = (healthy ? config.noTrafficHealthyInterval() : config.noTrafficInterval()).toNanos();
    } else if (edge == Edge.UNHEALTHY) {
      base = config.unhealthyEdgeInterval().toNanos();
    } else if (edge == Edge.HEALTHY) {
      base = config.healthyEdgeInterval().toNanos();
    } else {
      base = (healthy ? config.interval() : config.unhealthyInterval()).toNanos();
    }
    edge = Edge.NONE;
    long jitter = 0;
    long percentPart = base / 100 * config.intervalJitterPercent();
    if (percentPart > 0) {
      jitter += random.nextLong(percentPart);
    }
    long fixed = config.intervalJitter().toNanos();
    if (fixed > 0) {
      jitter += random.nextLong(fixed);
    }
    return base + jitter;
  }
}
