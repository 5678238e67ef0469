package io.spillway.edge.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.config.ClusterConfig.Backoff;
import io.spillway.edge.config.ClusterConfig.DnsRefresh;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** The re-resolution timing of DNS clusters, on a hand-driven scheduler and a scripted random source. */
class DnsRefreshLoopTest {
  private final ManualScheduler control = new ManualScheduler();
  private final ArrayDeque<Boolean> outcomes = new ArrayDeque<>();
  private int resolutions;

  /** Draws {@code bound - 1}: the longest delay each random choice allows. */
  private static final RandomGenerator HIGHEST = new RandomGenerator() {
    @Override
    public long nextLong() {
      return Long.MAX_VALUE;
    }

    @Override
    public long nextLong(long bound) {
      return bound - 1;
    }
  };

  /** Draws 0: the shortest delay. */
  private static final RandomGenerator LOWEST = new RandomGenerator() {
    @Override
    public long nextLong() {
      return 0;
    }

    @Override
    public long nextLong(long bound) {
      return 0;
    }
  };

  private static ClusterConfig config(Duration refreshRate, DnsRefresh refresh) {
    return LogicalDnsClusterTest.config(ClusterConfig.DiscoveryType.STRICT_DNS, ClusterConfig.DnsLookupFamily.AUTO,
        refreshRate, refresh, "svc.example");
  }

  private DnsRefreshLoop loop(ClusterConfig config, RandomGenerator random) {
    return new DnsRefreshLoop(config, control, random, () -> {
      resolutions++;
      Boolean ok = outcomes.poll();
      return ok == null || ok;
    });
  }

  private static Duration nanos(long n) {
    return Duration.ofNanos(n);
  }

  @Test
  void aSuccessWaitsTheRefreshRate() {
    DnsRefreshLoop loop = loop(config(Duration.ofSeconds(5), DnsRefresh.DEFAULTS), HIGHEST);

    assertThat(nanos(loop.delayAfter(true))).isEqualTo(Duration.ofSeconds(5));
    assertThat(nanos(loop.delayAfter(true))).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void jitterAddsARandomPartBelowDnsJitter() {
    DnsRefresh jittered = new DnsRefresh(Optional.empty(), Duration.ofSeconds(2), true);

    assertThat(nanos(loop(config(Duration.ofSeconds(5), jittered), HIGHEST).delayAfter(true)))
        .isEqualTo(Duration.ofSeconds(7).minusNanos(1));
    assertThat(nanos(loop(config(Duration.ofSeconds(5), jittered), LOWEST).delayAfter(true)))
        .isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void withoutAFailureRefreshRateAFailureWaitsTheRefreshRateWithoutJitter() {
    DnsRefresh jittered = new DnsRefresh(Optional.empty(), Duration.ofSeconds(2), true);
    DnsRefreshLoop loop = loop(config(Duration.ofSeconds(5), jittered), HIGHEST);

    assertThat(nanos(loop.delayAfter(false))).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void failuresBackOffExponentiallyUpToTheMaxIntervalAndASuccessResetsIt() {
    DnsRefresh backoff = new DnsRefresh(Optional.of(new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(4))),
        Duration.ZERO, true);
    DnsRefreshLoop loop = loop(config(Duration.ofSeconds(30), backoff), HIGHEST);

    assertThat(nanos(loop.delayAfter(false))).isEqualTo(Duration.ofSeconds(1).minusNanos(1));
    assertThat(nanos(loop.delayAfter(false))).isEqualTo(Duration.ofSeconds(2).minusNanos(1));
    assertThat(nanos(loop.delayAfter(false))).isEqualTo(Duration.ofSeconds(4).minusNanos(1));
    assertThat(nanos(loop.delayAfter(false))).isEqualTo(Duration.ofSeconds(4).minusNanos(1));
    assertThat(nanos(loop.delayAfter(true))).isEqualTo(Duration.ofSeconds(30));
    assertThat(nanos(loop.delayAfter(false))).isEqualTo(Duration.ofSeconds(1).minusNanos(1));
  }

  @Test
  void noDelayIsShorterThanTheMinimum() {
    DnsRefresh backoff = new DnsRefresh(Optional.of(new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10))),
        Duration.ZERO, true);

    assertThat(nanos(loop(config(Duration.ofMillis(1), backoff), LOWEST).delayAfter(true)))
        .isEqualTo(DnsRefreshLoop.MIN_DELAY);
    assertThat(nanos(loop(config(Duration.ofMillis(1), backoff), LOWEST).delayAfter(false)))
        .isEqualTo(DnsRefreshLoop.MIN_DELAY);
  }

  @Test
  void waitingForWarmResolvesOnTheCallingThreadThenOnTheControlThread() {
    DnsRefreshLoop loop = loop(config(Duration.ofSeconds(5), DnsRefresh.DEFAULTS), HIGHEST);

    loop.start(true);
    assertThat(resolutions).isEqualTo(1);
    assertThat(control.nextDelay()).isEqualTo(Duration.ofSeconds(5));

    control.advance(Duration.ofSeconds(5).minusNanos(1));
    assertThat(resolutions).isEqualTo(1);
    control.advance(Duration.ofNanos(1));
    assertThat(resolutions).isEqualTo(2);
    control.advance(Duration.ofSeconds(10));
    assertThat(resolutions).isEqualTo(4);
  }

  @Test
  void notWaitingForWarmResolvesOnTheControlThreadAtOnce() {
    DnsRefreshLoop loop = loop(config(Duration.ofSeconds(5), DnsRefresh.DEFAULTS), HIGHEST);

    loop.start(false);
    assertThat(resolutions).isZero();
    control.advance(Duration.ZERO);
    assertThat(resolutions).isEqualTo(1);
  }

  @Test
  void aFailedResolutionIsRetriedOnTheBackOffThenTheRefreshRate() {
    DnsRefresh backoff = new DnsRefresh(Optional.of(new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(8))),
        Duration.ZERO, true);
    DnsRefreshLoop loop = loop(config(Duration.ofSeconds(60), backoff), HIGHEST);
    outcomes.add(false);
    outcomes.add(false);

    loop.start(true);
    assertThat(control.nextDelay()).isEqualTo(Duration.ofSeconds(1).minusNanos(1));
    control.advance(control.nextDelay());
    assertThat(resolutions).isEqualTo(2);
    assertThat(control.nextDelay()).isEqualTo(Duration.ofSeconds(2).minusNanos(1));
    control.advance(control.nextDelay());
    assertThat(resolutions).isEqualTo(3);
    assertThat(control.nextDelay()).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void stopCancelsTheNextResolution() {
    DnsRefreshLoop loop = loop(config(Duration.ofSeconds(5), DnsRefresh.DEFAULTS), HIGHEST);
    loop.start(true);

    loop.stop();
    control.advance(Duration.ofMinutes(1));

    assertThat(resolutions).isEqualTo(1);
    assertThat(control.pending()).isZero();
  }
}
