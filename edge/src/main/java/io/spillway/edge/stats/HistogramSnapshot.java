package io.spillway.edge.stats;

import java.util.Arrays;
import java.util.List;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * A histogram summarized at one moment: Envoy's ten quantiles of the interval and of the cumulative
 * values, and the cumulative Prometheus buckets, count and sum. Values are in the histogram's unit
 * (already divided by {@link Histogram.Unit#scale()}). Quantiles with no values are NaN.
 *
 * <p>Quantile {@code q} is the nearest-rank value: the smallest recorded value with at least
 * {@code ceil(q * count)} values at or below it, reported as the middle of its HdrHistogram bucket
 * (exact below 256). A value counts towards bucket {@code le} when the lower edge of its HdrHistogram
 * bucket is {@code <= le}.
 */
public final class HistogramSnapshot {

  /** Envoy's supported quantiles, in percent, in rendering order. */
  public static final List<Double> SUPPORTED_QUANTILES =
      List.of(0.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9, 100.0);

  /**
   * Envoy's default Prometheus bucket bounds, in the histogram's unit; {@code histogram_bucket_settings}
   * gives a histogram others.
   */
  public static final List<Double> BUCKETS = List.of(
      0.5, 1.0, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 500.0, 1000.0, 2500.0, 5000.0, 10000.0,
      30000.0, 60000.0, 300000.0, 600000.0, 1800000.0, 3600000.0);

  static final double[] DEFAULT_BOUNDS = BUCKETS.stream().mapToDouble(Double::doubleValue).toArray();

  /** {@link #SUPPORTED_QUANTILES} in thousandths, so that ranks are computed without rounding. */
  private static final long[] QUANTILES_PER_MILLE = {0, 250, 500, 750, 900, 950, 990, 995, 999, 1000};

  private final Histogram.Unit unit;
  private final double[] bounds;
  private final long intervalCount;
  private final long sampleCount;
  private final double sampleSum;
  private final double[] intervalQuantiles;
  private final double[] cumulativeQuantiles;
  private final long[] cumulativeBucketCounts;

  private HistogramSnapshot(
      Histogram.Unit unit,
      double[] bounds,
      long intervalCount,
      long sampleCount,
      double sampleSum,
      double[] intervalQuantiles,
      double[] cumulativeQuantiles,
      long[] cumulativeBucketCounts) {
    this.unit = unit;
    this.bounds = bounds;
    this.intervalCount = intervalCount;
    this.sampleCount = sampleCount;
    this.sampleSum = sampleSum;
    this.intervalQuantiles = intervalQuantiles;
    this.cumulativeQuantiles = cumulativeQuantiles;
    this.cumulativeBucketCounts = cumulativeBucketCounts;
  }

  /**
   * Summarizes two histograms that no writer touches any more (the caller holds the reader lock),
   * counting the cumulative values into {@code bounds} (ascending; not copied, never changed).
   */
  static HistogramSnapshot of(Histogram.Unit unit, double[] bounds, AbstractHistogram interval,
      AbstractHistogram cumulative) {
    double scale = unit.scale();
    double[] cumulativeQuantiles = new double[QUANTILES_PER_MILLE.length];
    long[] bucketCounts = new long[bounds.length];
    long count = cumulative.getTotalCount();
    double sum = 0;
    int nextQuantile = 0;
    long seen = 0;
    for (HistogramIterationValue v : cumulative.recordedValues()) {
      long bucketValue = v.getValueIteratedTo();
      long n = v.getCountAtValueIteratedTo();
      double median = cumulative.medianEquivalentValue(bucketValue) / scale;
      sum += median * n;
      seen += n;
      while (nextQuantile < QUANTILES_PER_MILLE.length && rank(nextQuantile, count) <= seen) {
        cumulativeQuantiles[nextQuantile++] = median;
      }
      double lowest = cumulative.lowestEquivalentValue(bucketValue) / scale;
      for (int b = bucketCounts.length - 1; b >= 0 && lowest <= bounds[b]; b--) {
        bucketCounts[b] += n;
      }
    }
    Arrays.fill(cumulativeQuantiles, nextQuantile, cumulativeQuantiles.length, Double.NaN);
    return new HistogramSnapshot(
        unit, bounds, interval.getTotalCount(), count, sum, quantiles(interval, scale), cumulativeQuantiles, bucketCounts);
  }

  private static double[] quantiles(AbstractHistogram histogram, double scale) {
    double[] out = new double[QUANTILES_PER_MILLE.length];
    long count = histogram.getTotalCount();
    int next = 0;
    long seen = 0;
    for (HistogramIterationValue v : histogram.recordedValues()) {
      seen += v.getCountAtValueIteratedTo();
      double median = histogram.medianEquivalentValue(v.getValueIteratedTo()) / scale;
      while (next < out.length && rank(next, count) <= seen) {
        out[next++] = median;
      }
    }
    Arrays.fill(out, next, out.length, Double.NaN);
    return out;
  }

  /** Nearest rank of quantile {@code i} among {@code count} values, at least 1. */
  private static long rank(int i, long count) {
    return Math.max(1, Math.ceilDiv(QUANTILES_PER_MILLE[i] * count, 1000));
  }

  public Histogram.Unit unit() {
    return unit;
  }

  /** Values recorded in the interval this snapshot closed. */
  public long intervalCount() {
    return intervalCount;
  }

  /** Values recorded since creation or the last reset. */
  public long sampleCount() {
    return sampleCount;
  }

  /** Sum of all values since creation or the last reset (each taken as the middle of its bucket). */
  public double sampleSum() {
    return sampleSum;
  }

  /** The interval's value at {@code SUPPORTED_QUANTILES.get(i)}, NaN if the interval is empty. */
  public double intervalQuantile(int i) {
    return intervalQuantiles[i];
  }

  /** The cumulative value at {@code SUPPORTED_QUANTILES.get(i)}, NaN if nothing was recorded. */
  public double cumulativeQuantile(int i) {
    return cumulativeQuantiles[i];
  }

  /** How many buckets the histogram has (not counting {@code +Inf}). */
  public int bucketCount() {
    return bounds.length;
  }

  /** The upper bound of bucket {@code i}, in the histogram's unit. */
  public double bucketBound(int i) {
    return bounds[i];
  }

  /** Cumulative count of values {@code <= bucketBound(i)}. */
  public long cumulativeBucketCount(int i) {
    return cumulativeBucketCounts[i];
  }
}
