package io.spillway.edge.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.config.ClusterConfig.Endpoint;
import io.spillway.edge.config.ClusterConfig.LbPolicy;
import io.spillway.edge.config.ClusterConfig.Locality;
import io.spillway.edge.config.HostHealthConfig;
import io.spillway.edge.config.Http2Options;
import io.spillway.edge.config.SocketAddress;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.stats.StatsStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A cluster's picks over priority levels and localities: health flags set by hand, picks counted
 * over bounded loops with fixed seeds (so every count is the same on every run).
 */
class PriorityRoutingTest {
  private static final Locality X = new Locality("r", "x", "");
  private static final Locality Y = new Locality("r", "y", "");
  private static final Locality Z = new Locality("r", "z", "");
  private final StatsStore store = new StatsStore();

  /** Outlier detection on (so hosts can be unhealthy) with the panic threshold given. */
  private static HostHealthConfig health(double panicThreshold) {
    return new HostHealthConfig(Optional.empty(), Optional.of(HostHealthTest.outlier(5, 100, Duration.ofSeconds(30),
        Duration.ofSeconds(300))), panicThreshold);
  }

  private Cluster cluster(LbPolicy policy, boolean localityWeighted, double panicThreshold, List<Endpoint> endpoints,
      int workers) {
    ClusterConfig.LbSettings lb = localityWeighted ? ClusterConfig.LbSettings.DEFAULTS.withLocalityWeighted()
        : ClusterConfig.LbSettings.DEFAULTS;
    ClusterConfig config = new ClusterConfig("c", ClusterConfig.DiscoveryType.STATIC, policy, 2, Duration.ofSeconds(1),
        Duration.ofSeconds(5), endpoints, ClusterConfig.Thresholds.DEFAULTS, ClusterConfig.UpstreamProtocol.HTTP1,
        1 << 20, 0, Duration.ofHours(1), ClusterConfig.DnsLookupFamily.AUTO, "", Http2Options.UPSTREAM_DEFAULTS, lb,
        health(panicThreshold));
    Scope scope = store.rootScope().taggedScope("cluster", "c", "envoy_cluster_name");
    Cluster c = Cluster.create(config, new ClusterStats(scope, false), workers, 7, ConnectionGate.OPEN,
        new HostHealthServices(Runnable::run, () -> 0L, null), scope);
    new ClusterManager(store.rootScope(), workers, null, ClusterManager.Resolver.SYSTEM, 1)
        .publishHosts(c, config.loadAssignment());
    return c;
  }

