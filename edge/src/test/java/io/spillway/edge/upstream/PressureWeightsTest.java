package io.spillway.edge.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.config.ClusterConfig.LbPolicy;
import io.spillway.edge.config.PressureConfig;
import io.spillway.edge.config.PressureConfig.Dimensions;
import io.spillway.edge.stats.StatsStore;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The pressure policy without sockets: load reports and request outcomes handed to hosts, the
 * control thread's update driven by hand on a controlled clock, picks through a worker's balancer.
 */
class PressureWeightsTest {
  private static final long S = 1_000_000_000L;

  private final AtomicLong now = new AtomicLong(1000 * S);
  private final StatsStore store = new StatsStore();
  private Cluster cluster;
  private List<Host> hosts;

  /** CPU and connections only, no smoothing to speak of (tau 1 ns), no blackout, eject after 2 updates. */
  private static PressureConfig.Builder settings() {
    return PressureConfig.builder()
        .dimensions(new Dimensions(1, 0, 0, Map.of(), 1, 0, 0))
        .smoothingTimeConstant(Duration.ofNanos(1))
        .blackoutPeriod(Duration.ZERO)
        .expirationPeriod(Duration.ofSeconds(60))
        .ejectAfterUpdates(2)
        .baseEjectionTime(Duration.ofSeconds(10))
        .maxEjectionTime(Duration.ofSeconds(40))
        .slowStart(null);
  }

