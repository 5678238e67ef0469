package io.spillway.edge.filters.ratelimit;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Envoy's token bucket as the local rate limit filter uses it: starts with {@code maxTokens}, gains
 * {@code tokensPerFill} at the end of every {@code fillInterval} (counted from the bucket's creation)
 * and never holds more than {@code maxTokens}; a request takes one token.
 *
 * <p>Shared by every worker without a lock: the whole state is one {@code long} — the tokens left
 * in the upper 32 bits, the fill interval of the last refill (its index since creation) in the
 * lower 32 — read once and replaced by one compare-and-set. Refills happen lazily, in the CAS of
 * the first request after an interval ended; there is no timer. A refusal writes nothing, so an
 * exhausted bucket costs its readers no cache-line transfers. The interval index wraps after 2^32
 * intervals and is compared as a signed 32-bit difference, so a caller whose clock reading is a
 * little older than another's never refills twice; a bucket left untouched for more than 2^31
 * intervals (3.4 years at Envoy's 50 ms minimum) refills only once the difference is positive again.
 *
 * <p>Time comes from the caller ({@code nowNanos}, a monotonic clock such as {@code System.nanoTime}).
 */
public final class TokenBucket {
  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(TokenBucket.class, "state", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final long maxTokens;
  private final long tokensPerFill;
  private final long fillIntervalNanos;
  private final long originNanos;
  @SuppressWarnings("unused") // through STATE
  private volatile long state;

  /**
   * @param maxTokens 1 to 2^32 - 1
   * @param tokensPerFill 1 to 2^32 - 1
   * @param fillIntervalNanos greater than 0
   * @param nowNanos the creation time: intervals end at {@code nowNanos + k * fillIntervalNanos}
   */
  public TokenBucket(long maxTokens, long tokensPerFill, long fillIntervalNanos, long nowNanos) {
    if (maxTokens < 1 || maxTokens > 0xFFFF_FFFFL || tokensPerFill < 1 || tokensPerFill > 0xFFFF_FFFFL
        || fillIntervalNanos <= 0) {
      throw new IllegalArgumentException("bucket " + maxTokens + "/" + tokensPerFill + "/" + fillIntervalNanos);
    }
    this.maxTokens = maxTokens;
    this.tokensPerFill = tokensPerFill;
    this.fillIntervalNanos = fillIntervalNanos;
    this.originNanos = nowNanos;
    this.state = maxTokens << 32;
  }

  /** Takes one token if there is one (after any refill due by {@code nowNanos}). */
  public boolean tryConsume(long nowNanos) {
    int interval = interval(nowNanos);
    while (true) {
      long s = (long) STATE.getVolatile(this);
      long tokens = refilled(s, interval);
      if (tokens == 0) {
        return false;
      }
      int last = (int) s;
      int stamp = interval - last > 0 ? interval : last;
      long next = ((tokens - 1) << 32) | (stamp & 0xFFFF_FFFFL);
      if (STATE.compareAndSet(this, s, next)) {
        return true;
      }
    }
  }

  /** The tokens there are at {@code nowNanos}, counting a refill that is due but not yet taken. */
  public long remainingTokens(long nowNanos) {
    return refilled((long) STATE.getVolatile(this), interval(nowNanos));
  }

  public long maxTokens() {
    return maxTokens;
  }

  /** Tokens per second, for ordering buckets from the scarcest (Envoy consumes those first). */
  double fillRate() {
    return tokensPerFill * 1e9 / fillIntervalNanos;
  }

  /** Whole seconds, rounded up, until the next refill (x-ratelimit-reset). */
  public long resetSeconds(long nowNanos) {
    long elapsed = Math.max(0, nowNanos - originNanos);
    long untilNext = fillIntervalNanos - elapsed % fillIntervalNanos;
    return (untilNext + 999_999_999L) / 1_000_000_000L;
  }

  private int interval(long nowNanos) {
    long elapsed = nowNanos - originNanos;
    return elapsed <= 0 ? 0 : (int) (elapsed / fillIntervalNanos);
  }

  /** The state's tokens plus the refills of the intervals ended since its stamp, at most maxTokens. */
  private long refilled(long s, int interval) {
    long tokens = s >>> 32;
    int ended = interval - (int) s;
    if (ended <= 0 || tokens == maxTokens) {
      return tokens;
    }
    long needed = (maxTokens - tokens + tokensPerFill - 1) / tokensPerFill;
    return ended >= needed ? maxTokens : tokens + ended * tokensPerFill;
  }
}
