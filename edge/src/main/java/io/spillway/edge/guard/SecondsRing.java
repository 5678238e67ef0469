package io.spillway.edge.guard;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A lock-free ring of one-second buckets, each holding two counts ({@code a}, {@code b}) for one
 * second. A cell is one {@code long}: a 24-bit tag (the second it belongs to, modulo 2^24), then
 * {@code a} and {@code b} in 20 bits each (saturating at 1,048,575 per second). A cell whose tag
 * is older than the second being written is reset by the same CAS that writes it, so there is no
 * separate (racy) reset step; a sample for a second older than the cell's is dropped. Reads only
 * count cells whose tag is exactly the second asked for, so stale cells read as empty. (Tags wrap
 * after 2^24 s ≈ 194 days: a cell untouched for an exact multiple of that would read stale; we
 * accept that.)
 */
final class SecondsRing {

  static final int COUNT_BITS = 20;
  static final long COUNT_MAX = (1L << COUNT_BITS) - 1;
  static final long TAG_MASK = (1L << 24) - 1;
  private static final long HALF_TAG_RANGE = 1L << 23;

  private final AtomicLongArray cells;
  private final int size;

  SecondsRing(int size) {
    this.size = size;
    this.cells = new AtomicLongArray(size);
    // second 0's tag is 0 with zero counts: an empty cell is valid for any second.
  }

  static long pack(long tag, long a, long b) {
    return (tag << (2 * COUNT_BITS)) | (a << COUNT_BITS) | b;
  }

  static long tagOf(long cell) {
    return cell >>> (2 * COUNT_BITS);
  }

  static long aOf(long cell) {
    return (cell >>> COUNT_BITS) & COUNT_MAX;
  }

  static long bOf(long cell) {
    return cell & COUNT_MAX;
  }

  static long tag(long second) {
    return second & TAG_MASK;
  }

  /** Whether {@code cellTag} is of a second before {@code tag}'s (modulo the tag range). */
  static boolean older(long cellTag, long tag) {
    long d = (tag - cellTag) & TAG_MASK;
    return d != 0 && d < HALF_TAG_RANGE;
  }

  int index(long second) {
    return (int) (second % size);
  }

  long raw(int index) {
    return cells.get(index);
  }

  boolean compareAndSet(int index, long expected, long next) {
    return cells.compareAndSet(index, expected, next);
  }

  /** Adds to the counts of {@code second}. */
  void add(long second, long da, long db) {
    int i = index(second);
    long t = tag(second);
    for (;;) {
      long old = cells.get(i);
      long cellTag = tagOf(old);
      long next;
      if (cellTag == t) {
        next = pack(t, Math.min(COUNT_MAX, aOf(old) + da), Math.min(COUNT_MAX, bOf(old) + db));
      } else if (older(cellTag, t)) {
        next = pack(t, Math.min(COUNT_MAX, da), Math.min(COUNT_MAX, db));
      } else {
        return; // a later second owns the cell: a late sample is dropped
      }
      if (cells.compareAndSet(i, old, next)) {
        return;
      }
    }
  }

  /**
   * Sums the counts of the {@code span} seconds ending at {@code second} (inclusive), skipping
   * seconds before {@code fromSecond}. Returns {@code a << 32 | b}.
   */
  long sum(long second, int span, long fromSecond) {
    long a = 0;
    long b = 0;
    long first = Math.max(Math.max(0, fromSecond), second - Math.min(span, size) + 1);
    for (long s = first; s <= second; s++) {
      long cell = cells.get(index(s));
      if (tagOf(cell) == tag(s)) {
        a += aOf(cell);
        b += bOf(cell);
      }
    }
    return (a << 32) | b;
  }

  static long sumA(long sum) {
    return sum >>> 32;
  }

  static long sumB(long sum) {
    return sum & 0xFFFF_FFFFL;
  }
}
