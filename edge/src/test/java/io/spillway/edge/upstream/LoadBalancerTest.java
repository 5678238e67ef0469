package io.spillway.edge.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.config.SocketAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LoadBalancerTest {

  static ClusterConfig config(ClusterConfig.LbPolicy policy) {
    ClusterConfig.LbSettings lb = switch (policy) {
      case CLIENT_SIDE_WEIGHTED_ROUND_ROBIN -> new ClusterConfig.LbSettings(1.0, null,
          new ClusterConfig.WeightedRoundRobin(Duration.ofSeconds(10), Duration.ofMinutes(3), Duration.ofSeconds(1),
              1.0, List.of()));
      case PRESSURE -> ClusterConfig.LbSettings.pressure(io.spillway.edge.config.PressureConfig.builder().build());
      default -> ClusterConfig.LbSettings.DEFAULTS;
    };
    return config(policy, lb);
  }

  static ClusterConfig config(ClusterConfig.LbPolicy policy, ClusterConfig.LbSettings lb) {
    return config(policy, 2, lb);
  }

  static ClusterConfig config(ClusterConfig.LbPolicy policy, int choiceCount, ClusterConfig.LbSettings lb) {
    return new ClusterConfig("c", ClusterConfig.DiscoveryType.STATIC, policy, choiceCount, Duration.ofSeconds(1),
        Duration.ofSeconds(5), List.of(new ClusterConfig.Endpoint(new SocketAddress("127.0.0.1", 1), 1)),
        ClusterConfig.Thresholds.DEFAULTS, ClusterConfig.UpstreamProtocol.HTTP1, 1 << 20, 0, Duration.ofHours(1),
        ClusterConfig.DnsLookupFamily.AUTO, "", io.spillway.edge.config.Http2Options.UPSTREAM_DEFAULTS, lb);
  }

  static HostSet hosts(int... weights) {
    List<Host> hosts = new ArrayList<>();
    for (int i = 0; i < weights.length; i++) {
      hosts.add(new Host("c", new InetSocketAddress("127.0.0.1", 10_000 + i), "127.0.0.1", weights[i], 1));
    }
    return HostSet.of(hosts);
  }

  static Map<Host, Integer> picks(LoadBalancer lb, HostSet set, int n) {
    Map<Host, Integer> counts = new HashMap<>();
    for (int i = 0; i < n; i++) {
      counts.merge(lb.pick(set), 1, Integer::sum);
    }
    return counts;
  }

  @Test
  void roundRobinVisitsEveryHostInTurn() {
    HostSet set = hosts(1, 1, 1);
    LoadBalancer lb = LoadBalancer.create(config(ClusterConfig.LbPolicy.ROUND_ROBIN), new SplittableRandom(1));
    Host first = lb.pick(set);
    Host second = lb.pick(set);
    Host third = lb.pick(set);
    assertThat(List.of(first, second, third)).containsExactlyInAnyOrderElementsOf(set.hosts());
    assertThat(lb.pick(set)).isSameAs(first);
  }

  @Test
  void weightedRoundRobinIsExactAndSmooth() {
    HostSet set = hosts(5, 1, 1);
    LoadBalancer lb = LoadBalancer.create(config(ClusterConfig.LbPolicy.ROUND_ROBIN), new SplittableRandom(1));
    Map<Host, Integer> counts = picks(lb, set, 700);
    assertThat(counts.get(set.hosts().get(0))).isEqualTo(500);
    assertThat(counts.get(set.hosts().get(1))).isEqualTo(100);
    // Smooth: 5-1-1 interleaves as a a b a c a a, so never more than 4 in a row across cycles.
    int run = 0;
    int longest = 0;
    for (int i = 0; i < 70; i++) {
      run = lb.pick(set) == set.hosts().get(0) ? run + 1 : 0;
      longest = Math.max(longest, run);
    }
    assertThat(longest).isLessThanOrEqualTo(4);
  }

  static void start(Host host, int requests) {
    for (int i = 0; i < requests; i++) {
      host.requestStarted();
    }
  }

  static LoadBalancer leastRequest(int choiceCount, long seed) {
    return LoadBalancer.create(config(ClusterConfig.LbPolicy.LEAST_REQUEST, choiceCount,
        ClusterConfig.LbSettings.DEFAULTS), new SplittableRandom(seed));
  }

  @Test
  void leastRequestNeverPicksTheBusiestHostWhileAnotherIsLessLoaded() {
    // One of five hosts is slow and has piled up requests; drawing with replacement (as Envoy's
    // N_CHOICES does) would still send it 1/25 of the picks.
    HostSet set = hosts(1, 1, 1, 1, 1);
    Host slow = set.hosts().get(4);
    start(slow, 40);
    for (int i = 0; i < 4; i++) {
      start(set.hosts().get(i), 3);
    }
    Map<Host, Integer> counts = picks(leastRequest(2, 3), set, 10_000);
    assertThat(counts.getOrDefault(slow, 0)).isZero();
    for (int i = 0; i < 4; i++) {
      assertThat(counts.get(set.hosts().get(i))).isBetween(2_300, 2_700);
    }
  }

  @Test
  void twoDistinctChoicesSpreadIdleHostsEvenly() {
    HostSet set = hosts(1, 1, 1, 1, 1);
    Map<Host, Integer> counts = picks(leastRequest(2, 7), set, 10_000);
    assertThat(counts).hasSize(5);
    counts.values().forEach(c -> assertThat(c).isBetween(1_800, 2_200));
  }

  @Test
  void moreChoicesAreDistinctToo() {
    // Host i has i requests in flight. With three distinct draws of six, the two busiest can never
    // be the fewest drawn, and host 3 wins only when drawn with both of them: 1 in C(6,3) = 20.
    HostSet set = hosts(1, 1, 1, 1, 1, 1);
    for (int i = 0; i < 6; i++) {
      start(set.hosts().get(i), i);
    }
    Map<Host, Integer> counts = picks(leastRequest(3, 11), set, 20_000);
    assertThat(counts.getOrDefault(set.hosts().get(4), 0)).isZero();
    assertThat(counts.getOrDefault(set.hosts().get(5), 0)).isZero();
    assertThat(counts.get(set.hosts().get(3))).isBetween(800, 1_200);
    assertThat(counts.get(set.hosts().get(0))).isBetween(9_600, 10_400); // C(5,2)/C(6,3) = 1/2
  }

  @Test
  void fullScanTakesTheLeastLoadedAndBreaksTiesAtRandom() {
    HostSet set = hosts(1, 1, 1, 1);
    start(set.hosts().get(0), 2);
    start(set.hosts().get(2), 1);
    LoadBalancer lb = leastRequest(ClusterConfig.LEAST_REQUEST_FULL_SCAN, 5);
    Map<Host, Integer> counts = picks(lb, set, 4_000);
    assertThat(counts.keySet()).containsExactlyInAnyOrder(set.hosts().get(1), set.hosts().get(3));
    assertThat(counts.get(set.hosts().get(1))).isBetween(1_000, 3_000);
    // A choice count not below the host count scans every host as well.
    assertThat(picks(leastRequest(4, 5), set, 1_000).keySet())
        .containsExactlyInAnyOrder(set.hosts().get(1), set.hosts().get(3));
  }

  @Test
  void activeRequestBiasFollowsEnvoysFormula() {
    assertThat(LoadBalancer.LeastRequest.effectiveWeight(4, 3, 1.0)).isEqualTo(1.0);
    assertThat(LoadBalancer.LeastRequest.effectiveWeight(4, 3, 0.0)).isEqualTo(4.0);
    assertThat(LoadBalancer.LeastRequest.effectiveWeight(8, 3, 0.5)).isEqualTo(4.0);
    assertThat(LoadBalancer.LeastRequest.effectiveWeight(9, 8, 2.0)).isEqualTo(9.0 / 81);
  }

  @Test
  void weightedLeastRequestDividesWeightsByActiveRequests() {
    HostSet set = hosts(4, 1);
    Host heavy = set.hosts().get(0);
    for (int i = 0; i < 7; i++) {
      heavy.requestStarted(); // 4 / (7 + 1) = 0.5 against 1 / 1
    }
    LoadBalancer lb = LoadBalancer.create(config(ClusterConfig.LbPolicy.LEAST_REQUEST), new SplittableRandom(3));
    assertThat(picks(lb, set, 900).get(heavy)).isEqualTo(300);
    LoadBalancer noBias = LoadBalancer.create(config(ClusterConfig.LbPolicy.LEAST_REQUEST,
        new ClusterConfig.LbSettings(0.0, null, null)), new SplittableRandom(3));
    assertThat(picks(noBias, set, 1000).get(heavy)).isEqualTo(800);
  }

  @Test
  void randomCoversHostsByWeight() {
    HostSet set = hosts(3, 1);
    LoadBalancer lb = LoadBalancer.create(config(ClusterConfig.LbPolicy.RANDOM), new SplittableRandom(5));
    Map<Host, Integer> counts = picks(lb, set, 8000);
    assertThat(counts.get(set.hosts().get(0))).isBetween(5700, 6300);
  }

  @Test
  void emptySetPicksNothing() {
    for (ClusterConfig.LbPolicy p : ClusterConfig.LbPolicy.values()) {
      ClusterConfig c = config(p);
      ClientSideWeights weights = c.lb().weightedRoundRobin() == null ? null
          : new ClientSideWeights(c.lb().weightedRoundRobin(), null);
      PressureWeights pressure = c.lb().pressure() == null ? null : new PressureWeights(c.lb().pressure(),
          new PressureWeights.Stats(new io.spillway.edge.stats.StatsStore().rootScope()));
      assertThat(LoadBalancer.create(c, new SplittableRandom(1), weights, pressure, () -> 0L).pick(HostSet.EMPTY))
          .isNull();
    }
  }

  @Test
  void circuitBreakerCountersNeverPassTheirLimit() throws Exception {
    ResourceLimits limits = new ResourceLimits(new ClusterConfig.Thresholds(1, 1, 50, 1));
    int threads = 4;
    var pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
    var acquired = new java.util.concurrent.atomic.AtomicInteger();
    var futures = new ArrayList<java.util.concurrent.Future<?>>();
    for (int t = 0; t < threads; t++) {
      futures.add(pool.submit(() -> {
        for (int i = 0; i < 10_000; i++) {
          if (limits.tryAcquireRequest(0) == ResourceLimits.Slot.TAKEN) {
            acquired.incrementAndGet();
            assertThat(limits.requests()).isLessThanOrEqualTo(50);
            limits.releaseRequest();
          }
        }
      }));
    }
    for (var f : futures) {
      f.get();
    }
    pool.shutdown();
    assertThat(limits.requests()).isZero();
    assertThat(acquired.get()).isPositive();
    assertThat(limits.tryAcquireRetry()).isTrue();
    assertThat(limits.tryAcquireRetry()).isFalse();
  }
}
