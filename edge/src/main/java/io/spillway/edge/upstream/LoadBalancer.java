package io.spillway.edge.upstream;

import io.spillway.edge.config.ClusterConfig;
import java.util.List;
import java.util.function.LongSupplier;
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
    return create(config, random, null, System::nanoTime);
  }

  /**
   * A balancer for the cluster's policy; {@code weights} are the cluster's under client-side
   * weighted round robin, {@code nanoClock} times slow start.
   */
  static LoadBalancer create(ClusterConfig config, RandomGenerator random, ClientSideWeights weights,
      LongSupplier nanoClock) {
    return create(config, random, weights, null, nanoClock);
  }

  /** As above; {@code pressure} is the cluster's state under the pressure policy. */
  static LoadBalancer create(ClusterConfig config, RandomGenerator random, ClientSideWeights weights,
      PressureWeights pressure, LongSupplier nanoClock) {
    SlowStart slowStart = config.lb().slowStart() == null ? null : new SlowStart(config.lb().slowStart(), nanoClock);
    return switch (config.lbPolicy()) {
      case ROUND_ROBIN -> new RoundRobin(random, slowStart);
      case LEAST_REQUEST -> new LeastRequest(random, config.leastRequestChoiceCount(), config.lb().activeRequestBias(),
          slowStart);
      case RANDOM -> new Random(random);
      case CLIENT_SIDE_WEIGHTED_ROUND_ROBIN -> {
        if (weights == null) {
          throw new IllegalArgumentException("client-side weighted round robin needs the cluster's weights");
        }
        yield new ClientSideWeighted(random, weights);
      }
      case PRESSURE -> {
        if (pressure == null) {
          throw new IllegalArgumentException("the pressure policy needs the cluster's pressure weights");
        }
        yield new PressureAware(random, pressure);
      }
      // Ring hash and Maglev pick from the routing's table (Cluster.pickHost); this balancer only
      // serves a routing published without one, which has no hosts.
      case RING_HASH, MAGLEV -> new Random(random);
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
      this.fallback = new RoundRobin(random, null);
      this.sequence = random.nextLong() >>> 2;
    }

    @Override
    public Host pick(HostSet set) {
      ClientSideWeights.Schedule s = weights.schedule(set);
      if (s == null) {
        return fallback.pick(set);
      }
      long accepted = s.scheduler().next(sequence);
      sequence = accepted + 1 < 0 ? 0 : accepted + 1;
      return set.hosts().get(s.scheduler().endpoint(accepted));
    }
  }

  /**
   * The pressure policy's pick: two candidates from the stride schedule the control thread last
   * published (this worker's next one, and one at a random point of the schedule, both in
   * proportion to the weights), the one with fewer requests in flight wins, the first on a tie — so
   * with no requests in flight the shares are the weights. Without a scheduler (fewer than two
   * scored hosts) or for a host set the schedule was not built for: power of two random choices on
   * requests in flight. A volatile read, a few array reads and two atomic reads; no lock.
   */
  static final class PressureAware extends LoadBalancer {
    private final RandomGenerator random;
    private final PressureWeights weights;
    private long sequence;

    PressureAware(RandomGenerator random, PressureWeights weights) {
      this.random = random;
      this.weights = weights;
      this.sequence = random.nextLong() >>> 2;
    }

    @Override
    public Host pick(HostSet set) {
      PressureWeights.Schedule s = weights.schedule();
      if (s == null || s.hosts() != set) {
        List<Host> hosts = set.hosts();
        return hosts.isEmpty() ? null : distinctPair(hosts, random);
      }
      Host[] members = s.members();
      if (members.length <= 1) {
        return members.length == 0 ? null : members[0];
      }
      if (s.scheduler() == null) {
        int first = random.nextInt(members.length);
        int second = random.nextInt(members.length - 1);
        return fewerActive(members[first], members[second >= first ? second + 1 : second]);
      }
      long first = s.scheduler().next(sequence);
      sequence = first + 1 < 0 ? 0 : first + 1;
      long second = s.scheduler().next(random.nextLong() >>> 2);
      return fewerActive(members[s.scheduler().endpoint(first)], members[s.scheduler().endpoint(second)]);
    }
  }

  /** Of two distinct hosts drawn at random (the only one when there is one), the less loaded. */
  static Host distinctPair(List<Host> hosts, RandomGenerator random) {
    int n = hosts.size();
    if (n == 1) {
      return hosts.get(0);
    }
    int first = random.nextInt(n);
    int second = random.nextInt(n - 1);
    return fewerActive(hosts.get(first), hosts.get(second >= first ? second + 1 : second));
  }

  /** The host with fewer active requests; {@code a} on a tie. */
  static Host fewerActive(Host a, Host b) {
    return b.activeRequests() < a.activeRequests() ? b : a;
  }

  /**
   * Round robin; with unequal weights, smooth weighted round robin (each pick adds every host's
   * weight to its credit and takes the host with the most, which then pays the total). Starts at a
   * random offset so that workers and edges do not move in lock-step.
   */
  static final class RoundRobin extends LoadBalancer {
    private final SlowStart slowStart;
    private final SmoothWeighted ramping = new SmoothWeighted();
    private int next;
    private HostSet creditsFor;
    private int[] credits;

    RoundRobin(RandomGenerator random, SlowStart slowStart) {
      this.next = random.nextInt(1 << 16);
      this.slowStart = slowStart;
    }

    @Override
    public Host pick(HostSet set) {
      List<Host> hosts = set.hosts();
      int n = hosts.size();
      if (n == 0) {
        return null;
      }
      if (slowStart != null) {
        long now = slowStart.now(set);
        if (now != Long.MIN_VALUE) {
          double[] w = ramping.weights(set);
          for (int i = 0; i < n; i++) {
            Host h = hosts.get(i);
            w[i] = h.weight() * slowStart.factor(h, now);
          }
          return ramping.pick(set);
        }
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
   * Envoy's LEAST_REQUEST. With equal weights, power-of-N choices: draws {@code choiceCount}
   * <em>distinct</em> hosts at random and takes the one with the fewest active requests (ties go to
   * the first drawn, so at random); {@link ClusterConfig#LEAST_REQUEST_FULL_SCAN}, or a choice count
   * not below the host count, compares every host from a random start. Envoy draws with
   * replacement, so its worst host still gets 1/n² of the picks however loaded it is: one host of
   * five slowed tenfold then receives 4 % of the traffic against its 2 % share of the capacity, and
   * its queue grows without bound. Distinct draws never pick the most loaded host while another is
   * less loaded. With unequal weights, weighted round robin (smooth, as {@link RoundRobin}) over each
   * host's weight divided by {@code (active requests + 1)^active_request_bias}, recomputed on every
   * pick; a bias of 0 is plain weighted round robin.
   */
  static final class LeastRequest extends LoadBalancer {
    private final RandomGenerator random;
    private final int choiceCount;
    private final double bias;
    private final SlowStart slowStart;
    private final SmoothWeighted weighted = new SmoothWeighted();
    /** A permutation of the host indexes, partly reshuffled by each pick of more than two choices. */
    private int[] order = new int[0];

    LeastRequest(RandomGenerator random, int choiceCount, double activeRequestBias, SlowStart slowStart) {
      this.random = random;
      this.choiceCount = choiceCount == ClusterConfig.LEAST_REQUEST_FULL_SCAN ? Integer.MAX_VALUE
          : Math.max(2, choiceCount);
      this.bias = activeRequestBias;
      this.slowStart = slowStart;
    }

    /** Envoy's effective weight of a host under least request with unequal weights. */
    static double effectiveWeight(int weight, int activeRequests, double bias) {
      if (bias == 0) {
        return weight;
      }
      double base = activeRequests + 1.0;
      return weight / (bias == 1.0 ? base : Math.pow(base, bias));
    }

    /** Weighted round robin over the effective weights (with slow start's factor while a host ramps). */
    private Host weighted(HostSet set, long now) {
      List<Host> hosts = set.hosts();
      double[] w = weighted.weights(set);
      for (int i = 0; i < w.length; i++) {
        Host h = hosts.get(i);
        w[i] = effectiveWeight(h.weight(), h.activeRequests(), bias)
            * (now == Long.MIN_VALUE ? 1.0 : slowStart.factor(h, now));
      }
      return weighted.pick(set);
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
      long now = slowStart == null ? Long.MIN_VALUE : slowStart.now(set);
      if (!set.equalWeights() || now != Long.MIN_VALUE) {
        return weighted(set, now); // Envoy too leaves power-of-N choices while a host ramps
      }
      if (choiceCount >= n) {
        return fewestActive(hosts, random.nextInt(n));
      }
      if (choiceCount == 2) {
        return distinctPair(hosts, random);
      }
      return fewestOfDistinct(hosts);
    }

    /** Every host from {@code start} on, wrapping: the first with the fewest active requests. */
    private static Host fewestActive(List<Host> hosts, int start) {
      int n = hosts.size();
      Host best = hosts.get(start);
      int bestLoad = best.activeRequests();
      for (int k = 1; k < n && bestLoad > 0; k++) {
        Host h = hosts.get((start + k) % n);
        int load = h.activeRequests();
        if (load < bestLoad) {
          best = h;
          bestLoad = load;
        }
      }
      return best;
    }

    /** {@code choiceCount} distinct hosts by a partial Fisher-Yates shuffle of {@link #order}. */
    private Host fewestOfDistinct(List<Host> hosts) {
      int n = hosts.size();
      if (order.length != n) {
        order = new int[n];
        for (int i = 0; i < n; i++) {
          order[i] = i;
        }
      }
      Host best = null;
      int bestLoad = Integer.MAX_VALUE;
      for (int c = 0; c < choiceCount; c++) {
        int j = c + random.nextInt(n - c);
        int index = order[j];
        order[j] = order[c];
        order[c] = index;
        Host h = hosts.get(index);
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

  /**
   * Envoy's slow start: a host that joined a running cluster less than {@code window} ago counts
   * with {@code weight * max(min_weight_percent, (t / window)^(1 / aggression))}, t in ms (at least 1).
   */
  static final class SlowStart {
    private final long windowNanos;
    private final double windowMillis;
    private final double inverseAggression;
    private final double minFactor;
    private final LongSupplier nanoClock;

    SlowStart(ClusterConfig.SlowStart config, LongSupplier nanoClock) {
      this.windowNanos = config.window().toNanos();
      this.windowMillis = Math.max(1, config.window().toMillis());
      this.inverseAggression = 1.0 / config.aggression();
      this.minFactor = config.minWeightPercent() / 100.0;
      this.nanoClock = nanoClock;
    }

    /** Now, when some host of the set is still ramping; else {@link Long#MIN_VALUE} (no clock read then). */
    long now(HostSet set) {
      if (set.lastJoinedNanos() == Host.NOT_JOINING) {
        return Long.MIN_VALUE;
      }
      long now = nanoClock.getAsLong();
      return now - set.lastJoinedNanos() < windowNanos ? now : Long.MIN_VALUE;
    }

    /** The factor on the host's weight at {@code now}: 1 once its window has passed. */
    double factor(Host h, long now) {
      long joined = h.joinedNanos();
      if (joined == Host.NOT_JOINING || now - joined >= windowNanos) {
        return 1.0;
      }
      double t = Math.max(1, (now - joined) / 1_000_000) / windowMillis;
      double ramp = inverseAggression == 1.0 ? t : Math.pow(t, inverseAggression);
      return Math.max(ramp, minFactor);
    }

    /** The same factor for a host {@code elapsedNanos} into its ramp (the pressure policy's returning hosts). */
    static double ramp(ClusterConfig.SlowStart config, long elapsedNanos) {
      if (elapsedNanos >= config.window().toNanos()) {
        return 1.0;
      }
      double t = Math.max(1, elapsedNanos / 1_000_000) / (double) Math.max(1, config.window().toMillis());
      double ramp = config.aggression() == 1.0 ? t : Math.pow(t, 1.0 / config.aggression());
      return Math.max(ramp, config.minWeightPercent() / 100.0);
    }
  }

  /** Smooth weighted round robin over weights a balancer fills in before each pick (doubles). */
  static final class SmoothWeighted {
    private HostSet creditsFor;
    private double[] credits;
    private double[] weights;

    /** The array to fill with this pick's weights, one per host of {@code set}. */
    double[] weights(HostSet set) {
      if (creditsFor != set) {
        creditsFor = set;
        credits = new double[set.hosts().size()];
        weights = new double[set.hosts().size()];
      }
      return weights;
    }

    /** Adds every weight to its host's credit and takes the host with the most, which pays the total. */
    Host pick(HostSet set) {
      double total = 0;
      int best = 0;
      for (int i = 0; i < weights.length; i++) {
        credits[i] += weights[i];
        total += weights[i];
        if (credits[i] > credits[best]) {
          best = i;
        }
      }
      credits[best] -= total;
      return set.hosts().get(best);
    }
  }
}
