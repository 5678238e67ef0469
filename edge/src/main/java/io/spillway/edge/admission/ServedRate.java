package io.spillway.edge.admission;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * How many calls the backend served per second, kept for the last {@value #HORIZON_SECONDS}
 * seconds, and the best of those seconds: the throughput the backend has shown it can deliver.
 * Whole seconds, because one 25 ms window's count swings by half with a burst of completions; the
 * best second of a horizon, because a backend that nothing protects (shadow mode) spends its
 * capacity on requests whose clients have given up, and its served rate then says less about what
 * it can do than what it did at the start of the overload.
 *
 * <p>Lock-free: one stamp and one count per second of the horizon; the first call of a new second
 * resets its bucket (a racing writer may lose a count, which a rate of this kind can afford).
 */
final class ServedRate {
  static final int HORIZON_SECONDS = 30;
  private static final long SECOND = 1_000_000_000L;

  private final AtomicLongArray stamps = new AtomicLongArray(HORIZON_SECONDS);
  private final AtomicLongArray counts = new AtomicLongArray(HORIZON_SECONDS);

  ServedRate() {
    for (int i = 0; i < HORIZON_SECONDS; i++) {
      stamps.set(i, Long.MIN_VALUE);
    }
  }

  /** Counts one served call at {@code nowNanos}. */
  void record(long nowNanos) {
    long second = Math.floorDiv(nowNanos, SECOND);
    int index = (int) Math.floorMod(second, (long) HORIZON_SECONDS);
    if (stamps.get(index) != second) {
      counts.set(index, 0);
      stamps.set(index, second);
    }
    counts.getAndIncrement(index);
  }

  /** The most calls served in one complete second of the horizon before {@code nowNanos}; 0 if none. */
  long bestSecond(long nowNanos) {
    long current = Math.floorDiv(nowNanos, SECOND);
    long best = 0;
    for (int i = 0; i < HORIZON_SECONDS; i++) {
      long stamp = stamps.get(i);
      if (stamp != Long.MIN_VALUE && stamp < current && stamp >= current - HORIZON_SECONDS) {
        best = Math.max(best, counts.get(i));
      }
    }
    return best;
  }
}
