package io.spillway.edge.upstream;

import io.spillway.edge.config.ClusterConfig;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Picks a host. One instance per cluster per worker, used only from that worker's event loop, so
 * its state needs no synchronisation; host counters it reads are atomics shared by all workers.
 */
public abstract sealed class LoadBalancer {

  /** The next host, or null when the set is empty. */
  public abstract Host pick(HostSet set);

  /** A balancer for the cluster's policy. */
  public static LoadBalancer create(ClusterConfig config, RandomGenerator random) {
    return switch (config.lbPolicy()) {
      case ROUND_ROBIN -> new RoundRobin(random);
      case LEAST_REQUEST -> new LeastRequest(random, config.leastRequestChoiceCount());
      case RANDOM -> new Random(random);
    };
  }

  /**
   * Round robin; with unequal weights, smooth weighted round robin (each pick adds every host's
   * weight to its credit and takes the host with the most, which then pays the total). Starts at a
   * random offset so that workers and edges do not move in lock-step.
   */
  static final class RoundRobin extends LoadBalancer {
    private int next;
    private HostSet creditsFor;
    private int[] credits;

    RoundRobin(RandomGenerator random) {
      this.next = random.nextInt(1 << 16);
    }

    @Override
    public Host pick(HostSet set) {
      List<Host> hosts = set.hosts();
      int n = hosts.size();
      if (n == 0) {
        return null;
      }
      if (set.equalWeights()) {
        int i = Math.floorMod(next++, n);
        return hosts.get(i);
      }
      if (creditsFor != set) {
        creditsFor = set;
        credits = new int[n];
      }
      int best = 0;
      for (int i = 0; i < n; i++) {
        credits[i] += hosts.get(i).weight();
        if (credits[i] > credits[best]) {
          best = i;
        }
      }
      credits[best] -= set.totalWeight();
      return hosts.get(best);
    }
  }

  /**
   * Least request with power-of-N choices (Envoy's LEAST_REQUEST): draws {@code choiceCount}
   * hosts at random and takes the one with the fewest active requests relative to its weight.
   */
  static final class LeastRequest extends LoadBalancer {
    private final RandomGenerator random;
    private final int choiceCount;

    LeastRequest(RandomGenerator random, int choiceCount) {
      this.random = random;
      this.choiceCount = Math.max(2, choiceCount);
    }

    @Override
    public Host pick(HostSet set) {
      List<Host> hosts = set.hosts();
      int n = hosts.size();
      if (n == 0) {
        return null;
      }
      if (n == 1) {
        return hosts.get(0);
      }
      Host best = null;
      double bestLoad = Double.MAX_VALUE;
      for (int c = 0; c < choiceCount; c++) {
        Host h = hosts.get(random.nextInt(n));
        double load = set.equalWeights() ? h.activeRequests() : (h.activeRequests() + 1.0) / h.weight();
        if (load < bestLoad) {
          best = h;
          bestLoad = load;
        }
      }
      return best;
    }
  }

  /** Uniform (or weight-proportional) random choice. */
  static final class Random extends LoadBalancer {
    private final RandomGenerator random;

    Random(RandomGenerator random) {
      this.random = random;
    }

    @Override
    public Host pick(HostSet set) {
      List<Host> hosts = set.hosts();
      int n = hosts.size();
      if (n == 0) {
        return null;
      }
      if (set.equalWeights()) {
        return hosts.get(random.nextInt(n));
      }
      int r = random.nextInt(set.totalWeight());
      for (int i = 0; i < n; i++) {
        r -= hosts.get(i).weight();
        if (r < 0) {
          return hosts.get(i);
        }
      }
      return hosts.get(n - 1);
    }
  }
}
