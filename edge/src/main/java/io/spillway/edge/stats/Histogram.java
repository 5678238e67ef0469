package io.spillway.edge.stats;

import java.util.concurrent.locks.ReentrantLock;
import org.HdrHistogram.Recorder;

/**
 * A distribution of values, such as {@code cluster.backend.upstream_rq_time} in milliseconds.
 *
 * <p><b>Writer side (hot path).</b> {@link #record(long)} goes into one of a few HdrHistogram
 * {@link Recorder}s picked by the writing thread's id, so each worker event loop writes its own
 * (sharing one made the workers fight over its min/max and count lines): wait-free (an atomic
 * increment to enter the writer phase and one on the value's bucket), no lock, no allocation unless
 * a value beyond every earlier one makes the counts array grow. Two significant
 * digits, like Envoy's log-linear histograms: values below 256 are exact, larger ones within 1%.
 *
 * <p><b>Reader side (admin threads, the stats flush).</b> Each read swaps out the recorders' values
 * and merges them into three histograms owned by the reader side: the <em>cumulative</em> one, the
 * values since the previous {@link #snapshot()} (the <em>interval</em>) and the values since the
 * previous {@link #latch()} (what the stats flush sends to sinks). {@link #snapshot()} computes
 * quantiles and Prometheus buckets from the first two. Readers serialize on a lock that
 * {@link #record(long)} never takes. Every rendering takes a snapshot, so the interval is "since the
 * previous rendering of any kind" (Envoy's is "since the previous stats flush"); a flush does not
 * close the rendering's interval, nor a rendering the flush's.
 */
public final class Histogram implements Stat {

  /** The unit recorded values are in; quantiles, sums and Prometheus buckets are in the same unit. */
  public enum Unit {
    UNSPECIFIED(1),
    BYTES(1),
    MICROSECONDS(1),
    MILLISECONDS(1),
    /**
     * A fraction recorded in fixed point: record {@code fraction * PERCENT_SCALE} (so 1.0, i.e.
     * 100%, is {@value Histogram#PERCENT_SCALE}); renderings divide by the scale, as Envoy does.
     */
    PERCENT(PERCENT_SCALE);

    private final long scale;

    Unit(long scale) {
      this.scale = scale;
    }

    /** Recorded values are divided by this to render them. */
    public long scale() {
      return scale;
    }
  }

  /** Fixed-point scale of {@link Unit#PERCENT} values, as Envoy's {@code Histogram::PercentScale}. */
  public static final long PERCENT_SCALE = 1_000_000;

  private static final int SIGNIFICANT_DIGITS = 2;

  private final StatName statName;
  private final Unit unit;
  private final double[] bounds;
  private static final int STRIPES = 4; // power of two

  private final Recorder[] recorders = new Recorder[STRIPES];
  private volatile boolean used;

  private final ReentrantLock readerLock = new ReentrantLock();
  // Guarded by readerLock.
  private final org.HdrHistogram.Histogram cumulative = new org.HdrHistogram.Histogram(SIGNIFICANT_DIGITS);
  private final org.HdrHistogram.Histogram interval = new org.HdrHistogram.Histogram(SIGNIFICANT_DIGITS);
  private final org.HdrHistogram.Histogram sinceLatch = new org.HdrHistogram.Histogram(SIGNIFICANT_DIGITS);
  private final org.HdrHistogram.Histogram[] recycled = new org.HdrHistogram.Histogram[STRIPES];

  Histogram(StatName statName, Unit unit) {
    this(statName, unit, HistogramSnapshot.DEFAULT_BOUNDS);
  }

  /** @param bounds the Prometheus bucket bounds, ascending (from {@code histogram_bucket_settings}) */
  Histogram(StatName statName, Unit unit, double[] bounds) {
    this.statName = statName;
    this.unit = unit;
    this.bounds = bounds;
    for (int i = 0; i < STRIPES; i++) {
      recorders[i] = new Recorder(SIGNIFICANT_DIGITS);
    }
  }

  /** Records one value in this histogram's {@link #unit()}; negative values count as 0. Hot path. */
  public void record(long value) {
    recorders[(int) Thread.currentThread().threadId() & (STRIPES - 1)].recordValue(value < 0 ? 0 : value);
    if (!used) {
      used = true;
    }
  }

  public Unit unit() {
    return unit;
  }

  /**
   * Takes the values recorded since the previous snapshot, merges them into the cumulative
   * histogram and returns both summarized. Reader side: may be called from several admin threads.
   */
  public HistogramSnapshot snapshot() {
    readerLock.lock();
    try {
      collect();
      HistogramSnapshot snapshot = HistogramSnapshot.of(unit, bounds, interval, cumulative);
      interval.reset();
      return snapshot;
    } finally {
      readerLock.unlock();
    }
  }

  /**
   * The values recorded since the previous latch (since creation, the first time), for the stats
   * flush; the next latch starts empty. Does not change what {@link #snapshot()} returns.
   */
  public HistogramValues latch() {
    readerLock.lock();
    try {
      collect();
      HistogramValues values = HistogramValues.of(sinceLatch);
      sinceLatch.reset();
      return values;
    } finally {
      readerLock.unlock();
    }
  }

  /** Moves what the recorders hold into the reader side's histograms. Holds the reader lock. */
  private void collect() {
    for (int i = 0; i < STRIPES; i++) {
      org.HdrHistogram.Histogram part = recorders[i].getIntervalHistogram(recycled[i]);
      cumulative.add(part);
      interval.add(part);
      sinceLatch.add(part);
      recycled[i] = part;
    }
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
    readerLock.lock();
    try {
      for (Recorder r : recorders) {
        r.reset();
      }
      cumulative.reset();
      interval.reset();
      sinceLatch.reset();
    } finally {
      readerLock.unlock();
    }
  }

  @Override
  public String toString() {
    return statName.name() + " (" + unit + ")";
  }
}
