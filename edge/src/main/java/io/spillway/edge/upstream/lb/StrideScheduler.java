package io.spillway.edge.upstream.lb;

/**
 * An immutable weighted schedule over endpoints {@code 0..n-1} (gRPC's static stride scheduler):
 * weights are scaled to at most {@value #MAX_WEIGHT}; sequence number {@code s} visits endpoint
 * {@code s % n} in generation {@code s / n}, which takes it when {@code (weight * generation +
 * offset) % MAX} falls in the top {@code weight} of the range. Each endpoint's offset is half
 * the range times its index, so the picks of equal-weight endpoints interleave. Any number of
 * threads may pick from one instance, each with its own sequence (a worker starts its own at a
 * random number, so edges and workers do not move in step).
 *
 * <p>As in gRPC, endpoints without a weight (0) get the mean of the others, weights are capped at
 * ten times the mean and floored at 1 % of the largest, and there is no schedule (null) when
 * fewer than two endpoints have a weight: the caller then round-robins.
 */
public final class StrideScheduler {
  static final int MAX_WEIGHT = 0xFFFF;
  private static final double MAX_RATIO = 10;
  private static final double MIN_RATIO = 0.01;

  private final int[] scaled;

  private StrideScheduler(int[] scaled) {
    this.scaled = scaled;
  }

  /** A schedule for these weights, or null when fewer than two are positive. */
  public static StrideScheduler of(double[] weights) {
    int n = weights.length;
    int positive = 0;
    double sum = 0;
    for (double w : weights) {
      if (w > 0) {
        positive++;
        sum += w;
      }
    }
    if (positive < 2) {
      return null;
    }
    double mean = sum / positive;
    double cap = mean * MAX_RATIO;
    double max = 0;
    double[] w = new double[n];
    for (int i = 0; i < n; i++) {
      w[i] = Math.min(weights[i] > 0 ? weights[i] : mean, cap);
      max = Math.max(max, w[i]);
    }
    double scale = MAX_WEIGHT / max;
    int floor = Math.max(1, (int) Math.ceil(MAX_WEIGHT * MIN_RATIO));
    int[] scaled = new int[n];
    for (int i = 0; i < n; i++) {
      scaled[i] = Math.max(floor, Math.min(MAX_WEIGHT, (int) Math.round(w[i] * scale)));
    }
    return new StrideScheduler(scaled);
  }

  public int size() {
    return scaled.length;
  }

  /** The scaled weight of endpoint {@code i} (for the admin page and tests). */
  public int scaledWeight(int i) {
    return scaled[i];
  }

  /**
   * The first sequence number at or after {@code sequence} (which must not be negative) that the
   * schedule accepts; its endpoint is {@link #endpoint}. The caller continues after it.
   */
  public long next(long sequence) {
    int n = scaled.length;
    long s = sequence;
    while (true) {
      int index = (int) (s % n);
      long generation = (s / n) % MAX_WEIGHT;
      long weight = scaled[index];
      long offset = (long) (MAX_WEIGHT / 2) * index;
      if ((weight * generation + offset) % MAX_WEIGHT >= MAX_WEIGHT - weight) {
        return s;
      }
      s = s == Long.MAX_VALUE ? 0 : s + 1;
    }
  }

  /** The endpoint that sequence number {@code s} visits. */
  public int endpoint(long s) {
    return (int) (s % scaled.length);
  }
}
