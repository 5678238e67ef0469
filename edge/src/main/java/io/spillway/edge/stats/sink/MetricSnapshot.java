package io.spillway.edge.stats.sink;

import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Gauge;
import io.spillway.edge.stats.Histogram;
import io.spillway.edge.stats.HistogramValues;
import io.spillway.edge.stats.Stat;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.stats.SuppliedGauge;
import java.util.ArrayList;
import java.util.List;

/**
 * What one stats flush hands to every sink, as Envoy's {@code MetricSnapshot}: every used counter
 * with its delta since the previous flush (zero deltas included, as Envoy sends them), every used
 * gauge with its value, and every histogram's values recorded since the previous flush (only
 * histograms that recorded some). Each list is in flat-name order.
 *
 * @param counters used counters and their deltas
 * @param gauges used gauges and their values (a supplied gauge that reads NaN is left out)
 * @param histograms histograms with values since the previous flush
 */
public record MetricSnapshot(List<CounterDelta> counters, List<GaugeValue> gauges, List<HistogramSample> histograms) {

  public MetricSnapshot {
    counters = List.copyOf(counters);
    gauges = List.copyOf(gauges);
    histograms = List.copyOf(histograms);
  }

  /** A counter and its increments since the previous flush. */
  public record CounterDelta(Counter counter, long delta) {}

  /** A gauge (a {@link Gauge} or a {@link SuppliedGauge}) and its value at the flush. */
  public record GaugeValue(Stat gauge, double value) {}

  /** A histogram and the values it recorded since the previous flush. */
  public record HistogramSample(Histogram histogram, HistogramValues values) {}

  /**
   * Latches every counter and histogram of {@code store} (so the next snapshot starts from here)
   * and reads every gauge. Counters and histograms are latched whether used or not, as Envoy does.
   * Main thread only: a counter's latch has one reader.
   */
  public static MetricSnapshot latch(StatsStore store) {
    List<CounterDelta> counters = new ArrayList<>();
    List<GaugeValue> gauges = new ArrayList<>();
    List<HistogramSample> histograms = new ArrayList<>();
    for (Stat stat : store.stats()) {
      switch (stat) {
        case Counter counter -> {
          long delta = counter.latch();
          if (counter.used()) {
            counters.add(new CounterDelta(counter, delta));
          }
        }
        case Gauge gauge -> {
          if (gauge.used()) {
            gauges.add(new GaugeValue(gauge, gauge.value()));
          }
        }
        case SuppliedGauge gauge -> {
          double value = gauge.value();
          if (!Double.isNaN(value)) {
            gauges.add(new GaugeValue(gauge, value));
          }
        }
        case Histogram histogram -> {
          HistogramValues values = histogram.latch();
          if (!values.isEmpty()) {
            histograms.add(new HistogramSample(histogram, values));
          }
        }
      }
    }
    return new MetricSnapshot(counters, gauges, histograms);
  }
}
