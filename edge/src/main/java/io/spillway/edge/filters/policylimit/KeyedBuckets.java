package io.spillway.edge.filters.policylimit;

import io.spillway.edge.filters.ratelimit.TokenBucket;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * A token bucket per key value, for at most {@code capacity} values: a fixed table of slots
 * shared by every worker, without a lock. A key may live in one of two slots (two hashes); a key
 * seen again takes its bucket from there, a new key takes an empty one of the two or else the one
 * seen least recently of the two (a two-choice approximation of LRU). Memory is bounded by the
 * table, allocated once; a slot is replaced by one compare-and-set, retried on a lost race.
 *
 * <p>Forgetting a key gives it a full bucket when it comes back, so a flood of distinct keys
 * beyond the capacity weakens the limit for the keys it pushes out — size {@code maxKeys} above
 * the number of callers a window of traffic has. Two workers inserting the same new key at once may
 * each put it in a different one of its two slots; the next lookups find the first and the other
 * ages out.
 *
 * <p>Key values longer than {@link #MAX_KEY_CHARS} are kept as a 64-bit hash, so a slot never
 * holds more than a short string whatever a client sends.
 */
final class KeyedBuckets {
  static final int MAX_KEY_CHARS = 128;

  /**
   * A key's bucket, when it was last seen (racy writes: an approximate recency is enough) and, for a
   * fleet-wide limit, until when Redis said it has no allowance left.
   */
  static final class Entry {
    final String key;
    final TokenBucket bucket;
    volatile long lastSeenNanos;
    /** For a fleet limit: the instant (this edge's clock) before which the shared count admits nothing; 0: none known. */
    volatile long deniedUntilNanos;

    Entry(String key, TokenBucket bucket, long now) {
      this.key = key;
      this.bucket = bucket;
      this.lastSeenNanos = now;
    }

    /** Whether the shared count is known to admit nothing at {@code nowNanos}. */
    boolean denied(long nowNanos) {
      long until = deniedUntilNanos;
      return until != 0 && nowNanos - until < 0;
    }

    /** Records that the shared count admits nothing before {@code untilNanos} (never moves the instant back). */
    void denyUntil(long untilNanos) {
      long until = untilNanos == 0 ? 1 : untilNanos;
      if (deniedUntilNanos == 0 || until - deniedUntilNanos > 0) {
        deniedUntilNanos = until;
      }
    }
  }

  private final AtomicReferenceArray<Entry> slots;
  private final int burst;
  private final long tokensPerFill;
  private final long fillIntervalNanos;
  private final LongAdder evictions = new LongAdder();

  /**
   * @param capacity how many key values are tracked
   * @param rate tokens per second (more than 0)
   * @param burst the bucket size, which a new key starts with
   */
  KeyedBuckets(int capacity, double rate, int burst) {
    this.slots = new AtomicReferenceArray<>(capacity);
    this.burst = burst;
    // At least 50 ms between refills (several tokens each at high rates), so a bucket's 32-bit
    // interval index wraps after years, not minutes; tokensPerFill / interval is exactly the rate.
    this.tokensPerFill = Math.max(1, (long) Math.ceil(rate * 0.05));
    this.fillIntervalNanos = Math.max(1, Math.round(tokensPerFill * 1e9 / rate));
  }

  /** The bucket of {@code key}, made full (and another key forgotten if need be) when it is new. */
  TokenBucket bucket(String key, long nowNanos) {
    return entry(key, nowNanos).bucket;
  }

  /** The entry of {@code key}, made (with a full bucket, another key forgotten if need be) when it is new. */
  Entry entry(String key, long nowNanos) {
    String k = stored(key);
    int n = slots.length();
    int h = k.hashCode();
    int first = Math.floorMod(h ^ (h >>> 16), n);
    int second = Math.floorMod(Integer.rotateLeft(h * 0x9E3779B9, 16), n);
    if (second == first && n > 1) {
      second = (first + 1) % n;
    }
    while (true) {
      Entry a = slots.get(first);
      if (a != null && a.key.equals(k)) {
        a.lastSeenNanos = nowNanos;
        return a;
      }
      Entry b = slots.get(second);
      if (b != null && b.key.equals(k)) {
        b.lastSeenNanos = nowNanos;
        return b;
      }
      int victim;
      Entry old;
      if (a == null) {
        victim = first;
        old = null;
      } else if (b == null) {
        victim = second;
        old = null;
      } else if (a.lastSeenNanos - b.lastSeenNanos <= 0) {
        victim = first;
        old = a;
      } else {
        victim = second;
        old = b;
      }
      Entry fresh = new Entry(k, new TokenBucket(burst, tokensPerFill, fillIntervalNanos, nowNanos), nowNanos);
      if (slots.compareAndSet(victim, old, fresh)) {
        if (old != null) {
          evictions.increment();
        }
        return fresh;
      }
    }
  }

  /** Key values with a bucket now (a scan of the table: for the admin page, not the hot path). */
  int tracked() {
    int count = 0;
    for (int i = 0; i < slots.length(); i++) {
      if (slots.get(i) != null) {
        count++;
      }
    }
    return count;
  }

  /** Keys forgotten to make room for new ones. */
  long evictions() {
    return evictions.sum();
  }

  /** The table's size. */
  int capacity() {
    return slots.length();
  }

  /** The key as the table keeps it: itself, or when longer than {@link #MAX_KEY_CHARS} its hash. */
  static String stored(String key) {
    return key.length() > MAX_KEY_CHARS ? hashed(key) : key;
  }

  /** Whether {@code stored} is a hash {@link #stored} made of a long key (it starts with a NUL, which no header value holds). */
  static boolean isHash(String stored) {
    return !stored.isEmpty() && stored.charAt(0) == '\u0000';
  }

  /** FNV-1a over the characters, as text that cannot be a short key's (it starts with a NUL). */
  private static String hashed(String key) {
    long hash = 0xcbf29ce484222325L;
    for (int i = 0; i < key.length(); i++) {
      hash ^= key.charAt(i);
      hash *= 0x100000001b3L;
    }
    return "\u0000" + Long.toHexString(hash) + ":" + key.length();
  }
}
