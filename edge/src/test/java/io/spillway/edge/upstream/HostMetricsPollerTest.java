package io.spillway.edge.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.config.ClusterConfig.LbPolicy;
import io.spillway.edge.config.MetricsPollerConfig;
import io.spillway.edge.config.MetricsPollerConfig.Dimension;
import io.spillway.edge.config.MetricsPollerConfig.Mapping;
import io.spillway.edge.config.PressureConfig;
import io.spillway.edge.config.PressureConfig.Dimensions;
import io.spillway.edge.stats.StatsStore;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * The metrics poller's loop without sockets: a hand-driven loop and clock, a fetcher the test
 * answers by hand, and the cluster's weight update run by hand to see what the polled data does.
 */
class HostMetricsPollerTest {
  private static final Duration INTERVAL = Duration.ofSeconds(2);
  private static final Duration TIMEOUT = Duration.ofMillis(500);

  private final ManualScheduler loop = new ManualScheduler();
  private final StatsStore store = new StatsStore();
  private final FakeFetcher fetcher = new FakeFetcher();
  private Cluster cluster;
  private List<Host> hosts;
  private HostMetricsPoller poller;

  /** A fetcher that keeps each poll's callback for the test to answer. */
  private static final class FakeFetcher implements HostMetricsPoller.Fetcher {
    final Map<Host, HostMetricsPoller.Callback> waiting = new HashMap<>();
    final List<Host> fetched = new ArrayList<>();
    final List<Host> abandoned = new ArrayList<>();
    /** When set, every poll is answered with it at once. */
    String answerAtOnce;

    @Override
    public void fetch(Host host, HostMetricsPoller.Callback callback) {
      fetched.add(host);
      if (answerAtOnce != null) {
        callback.answered(200, answerAtOnce);
      } else {
        waiting.put(host, callback);
      }
    }

    @Override
    public void abandon(Host host) {
      abandoned.add(host);
    }

    HostMetricsPoller.Callback take(Host host) {
      HostMetricsPoller.Callback cb = waiting.remove(host);
      assertThat(cb).as("a poll of " + host + " under way").isNotNull();
      return cb;
    }
  }

  private static MetricsPollerConfig pollerConfig(MetricsPollerConfig.Format format) {
    return new MetricsPollerConfig("/metrics", "", INTERVAL, TIMEOUT, format,
        List.of(new Mapping(Dimension.CPU, "", "cpu_percent", Map.of(), 100)));
  }

  /** Every first poll one nanosecond before the end of the first interval: polls at k * interval - 1 ns. */
  private static final RandomGenerator LAST_MOMENT = new RandomGenerator() {
    @Override
    public long nextLong() {
      return 0;
    }

    @Override
    public long nextLong(long bound) {
      return bound - 1;
    }
  };

  private void start(int count, MetricsPollerConfig.Format format) {
    start(count, format, LAST_MOMENT);
  }

  /** Moves the clock to the next multiple of the interval: each host's next poll runs, none of its timeouts. */
  private void round() {
    long i = INTERVAL.toNanos();
    loop.advance(Duration.ofNanos((loop.nanoTime() / i + 1) * i - loop.nanoTime()));
  }

