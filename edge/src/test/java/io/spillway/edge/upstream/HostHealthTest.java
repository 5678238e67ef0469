package io.spillway.edge.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.config.HostHealthConfig;
import io.spillway.edge.config.HostHealthConfig.Outlier;
import io.spillway.edge.config.Http2Options;
import io.spillway.edge.config.SocketAddress;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.stats.StatsStore;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Outlier detection and the panic threshold, with a hand-driven clock and control thread. */
class HostHealthTest {
  private final StatsStore store = new StatsStore();
  private final ArrayDeque<Runnable> controlTasks = new ArrayDeque<>();
  private long now = 1_000_000_000L;
  private final Worker worker = new Worker(0, null, new SplittableRandom(1), null, null, null);

  static Outlier outlier(int consecutive5xx, int maxEjectionPercent, Duration base, Duration max) {
    Outlier d = Outlier.DEFAULTS;
    return new Outlier(Duration.ofSeconds(10), base, max, maxEjectionPercent, false, consecutive5xx, 100,
        d.consecutiveGatewayFailure(), d.enforcingConsecutiveGatewayFailure(), d.consecutiveLocalOriginFailure(),
        d.enforcingConsecutiveLocalOriginFailure(), d.enforcingSuccessRate(), d.enforcingLocalOriginSuccessRate(),
        d.successRateMinimumHosts(), d.successRateRequestVolume(), d.successRateStdevFactor(),
        d.failurePercentageThreshold(), d.enforcingFailurePercentage(), d.enforcingFailurePercentageLocalOrigin(),
        d.failurePercentageMinimumHosts(), d.failurePercentageRequestVolume(), Duration.ZERO, false, false);
  }

  private Cluster cluster(HostHealthConfig health, int hosts) {
    return cluster(health, hosts, ClusterConfig.LbPolicy.ROUND_ROBIN);
  }

  private Cluster cluster(HostHealthConfig health, int hosts, ClusterConfig.LbPolicy policy) {
    ClusterConfig config = new ClusterConfig("c", ClusterConfig.DiscoveryType.STATIC,
        policy, 2, Duration.ofSeconds(1), Duration.ofSeconds(5),
        List.of(new ClusterConfig.Endpoint(new SocketAddress("127.0.0.1", 1), 1)), ClusterConfig.Thresholds.DEFAULTS,
        ClusterConfig.UpstreamProtocol.HTTP1, 1 << 20, 0, Duration.ofHours(1), ClusterConfig.DnsLookupFamily.AUTO,
        "", Http2Options.UPSTREAM_DEFAULTS, health);
    Scope scope = store.rootScope().taggedScope("cluster", "c", "envoy_cluster_name");
    Cluster c = Cluster.create(config, new ClusterStats(scope, false), 1, 7, ConnectionGate.OPEN,
        new HostHealthServices(controlTasks::add, () -> now, null), scope);
    List<Host> list = new ArrayList<>();
    for (int i = 0; i < hosts; i++) {
      list.add(c.newHost(new InetSocketAddress("127.0.0.1", 20_000 + i), "127.0.0.1", 1, Host.NOT_JOINING));
    }
    c.setHosts(HostSet.of(list));
    return c;
  }

  private void runControl() {
    for (int i = 0; i < 1000 && !controlTasks.isEmpty(); i++) {
      controlTasks.poll().run();
    }
  }

  private long stat(String name) {
    return ((io.spillway.edge.stats.Counter) store.find(name).orElseThrow()).value();
  }

  private long gauge(String name) {
    return ((io.spillway.edge.stats.Gauge) store.find(name).orElseThrow()).value();
  }

  private void fail(Host h, int times, int status) {
    for (int i = 0; i < times; i++) {
      h.outlier().putHttpStatus(status);
    }
    runControl();
  }

  @Test
  void hashTablesAreRebuiltOverTheHealthyHostsOnly() {
    for (ClusterConfig.LbPolicy policy : List.of(ClusterConfig.LbPolicy.RING_HASH, ClusterConfig.LbPolicy.MAGLEV)) {
      Cluster c = cluster(new HostHealthConfig(Optional.empty(),
          Optional.of(outlier(1, 100, Duration.ofSeconds(30), Duration.ofSeconds(300))), 0), 3, policy);
      var table = c.routing().table();
      assertThat(table).as(policy.name()).isNotNull();
      Host bad = c.hosts().hosts().get(0);
      java.util.Set<Host> picked = new java.util.HashSet<>();
      for (long k = 0; k < 300; k++) {
        picked.add(c.pickHost(worker, true, k * 0x9E3779B97F4A7C15L, 0));
      }
      assertThat(picked).as(policy.name()).contains(bad);
      fail(bad, 1, 500);
      assertThat(c.routing().table()).as(policy.name()).isNotSameAs(table);
      for (long k = 0; k < 300; k++) {
        assertThat(c.pickHost(worker, true, k * 0x9E3779B97F4A7C15L, 0)).isNotSameAs(bad);
      }
      var ejected = c.routing().table();
      c.publishRouting(); // the same hosts: the table is kept
      assertThat(c.routing().table()).isSameAs(ejected);
    }
  }

