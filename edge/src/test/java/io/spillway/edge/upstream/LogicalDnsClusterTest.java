package io.spillway.edge.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.config.ClusterConfig.Backoff;
import io.spillway.edge.config.ClusterConfig.DiscoveryType;
import io.spillway.edge.config.ClusterConfig.DnsLookupFamily;
import io.spillway.edge.config.ClusterConfig.DnsRefresh;
import io.spillway.edge.config.HostHealthConfig;
import io.spillway.edge.config.Http2Options;
import io.spillway.edge.config.SocketAddress;
import io.spillway.edge.stats.StatsStore;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * LOGICAL_DNS (and STRICT_DNS) membership from a scripted resolver, with the cluster manager's
 * control thread driven by hand: no lookups, no sockets, no sleeps.
 */
class LogicalDnsClusterTest {
  private static final String NAME = "svc.example";
  private final StatsStore store = new StatsStore();
  private final ManualScheduler control = new ManualScheduler();
  private final ScriptedResolver resolver = new ScriptedResolver();
  private final ClusterManager manager =
      new ClusterManager(store.rootScope(), 1, control, resolver, 1L, control::nanoTime);
  private final Worker worker = new Worker(0, null, new SplittableRandom(1), null, null, null);

  /** Answers from a table; a name without an entry does not resolve. */
  static final class ScriptedResolver implements ClusterManager.Resolver {
    final Map<String, List<InetAddress>> answers = new HashMap<>();
    int lookups;

    void answer(String name, String... ips) {
      answers.put(name, Arrays.stream(ips).map(LogicalDnsClusterTest::ip).toList());
    }

    @Override
    public List<InetAddress> resolve(String host) throws UnknownHostException {
      lookups++;
      List<InetAddress> a = answers.get(host);
      if (a == null) {
        throw new UnknownHostException(host + ": no answer in the script");
      }
      return a;
    }
  }

  static InetAddress ip(String literal) {
    try {
      return InetAddress.getByName(literal); // a literal: no lookup
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(literal, e);
    }
  }

  static ClusterConfig config(DiscoveryType type, DnsLookupFamily family, Duration refreshRate, DnsRefresh refresh,
      String... names) {
    return new ClusterConfig("c", type, ClusterConfig.LbPolicy.ROUND_ROBIN, 2, Duration.ofSeconds(1), refreshRate,
        Arrays.stream(names).map(n -> new ClusterConfig.Endpoint(new SocketAddress(n, 8080), 1)).toList(),
        ClusterConfig.Thresholds.DEFAULTS, ClusterConfig.UpstreamProtocol.HTTP1, 1 << 20, 0, Duration.ofHours(1),
        family, "", Http2Options.UPSTREAM_DEFAULTS, ClusterConfig.LbSettings.DEFAULTS, HostHealthConfig.NONE, refresh);
  }

  private static ClusterConfig logical(DnsLookupFamily family, DnsRefresh refresh) {
    return config(DiscoveryType.LOGICAL_DNS, family, Duration.ofSeconds(5), refresh, NAME);
  }

  private Cluster start(ClusterConfig config) {
    manager.initialize(Map.of(config.name(), config));
    return manager.get(config.name());
  }

  private long stat(String name) {
    return store.find("cluster.c." + name).map(s -> s instanceof io.spillway.edge.stats.Counter c ? c.value()
        : ((io.spillway.edge.stats.Gauge) s).value()).orElseThrow();
  }

  @Test
  void theOneHostIsAtTheFirstAddressOfTheAnswer() {
    resolver.answer(NAME, "10.0.0.1", "10.0.0.2", "10.0.0.3");

    Cluster c = start(logical(DnsLookupFamily.V4_ONLY, DnsRefresh.DEFAULTS));

    assertThat(c.hosts().hosts()).hasSize(1);
    Host h = c.hosts().hosts().get(0);
    assertThat(h.address()).isEqualTo(new InetSocketAddress(ip("10.0.0.1"), 8080));
    assertThat(h.hostname()).isEqualTo(NAME);
    assertThat(c.pickHost(worker)).isSameAs(h);
    assertThat(stat("membership_total")).isEqualTo(1);
    assertThat(stat("update_attempt")).isEqualTo(1);
    assertThat(stat("update_success")).isEqualTo(1);
  }

  @Test
  void theLookupFamilyChoosesWhichAddressComesFirst() {
    resolver.answer(NAME, "10.0.0.1", "2001:db8::1", "10.0.0.2", "2001:db8::2");
    Map<DnsLookupFamily, String> first = Map.of(DnsLookupFamily.AUTO, "2001:db8::1",
        DnsLookupFamily.V6_ONLY, "2001:db8::1", DnsLookupFamily.V4_ONLY, "10.0.0.1",
        DnsLookupFamily.V4_PREFERRED, "10.0.0.1", DnsLookupFamily.ALL, "10.0.0.1");

    for (Map.Entry<DnsLookupFamily, String> e : first.entrySet()) {
      Cluster c = start(logical(e.getKey(), DnsRefresh.DEFAULTS));

      assertThat(c.hosts().hosts().get(0).address().getAddress()).as(e.getKey().name()).isEqualTo(ip(e.getValue()));
      manager.update(Map.of(), Map.of());
    }
  }

