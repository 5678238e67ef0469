package io.spillway.edge.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.config.ClusterConfig.LbPolicy;
import io.spillway.edge.config.ClusterConfig.LbSettings;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Envoy's slow start for round robin and least request, with a hand-driven clock. */
class SlowStartTest {
  private static final long S = 1_000_000_000L;

  private final AtomicLong now = new AtomicLong(100 * S);
  private final long joined = 100 * S;
  private final Host old = new Host("c", new InetSocketAddress("127.0.0.1", 1), "127.0.0.1", 1, 1, false,
      Host.NOT_JOINING, 0, null);
  private final Host fresh = new Host("c", new InetSocketAddress("127.0.0.1", 2), "127.0.0.1", 1, 1, false,
      joined, 0, null);
  private final HostSet set = HostSet.of(List.of(old, fresh));

  private LoadBalancer balancer(LbPolicy policy, double aggression, double minPercent) {
    ClusterConfig config = LoadBalancerTest.config(policy,
        new LbSettings(1.0, new ClusterConfig.SlowStart(Duration.ofSeconds(10), aggression, minPercent), null));
    return LoadBalancer.create(config, new SplittableRandom(1), null, now::get);
  }

  private int freshShare(LoadBalancer lb, int picks) {
    Map<Host, Integer> counts = LoadBalancerTest.picks(lb, set, picks);
    return counts.getOrDefault(fresh, 0);
  }

  @Test
  void factorFollowsEnvoysFormula() {
    LoadBalancer.SlowStart linear = new LoadBalancer.SlowStart(
        new ClusterConfig.SlowStart(Duration.ofSeconds(10), 1.0, 10), now::get);
    assertThat(linear.factor(fresh, joined)).isEqualTo(0.1); // 1 ms of 10 s, raised to the 10 % floor
    assertThat(linear.factor(fresh, joined + 4 * S)).isCloseTo(0.4, within(1e-9));
    assertThat(linear.factor(fresh, joined + 10 * S)).isEqualTo(1.0);
    assertThat(linear.factor(old, joined)).isEqualTo(1.0);
    LoadBalancer.SlowStart aggressive = new LoadBalancer.SlowStart(
        new ClusterConfig.SlowStart(Duration.ofSeconds(10), 2.0, 0), now::get);
    assertThat(aggressive.factor(fresh, joined + 2_500_000_000L)).isCloseTo(0.5, within(1e-9)); // 0.25^(1/2)
    assertThat(aggressive.factor(fresh, joined + 10_000_000L)).isCloseTo(Math.sqrt(0.001), within(1e-9));
  }

  @Test
  void roundRobinRampsTheNewHostsShare() {
    LoadBalancer lb = balancer(LbPolicy.ROUND_ROBIN, 1.0, 10);
    now.set(joined + 1 * S); // factor 0.1: 1 in 11
    assertThat(freshShare(lb, 1100)).isBetween(99, 101);
    now.set(joined + 5 * S); // 0.5: 1 in 3
    assertThat(freshShare(lb, 900)).isBetween(299, 301);
    now.set(joined + 10 * S); // window over: plain round robin
    assertThat(freshShare(lb, 900)).isBetween(450, 450);
  }

  @Test
  void hostsThatJoinARunningClusterRampButItsFirstMembersDoNot() {
    ClusterConfig base = LoadBalancerTest.config(LbPolicy.ROUND_ROBIN,
        new LbSettings(1.0, new ClusterConfig.SlowStart(Duration.ofSeconds(10), 1.0, 10), null));
    ClusterConfig eds = new ClusterConfig("c", ClusterConfig.DiscoveryType.EDS, LbPolicy.ROUND_ROBIN, 2,
        base.connectTimeout(), base.dnsRefreshRate(), List.of(), base.thresholds(), base.protocol(),
        base.perConnectionBufferLimitBytes(), 0, base.idleTimeout(), ClusterConfig.DnsLookupFamily.AUTO, "c",
        base.http2(), base.lb());
    ClusterManager manager = new ClusterManager(new io.spillway.edge.stats.StatsStore().rootScope(), 1, null,
        host -> List.of(), 1L, now::get);
    ClusterConfig.Endpoint a = new ClusterConfig.Endpoint(new io.spillway.edge.config.SocketAddress("127.0.0.1", 1), 1);
    ClusterConfig.Endpoint b = new ClusterConfig.Endpoint(new io.spillway.edge.config.SocketAddress("127.0.0.1", 2), 1);
    manager.update(Map.of("c", eds), Map.of());
    Cluster cluster = manager.get("c");
    manager.updateEndpoints("c", ClusterConfig.LoadAssignment.of(List.of(a))); // the first assignment of a cluster without hosts: no ramp
    assertThat(cluster.hosts().lastJoinedNanos()).isEqualTo(Host.NOT_JOINING);
    now.set(joined);
    manager.updateEndpoints("c", ClusterConfig.LoadAssignment.of(List.of(a, b)));
    assertThat(cluster.hosts().lastJoinedNanos()).isEqualTo(joined);
    now.set(joined + 5 * S);
    Worker worker = new Worker(0, null, null, null, null, null);
    int second = 0;
    for (int i = 0; i < 900; i++) {
      second += cluster.pickHost(worker) == cluster.hosts().hosts().get(1) ? 1 : 0;
    }
    assertThat(second).isBetween(299, 301);
  }

  @Test
  void leastRequestRampsTooAndKeepsTheActiveRequestBias() {
    LoadBalancer lb = balancer(LbPolicy.LEAST_REQUEST, 1.0, 10);
    now.set(joined + 5 * S);
    assertThat(freshShare(lb, 900)).isBetween(299, 301);
    for (int i = 0; i < 3; i++) {
      old.requestStarted(); // old: 1 / 4 = 0.25, fresh: 0.5 → 2 in 3
    }
    assertThat(freshShare(lb, 900)).isBetween(599, 601);
  }
}