  @Test
  void consecutive5xxEjectsAtTheThresholdAndReturnsAfterTheBaseTime() {
    Cluster c = cluster(new HostHealthConfig(Optional.empty(),
        Optional.of(outlier(3, 100, Duration.ofSeconds(30), Duration.ofSeconds(300))), 0), 2);
    Host bad = c.hosts().hosts().get(0);
    fail(bad, 2, 500);
    bad.outlier().putHttpStatus(200); // a success ends the run
    fail(bad, 2, 503);
    assertThat(bad.healthy()).isTrue();
    fail(bad, 1, 502);
    assertThat(bad.healthFlags() & Host.FAILED_OUTLIER_CHECK).isNotZero();
    assertThat(c.routing().hosts().hosts()).containsExactly(c.hosts().hosts().get(1));
    for (int i = 0; i < 10; i++) {
      assertThat(c.pickHost(worker)).isNotSameAs(bad);
    }
    assertThat(stat("cluster.c.outlier_detection.ejections_enforced_consecutive_5xx")).isEqualTo(1);
    assertThat(stat("cluster.c.outlier_detection.ejections_detected_consecutive_5xx")).isEqualTo(1);
    assertThat(stat("cluster.c.outlier_detection.ejections_enforced_total")).isEqualTo(1);
    assertThat(gauge("cluster.c.outlier_detection.ejections_active")).isEqualTo(1);
    assertThat(gauge("cluster.c.membership_healthy")).isEqualTo(1);

    now += TimeUnit.SECONDS.toNanos(29);
    c.outlierDetector().sweep();
    assertThat(bad.healthy()).isFalse();
    now += TimeUnit.SECONDS.toNanos(1);
    c.outlierDetector().sweep();
    assertThat(bad.healthy()).isTrue();
    assertThat(c.routing().hosts().hosts()).hasSize(2);
    assertThat(gauge("cluster.c.outlier_detection.ejections_active")).isZero();
  }

  @Test
  void ejectionTimeGrowsWithEachEjectionUpToTheMaximum() {
    Cluster c = cluster(new HostHealthConfig(Optional.empty(),
        Optional.of(outlier(1, 100, Duration.ofSeconds(30), Duration.ofSeconds(70))), 0), 2);
    Host h = c.hosts().hosts().get(0);
    long[] expectedSeconds = {30, 60, 70, 70};
    for (long seconds : expectedSeconds) {
      fail(h, 1, 500);
      assertThat(h.healthy()).isFalse();
      now += TimeUnit.SECONDS.toNanos(seconds) - 1;
      c.outlierDetector().sweep();
      assertThat(h.healthy()).as("still ejected just before %ds", seconds).isFalse();
      now += 1;
      c.outlierDetector().sweep();
      assertThat(h.healthy()).as("back after %ds", seconds).isTrue();
    }
  }

  @Test
  void maxEjectionPercentCapsEjectionsAndCountsTheOverflow() {
    Cluster c = cluster(new HostHealthConfig(Optional.empty(),
        Optional.of(outlier(1, 20, Duration.ofSeconds(30), Duration.ofSeconds(300))), 50), 10);
    for (Host h : c.hosts().hosts()) {
      fail(h, 1, 500);
    }
    assertThat(c.hosts().hosts().stream().filter(h -> !h.healthy()).count()).isEqualTo(2);
    assertThat(stat("cluster.c.outlier_detection.ejections_detected_consecutive_5xx")).isEqualTo(10);
    assertThat(stat("cluster.c.outlier_detection.ejections_overflow")).isEqualTo(8);
  }

  @Test
  void oneHostOfTwoIsEjectedOnlyWhenThePercentAllowsOrAlwaysEjectOneHost() {
    Cluster c = cluster(new HostHealthConfig(Optional.empty(),
        Optional.of(outlier(1, 10, Duration.ofSeconds(30), Duration.ofSeconds(300))), 50), 2);
    fail(c.hosts().hosts().get(0), 1, 500);
    assertThat(c.hosts().hosts().get(0).healthy()).isTrue();
    assertThat(stat("cluster.c.outlier_detection.ejections_overflow")).isEqualTo(1);
  }

  @Test
  void gatewayFailuresAreDetectedEvenWhenNotEnforced() {
    Cluster c = cluster(new HostHealthConfig(Optional.empty(),
        Optional.of(outlier(100, 100, Duration.ofSeconds(30), Duration.ofSeconds(300))), 0), 2);
    fail(c.hosts().hosts().get(0), 5, 503);
    assertThat(stat("cluster.c.outlier_detection.ejections_detected_consecutive_gateway_failure")).isEqualTo(1);
    assertThat(stat("cluster.c.outlier_detection.ejections_enforced_consecutive_gateway_failure")).isZero();
    assertThat(c.hosts().hosts().get(0).healthy()).isTrue();
  }

