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

  /** A balancer for the cluster's policy (not client-side weighted round robin, which needs its weights). */
  public static LoadBalancer create(ClusterConfig config, RandomGenerator random) {
    return create(config, random, null);
  }

  /** A balancer for the cluster's policy; {@code weights} are the cluster's under client-side weighted round robin. */
  static LoadBalancer create(ClusterConfig config, RandomGenerator random, ClientSideWeights weights) {
    return switch (config.lbPolicy()) {
      case ROUND_ROBIN -> new RoundRobin(random);
      case LEAST_REQUEST -> new LeastRequest(random, config.leastRequestChoiceCount(), config.lb().activeRequestBias());
      case RANDOM -> new Random(random);
      case CLIENT_SIDE_WEIGHTED_ROUND_ROBIN -> {
        if (weights == null) {
          throw new IllegalArgumentException("client-side weighted round robin needs the cluster's weights");
        }
        yield new ClientSideWeighted(random, weights);
      }
    };
  }

  /**
   * Client-side weighted round robin: picks from the stride schedule the control thread last
   * published for this host set, continuing this worker's own sequence (which starts at a random
   * number); round robin while there is no schedule for the current hosts.
   */
  static final class ClientSideWeighted extends LoadBalancer {
    private final ClientSideWeights weights;
    private final RoundRobin fallback;
    private long sequence;

    ClientSideWeighted(RandomGenerator random, ClientSideWeights weights) {
      this.weights = weights;
      this.fallback = new RoundRobin(random);
      this.sequence = random.nextLong() >>> 2;
    }

    @Override
    public Host pick(HostSet set) {
      ClientSideWeights.Schedule s = weights.schedule();
      if (s == null || s.hosts() != set) {
        return fallback.pick(set);
      }
      long accepted = s.scheduler().next(sequence);
      sequence = accepted + 1 < 0 ? 0 : accepted + 1;
      return set.hosts().get(s.scheduler().endpoint(accepted));
    }
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
   * Envoy's LEAST_REQUEST. With equal weights, power-of-N choices: draws {@code choiceCount} hosts
   * at random and takes the one with the fewest active requests. With unequal weights, weighted
   * round robin (smooth, as {@link RoundRobin}) over each host's weight divided by {@code (active
   * requests + 1)^active_request_bias}, recomputed on every pick; a bias of 0 is plain weighted
   * round robin.
   */
  static final class LeastRequest extends LoadBalancer {
    private final RandomGenerator random;
    private final int choiceCount;
    private final double bias;
    private HostSet creditsFor;
    private double[] credits;

    LeastRequest(RandomGenerator random, int choiceCount, double activeRequestBias) {
      this.random = random;
      this.choiceCount = Math.max(2, choiceCount);
      this.bias = activeRequestBias;
    }

    /** Envoy's effective weight of a host under least request with unequal weights. */
    static double effectiveWeight(int weight, int activeRequests, double bias) {
      if (bias == 0) {
        return weight;
      }
      double base = activeRequests + 1.0;
      return weight / (bias == 1.0 ? base : Math.pow(base, bias));
    }

    private Host weighted(HostSet set) {
      List<Host> hosts = set.hosts();
      int n = hosts.size();
      if (creditsFor != set) {
        creditsFor = set;
        credits = new double[n];
      }
      double total = 0;
      int best = 0;
      for (int i = 0; i < n; i++) {
        Host h = hosts.get(i);
        double w = effectiveWeight(h.weight(), h.activeRequests(), bias);
        credits[i] += w;
        total += w;
        if (credits[i] > credits[best]) {
          best = i;
        }
      }
      credits[best] -= total;
      return hosts.get(best);
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
      if (!set.equalWeights()) {
        return weighted(set);
      }
      Host best = null;
      int bestLoad = Integer.MAX_VALUE;
      for (int c = 0; c < choiceCount; c++) {
        Host h = hosts.get(random.nextInt(n));
        int load = h.activeRequests();
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
