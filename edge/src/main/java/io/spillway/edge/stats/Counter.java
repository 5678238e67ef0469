package io.spillway.edge.stats;


/**
 * A monotonically increasing count, such as {@code cluster.backend.upstream_rq_total}.
 *
 * <p><b>Cost.</b> Built once with the config that owns it and held by reference; {@link #inc()} is one
 * atomic add on the calling thread's cache-line-padded cell (see {@link StripedLong}: each worker
 * writes its own line, so event loops do not bounce a shared one) plus a read of the {@code used}
 * flag, which is written once. No lock, no allocation, no name lookup. Reading ({@link #value()})
 * sums the cells and is meant for the admin and flush paths only.
 *
 * <p>{@code /reset_counters} does not touch the cells: it records the current sum as a baseline
 * that {@link #value()} subtracts, so increments racing with a reset are never lost.
 */
public final class Counter implements Stat {

  private final StatName statName;
  private final StripedLong total = new StripedLong();
  private volatile long resetBaseline;
  private long latched; // written by the stats flush only
  private volatile boolean used;

  Counter(StatName statName) {
    this.statName = statName;
  }

  /** Adds one. Hot path. */
  public void inc() {
    total.add(1);
    markUsed();
  }

  /**
   * Adds {@code amount}. Hot path.
   *
   * @throws IllegalArgumentException if {@code amount} is negative: counters only go up
   */
  public void add(long amount) {
    if (amount < 0) {
      throw new IllegalArgumentException("counter " + statName.name() + " cannot go down by " + amount);
    }
    total.add(amount);
    markUsed();
  }

  /** The count since creation or the last reset. Sums the striped cells: not for the hot path. */
  public long value() {
    // Baseline first: it is a past sum, and the cells only grow, so the difference is never negative.
    long baseline = resetBaseline;
    return total.sum() - baseline;
  }

  /**
   * Envoy's latch: the increments since the previous latch (since creation, the first time), for
   * the stats flush to send as a delta. Independent of {@code /reset_counters}, so the deltas add up
   * to every increment. Not for the hot path; one caller (the flush, on the main thread).
   */
  public long latch() {
    long sum = total.sum();
    long delta = sum - latched;
    latched = sum;
    return delta;
  }

  @Override
  public StatName statName() {
    return statName;
  }

  @Override
  public boolean used() {
    return used;
  }

  void reset() {
    resetBaseline = total.sum();
  }

  private void markUsed() {
    if (!used) {
      used = true;
    }
  }

  @Override
  public String toString() {
    return statName.name() + ": " + value();
  }
}
