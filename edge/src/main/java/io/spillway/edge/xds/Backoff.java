package io.spillway.edge.xds;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Exponential back-off with full jitter: after {@code n} consecutive failures the next attempt
 * waits a time drawn uniformly from {@code [0, min(cap, base * 2^n)]}.
 *
 * @param base the bound after the first failure
 * @param cap the largest bound
 */
record Backoff(Duration base, Duration cap) {

  Backoff {
    if (base.isNegative() || base.isZero() || cap.compareTo(base) < 0) {
      throw new IllegalArgumentException("need 0 < base <= cap: " + base + ", " + cap);
    }
  }

  /** The upper bound of the delay after {@code failures} consecutive failures (0 for the first retry). */
  long boundNanos(int failures) {
    long baseNanos = base.toNanos();
    long capNanos = cap.toNanos();
    if (failures >= 62 || baseNanos > (capNanos >> failures)) {
      return capNanos;
    }
    return Math.min(capNanos, baseNanos << failures);
  }

  /** A delay drawn from {@code [0, boundNanos(failures)]}. */
  long delayNanos(int failures, RandomGenerator random) {
    return random.nextLong(boundNanos(failures) + 1);
  }
}
