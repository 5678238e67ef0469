package io.spillway.edge.upstream.lb;

/**
 * Envoy's priority load: how much of the traffic (in whole percent) each priority level takes,
 * and which levels are in panic, from each level's healthy and total hosts. Pure arithmetic on
 * the control thread; the workers read the result from the published routing.
 *
 * <ul>
 *   <li>A level's <em>health</em> is {@code min(100, overprovisioning_factor × healthy / total)} in
 *       integer arithmetic (hosts, or their weights with {@code weighted_priority_health}); 0 for an
 *       empty level.
 *   <li>The <em>normalized total availability</em> is the sum of the levels' health, capped at 100.
 *   <li>From the highest priority down, each level takes {@code health × 100 / normalized total},
 *       but never more than what the levels above it left; what integer division leaves over goes
 *       to the first level with any health.
 *   <li>While the normalized total is below 100, a level whose healthy hosts are below
 *       {@code healthy_panic_threshold} percent of its hosts is in panic (it balances over all of its
 *       hosts). When every level is in panic, the load follows the host counts instead.
 *   <li>With a panic threshold of 0 and no healthy host at all, priority 0 takes the whole load
 *       (and has no host to give).
 * </ul>
 *
 * The edge does not track degraded hosts (neither EDS {@code health_status} nor the
 * {@code x-envoy-degraded} header), so Envoy's degraded load is always 0 here.
 *
 * @param load each level's share of the traffic in percent; the shares add up to 100
 * @param panic whether each level is in panic
 */
public record PriorityLoad(int[] load, boolean[] panic) {

  /**
   * One level's counts.
   *
   * @param healthyHosts hosts that may take traffic outside panic
   * @param hosts every host of the level
   * @param healthyWeight the healthy hosts' endpoint weights, summed
   * @param totalWeight every host's endpoint weight, summed
   */
  public record Level(int healthyHosts, int hosts, long healthyWeight, long totalWeight) {}

  /**
   * @param overprovisioningFactor in percent (Envoy default 140)
   * @param weightedPriorityHealth health from the weights rather than the host counts
   * @param panicThreshold {@code healthy_panic_threshold} in percent (Envoy default 50)
   */
  public static PriorityLoad compute(Level[] levels, int overprovisioningFactor, boolean weightedPriorityHealth,
      double panicThreshold) {
    int n = levels.length;
    int[] health = new int[n];
    int sum = 0;
    for (int i = 0; i < n; i++) {
      health[i] = health(levels[i], overprovisioningFactor, weightedPriorityHealth);
      sum += health[i];
    }
    int normalizedTotal = Math.min(100, sum);
    int[] load = new int[n];
    boolean[] panic = new boolean[n];
    if (normalizedTotal > 0) {
      distribute(health, normalizedTotal, load);
    }
    if (panicThreshold <= 0 && normalizedTotal == 0) {
      if (n > 0) {
        load[0] = 100;
      }
      return new PriorityLoad(load, panic);
    }
    boolean totalPanic = n > 0;
    for (int i = 0; i < n; i++) {
      panic[i] = normalizedTotal < 100 && inPanic(levels[i], panicThreshold);
      totalPanic &= panic[i];
    }
    if (totalPanic) {
      loadInTotalPanic(levels, load);
    }
    return new PriorityLoad(load, panic);
  }

  /** A level's health: {@code min(100, factor × healthy / total)}, integer arithmetic as Envoy's. */
  static int health(Level level, int overprovisioningFactor, boolean weighted) {
    long healthy = weighted ? level.healthyWeight() : level.healthyHosts();
    long total = weighted ? level.totalWeight() : level.hosts();
    if (level.hosts() == 0 || total == 0) {
      return 0;
    }
    return (int) Math.min(100, overprovisioningFactor * healthy / total);
  }

  private static void distribute(int[] health, int normalizedTotal, int[] load) {
    int remaining = 100;
    int firstAvailable = -1;
    for (int i = 0; i < health.length; i++) {
      if (firstAvailable < 0 && health[i] > 0) {
        firstAvailable = i;
      }
      load[i] = Math.min(remaining, health[i] * 100 / normalizedTotal);
      remaining -= load[i];
    }
    if (remaining > 0) {
      load[firstAvailable] += remaining;
    }
  }

  /** Envoy's per-level panic: healthy hosts below the threshold's share of the level's hosts (an empty level is). */
  private static boolean inPanic(Level level, double panicThreshold) {
    double healthyPercent = level.hosts() == 0 ? 0.0 : 100.0 * level.healthyHosts() / level.hosts();
    return healthyPercent < Math.min(100.0, panicThreshold);
  }

  /** Every level in panic: the load by host counts, the rest of the integer division to the first non-empty level. */
  private static void loadInTotalPanic(Level[] levels, int[] load) {
    long total = 0;
    for (Level l : levels) {
      total += l.hosts();
    }
    java.util.Arrays.fill(load, 0);
    if (total == 0) {
      load[0] = 100;
      return;
    }
    int remaining = 100;
    int firstNonEmpty = -1;
    for (int i = 0; i < levels.length; i++) {
      if (firstNonEmpty < 0 && levels[i].hosts() > 0) {
        firstNonEmpty = i;
      }
      load[i] = (int) (100L * levels[i].hosts() / total);
      remaining -= load[i];
    }
    load[firstNonEmpty] += remaining;
  }

  /**
   * Each of the 100 slots of a pick's {@code hash mod 100} mapped to its priority: slot {@code s}
   * belongs to the first level whose cumulative load exceeds {@code s} (Envoy compares
   * {@code hash % 100 + 1} with the cumulative load).
   */
  public int[] slots() {
    int[] slots = new int[100];
    int level = 0;
    int cumulative = load.length == 0 ? 100 : load[0];
    for (int s = 0; s < 100; s++) {
      while (s >= cumulative && level + 1 < load.length) {
        level++;
        cumulative += load[level];
      }
      slots[s] = level;
    }
    return slots;
  }

  @Override
  public String toString() {
    return "PriorityLoad" + java.util.Arrays.toString(load) + " panic" + java.util.Arrays.toString(panic);
  }
}
