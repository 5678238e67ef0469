package io.spillway.edge.admission;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What shadow mode counts instead of the requests really in flight: the in-flight count enforce
 * would have, as a fluid model of the backend enforce would leave it. Each request shadow would
 * admit adds one; the level drains as the backend serves it: at {@code capacity / baseline} per
 * unit of time while it is above the backend's capacity (a queue drains at the backend's
 * throughput), and by {@code e^(−t / baseline)} below it (each request leaves after about the
 * unloaded call time).
 *
 * <p>Why not count the real requests, as enforce does: in shadow nothing is refused, so an
 * overloaded backend serves every request more slowly than under enforce and each one stays
 * counted longer. The real count then passes the limit and stays there, and shadow "refused" 99 %
 * of an open-loop 1.5× load that enforce refused 34 % of. Scaling the real count by how much slower
 * calls are (Little's law with the aimed call time) fixed the proxy tier but not the lower ones:
 * enforce keeps the backend busy to its capacity, filling what the higher tiers leave with the
 * lower ones, which a count scaled to the aimed call time does not reproduce (continuation 76 %
 * against 36 %). This model does.
 *
 * <p>Lock-free: the level (1/256 request units, low 32 bits) and the time it was computed
 * (microseconds modulo 2<sup>32</sup>, high 32 bits) share one {@link AtomicLong}; a decision is a
 * CAS loop that allocates nothing.
 */
final class ShadowQueue {
  private static final double UNIT = 256;
  private static final long MAX_LEVEL = 0xFFFF_FFFFL;

  private final AtomicLong state = new AtomicLong();

  /**
   * Admits one request into the model if the level, drained up to {@code nowNanos}, is below
   * {@code bound}; returns whether it did.
   *
   * @param baselineNanos the unloaded call time (&gt; 0)
   * @param capacity the concurrency the backend absorbs without queueing; 0 when not known (the
   *     backend was never seen saturated), then the level only decays
   */
  boolean tryAdmit(int bound, long nowNanos, double baselineNanos, double capacity) {
    long nowMicros = (nowNanos / 1_000) & MAX_LEVEL;
    for (;;) {
      long bits = state.get();
      double level = drained((bits & MAX_LEVEL) / UNIT, elapsedNanos(bits >>> 32, nowMicros), baselineNanos,
          capacity);
      boolean admit = level < bound;
      long next = (nowMicros << 32) | Math.min(MAX_LEVEL, (long) ((admit ? level + 1 : level) * UNIT));
      if (state.compareAndSet(bits, next)) {
        return admit;
      }
    }
  }

  /** The level now, in requests. */
  double level(long nowNanos, double baselineNanos, double capacity) {
    long bits = state.get();
    return drained((bits & MAX_LEVEL) / UNIT, elapsedNanos(bits >>> 32, (nowNanos / 1_000) & MAX_LEVEL),
        baselineNanos, capacity);
  }

  private static long elapsedNanos(long thenMicros, long nowMicros) {
    long micros = (nowMicros - thenMicros) & MAX_LEVEL;
    return micros > Integer.MAX_VALUE ? 0 : micros * 1_000; // a racing older stamp: no time passed
  }

  static double drained(double level, double elapsedNanos, double baselineNanos, double capacity) {
    if (level <= 0 || elapsedNanos <= 0) {
      return Math.max(0, level);
    }
    double t = elapsedNanos;
    if (capacity > 0 && level > capacity) {
      double toCapacity = (level - capacity) * baselineNanos / capacity;
      if (t <= toCapacity) {
        return level - t * capacity / baselineNanos;
      }
      level = capacity;
      t -= toCapacity;
    }
    return level * Math.exp(-t / baselineNanos);
  }
}
