package io.spillway.edge.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.config.ClusterConfig.LbPolicy;
import io.spillway.edge.config.ClusterConfig.LbSettings;
import io.spillway.edge.config.ClusterConfig.WeightedRoundRobin;
import io.spillway.edge.stats.StatsStore;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Client-side weighted round robin end to end without sockets: load reports handed to hosts, the
 * control thread's update driven by hand with a controlled clock, picks through a worker's balancer.
 */
class ClientSideWeightsTest {
  private static final long S = 1_000_000_000L;

  private final AtomicLong now = new AtomicLong(1000 * S);
  private Cluster cluster;
  private HostSet set;

  private void start(Duration blackout, Duration expiration) {
    start(blackout, expiration, 3);
  }

  private void start(Duration blackout, Duration expiration, int hostCount) {
    ClusterConfig config = LoadBalancerTest.config(LbPolicy.CLIENT_SIDE_WEIGHTED_ROUND_ROBIN,
        new LbSettings(1.0, null, new WeightedRoundRobin(blackout, expiration, Duration.ofSeconds(1), 1.0,
            List.of("named_metrics.queue"))));
    cluster = Cluster.create(config, new ClusterStats(new StatsStore().rootScope().scope("c"), false), 1, 7L,
        ConnectionGate.OPEN, now::get);
    List<Host> hosts = new ArrayList<>();
    for (int i = 0; i < hostCount; i++) {
      hosts.add(new Host("c", new InetSocketAddress("127.0.0.1", 20_000 + i), "127.0.0.1", 1, 1,
          cluster.collectsLoadReports(), Host.NOT_JOINING, 0, null));
    }
    cluster.setHosts(HostSet.of(hosts));
    set = cluster.hosts();
  }

  private void report(int host, String header, String value) {
    HttpHeaders h = new DefaultHttpHeaders();
    h.set(header, value);
    set.hosts().get(host).loadReport(h);
  }

  private int[] shares(int picks) {
    Worker worker = new Worker(0, null, null, null, null, null);
    int[] counts = new int[set.hosts().size()];
    for (int i = 0; i < picks; i++) {
      counts[set.hosts().indexOf(cluster.pickHost(worker))]++;
    }
    return counts;
  }

  private static void assertEven(int[] counts) {
    assertThat(counts).containsExactly(counts[0], counts[0], counts[0]);
  }

  @Test
  void reportedUtilizationSetsTheShares() {
    start(Duration.ZERO, Duration.ofMinutes(3));
    report(0, "endpoint-load-metrics", "TEXT rps_fractional=100,application_utilization=0.2");
    report(1, "endpoint-load-metrics", "JSON {\"rps_fractional\":100,\"application_utilization\":0.4}");
    report(2, "endpoint-load-metrics-bin", Base64.getEncoder().encodeToString(
        com.github.xds.data.orca.v3.OrcaLoadReport.newBuilder().setRpsFractional(100).setCpuUtilization(0.8)
            .build().toByteArray()));
    assertEven(shares(699)); // no weights yet: round robin
    cluster.updateWeights();
    int[] after = shares(7000);
    // weights 500 : 250 : 125 = 4 : 2 : 1, each share within 1 % of the picks
    assertThat(after[0]).isBetween(3930, 4070);
    assertThat(after[1]).isBetween(1930, 2070);
    assertThat(after[2]).isBetween(930, 1070);
  }

  @Test
  void blackoutAndExpiryFallBackToTheMean() {
    start(Duration.ofSeconds(10), Duration.ofSeconds(60));
    report(0, "endpoint-load-metrics", "TEXT rps_fractional=100,named_metrics.queue=0.1");
    report(1, "endpoint-load-metrics", "TEXT rps_fractional=100,named_metrics.queue=0.4");
    cluster.updateWeights();
    assertEven(shares(900)); // blackout: no weight counts yet
    now.addAndGet(11 * S);
    report(0, "endpoint-load-metrics", "TEXT rps_fractional=100,named_metrics.queue=0.1");
    report(1, "endpoint-load-metrics", "TEXT rps_fractional=100,named_metrics.queue=0.4");
    cluster.updateWeights();
    // 1000 : 250, and host 2 (never reported) gets the mean 625: 1000 : 250 : 625 of 1875
    int[] weighted = shares(7500);
    assertThat(weighted[0]).isBetween(3925, 4075);
    assertThat(weighted[1]).isBetween(925, 1075);
    assertThat(weighted[2]).isBetween(2425, 2575);
    now.addAndGet(61 * S); // no report for longer than the expiration period
    cluster.updateWeights();
    assertEven(shares(900));
  }

