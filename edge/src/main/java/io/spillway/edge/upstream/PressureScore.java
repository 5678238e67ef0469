package io.spillway.edge.upstream;

import io.spillway.edge.config.PressureConfig.Dimensions;
import io.spillway.edge.config.PressureConfig.Normalization;
import io.spillway.edge.upstream.lb.OrcaLoadReport;
import java.util.Map;

/**
 * One host's signals at one weight update turned into a pressure score in [0, 1], and a score into
 * a weight. Each dimension reads 0 (idle) to 1 (saturated) and is multiplied by its weight; {@code
 * MAX} takes the largest product (so 100 % of one resource is never averaged away by idle others),
 * {@code WEIGHTED_SUM} takes {@code Σ wᵢ·xᵢ / Σ wᵢ} over the dimensions that have a value. A
 * dimension without a value (no fresh load report, no latency measured yet) is left out — never
 * read as 0.
 */
public final class PressureScore {
  /** Latencies below this count as this much: loopback-fast hosts are not told apart by noise. */
  public static final double LATENCY_FLOOR_NANOS = 1_000_000;
  /** The lightest weight a scored host gets (a host at pressure 1 still sees a trickle, unless ejected). */
  public static final double MIN_WEIGHT = 0.01;

  private PressureScore() {}

  /**
   * The raw (not smoothed) score.
   *
   * @param report the host's latest load report while fresh, or null
   * @param activeRequests requests in flight to the host through this edge
   * @param capacity active requests at which the connections dimension reads 1
   * @param latencyNanos the host's latency EWMA, NaN when not measured
   * @param bestLatencyNanos the lowest latency EWMA of the cluster's hosts, NaN when none
   * @param errorRate failed / completed requests since the last update, NaN when none completed
   * @return the score, or NaN when no dimension with a weight has a value
   */
  public static double raw(Dimensions w, Normalization mode, OrcaLoadReport report, int activeRequests,
      int capacity, double latencyNanos, double bestLatencyNanos, double errorRate) {
    Acc acc = new Acc(mode);
    if (report != null) {
      acc.add(w.cpu(), report.cpuUtilization());
      acc.add(w.memory(), report.memUtilization());
      acc.add(w.application(), report.applicationUtilization());
      for (Map.Entry<String, Double> e : w.namedMetrics().entrySet()) {
        Double v = report.namedMetrics().get(e.getKey());
        if (v == null) {
          v = report.utilization().get(e.getKey());
        }
        if (v != null) {
          acc.add(e.getValue(), v);
        }
      }
    }
    acc.add(w.connections(), (double) Math.max(0, activeRequests) / capacity);
    if (!Double.isNaN(latencyNanos) && !Double.isNaN(bestLatencyNanos)) {
      acc.add(w.latency(), latency(latencyNanos, bestLatencyNanos));
    }
    if (!Double.isNaN(errorRate)) {
      acc.add(w.errors(), errorRate);
    }
    return acc.result();
  }

  /** {@code 1 - best / host}, both raised to {@link #LATENCY_FLOOR_NANOS} first. */
  public static double latency(double hostNanos, double bestNanos) {
    double host = Math.max(hostNanos, LATENCY_FLOOR_NANOS);
    double best = Math.max(bestNanos, LATENCY_FLOOR_NANOS);
    return Math.max(0, 1 - best / host);
  }

  /** f(score) = max(1 − score, {@link #MIN_WEIGHT}). */
  public static double weight(double score) {
    return Math.max(1 - score, MIN_WEIGHT);
  }

  private static final class Acc {
    private final Normalization mode;
    private double max = Double.NaN;
    private double sum;
    private double weights;

    Acc(Normalization mode) {
      this.mode = mode;
    }

    void add(double weight, double value) {
      if (!(weight > 0) || Double.isNaN(value)) {
        return;
      }
      double x = Math.min(1, Math.max(0, value));
      double product = weight * x;
      max = Double.isNaN(max) ? product : Math.max(max, product);
      sum += product;
      weights += weight;
    }

    double result() {
      if (weights == 0) {
        return Double.NaN;
      }
      double r = mode == Normalization.MAX ? max : sum / weights;
      return Math.min(1, r);
    }
  }
}
