package io.spillway.edge.upstream.lb;

/**
 * An exponentially weighted moving average for samples at uneven intervals: a sample {@code dt}
 * after the previous one moves the average by {@code alpha = 1 - exp(-dt / tau)} of the difference,
 * so a sample after a long gap counts more than one right after the last, and the average forgets
 * at the same rate whatever the sampling rhythm. Peak-sensitive: a sample above the average is
 * taken at once, only a falling signal is smoothed. Used on the control thread only.
 */
public final class Ewma {
  private final double tauNanos;
  private final boolean peakSensitive;
  private double value = Double.NaN;
  private long lastNanos;

  /** @param tauNanos the time constant, more than 0 */
  public Ewma(long tauNanos, boolean peakSensitive) {
    if (tauNanos <= 0) {
      throw new IllegalArgumentException("tau must be positive");
    }
    this.tauNanos = tauNanos;
    this.peakSensitive = peakSensitive;
  }

  /** {@code 1 - exp(-dt / tau)}: the share of the difference a sample {@code dtNanos} after the last one moves. */
  public static double alpha(long dtNanos, double tauNanos) {
    return dtNanos <= 0 ? 0 : -Math.expm1(-dtNanos / tauNanos);
  }

  /** Takes a sample at {@code nowNanos}; the first sample is the average. Returns the new average. */
  public double add(double sample, long nowNanos) {
    if (Double.isNaN(value) || (peakSensitive && sample > value)) {
      value = sample;
    } else {
      value += alpha(nowNanos - lastNanos, tauNanos) * (sample - value);
    }
    lastNanos = nowNanos;
    return value;
  }

  /** The average, NaN before the first sample or after {@link #reset()}. */
  public double value() {
    return value;
  }

  /** Forgets every sample. */
  public void reset() {
    value = Double.NaN;
  }
}
