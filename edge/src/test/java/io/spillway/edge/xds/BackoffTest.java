package io.spillway.edge.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class BackoffTest {

  private final Backoff backoff = new Backoff(Duration.ofMillis(250), Duration.ofSeconds(5));

  @Test
  void theBoundDoublesUntilTheCap() {
    assertThat(backoff.boundNanos(0)).isEqualTo(Duration.ofMillis(250).toNanos());
    assertThat(backoff.boundNanos(1)).isEqualTo(Duration.ofMillis(500).toNanos());
    assertThat(backoff.boundNanos(4)).isEqualTo(Duration.ofMillis(4000).toNanos());
    assertThat(backoff.boundNanos(5)).isEqualTo(Duration.ofSeconds(5).toNanos());
    assertThat(backoff.boundNanos(63)).isEqualTo(Duration.ofSeconds(5).toNanos());
    assertThat(backoff.boundNanos(1000)).isEqualTo(Duration.ofSeconds(5).toNanos());
  }

  @Test
  void theDelayIsDrawnFromZeroToTheBound() {
    long bound = backoff.boundNanos(3);
    assertThat(backoff.delayNanos(3, fixed(0))).isZero();
    assertThat(backoff.delayNanos(3, fixed(Long.MAX_VALUE))).isEqualTo(bound);
    assertThat(backoff.delayNanos(3, fixed(bound / 2))).isEqualTo(bound / 2);
  }

  @Test
  void needsAPositiveBaseNotAboveTheCap() {
    assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** A random source whose bounded draw is {@code min(value, bound - 1)}. */
  private static RandomGenerator fixed(long value) {
    return new RandomGenerator() {
      @Override
      public long nextLong() {
        return value;
      }

      @Override
      public long nextLong(long bound) {
        return Math.min(value, bound - 1);
      }
    };
  }
}
