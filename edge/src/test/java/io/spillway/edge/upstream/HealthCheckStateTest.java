package io.spillway.edge.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.HostHealthConfig;
import io.spillway.edge.upstream.HealthCheckState.Transition;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HealthCheckStateTest {

  static HostHealthConfig.HealthCheck config(int unhealthy, int healthy, Duration jitter, int jitterPercent) {
    return new HostHealthConfig.HealthCheck(Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofSeconds(2),
        jitter, jitterPercent, unhealthy, healthy, Duration.ofSeconds(20), Duration.ofSeconds(3),
        Duration.ofSeconds(4), Duration.ofSeconds(60), Duration.ofSeconds(50), true,
        new HostHealthConfig.HttpProbe("c", "/healthz", "GET", false, HeaderMutations.NONE,
            List.of(new HostHealthConfig.StatusRange(200, 201)), List.of()));
  }

  @Test
  void aNewHostIsHealthyAfterItsFirstPass() {
    HealthCheckState s = new HealthCheckState(config(3, 2, Duration.ZERO, 0));
    assertThat(s.healthy()).isFalse();
    assertThat(s.pending()).isTrue();
    assertThat(s.onPass()).isEqualTo(Transition.BECAME_HEALTHY);
    assertThat(s.pending()).isFalse();
  }

  @Test
  void aNewHostThatFailsStaysUnhealthyUntilHealthyThresholdPasses() {
    HealthCheckState s = new HealthCheckState(config(3, 2, Duration.ZERO, 0));
    assertThat(s.onFailure(false)).isEqualTo(Transition.NONE);
    assertThat(s.pending()).isFalse();
    assertThat(s.onPass()).isEqualTo(Transition.NONE);
    assertThat(s.onPass()).isEqualTo(Transition.BECAME_HEALTHY);
  }

  @Test
  void unhealthyThresholdCountsFailuresInARow() {
    HealthCheckState s = new HealthCheckState(config(3, 2, Duration.ZERO, 0));
    s.onPass();
    assertThat(s.onFailure(false)).isEqualTo(Transition.NONE);
    assertThat(s.onFailure(false)).isEqualTo(Transition.NONE);
    assertThat(s.onPass()).isEqualTo(Transition.NONE); // the run is broken
    assertThat(s.onFailure(false)).isEqualTo(Transition.NONE);
    assertThat(s.onFailure(false)).isEqualTo(Transition.NONE);
    assertThat(s.onFailure(false)).isEqualTo(Transition.BECAME_UNHEALTHY);
    assertThat(s.healthy()).isFalse();
    assertThat(s.onPass()).isEqualTo(Transition.NONE);
    assertThat(s.onFailure(false)).isEqualTo(Transition.NONE);
    assertThat(s.onPass()).isEqualTo(Transition.NONE);
    assertThat(s.onPass()).isEqualTo(Transition.BECAME_HEALTHY);
  }

  @Test
  void anImmediateFailureSkipsTheThreshold() {
    HealthCheckState s = new HealthCheckState(config(5, 1, Duration.ZERO, 0));
    s.onPass();
    assertThat(s.onFailure(true)).isEqualTo(Transition.BECAME_UNHEALTHY);
  }

  @Test
  void intervalsFollowTheHostsStateAndEdges() {
    SplittableRandom random = new SplittableRandom(3);
    HealthCheckState s = new HealthCheckState(config(1, 1, Duration.ZERO, 0));
    assertThat(s.nextIntervalNanos(true, random)).as("no traffic, unhealthy").isEqualTo(60_000_000_000L);
    assertThat(s.nextIntervalNanos(false, random)).as("unhealthy").isEqualTo(20_000_000_000L);
    s.onPass();
    assertThat(s.nextIntervalNanos(false, random)).as("healthy edge").isEqualTo(4_000_000_000L);
    assertThat(s.nextIntervalNanos(false, random)).as("healthy").isEqualTo(10_000_000_000L);
    assertThat(s.nextIntervalNanos(true, random)).as("no traffic, healthy").isEqualTo(50_000_000_000L);
    s.onFailure(false);
    assertThat(s.nextIntervalNanos(false, random)).as("unhealthy edge").isEqualTo(3_000_000_000L);
    assertThat(s.nextIntervalNanos(false, random)).as("unhealthy").isEqualTo(20_000_000_000L);
  }

  @Test
  void jitterStaysWithinItsBoundsAndVaries() {
    SplittableRandom random = new SplittableRandom(42);
    HealthCheckState s = new HealthCheckState(config(1, 1, Duration.ofMillis(500), 10));
    s.onPass();
    s.nextIntervalNanos(false, random); // the edge
    long min = Long.MAX_VALUE;
    long max = 0;
    for (int i = 0; i < 2000; i++) {
      long n = s.nextIntervalNanos(false, random);
      assertThat(n).isBetween(10_000_000_000L, 10_000_000_000L + 1_000_000_000L + 500_000_000L - 1);
      min = Math.min(min, n);
      max = Math.max(max, n);
    }
    assertThat(max - min).as("jitter spreads the checks").isGreaterThan(1_000_000_000L);
    for (int i = 0; i < 1000; i++) {
      assertThat(s.initialDelayNanos(random)).isBetween(0L, 2_000_000_000L - 1);
    }
  }
}
