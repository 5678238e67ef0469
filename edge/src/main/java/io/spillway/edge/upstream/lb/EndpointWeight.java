package io.spillway.edge.upstream.lb;

import java.util.List;

/**
 * One endpoint's weight under client-side weighted round robin, as gRPC and Envoy keep it: the
 * weight of the last usable report, since when the endpoint has reported without a gap longer
 * than the expiration period, and when it last did. Used only on the control thread.
 */
public final class EndpointWeight {
  private static final long NEVER = Long.MIN_VALUE;

  private double weight;
  private long nonEmptySince = NEVER;
  private long lastUpdated = NEVER;

  /**
   * {@code qps / (utilization + eps / qps * penalty)}, or 0 when the report cannot give a weight
   * (no qps, or no utilization).
   */
  public static double fromReport(OrcaLoadReport report, List<String> metricNames, double errorUtilizationPenalty) {
    double qps = report.rpsFractional();
    if (!(qps > 0)) {
      return 0;
    }
    double utilization = report.utilizationFor(metricNames);
    if (report.eps() > 0 && errorUtilizationPenalty > 0) {
      utilization += report.eps() / qps * errorUtilizationPenalty;
    }
    if (!(utilization > 0)) {
      return 0;
    }
    return qps / utilization;
  }

  /** Takes a report's weight (ignored when not positive) received at {@code nowNanos}. */
  public void update(double reportedWeight, long nowNanos) {
    if (!(reportedWeight > 0) || Double.isInfinite(reportedWeight)) {
      return;
    }
    if (nonEmptySince == NEVER) {
      nonEmptySince = nowNanos;
    }
    lastUpdated = nowNanos;
    weight = reportedWeight;
  }

  /**
   * The weight that counts at {@code nowNanos}, or 0 when there is none: never reported, still in
   * the blackout period since it started reporting, or its last report is older than the
   * expiration period (which also restarts the blackout).
   */
  public double current(long nowNanos, long blackoutNanos, long expirationNanos) {
    if (lastUpdated == NEVER) {
      return 0;
    }
    if (nowNanos - lastUpdated >= expirationNanos) {
      nonEmptySince = NEVER;
      return 0;
    }
    if (blackoutNanos > 0 && nowNanos - nonEmptySince < blackoutNanos) {
      return 0;
    }
    return weight;
  }
}
