package io.spillway.edge.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.config.Http2Options;
import io.spillway.edge.config.SocketAddress;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.upstream.lb.HashTable;
import io.spillway.edge.upstream.lb.MaglevTable;
import io.spillway.edge.upstream.lb.RingHashTable;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** A RING_HASH / MAGLEV cluster picks by the table built over its hosts' hash keys. */
class HashedClusterTest {
  private final Worker worker = new Worker(0, null, new SplittableRandom(1), null, null, null);

  private static Cluster cluster(ClusterConfig.LbPolicy policy, List<String> hashKeys, int[] weights) {
    ClusterConfig config = new ClusterConfig("c", ClusterConfig.DiscoveryType.STATIC, policy, 2,
        Duration.ofSeconds(1), Duration.ofSeconds(5),
        List.of(new ClusterConfig.Endpoint(new SocketAddress("127.0.0.1", 1), 1)), ClusterConfig.Thresholds.DEFAULTS,
        ClusterConfig.UpstreamProtocol.HTTP1, 1 << 20, 0, Duration.ofHours(1), ClusterConfig.DnsLookupFamily.AUTO,
        "", Http2Options.UPSTREAM_DEFAULTS);
    Scope scope = new StatsStore().rootScope().taggedScope("cluster", "c", "envoy_cluster_name");
    Cluster c = Cluster.create(config, new ClusterStats(scope, false), 1, 7, ConnectionGate.OPEN);
    List<Host> hosts = new ArrayList<>();
    for (int i = 0; i < hashKeys.size(); i++) {
      hosts.add(c.newHost(new InetSocketAddress("127.0.0.1", 30_000 + i), "127.0.0.1", weights[i], Host.NOT_JOINING,
          hashKeys.get(i)));
    }
    c.setHosts(HostSet.of(hosts));
    return c;
  }

  @Test
  void picksAsTheTableOverTheHostsKeysAndWeights() {
    List<String> keys = List.of("cache-a", "", "cache-c");
    int[] weights = {1, 2, 3};
    List<HashTable.Member> members = List.of(new HashTable.Member("cache-a", 1),
        new HashTable.Member("127.0.0.1:30001", 2), new HashTable.Member("cache-c", 3));
    Cluster ring = cluster(ClusterConfig.LbPolicy.RING_HASH, keys, weights);
    Cluster maglev = cluster(ClusterConfig.LbPolicy.MAGLEV, keys, weights);
    HashTable expectRing = RingHashTable.build(members, 1024, 8L * 1024 * 1024);
    HashTable expectMaglev = MaglevTable.build(members, MaglevTable.DEFAULT_TABLE_SIZE);
    for (long k = 0; k < 500; k++) {
      long h = k * 0x9E3779B97F4A7C15L;
      assertThat(ring.pickHost(worker, true, h, 0)).isSameAs(ring.hosts().hosts().get(expectRing.pick(h, 0)));
      assertThat(maglev.pickHost(worker, true, h, 0)).isSameAs(maglev.hosts().hosts().get(expectMaglev.pick(h, 0)));
    }
  }

  @Test
  void withoutAHashEveryHostIsPicked() {
    Cluster c = cluster(ClusterConfig.LbPolicy.MAGLEV, List.of("", "", ""), new int[] {1, 1, 1});
    java.util.Set<Host> seen = new java.util.HashSet<>();
    for (int i = 0; i < 200 && seen.size() < 3; i++) {
      seen.add(c.pickHost(worker, false, 0, 0));
    }
    assertThat(seen).hasSize(3);
  }

  @Test
  void noHostsNoPick() {
    Cluster c = cluster(ClusterConfig.LbPolicy.RING_HASH, List.of(), new int[0]);
    assertThat(c.pickHost(worker, true, 42, 0)).isNull();
    assertThat(c.pickHost(worker)).isNull();
  }
}
