package io.spillway.edge.upstream;

import io.spillway.edge.upstream.lb.HashTable;
import io.spillway.edge.upstream.lb.PriorityLoad;
import java.util.List;

/**
 * A cluster's routing over priority levels and localities, built on the control thread whenever
 * membership or health changes and published inside {@link Cluster.Routing}. A pick reads it and
 * touches only its own worker's slots: the priority from {@link #slots} (Envoy's {@code hash mod
 * 100} against the cumulative priority load), then, under locality weighted balancing, the
 * locality by this worker's earliest-deadline-first schedule, then a host with the leaf's own
 * balancer. Nothing is allocated or locked per pick.
 *
 * <p>Every level has a target for its healthy hosts and, when Envoy's degraded priority load gives
 * it any, one for its degraded hosts; a slot names one of them. Each target has one or more
 * <em>leaves</em> — the host sets a balancer picks from: the level's healthy (or degraded) hosts,
 * every host in panic, or, with locality weighted balancing outside panic, each locality's healthy
 * (or degraded) hosts, for the localities whose effective weight for them is above 0.
 */
final class PriorityRouting {

  /**
   * One priority level.
   *
   * @param priority its priority
   * @param hosts every host of the level
   * @param chosen the hosts it balances over: the healthy ones, or every host in panic
   * @param panic whether the level is in panic
   * @param firstLeaf the index of its first leaf in {@link #leaves}
   * @param localityWeights the effective weights of its locality leaves, null when it has one leaf
   * @param table RING_HASH / MAGLEV: the table over {@code chosen}; null otherwise
   */
  record Level(int priority, HostSet hosts, HostSet chosen, boolean panic, int firstLeaf, double[] localityWeights,
      HashTable table) {}

  final PriorityLoad load;
  /** {@code hash mod 100} → index in {@link #levels}, or {@code levels.length +} index in {@link #degraded}. */
  final int[] slots;
  /** Per priority, the target of its healthy load. */
  final Level[] levels;
  /** Per priority, the target of its degraded load; null where that load is 0, the healthy target in panic. */
  final Level[] degraded;
  /** The host set of every leaf, over all levels. */
  final HostSet[] leaves;
  /** Per leaf, one balancer per worker. */
  final LoadBalancer[][] balancers;
  /** Per worker, the EDF deadline of every locality leaf (indexed as {@link #leaves}); only that worker writes its row. */
  private final double[][] deadlines;

  PriorityRouting(PriorityLoad load, Level[] levels, Level[] degraded, HostSet[] leaves, LoadBalancer[][] balancers,
      double[][] deadlines) {
    this.load = load;
    this.slots = load.slots();
    this.levels = levels;
    this.degraded = degraded;
    this.leaves = leaves;
    this.balancers = balancers;
    this.deadlines = deadlines;
  }

  /** The target (a level's healthy or degraded hosts) a pick with this {@code hash} (unsigned) goes to. */
  Level level(long hash) {
    int slot = slots[(int) Long.remainderUnsigned(hash, 100)];
    return slot < levels.length ? levels[slot] : degraded[slot - levels.length];
  }

  /**
   * The leaf this worker picks from in {@code level}: its only leaf, or the locality with the
   * earliest deadline (the first on a tie), whose deadline then moves on by 1 / its weight —
   * Envoy's EDF scheduler, which gives each locality its weight's share in a smooth order.
   */
  int leaf(Level level, int worker) {
    double[] w = level.localityWeights();
    if (w == null) {
      return level.firstLeaf();
    }
    double[] d = deadlines[worker];
    int base = level.firstLeaf();
    int best = 0;
    for (int i = 1; i < w.length; i++) {
      if (d[base + i] < d[base + best]) {
        best = i;
      }
    }
    d[base + best] += 1.0 / w[best];
    return base + best;
  }

  /** Fresh EDF deadlines for one worker: 1 / weight each, then a random number of picks below the locality count. */
  static double[] initialDeadlines(Level[] levels, Level[] degraded, int leafCount,
      java.util.random.RandomGenerator random) {
    double[] d = new double[leafCount];
    for (int t = 0; t < levels.length + degraded.length; t++) {
      Level level = t < levels.length ? levels[t] : degraded[t - levels.length];
      double[] w = level == null || (t >= levels.length && level == levels[t - levels.length]) ? null
          : level.localityWeights();
      if (w == null) {
        continue;
      }
      for (int i = 0; i < w.length; i++) {
        d[level.firstLeaf() + i] = 1.0 / w[i];
      }
      int skip = random.nextInt(w.length);
      for (int s = 0; s < skip; s++) {
        int best = 0;
        for (int i = 1; i < w.length; i++) {
          if (d[level.firstLeaf() + i] < d[level.firstLeaf() + best]) {
            best = i;
          }
        }
        d[level.firstLeaf() + best] += 1.0 / w[best];
      }
    }
    return d;
  }

  /**
   * Envoy's effective locality weight: {@code weight × min(1, factor / 100 × healthy / hosts)}; 0
   * for a locality without hosts or without a weight.
   */
  static double effectiveLocalityWeight(int weight, int healthy, int hosts, int overprovisioningFactor) {
    if (hosts == 0 || weight == 0) {
      return 0.0;
    }
    double availability = Math.min(1.0, overprovisioningFactor / 100.0 * healthy / hosts);
    return weight * availability;
  }

  /** The hosts of the levels that take any load, in priority order (what a gRPC channel resolves). */
  HostSet servingHosts() {
    java.util.Set<Host> all = new java.util.LinkedHashSet<>();
    for (int i = 0; i < levels.length; i++) {
      if (load.load()[i] > 0) {
        all.addAll(levels[i].chosen().hosts());
      }
      if (load.degradedLoad()[i] > 0) {
        all.addAll(degraded[i].chosen().hosts());
      }
    }
    return HostSet.of(List.copyOf(all));
  }
}