  private void start(PressureConfig settings, int count) {
    ClusterConfig config = LoadBalancerTest.config(LbPolicy.PRESSURE, ClusterConfig.LbSettings.pressure(settings));
    cluster = Cluster.create(config, new ClusterStats(store.rootScope().scope("cluster").scope("c"), false), 1, 7L,
        ConnectionGate.OPEN, now::get);
    hosts = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      hosts.add(cluster.newHost(new InetSocketAddress("127.0.0.1", 20_000 + i), "127.0.0.1", 1, Host.NOT_JOINING));
    }
    cluster.setHosts(HostSet.of(hosts));
  }

  private void cpu(int host, double cpu) {
    hosts.get(host).loadReport(new DefaultHttpHeaders().set("endpoint-load-metrics", "TEXT cpu_utilization=" + cpu));
  }

  /** One weight update a second after the last (NaN: that host sends no report). */
  private void update(double... cpu) {
    now.addAndGet(S);
    for (int i = 0; i < cpu.length; i++) {
      if (!Double.isNaN(cpu[i])) {
        cpu(i, cpu[i]);
      }
    }
    cluster.updateWeights();
  }

  private int[] shares(int picks) {
    Worker worker = new Worker(0, null, null, null, null, null);
    int[] counts = new int[hosts.size()];
    for (int i = 0; i < picks; i++) {
      counts[hosts.indexOf(cluster.pickHost(worker))]++;
    }
    return counts;
  }

  private Cluster.HostPressure view(int host) {
    return cluster.pressureSnapshot().of(hosts.get(host));
  }

  private long stat(String name) {
    return store.find("cluster.c." + name).map(s -> s instanceof io.spillway.edge.stats.Counter c ? c.value() : -1L)
        .orElseThrow();
  }

  @Test
  void weightsAreOneMinusThePressure() {
    start(settings().build(), 3);
    update(0.1, 0.1, 0.7);
    assertThat(view(2).weight()).isCloseTo(0.3, within(1e-9));
    int[] s = shares(7000); // 0.9 : 0.9 : 0.3 = 3 : 3 : 1; nothing in flight, so the schedule's shares exactly
    assertThat(s[0]).isBetween(2930, 3070);
    assertThat(s[1]).isBetween(2930, 3070);
    assertThat(s[2]).isBetween(930, 1070);
  }

  @Test
  void twoChoicesShunAHostWithRequestsInFlight() {
    start(settings().dimensions(new Dimensions(1, 0, 0, Map.of(), 0, 0, 0)).build(), 3);
    update(0.2, 0.2, 0.2);
    for (int i = 0; i < 5; i++) {
      hosts.get(0).requestStarted(); // stays in flight
    }
    int[] s = shares(3000);
    // equal weights; host 0 wins only when both candidates are host 0 (about 1/9)
    assertThat(s[0]).isLessThan(600);
    assertThat(s[1] + s[2]).isGreaterThan(2400);
  }

  @Test
  void blackoutAndFewerThanTwoScoresFallBackToTwoChoices() {
    start(settings().blackoutPeriod(Duration.ofSeconds(10)).build(), 3);
    update(0.1, 0.1, 0.7);
    assertThat(view(0).scored()).isFalse();
    assertThat(view(0).weight()).isEqualTo(1.0); // the median of no scores: every host alike
    int[] even = shares(3000); // random pairs, no one in flight: about a third each
    for (int c : even) {
      assertThat(c).isBetween(850, 1150);
    }
    now.addAndGet(11 * S);
    update(0.1, 0.1, 0.7);
    assertThat(view(2).scored()).isTrue();
    assertThat(shares(7000)[2]).isBetween(930, 1070);
  }

  @Test
  void aHostWithoutDataGetsTheMedianWeightNeverAnIdleOne() {
    start(settings().build(), 4);
    update(0.2, 0.6, 0.4, Double.NaN); // host 3 never reports
    assertThat(view(3).scored()).isFalse();
    assertThat(view(3).dataAgeNanos()).isEqualTo(-1);
    assertThat(view(3).weight()).isCloseTo(0.6, within(1e-9)); // median of 0.8, 0.4, 0.6
    now.addAndGet(30 * S);
    update(0.2, 0.6, Double.NaN, Double.NaN);
    now.addAndGet(31 * S); // host 2's last report is 61 s old: stale
    update(0.2, 0.6, Double.NaN, Double.NaN);
    assertThat(view(2).scored()).isFalse();
    assertThat(view(2).weight()).isCloseTo(0.6, within(1e-9)); // median of 0.8 and 0.4
    assertThat(stat("lb_pressure_stale")).isEqualTo(1);
  }

  @Test
  void unreadableReportsAreCounted() {
    start(settings().build(), 2);
    hosts.get(0).loadReport(new DefaultHttpHeaders().set("endpoint-load-metrics", "TEXT cpu_utilization=hot"));
    cluster.updateWeights();
    assertThat(stat("lb_pressure_report_parse_error")).isEqualTo(1);
    assertThat(view(0).scored()).isFalse();
  }

  @Test
  void ejectionNeedsConsecutiveUpdatesAndReturnIsBelowTheLowerThreshold() {
    start(settings().build(), 3);
    update(0.1, 0.1, 0.95);
    assertThat(view(2).ejected()).isFalse(); // one update above 0.8 is not enough
    update(0.1, 0.1, 0.95);
    assertThat(view(2).ejected()).isTrue();
    assertThat(view(2).weight()).isZero();
    assertThat(stat("lb_pressure_ejections_total")).isEqualTo(1);
    assertThat(shares(600)[2]).isZero();

    now.addAndGet(11 * S); // ejection time (10 s) is up, but 0.7 is above the return threshold 0.6
    update(0.1, 0.1, 0.7);
    assertThat(view(2).ejected()).isTrue();
    update(0.1, 0.1, 0.5);
    assertThat(view(2).ejected()).isFalse();
    assertThat(stat("lb_pressure_returns_total")).isEqualTo(1);
    assertThat(shares(7000)[2]).isGreaterThan(1000);

    update(0.1, 0.1, 0.95);
    update(0.1, 0.1, 0.95); // second ejection: 2 x 10 s
    assertThat(view(2).ejections()).isEqualTo(2);
    now.addAndGet(15 * S);
    update(0.1, 0.1, 0.1);
    assertThat(view(2).ejected()).isTrue();
    now.addAndGet(6 * S);
    update(0.1, 0.1, 0.1);
    assertThat(view(2).ejected()).isFalse();
    now.addAndGet(11 * S); // a base ejection time healthy: one ejection forgiven
    update(0.1, 0.1, 0.1);
    assertThat(view(2).ejections()).isEqualTo(1);
  }

  @Test
  void whenEveryHostIsSaturatedNoneIsEjected() {
    // The edge's own backlog (a cold start) or a fleet-wide slow-down: removing one host would only
    // pour its share onto the others.
    start(settings().build(), 4);
    for (int i = 0; i < 5; i++) {
      update(0.95, 0.97, 0.99, 0.96);
    }
    for (int h = 0; h < 4; h++) {
      assertThat(view(h).ejected()).isFalse();
    }
    assertThat(stat("lb_pressure_ejections_total")).isZero();
  }

  @Test
  void anEjectedHostWaitsWhileItsLastRequestsReportBadlyThenReturns() {
    start(settings().build(), 3);
    update(0.1, 0.1, 0.95);
    update(0.1, 0.1, 0.95);
    assertThat(view(2).ejected()).isTrue();
    now.addAndGet(11 * S);
    update(0.1, 0.1, 0.95); // its time is up, but what it still had in flight says 0.95
    assertThat(view(2).ejected()).isTrue();
    update(0.1, 0.1, Double.NaN); // nothing more can come while it is out: back, at its own weight
    assertThat(view(2).ejected()).isFalse();
    assertThat(view(2).weight()).isCloseTo(0.05, within(1e-9));
  }

  @Test
  void atMostTheMaxShareIsEjectedAndOneHostAlwaysStays() {
    start(settings().build(), 3); // 10 % of 3: still one may go
    update(0.9, 0.95, 0.1);
    update(0.9, 0.95, 0.1);
    assertThat(view(0).ejected() ^ view(1).ejected()).isTrue();
    assertThat(stat("lb_pressure_ejections_overflow")).isEqualTo(1);

    start(settings().maxEjectionPercent(100).panicThresholdPercent(0).build(), 2);
    update(0.9, 0.95);
    update(0.9, 0.95);
    assertThat(view(0).ejected() && view(1).ejected()).isFalse();
  }

  @Test
  void belowThePanicThresholdEjectionsAreIgnored() {
    start(settings().panicThresholdPercent(80).build(), 3);
    update(0.1, 0.1, 0.95);
    update(0.1, 0.1, 0.95);
    assertThat(view(2).ejected()).isTrue();
    assertThat(cluster.pressureSnapshot().panic()).isTrue(); // 2 of 3 left is below 80 %
    assertThat(stat("lb_pressure_panic")).isEqualTo(1);
    assertThat(shares(7000)[2]).isGreaterThan(0); // still in rotation, at its small weight
  }

  @Test
  void aHostReturningWithoutNewDataKeepsTheScoreItLeftWithAndRampsUp() {
    start(settings().slowStart(new ClusterConfig.SlowStart(Duration.ofSeconds(10), 1.0, 10)).build(), 3);
    update(0.1, 0.1, 0.95);
    update(0.1, 0.1, 0.95);
    assertThat(view(2).ejected()).isTrue();
    now.addAndGet(11 * S);
    update(0.1, 0.1, Double.NaN); // no report from host 2 since it left
    assertThat(view(2).ejected()).isFalse();
    assertThat(view(2).scored()).isTrue();
    assertThat(view(2).score()).isCloseTo(0.95, within(1e-9));
    // Its own weight (1 - 0.95), not the median (0.9), times slow start's floor (10 %).
    assertThat(view(2).weight()).isCloseTo(0.005, within(1e-9));
    now.addAndGet(5 * S);
    update(0.1, 0.1, Double.NaN); // 6 s of 10, still nothing new
    assertThat(view(2).weight()).isCloseTo(0.03, within(1e-9));
    update(0.1, 0.1, 0.1); // its first report since it came back: recovered
    assertThat(view(2).weight()).isCloseTo(0.9 * 0.7, within(1e-9));
  }

  @Test
  void anEjectedHostsScoreDoesNotDecayWhileItIsSilent() {
    // Out of rotation it has no requests in flight and its report ages out: neither is a recovery.
    start(settings().expirationPeriod(Duration.ofSeconds(5)).build(), 3);
    update(0.1, 0.1, 0.95);
    update(0.1, 0.1, 0.95);
    assertThat(view(2).ejected()).isTrue();
    for (int i = 0; i < 9; i++) {
      update(0.1, 0.1, Double.NaN); // 9 s: past its ejection time's end and the 5 s expiration
    }
    assertThat(view(2).score()).isCloseTo(0.95, within(1e-9));
    assertThat(stat("lb_pressure_stale")).isZero();
    update(0.1, 0.1, Double.NaN);
    assertThat(view(2).ejected()).isFalse();
    assertThat(view(2).weight()).isCloseTo(0.05, within(1e-9));
  }

  @Test
  void errorsAndLatencyAreTheEdgesOwnSignals() {
    start(settings().dimensions(new Dimensions(0, 0, 0, Map.of(), 0, 1, 1)).build(), 2);
    Host slow = hosts.get(1);
    for (int i = 0; i < 10; i++) {
      for (Host h : hosts) {
        h.requestStarted();
        h.requestFinished(h != slow || i < 8); // the slow host fails 2 of 10
        h.requestLatency(h == slow ? 40_000_000 : 4_000_000);
      }
    }
    cluster.updateWeights();
    assertThat(view(0).score()).isZero();
    assertThat(view(1).score()).isCloseTo(0.9, within(1e-9)); // max(1 - 4/40, 0.2)
  }
}