  private void start(int count, MetricsPollerConfig.Format format, RandomGenerator random) {
    PressureConfig settings = PressureConfig.builder()
        .dimensions(new Dimensions(1, 0, 0, Map.of(), 0, 0, 0))
        .smoothingTimeConstant(Duration.ofNanos(1))
        .blackoutPeriod(Duration.ZERO)
        .expirationPeriod(Duration.ofSeconds(30))
        .maxEjectionPercent(0)
        .slowStart(null)
        .build();
    ClusterConfig config = LoadBalancerTest.config(LbPolicy.PRESSURE, ClusterConfig.LbSettings.pressure(settings));
    cluster = Cluster.create(config, new ClusterStats(store.rootScope().scope("cluster").scope("c"), false), 1, 7L,
        ConnectionGate.OPEN, loop::nanoTime);
    hosts = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      hosts.add(cluster.newHost(new InetSocketAddress("127.0.0.1", 20_000 + i), "127.0.0.1", 1, Host.NOT_JOINING));
    }
    cluster.setHosts(HostSet.of(hosts));
    poller = new HostMetricsPoller(pollerConfig(format), new HostMetricsPoller.Stats(store.rootScope().scope("cluster")
        .scope("c")), loop, fetcher, random);
    poller.hostsChanged(cluster.hosts());
  }

  private long stat(String name) {
    return store.find("cluster.c." + name).map(s -> s instanceof io.spillway.edge.stats.Counter c ? c.value() : -1L)
        .orElseThrow();
  }

  private Cluster.HostPressure view(int host) {
    return cluster.pressureSnapshot().of(hosts.get(host));
  }

  /** Answers every poll under way: host i with body i (null: the poll fails). */
  private void answer(String... bodies) {
    for (int i = 0; i < bodies.length; i++) {
      HostMetricsPoller.Callback cb = fetcher.take(hosts.get(i));
      if (bodies[i] == null) {
        cb.failed();
      } else {
        cb.answered(200, bodies[i]);
      }
    }
  }

  @Test
  void eachHostIsPolledOncePerIntervalFromARandomStartWithinTheFirst() {
    fetcher.answerAtOnce = "cpu_percent 10\n";
    start(3, MetricsPollerConfig.Format.PROMETHEUS, new SplittableRandom(3));
    loop.advance(INTERVAL.minusNanos(1));
    assertThat(fetcher.fetched).containsExactlyInAnyOrderElementsOf(hosts);
    for (int round = 0; round < 5; round++) {
      fetcher.fetched.clear();
      loop.advance(INTERVAL);
      assertThat(fetcher.fetched).containsExactlyInAnyOrderElementsOf(hosts);
      assertThat(loop.pending()).isEqualTo(3); // only each host's next poll (answered polls' timeouts cancelled)
    }
    assertThat(stat("lb_pressure_poll_success")).isEqualTo(18);
    assertThat(stat("lb_pressure_poll_failure")).isZero();
    // the three hosts do not poll in step
    assertThat(loop.nextDelay()).isLessThan(INTERVAL);
  }

  @Test
  void aPolledValueIsScaledAndFeedsTheHostsScore() {
    start(2, MetricsPollerConfig.Format.PROMETHEUS);
    round();
    answer("# TYPE cpu_percent gauge\ncpu_percent 90\n", "cpu_percent{core=\"all\"} 20 1700000000000\n");
    cluster.updateWeights();
    assertThat(view(0).score()).isCloseTo(0.9, within(1e-6));
    assertThat(view(1).score()).isCloseTo(0.2, within(1e-6));
    assertThat(view(0).weight()).isCloseTo(0.1, within(1e-6));
    assertThat(view(1).weight()).isCloseTo(0.8, within(1e-6));
    assertThat(view(0).dataAgeNanos()).isZero();
  }

  @Test
  void jsonBodiesAreReadTheSameWay() {
    start(2, MetricsPollerConfig.Format.JSON);
    round();
    answer("{\"cpu_percent\": 75}", "{\"cpu_percent\": \"75\"}"); // a string is no number
    cluster.updateWeights();
    assertThat(view(0).score()).isCloseTo(0.75, within(1e-6));
    assertThat(view(1).scored()).isFalse();
    assertThat(stat("lb_pressure_poll_success")).isEqualTo(1);
    assertThat(stat("lb_pressure_poll_parse_error")).isEqualTo(1);
    assertThat(stat("lb_pressure_poll_metric_missing")).isEqualTo(1);
  }

  @Test
  void aFailedPollIsNeverZeroPressureTheHostKeepsItsDataUntilItExpires() {
    start(2, MetricsPollerConfig.Format.PROMETHEUS);
    round();
    answer("cpu_percent 30\n", "cpu_percent 80\n");
    cluster.updateWeights();
    assertThat(view(1).score()).isCloseTo(0.8, within(1e-6));

    // Host 1's endpoint now fails every way it can; host 0 goes on answering.
    String[] failures = {"failed", "500", "garbage", "NaN", "+Inf", "-5", "timeout"};
    for (String how : failures) {
      round();
      fetcher.take(hosts.get(0)).answered(200, "cpu_percent 30\n");
      HostMetricsPoller.Callback cb = fetcher.take(hosts.get(1));
      switch (how) {
        case "timeout" -> loop.advance(TIMEOUT);
        case "500" -> cb.answered(500, "cpu_percent 0\n");
        case "garbage" -> cb.answered(200, "<html>\u0000\n");
        case "failed" -> cb.failed();
        default -> cb.answered(200, "cpu_percent " + how + "\n");
      }
      cluster.updateWeights();
      assertThat(view(1).scored()).as(how).isTrue();
      assertThat(view(1).score()).as(how).isCloseTo(0.8, within(1e-6));
      assertThat(view(1).weight()).as(how).isCloseTo(0.2, within(1e-6));
    }
    assertThat(stat("lb_pressure_poll_failure")).isEqualTo(3); // failed, 500, timeout
    assertThat(stat("lb_pressure_poll_timeout")).isEqualTo(1);
    assertThat(stat("lb_pressure_poll_parse_error")).isEqualTo(4); // garbage, NaN, +Inf, negative
    assertThat(stat("lb_pressure_poll_malformed_lines")).isEqualTo(1); // the garbage line
    assertThat(fetcher.abandoned).containsExactly(hosts.get(1)); // the timed-out poll's connection

    // 30 s after its last good poll the data has expired: median weight (host 0's), not an idle host's.
    for (int i = 0; i < 9; i++) {
      round();
      answer("cpu_percent 30\n", null);
    }
    cluster.updateWeights();
    assertThat(view(1).scored()).isFalse();
    assertThat(view(1).weight()).isCloseTo(0.7, within(1e-6));
    assertThat(stat("lb_pressure_stale")).isEqualTo(1);
  }

  @Test
  void aLateAnswerToATimedOutPollIsIgnored() {
    start(1, MetricsPollerConfig.Format.PROMETHEUS);
    round();
    HostMetricsPoller.Callback late = fetcher.take(hosts.get(0));
    loop.advance(TIMEOUT);
    late.answered(200, "cpu_percent 5\n");
    late.failed();
    assertThat(hosts.get(0).pendingPolledReport.get()).isNull();
    assertThat(stat("lb_pressure_poll_success")).isZero();
    assertThat(stat("lb_pressure_poll_failure")).isEqualTo(1);
  }

  @Test
  void aHostThatLeavesStopsBeingPolledAndStopEndsEverySession() {
    start(2, MetricsPollerConfig.Format.PROMETHEUS);
    round();
    answer("cpu_percent 1\n", "cpu_percent 1\n");
    cluster.setHosts(HostSet.of(List.of(hosts.get(0))));
    poller.hostsChanged(cluster.hosts());
    loop.advance(Duration.ZERO);
    assertThat(fetcher.abandoned).containsExactly(hosts.get(1));
    fetcher.fetched.clear();
    round();
    round();
    round();
    assertThat(fetcher.fetched).containsOnly(hosts.get(0)).hasSize(3);
    fetcher.waiting.clear();

    poller.stop();
    loop.advance(Duration.ZERO);
    assertThat(loop.pending()).isZero();
    fetcher.fetched.clear();
    round();
    round();
    round();
    assertThat(fetcher.fetched).isEmpty();
  }
}
