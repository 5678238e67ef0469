package io.spillway.edge.stats;

import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * The values a {@link Histogram} recorded in one stretch of time, as distinct values with how often
 * each was recorded, in ascending order. Values are in the histogram's recorded unit (not divided by
 * {@link Histogram.Unit#scale()}) and, like every reading of a histogram, each is the middle of its
 * recording bucket: exact below 256, within 1% above.
 */
public final class HistogramValues {

  private static final HistogramValues EMPTY = new HistogramValues(new long[0], new long[0], 0);

  private final long[] values;
  private final long[] counts;
  private final long total;

  private HistogramValues(long[] values, long[] counts, long total) {
    this.values = values;
    this.counts = counts;
    this.total = total;
  }

  /** Reads a histogram no writer touches (the caller holds the reader lock). */
  static HistogramValues of(AbstractHistogram histogram) {
    long total = histogram.getTotalCount();
    if (total == 0) {
      return EMPTY;
    }
    int distinct = 0;
    for (HistogramIterationValue ignored : histogram.recordedValues()) {
      distinct++;
    }
    long[] values = new long[distinct];
    long[] counts = new long[distinct];
    int i = 0;
    for (HistogramIterationValue v : histogram.recordedValues()) {
      values[i] = histogram.medianEquivalentValue(v.getValueIteratedTo());
      counts[i] = v.getCountAtValueIteratedTo();
      i++;
    }
    return new HistogramValues(values, counts, total);
  }

  /** How many distinct values there are. */
  public int size() {
    return values.length;
  }

  /** The {@code i}-th distinct value, ascending. */
  public long value(int i) {
    return values[i];
  }

  /** How many times the {@code i}-th value was recorded. */
  public long count(int i) {
    return counts[i];
  }

  /** How many values were recorded in all. */
  public long total() {
    return total;
  }

  public boolean isEmpty() {
    return total == 0;
  }
}