  @Test
  void aNewFirstAddressMovesTheHostWithoutReplacingIt() {
    resolver.answer(NAME, "10.0.0.1", "10.0.0.2");
    Cluster c = start(logical(DnsLookupFamily.V4_ONLY, DnsRefresh.DEFAULTS));
    Host h = c.hosts().hosts().get(0);
    HostSet before = c.hosts();

    resolver.answer(NAME, "10.0.0.2", "10.0.0.1");
    control.advance(Duration.ofSeconds(5));

    // The same host (and so the same pools, with the connections already open) now sends new
    // connections to the new first address; the host set is not republished.
    assertThat(resolver.lookups).isEqualTo(2);
    assertThat(c.hosts()).isSameAs(before);
    assertThat(h.address()).isEqualTo(new InetSocketAddress(ip("10.0.0.2"), 8080));
    assertThat(stat("update_success")).isEqualTo(2);
  }

  @Test
  void aNameThatDoesNotResolveYetLeavesTheClusterEmptyUntilItDoes() {
    DnsRefresh backoff = new DnsRefresh(Optional.of(new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(2))),
        Duration.ZERO, true);

    Cluster c = start(logical(DnsLookupFamily.AUTO, backoff));

    assertThat(c.hosts().hosts()).isEmpty();
    assertThat(c.pickHost(worker)).isNull();
    assertThat(stat("update_failure")).isEqualTo(1);

    resolver.answer(NAME, "10.0.0.7");
    control.advance(Duration.ofSeconds(1)); // within the first back-off interval, well before dns_refresh_rate

    assertThat(c.hosts().hosts()).hasSize(1);
    assertThat(c.pickHost(worker).address().getAddress()).isEqualTo(ip("10.0.0.7"));
    assertThat(stat("update_success")).isEqualTo(1);
  }

  @Test
  void aFailureOrAnAnswerWithoutTheFamilyKeepsTheHostWhereItIs() {
    resolver.answer(NAME, "2001:db8::1");
    Cluster c = start(logical(DnsLookupFamily.V6_ONLY, DnsRefresh.DEFAULTS));
    Host h = c.hosts().hosts().get(0);

    resolver.answers.remove(NAME);
    control.advance(Duration.ofSeconds(5));
    resolver.answer(NAME, "10.0.0.1");
    control.advance(Duration.ofSeconds(5));

    assertThat(resolver.lookups).isEqualTo(3);
    assertThat(c.hosts().hosts()).containsExactly(h);
    assertThat(h.address().getAddress()).isEqualTo(ip("2001:db8::1"));
    assertThat(stat("update_failure")).isEqualTo(2);
  }

  @Test
  void withoutWaitingForWarmTheFirstLookupRunsOnTheControlThread() {
    resolver.answer(NAME, "10.0.0.1");

    Cluster c = start(logical(DnsLookupFamily.AUTO, new DnsRefresh(Optional.empty(), Duration.ZERO, false)));

    assertThat(resolver.lookups).isZero();
    assertThat(c.hosts().hosts()).isEmpty();
    control.advance(Duration.ZERO);
    assertThat(resolver.lookups).isEqualTo(1);
    assertThat(c.hosts().hosts()).hasSize(1);
  }

  @Test
  void aRemovedOrReplacedClusterStopsResolving() {
    resolver.answer(NAME, "10.0.0.1");
    start(logical(DnsLookupFamily.AUTO, DnsRefresh.DEFAULTS));

    ClusterConfig faster = config(DiscoveryType.LOGICAL_DNS, DnsLookupFamily.AUTO, Duration.ofSeconds(1),
        DnsRefresh.DEFAULTS, NAME);
    manager.update(Map.of("c", faster), Map.of());
    assertThat(resolver.lookups).isEqualTo(2);
    control.advance(Duration.ofSeconds(5));
    assertThat(resolver.lookups).isEqualTo(7); // the replacement's, every second; none of the old cluster's

    manager.update(Map.of(), Map.of());
    control.advance(Duration.ofMinutes(1));
    assertThat(resolver.lookups).isEqualTo(7);
    assertThat(control.pending()).isZero();
  }

  @Test
  void aStrictDnsClusterBacksOffTheSameWay() {
    DnsRefresh backoff = new DnsRefresh(Optional.of(new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(2))),
        Duration.ZERO, true);
    Cluster c = start(config(DiscoveryType.STRICT_DNS, DnsLookupFamily.V4_ONLY, Duration.ofSeconds(30), backoff,
        NAME));
    assertThat(c.hosts().hosts()).isEmpty();

    resolver.answer(NAME, "10.0.0.1", "10.0.0.2");
    control.advance(Duration.ofSeconds(1));

    assertThat(c.hosts().hosts()).extracting(h -> h.address().getAddress())
        .containsExactly(ip("10.0.0.1"), ip("10.0.0.2"));
    assertThat(stat("update_attempt")).isEqualTo(2);
    assertThat(stat("update_failure")).isEqualTo(1);
    assertThat(stat("update_success")).isEqualTo(1);
  }
}
