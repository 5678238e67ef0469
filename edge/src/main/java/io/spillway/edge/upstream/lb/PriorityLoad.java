package io.spillway.edge.upstream.lb;

/**
 * Envoy's priority load ({@code LoadBalancerBase::recalculatePerPriorityState} and
 * {@code recalculatePerPriorityPanic}): how much of the traffic (in whole percent) goes to each
 * priority level's healthy hosts and to its degraded hosts, and which levels are in panic, from
 * each level's healthy, degraded and total hosts. Pure arithmetic on the control thread; the
 * workers read the result from the published routing.
 *
 * <ul>
 *   <li>A level's <em>health</em> is {@code min(100, overprovisioning_factor × healthy / total)} in
 *       integer arithmetic (hosts, or their weights with {@code weighted_priority_health}), its
 *       <em>degraded availability</em> the same over its degraded hosts; both 0 for an empty level.
 *   <li>The <em>normalized total availability</em> is the sum of every level's health and degraded
 *       availability, capped at 100.
 *   <li>The 100 % is spread first over the levels' healthy hosts: from the highest priority down,
 *       each takes {@code health × 100 / normalized total}, never more than what is left; what is
 *       left then goes, the same way, to the levels' degraded hosts by their degraded availability.
 *       So degraded hosts take load only when the healthy hosts of every level cannot. What integer
 *       division leaves over goes to the healthy hosts of the first level with any health, else to
 *       the degraded hosts of the first level with any degraded availability.
 *   <li>While the normalized total is below 100, a level whose healthy and degraded hosts together
 *       are below {@code healthy_panic_threshold} percent of its hosts (Envoy's
 *       {@code isHostSetInPanic}; an empty level is) is in panic: it balances over all of its hosts
 *       whichever of its loads sent the request. When every level is in panic, the load follows the
 *       host counts instead (healthy load only; the first non-empty level takes what division
 *       leaves, priority 0 everything when there is no host at all).
 *   <li>With a panic threshold of 0 and no healthy or degraded host at all, priority 0's healthy
 *       hosts take the whole load (and there are none to give).
 * </ul>
 *
 * @param load each level's share of the traffic for its healthy hosts, in percent
 * @param degradedLoad each level's share for its degraded hosts; with {@code load} it adds up to 100
 * @param panic whether each level is in panic
 */
public record PriorityLoad(int[] load, int[] degradedLoad, boolean[] panic) {

  /**
   * One level's counts.
   *
   * @param healthyHosts hosts that are neither unhealthy nor degraded
   * @param degradedHosts hosts that are degraded (and not unhealthy)
   * @param hosts every host of the level
   * @param healthyWeight the healthy hosts' endpoint weights, summed
   * @param degradedWeight the degraded hosts' endpoint weights, summed
   * @param totalWeight every host's endpoint weight, summed
   */
  public record Level(int healthyHosts, int degradedHosts, int hosts, long healthyWeight, long degradedWeight,
      long totalWeight) {

    /** A level without degraded hosts. */
    public Level(int healthyHosts, int hosts, long healthyWeight, long totalWeight) {
      this(healthyHosts, 0, hosts, healthyWeight, 0, totalWeight);
    }
  }