  @Test
  void successRateEjectsTheHostFarBelowTheMean() {
    Outlier base = outlier(1000, 100, Duration.ofSeconds(30), Duration.ofSeconds(300));
    Cluster c = cluster(new HostHealthConfig(Optional.empty(), Optional.of(base), 0), 6);
    List<Host> hosts = c.hosts().hosts();
    for (int i = 0; i < hosts.size(); i++) {
      for (int r = 0; r < 200; r++) {
        hosts.get(i).outlier().putHttpStatus(i == 0 && r % 2 == 0 ? 500 : 200);
      }
    }
    runControl();
    now += TimeUnit.SECONDS.toNanos(10);
    c.outlierDetector().sweep();
    assertThat(hosts.get(0).healthy()).isFalse();
    assertThat(hosts.subList(1, 6)).allMatch(Host::healthy);
    assertThat(hosts.get(0).outlier().successRate()).isEqualTo(50.0);
    assertThat(hosts.get(1).outlier().successRate()).isEqualTo(100.0);
    assertThat(stat("cluster.c.outlier_detection.ejections_enforced_success_rate")).isEqualTo(1);
  }

  @Test
  void splitModeCountsLocalOriginFailuresApart() {
    Outlier d = outlier(2, 100, Duration.ofSeconds(30), Duration.ofSeconds(300));
    Outlier split = new Outlier(d.interval(), d.baseEjectionTime(), d.maxEjectionTime(), d.maxEjectionPercent(), true,
        d.consecutive5xx(), d.enforcingConsecutive5xx(), d.consecutiveGatewayFailure(),
        d.enforcingConsecutiveGatewayFailure(), 3, 100, d.enforcingSuccessRate(), d.enforcingLocalOriginSuccessRate(),
        d.successRateMinimumHosts(), d.successRateRequestVolume(), d.successRateStdevFactor(),
        d.failurePercentageThreshold(), d.enforcingFailurePercentage(), d.enforcingFailurePercentageLocalOrigin(),
        d.failurePercentageMinimumHosts(), d.failurePercentageRequestVolume(), Duration.ZERO, false, false);
    Cluster c = cluster(new HostHealthConfig(Optional.empty(), Optional.of(split), 0), 2);
    Host h = c.hosts().hosts().get(0);
    h.outlier().localOriginFailure();
    h.outlier().localOriginFailure();
    runControl();
    assertThat(h.healthy()).as("two local failures are not two 5xx in split mode").isTrue();
    h.outlier().localOriginFailure();
    runControl();
    assertThat(h.healthy()).isFalse();
    assertThat(stat("cluster.c.outlier_detection.ejections_enforced_consecutive_local_origin_failure")).isEqualTo(1);
  }

  @Test
  void withoutSplitAConnectFailureCountsAsA503() {
    Cluster c = cluster(new HostHealthConfig(Optional.empty(),
        Optional.of(outlier(2, 100, Duration.ofSeconds(30), Duration.ofSeconds(300))), 0), 2);
    Host h = c.hosts().hosts().get(0);
    h.outlier().localOriginFailure();
    h.requestTimedOut();
    runControl();
    assertThat(h.healthy()).isFalse();
  }

  @Test
  void belowThePanicThresholdEveryHostIsBalancedOverAndCounted() {
    Cluster c = cluster(new HostHealthConfig(Optional.empty(),
        Optional.of(outlier(1, 100, Duration.ofSeconds(30), Duration.ofSeconds(300))), 50), 4);
    List<Host> hosts = c.hosts().hosts();
    fail(hosts.get(0), 1, 500);
    fail(hosts.get(1), 1, 500);
    assertThat(c.routing().panic()).as("2 of 4 healthy is 50%, not below").isFalse();
    assertThat(c.routing().hosts().hosts()).containsExactly(hosts.get(2), hosts.get(3));
    fail(hosts.get(2), 1, 500);
    assertThat(c.routing().panic()).isTrue();
    java.util.Set<Host> picked = new java.util.HashSet<>();
    for (int i = 0; i < 8; i++) {
      picked.add(c.pickHost(worker));
    }
    assertThat(picked).containsExactlyInAnyOrderElementsOf(hosts);
    assertThat(stat("cluster.c.lb_healthy_panic")).isEqualTo(8);
  }

  @Test
  void aZeroPanicThresholdLeavesNoHostWhenAllAreUnhealthy() {
    Cluster c = cluster(new HostHealthConfig(Optional.empty(),
        Optional.of(outlier(1, 100, Duration.ofSeconds(30), Duration.ofSeconds(300))), 0), 1);
    fail(c.hosts().hosts().get(0), 1, 500);
    assertThat(c.pickHost(worker)).isNull();
    assertThat(stat("cluster.c.lb_healthy_panic")).isZero();
  }
}
