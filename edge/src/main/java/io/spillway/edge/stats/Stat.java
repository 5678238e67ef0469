package io.spillway.edge.stats;

/**
 * One named stat of a {@link StatsStore}. The kinds are closed, so renderers switch over them
 * exhaustively: a {@link Counter}, a {@link Gauge}, a {@link SuppliedGauge} (rendered as a gauge) or
 * a {@link Histogram}.
 */
public sealed interface Stat permits Counter, Gauge, SuppliedGauge, Histogram {

  /** The flat name and Prometheus identity. */
  StatName statName();

  /** The flat dotted name, e.g. {@code cluster.backend.upstream_rq_total}. */
  default String name() {
    return statName().name();
  }

  /**
   * Whether the stat was ever written (Envoy's "used" flag, behind {@code usedonly}). Stays true
   * after {@code /reset_counters}. A {@link SuppliedGauge} always counts as used.
   */
  boolean used();
}