  /**
   * @param overprovisioningFactor in percent (Envoy default 140)
   * @param weightedPriorityHealth health from the weights rather than the host counts
   * @param panicThreshold {@code healthy_panic_threshold} in percent (Envoy default 50)
   */
  public static PriorityLoad compute(Level[] levels, int overprovisioningFactor, boolean weightedPriorityHealth,
      double panicThreshold) {
    int n = levels.length;
    int[] health = new int[n];
    int[] degraded = new int[n];
    int sum = 0;
    for (int i = 0; i < n; i++) {
      Level l = levels[i];
      boolean w = weightedPriorityHealth;
      health[i] = availability(l, w ? l.healthyWeight() : l.healthyHosts(), overprovisioningFactor, w);
      degraded[i] = availability(l, w ? l.degradedWeight() : l.degradedHosts(), overprovisioningFactor, w);
      sum += health[i] + degraded[i];
    }
    int normalizedTotal = Math.min(100, sum);
    int[] load = new int[n];
    int[] degradedLoad = new int[n];
    boolean[] panic = new boolean[n];
    if (normalizedTotal > 0) {
      int firstHealthy = firstAvailable(health);
      int left = distribute(health, 100, normalizedTotal, load);
      left = distribute(degraded, left, normalizedTotal, degradedLoad);
      if (left > 0) {
        if (firstHealthy >= 0) {
          load[firstHealthy] += left;
        } else {
          degradedLoad[firstAvailable(degraded)] += left;
        }
      }
    }
    if (panicThreshold <= 0 && normalizedTotal == 0) {
      if (n > 0) {
        load[0] = 100;
      }
      return new PriorityLoad(load, degradedLoad, panic);
    }
    boolean totalPanic = n > 0;
    for (int i = 0; i < n; i++) {
      panic[i] = normalizedTotal < 100 && inPanic(levels[i], panicThreshold);
      totalPanic &= panic[i];
    }
    if (totalPanic) {
      loadInTotalPanic(levels, load, degradedLoad);
    }
    return new PriorityLoad(load, degradedLoad, panic);
  }

  /**
   * A level's availability for {@code eligible} hosts (or weight): {@code min(100, factor × eligible
   * / total)}, integer arithmetic as Envoy's.
   */
  static int availability(Level level, long eligible, int overprovisioningFactor, boolean weighted) {
    long total = weighted ? level.totalWeight() : level.hosts();
    if (level.hosts() == 0 || total == 0) {
      return 0;
    }
    return (int) Math.min(100, overprovisioningFactor * eligible / total);
  }

  private static int firstAvailable(int[] availability) {
    for (int i = 0; i < availability.length; i++) {
      if (availability[i] > 0) {
        return i;
      }
    }
    return -1;
  }

  /** Envoy's {@code distributeLoad}: {@code total} over the levels by availability; what is left. */
  private static int distribute(int[] availability, int total, int normalizedTotal, int[] load) {
    int remaining = total;
    for (int i = 0; i < availability.length; i++) {
      load[i] = Math.min(remaining, availability[i] * 100 / normalizedTotal);
      remaining -= load[i];
    }
    return remaining;
  }

  /**
   * Envoy's per-level panic: healthy plus degraded hosts below the threshold's share of the level's
   * hosts (an empty level is).
   */
  private static boolean inPanic(Level level, double panicThreshold) {
    double available = level.hosts() == 0 ? 0.0
        : 100.0 * level.healthyHosts() / level.hosts() + 100.0 * level.degradedHosts() / level.hosts();
    return available < Math.min(100.0, panicThreshold);
  }

  /** Every level in panic: the load by host counts, the rest of the integer division to the first non-empty level. */
  private static void loadInTotalPanic(Level[] levels, int[] load, int[] degradedLoad) {
    long total = 0;
    for (Level l : levels) {
      total += l.hosts();
    }
    java.util.Arrays.fill(load, 0);
    java.util.Arrays.fill(degradedLoad, 0);
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
   * Each of the 100 slots of a pick's {@code hash mod 100} mapped to where it goes, as Envoy's
   * {@code choosePriority} walks the loads: every level's healthy load first, then every level's
   * degraded load, each in priority order; slot {@code s} belongs to the first share whose
   * cumulative load exceeds {@code s}. The value is the level's index for its healthy hosts and
   * {@code levels + index} for its degraded hosts.
   */
  public int[] slots() {
    int n = load.length;
    int[] slots = new int[100];
    if (n == 0) {
      return slots;
    }
    int share = 0;
    int cumulative = load[0];
    for (int s = 0; s < 100; s++) {
      while (s >= cumulative && share + 1 < 2 * n) {
        share++;
        cumulative += share < n ? load[share] : degradedLoad[share - n];
      }
      slots[s] = share;
    }
    return slots;
  }

  @Override
  public String toString() {
    return "PriorityLoad" + java.util.Arrays.toString(load) + " degraded" + java.util.Arrays.toString(degradedLoad)
        + " panic" + java.util.Arrays.toString(panic);
  }
}