  private static List<Endpoint> endpoints(int priority, Locality locality, int localityWeight, int count,
      int firstPort) {
    List<Endpoint> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(new Endpoint(new SocketAddress("127.0.0.1", firstPort + i), 1, "", priority, locality, localityWeight));
    }
    return out;
  }

  /** {@code count} endpoints of priority {@code priority} whose {@code health_status} is {@code health}. */
  private static List<Endpoint> endpoints(int priority, ClusterConfig.EndpointHealth health, int count,
      int firstPort) {
    List<Endpoint> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(new Endpoint(new SocketAddress("127.0.0.1", firstPort + i), 1, "", priority, Locality.NONE, 0, health));
    }
    return out;
  }

  @SafeVarargs
  private static List<Endpoint> concat(List<Endpoint>... parts) {
    List<Endpoint> all = new ArrayList<>();
    for (List<Endpoint> p : parts) {
      all.addAll(p);
    }
    return all;
  }

  private static void markUnhealthy(Cluster c, int priority, Locality locality, int count) {
    int marked = 0;
    for (Host h : c.hosts().hosts()) {
      if (marked < count && h.healthy() && h.priority() == priority
          && (locality == null || h.locality().equals(locality))) {
        h.setHealthFlags(Host.FAILED_OUTLIER_CHECK, 0);
        marked++;
      }
    }
    assertThat(marked).isEqualTo(count);
    c.publishRouting();
  }

  /** Picks {@code n} hosts on worker 0 (seed 1) and counts them by {@code key}. */
  private static <K> Map<K, Integer> picks(Cluster c, int n, java.util.function.Function<Host, K> key) {
    Worker worker = new Worker(0, null, new SplittableRandom(1), null, null, null);
    Map<K, Integer> counts = new HashMap<>();
    for (int i = 0; i < n; i++) {
      Host h = c.pickHost(worker);
      counts.merge(h == null ? null : key.apply(h), 1, Integer::sum);
    }
    return counts;
  }

  private long panicCount() {
    return ((io.spillway.edge.stats.Counter) store.find("cluster.c.lb_healthy_panic").orElseThrow()).value();
  }

  @Test
  void allTrafficGoesToP0WhileItIsHealthyAndSpillsToP1AsEnvoyComputes() {
    Cluster c = cluster(LbPolicy.ROUND_ROBIN, false, 50, concat(endpoints(0, X, 0, 10, 20_000),
        endpoints(1, X, 0, 4, 21_000)), 1);
    assertThat(c.routing().priorityLoad()).containsExactly(100, 0);
    assertThat(picks(c, 1000, Host::priority)).containsExactly(Map.entry(0, 1000));

    markUnhealthy(c, 0, null, 3); // 70 % healthy: 98 % of the load stays
    assertThat(c.routing().priorityLoad()).containsExactly(98, 2);
    markUnhealthy(c, 0, null, 2); // 50 % healthy: 70 / 30
    assertThat(c.routing().priorityLoad()).containsExactly(70, 30);
    Map<Integer, Integer> split = picks(c, 10_000, Host::priority);
    assertThat(split.get(0)).isBetween(6_800, 7_200);
    assertThat(split.get(1)).isBetween(2_800, 3_200);
    assertThat(picks(c, 1000, Host::healthy)).containsOnlyKeys(true);

    markUnhealthy(c, 0, null, 5); // P0 has none left: everything to P1, no panic (P1 makes the total whole)
    assertThat(c.routing().priorityLoad()).containsExactly(0, 100);
    assertThat(picks(c, 1000, Host::priority)).containsExactly(Map.entry(1, 1000));
    assertThat(panicCount()).isZero();
  }

  @Test
  void whenEveryLevelIsInPanicTheLoadFollowsTheHostCountsOverAllHosts() {
    Cluster c = cluster(LbPolicy.ROUND_ROBIN, false, 50, concat(endpoints(0, X, 0, 4, 20_000),
        endpoints(1, X, 0, 4, 21_000)), 1);
    markUnhealthy(c, 0, null, 3);
    markUnhealthy(c, 1, null, 3);
    assertThat(c.routing().panic(0)).isTrue();
    assertThat(c.routing().panic(1)).isTrue();
    assertThat(c.routing().priorityLoad()).containsExactly(50, 50);
    Map<Boolean, Integer> byHealth = picks(c, 800, Host::healthy);
    assertThat(byHealth.get(false)).as("unhealthy hosts serve in panic").isPositive();
    assertThat(panicCount()).isEqualTo(800);
  }

  @Test
  void localityWeightsSplitTrafficInTheirRatio() {
    Cluster c = cluster(LbPolicy.ROUND_ROBIN, true, 50, concat(endpoints(0, X, 3, 2, 20_000),
        endpoints(0, Y, 1, 2, 20_100)), 1);
    Map<Locality, Integer> split = picks(c, 400, Host::locality);
    // EDF is exact over whole rounds of the weights: 300 / 100.
    assertThat(split.get(X)).isBetween(299, 301);
    assertThat(split.get(Y)).isBetween(99, 101);
  }

  @Test
  void aLocalityWithoutAWeightTakesNoTraffic() {
    Cluster c = cluster(LbPolicy.LEAST_REQUEST, true, 50, concat(endpoints(0, X, 1, 2, 20_000),
        endpoints(0, Z, 0, 2, 20_100)), 1);
    assertThat(picks(c, 200, Host::locality)).containsOnlyKeys(X);
  }

  /**
   * The architecture overview's locality table: X weight 1, Y weight 2, Y fully healthy, factor
   * 1.4. X's share is {@code a / (a + 2)} with {@code a = min(1, 1.4 × healthy share)}.
   */
  @Test
  void aLocalitysWeightShrinksWithItsAvailabilityAsInEnvoysTable() {
    int[][] rows = {{100, 33}, {70, 33}, {69, 32}, {50, 26}, {25, 15}, {0, 0}};
    for (int[] row : rows) {
      Cluster c = cluster(LbPolicy.RANDOM, true, 0, concat(endpoints(0, X, 1, 100, 20_000),
          endpoints(0, Y, 2, 100, 20_200)), 1);
      if (row[0] < 100) {
        markUnhealthy(c, 0, X, 100 - row[0]);
      }
      Map<Locality, Integer> split = picks(c, 3000, Host::locality);
      double share = split.getOrDefault(X, 0) / 3000.0;
      double availability = Math.min(1.0, 1.4 * row[0] / 100.0);
      assertThat(share).as("X at %d %% healthy", row[0]).isCloseTo(availability / (availability + 2), within(0.002));
      // The table's percents are rounded loosely (70 % healthy gives 32.9 %, listed as 33; 69 % gives
      // 32.6 %, listed as 32): within one point of each.
      assertThat(share * 100).as("the table's percent").isCloseTo(row[1], within(1.0));
    }
  }

  private static org.assertj.core.data.Offset<Double> within(double d) {
    return org.assertj.core.data.Offset.offset(d);
  }

  @Test
  void aLevelInPanicBalancesOverAllOfItsHostsWithoutLocalityWeights() {
    Cluster c = cluster(LbPolicy.ROUND_ROBIN, true, 50, concat(endpoints(0, X, 3, 2, 20_000),
        endpoints(0, Y, 1, 2, 20_100)), 1);
    markUnhealthy(c, 0, X, 2);
    markUnhealthy(c, 0, Y, 1); // 25 % healthy, one level: panic
    assertThat(c.routing().panic(0)).isTrue();
    Map<Locality, Integer> split = picks(c, 400, Host::locality);
    assertThat(split.get(X)).isEqualTo(200); // round robin over the four hosts
    assertThat(split.get(Y)).isEqualTo(200);
  }

  @Test
  void eachWorkerFollowsItsOwnScheduleAndGetsTheSameShares() {
    Cluster c = cluster(LbPolicy.ROUND_ROBIN, true, 50, concat(endpoints(0, X, 3, 1, 20_000),
        endpoints(0, Y, 1, 1, 20_100)), 2);
    for (int w = 0; w < 2; w++) {
      Worker worker = new Worker(w, null, new SplittableRandom(w), null, null, null);
      int toX = 0;
      for (int i = 0; i < 400; i++) {
        toX += c.pickHost(worker).locality().equals(X) ? 1 : 0;
      }
      assertThat(toX).as("worker %d", w).isBetween(299, 301);
    }
  }

  @Test
  void ringHashPicksThePriorityByTheRequestsHash() {
    Cluster c = cluster(LbPolicy.RING_HASH, false, 50, concat(endpoints(0, X, 0, 4, 20_000),
        endpoints(1, X, 0, 4, 21_000)), 1);
    Worker worker = new Worker(0, null, new SplittableRandom(1), null, null, null);
    for (long k = 0; k < 200; k++) {
      assertThat(c.pickHost(worker, true, k * 0x9E3779B97F4A7C15L, 0).priority()).isZero();
    }
    markUnhealthy(c, 0, null, 4);
    Map<Host, Integer> seen = new HashMap<>();
    for (long k = 0; k < 200; k++) {
      Host h = c.pickHost(worker, true, k * 0x9E3779B97F4A7C15L, 0);
      assertThat(h.priority()).isEqualTo(1);
      assertThat(c.pickHost(worker, true, k * 0x9E3779B97F4A7C15L, 0)).as("the same hash, the same host").isSameAs(h);
      seen.merge(h, 1, Integer::sum);
    }
    assertThat(seen).hasSize(4);
  }

  @Test
  void theOverprovisioningFactorComesFromTheAssignment() {
    Cluster c = cluster(LbPolicy.ROUND_ROBIN, false, 0, concat(endpoints(0, X, 0, 10, 20_000),
        endpoints(1, X, 0, 10, 21_000)), 1);
    markUnhealthy(c, 0, null, 2);
    assertThat(c.routing().priorityLoad()).containsExactly(100, 0); // 80 % × 1.4
    c.setAssignmentPolicy(new ClusterConfig.AssignmentPolicy(100, false));
    assertThat(c.routing().priorityLoad()).containsExactly(80, 20);
  }

  @Test
  void aSinglePriorityFollowsEnvoysPanicRuleToo() {
    // 3 of 4 healthy (75 %) is below a threshold of 80 %, but 75 % × 1.4 is whole: no panic, as in Envoy.
    Cluster c = cluster(LbPolicy.ROUND_ROBIN, false, 80, endpoints(0, Locality.NONE, 0, 4, 20_000), 1);
    markUnhealthy(c, 0, null, 1);
    assertThat(c.routing().panic()).isFalse();
    assertThat(c.routing().levels()).as("one level, no locality weighting: the flat routing").isNull();
    assertThat(picks(c, 100, Host::healthy)).containsOnlyKeys(true);
  }

  private static final ClusterConfig.EndpointHealth DEGRADED = ClusterConfig.EndpointHealth.DEGRADED;
  private static final ClusterConfig.EndpointHealth HEALTHY = ClusterConfig.EndpointHealth.HEALTHY;

  @Test
  void degradedHostsOfOneLevelTakeWhatItsHealthyHostsCannot() {
    // 1 healthy and 3 degraded of 4: health 35, degraded availability 100 (105 capped) → 35 / 65.
    Cluster c = cluster(LbPolicy.ROUND_ROBIN, false, 50, concat(endpoints(0, HEALTHY, 1, 20_000),
        endpoints(0, DEGRADED, 3, 20_100)), 1);
    assertThat(c.routing().priorityLoad()).containsExactly(35);
    assertThat(c.routing().degradedPriorityLoad()).containsExactly(65);
    Map<Host.Health, Integer> split = picks(c, 10_000, Host::health);
    assertThat(split.get(Host.Health.HEALTHY)).isBetween(3_300, 3_700);
    assertThat(split.get(Host.Health.DEGRADED)).isBetween(6_300, 6_700);
    assertThat(c.stats().membershipHealthy.value()).isEqualTo(1);
    assertThat(c.stats().membershipDegraded.value()).isEqualTo(3);
    assertThat(panicCount()).isZero();
  }

  @Test
  void aFullyHealthyLevelKeepsItsDegradedHostsIdle() {
    // 3 healthy of 4 (105 → 100): the degraded host takes nothing.
    Cluster c = cluster(LbPolicy.LEAST_REQUEST, false, 50, concat(endpoints(0, HEALTHY, 3, 20_000),
        endpoints(0, DEGRADED, 1, 20_100)), 1);
    assertThat(picks(c, 1000, Host::health)).containsExactly(Map.entry(Host.Health.HEALTHY, 1000));
  }

  @Test
  void aDegradedP0YieldsToAHealthyP1() {
    Cluster c = cluster(LbPolicy.ROUND_ROBIN, false, 50, concat(endpoints(0, DEGRADED, 2, 20_000),
        endpoints(1, HEALTHY, 2, 21_000)), 1);
    assertThat(c.routing().priorityLoad()).containsExactly(0, 100);
    assertThat(c.routing().degradedPriorityLoad()).containsExactly(0, 0);
    assertThat(picks(c, 1000, Host::priority)).containsExactly(Map.entry(1, 1000));
  }

  @Test
  void withoutAnotherLevelTrafficStaysOnTheDegradedHosts() {
    Cluster c = cluster(LbPolicy.RANDOM, false, 50, endpoints(0, DEGRADED, 2, 20_000), 1);
    assertThat(c.routing().degradedPriorityLoad()).containsExactly(100);
    assertThat(picks(c, 1000, Host::health)).containsExactly(Map.entry(Host.Health.DEGRADED, 1000));
    assertThat(c.routing().panic(0)).isFalse();
    assertThat(panicCount()).isZero();
  }

  @Test
  void ringHashHasATableForTheDegradedHostsToo() {
    Cluster c = cluster(LbPolicy.RING_HASH, false, 50, concat(endpoints(0, HEALTHY, 1, 20_000),
        endpoints(0, DEGRADED, 3, 20_100)), 1);
    Worker worker = new Worker(0, null, new SplittableRandom(1), null, null, null);
    Map<Host.Health, Integer> split = new HashMap<>();
    for (long k = 0; k < 1000; k++) {
      Host h = c.pickHost(worker, true, k * 0x9E3779B97F4A7C15L, 0);
      assertThat(c.pickHost(worker, true, k * 0x9E3779B97F4A7C15L, 0)).as("the same hash, the same host").isSameAs(h);
      split.merge(h.health(), 1, Integer::sum);
    }
    assertThat(split.get(Host.Health.HEALTHY)).isBetween(250, 450); // 35 % of the hashes
    assertThat(split.get(Host.Health.DEGRADED)).isBetween(550, 750);
  }

  @Test
  void localityWeightingPicksAmongTheDegradedHostsByTheirOwnAvailability() {
    // X (weight 1): 2 degraded; Y (weight 1): 1 degraded, 1 unhealthy. No healthy host: all load is degraded,
    // split by min(1, 1.4 × degraded share): X 1, Y 0.7.
    Cluster c = cluster(LbPolicy.ROUND_ROBIN, true, 0, concat(endpoints(0, X, 1, 2, 20_000),
        endpoints(0, Y, 1, 2, 20_100)), 1);
    for (Host h : c.hosts().hosts()) {
      h.setHealthFlags(Host.DEGRADED_EDS_HEALTH, 0);
    }
    c.hosts().hosts().get(3).setHealthFlags(Host.FAILED_OUTLIER_CHECK, 0);
    c.publishRouting();
    assertThat(c.routing().degradedPriorityLoad()).containsExactly(100);
    Map<Locality, Integer> split = picks(c, 1700, Host::locality);
    assertThat(split.get(X)).isBetween(999, 1001);
    assertThat(split.get(Y)).isBetween(699, 701);
    assertThat(picks(c, 100, Host::health)).containsOnlyKeys(Host.Health.DEGRADED);
  }

  @Test
  void anEdsHealthStatusUpdateMovesTheSameHostInAndOutOfRotation() {
    Cluster c = cluster(LbPolicy.ROUND_ROBIN, false, 50, endpoints(0, HEALTHY, 4, 20_000), 1);
    Host first = c.hosts().hosts().get(0);
    ClusterManager manager = new ClusterManager(store.rootScope(), 1, null, ClusterManager.Resolver.SYSTEM, 1);
    List<Endpoint> draining = new ArrayList<>(endpoints(0, HEALTHY, 4, 20_000));
    draining.set(0, endpoints(0, ClusterConfig.EndpointHealth.DRAINING, 1, 20_000).get(0));
    manager.publishHosts(c, new ClusterConfig.LoadAssignment(draining, c.assignmentPolicy()));
    assertThat(c.hosts().hosts().get(0)).as("the same host, its pools kept").isSameAs(first);
    assertThat(first.healthFlags()).isEqualTo(Host.EDS_STATUS_DRAINING);
    assertThat(picks(c, 300, h -> h)).doesNotContainKey(first);
    manager.publishHosts(c, new ClusterConfig.LoadAssignment(endpoints(0, HEALTHY, 4, 20_000), c.assignmentPolicy()));
    assertThat(first.healthFlags()).isZero();
    assertThat(picks(c, 400, h -> h)).containsEntry(first, 100);
  }

  @Test
  void unhealthyAndTimeoutEndpointsAreOutOfRotation() {
    Cluster c = cluster(LbPolicy.ROUND_ROBIN, false, 50, concat(endpoints(0, HEALTHY, 3, 20_000),
        endpoints(0, ClusterConfig.EndpointHealth.UNHEALTHY, 1, 20_100)), 1);
    assertThat(picks(c, 300, Host::healthy)).containsExactly(Map.entry(true, 300));
    assertThat(c.stats().membershipHealthy.value()).isEqualTo(3);
  }

  @Test
  void anEmptyClusterIsInPanicAsInEnvoy() {
    Cluster c = cluster(LbPolicy.ROUND_ROBIN, false, 50, List.of(), 1);
    assertThat(c.routing().panic()).isTrue();
    assertThat(picks(c, 5, h -> h)).hasSize(1).containsEntry(null, 5);
    assertThat(panicCount()).isEqualTo(5);
  }

  @Test
  void anEmptyClusterWithPanicOffCountsNoPanic() {
    Cluster c = cluster(LbPolicy.ROUND_ROBIN, false, 0, List.of(), 1);
    assertThat(picks(c, 5, h -> h)).hasSize(1).containsEntry(null, 5);
    assertThat(panicCount()).isZero();
  }
}