  @Test
  void malformedReportsAreCountedAndIgnored() {
    start(Duration.ZERO, Duration.ofMinutes(3));
    report(0, "endpoint-load-metrics", "TEXT rps_fractional=oops");
    report(1, "endpoint-load-metrics-bin", "!!!");
    report(2, "endpoint-load-metrics", "TEXT rps_fractional=100,cpu_utilization=0.5");
    cluster.updateWeights();
    assertThat(cluster.stats().lbOrcaReportParseError.value()).isEqualTo(2);
    assertEven(shares(900)); // one weight is not enough
  }

  @Test
  void otherPoliciesIgnoreReports() {
    Host h = new Host("c", new InetSocketAddress("127.0.0.1", 1), "127.0.0.1", 1, 1, false, Host.NOT_JOINING, 0, null);
    HttpHeaders headers = new DefaultHttpHeaders().set("endpoint-load-metrics", "TEXT cpu_utilization=1");
    h.loadReport(headers);
    assertThat(h.pendingTextReport.get()).isNull();
  }

  /** Reports giving weights 500 : 250 : 125 (4 : 2 : 1), taken by one update. */
  private void reportFourTwoOne() {
    report(0, "endpoint-load-metrics", "TEXT rps_fractional=100,application_utilization=0.2");
    report(1, "endpoint-load-metrics", "TEXT rps_fractional=100,application_utilization=0.4");
    report(2, "endpoint-load-metrics", "TEXT rps_fractional=100,application_utilization=0.8");
    cluster.updateWeights();
  }

  private void eject(int host) {
    set.hosts().get(host).setHealthFlags(Host.FAILED_OUTLIER_CHECK, 0);
    cluster.publishRouting();
  }

  @Test
  void anUnhealthyHostLeavesTheScheduleAndTheOthersKeepTheirWeights() {
    start(Duration.ZERO, Duration.ofMinutes(3));
    reportFourTwoOne();
    eject(2); // 2 of 3 healthy: no panic; no weight update in between
    int[] counts = shares(6000);
    assertThat(counts[2]).isZero();
    // 500 : 250 over the healthy hosts, within 1 % of the picks
    assertThat(counts[0]).isBetween(3940, 4060);
    assertThat(counts[1]).isBetween(1940, 2060);
    assertThat(cluster.clientSideWeight(set.hosts().get(2))).isZero();
    cluster.updateWeights(); // the periodic update keeps scheduling the healthy set
    assertThat(shares(6000)[0]).isBetween(3940, 4060);
  }

  @Test
  void aHostWithoutAWeightGetsTheMeanOfTheHealthyOthers() {
    start(Duration.ZERO, Duration.ofMinutes(3), 4);
    report(0, "endpoint-load-metrics", "TEXT rps_fractional=100,application_utilization=0.2");
    report(1, "endpoint-load-metrics", "TEXT rps_fractional=100,application_utilization=0.4");
    report(3, "endpoint-load-metrics", "TEXT rps_fractional=100,application_utilization=0.8");
    cluster.updateWeights();
    eject(3); // 3 of 4 healthy, no panic: 500 : 250 and host 2 (no report) the mean of those two, 375
    int[] counts = shares(9000);
    assertThat(counts[0]).isBetween(3910, 4090);
    assertThat(counts[1]).isBetween(1910, 2090);
    assertThat(counts[2]).isBetween(2910, 3090);
    assertThat(counts[3]).isZero();
  }
}
