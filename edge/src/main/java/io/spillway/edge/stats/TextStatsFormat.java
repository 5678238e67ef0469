package io.spillway.edge.stats;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Envoy's plain-text {@code /stats}: one {@code name: value} line per counter and gauge, sorted by
 * name, then one line per histogram, sorted by name:
 * {@code name: P0(interval,cumulative) P25(..) .. P100(..)}, {@code nan} for an empty interval, or
 * {@code name: No recorded values}.
 */
public final class TextStatsFormat {

  private TextStatsFormat() {}

  public static String render(StatsStore store, StatFilter filter) {
    StringBuilder out = new StringBuilder();
    try {
      render(store, filter, out);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringBuilder does not throw
    }
    return out.toString();
  }

  public static void render(StatsStore store, StatFilter filter, Appendable out) throws IOException {
    for (Stat stat : store.stats()) {
      if (stat instanceof Histogram || !filter.matches(stat)) {
        continue;
      }
      String value = switch (stat) {
        case Counter counter -> Long.toString(counter.value());
        case Gauge gauge -> Long.toString(gauge.value());
        case SuppliedGauge gauge -> DecimalText.format(gauge.value());
        case Histogram histogram -> throw new AssertionError(histogram);
      };
      out.append(stat.name()).append(": ").append(value).append('\n');
    }
    for (Stat stat : store.stats()) {
      if (stat instanceof Histogram histogram && filter.matches(stat)) {
        out.append(stat.name()).append(": ").append(quantileSummary(histogram.snapshot())).append('\n');
      }
    }
  }

  static String quantileSummary(HistogramSnapshot snapshot) {
    if (snapshot.sampleCount() == 0) {
      return "No recorded values";
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < HistogramSnapshot.SUPPORTED_QUANTILES.size(); i++) {
      if (i > 0) {
        out.append(' ');
      }
      out.append('P').append(DecimalText.format(HistogramSnapshot.SUPPORTED_QUANTILES.get(i)))
          .append('(').append(DecimalText.format(snapshot.intervalQuantile(i)))
          .append(',').append(DecimalText.format(snapshot.cumulativeQuantile(i))).append(')');
    }
    return out.toString();
  }
}
