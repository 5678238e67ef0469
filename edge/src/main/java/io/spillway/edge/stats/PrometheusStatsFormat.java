package io.spillway.edge.stats;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Prometheus text exposition format 0.0.4 for {@code /stats/prometheus}, as Envoy writes it.
 *
 * <p>Families are grouped under one {@code # TYPE} line each: all counter families sorted by name,
 * then gauges (including {@link SuppliedGauge}s), then histograms; within a family, samples follow
 * the flat names' order. A sample without tags is written {@code name{} value}, as Envoy does.
 * Histograms are cumulative Prometheus histograms over their bucket bounds (Envoy's
 * {@link HistogramSnapshot#BUCKETS}, or {@code histogram_bucket_settings}') in the stat's unit: {@code _bucket{..,le=".."}}, {@code le="+Inf"}, {@code _sum}, {@code _count}. The
 * filter applies to flat names, as Envoy's does.
 */
public final class PrometheusStatsFormat {

  /** The {@code Content-Type} of the exposition. */
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private PrometheusStatsFormat() {}

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
    Map<String, List<Stat>> counters = new TreeMap<>();
    Map<String, List<Stat>> gauges = new TreeMap<>();
    Map<String, List<Stat>> histograms = new TreeMap<>();
    for (Stat stat : store.stats()) {
      if (!filter.matches(stat)) {
        continue;
      }
      Map<String, List<Stat>> families = switch (stat) {
        case Counter counter -> counters;
        case Gauge gauge -> gauges;
        case SuppliedGauge gauge -> gauges;
        case Histogram histogram -> histograms;
      };
      families.computeIfAbsent(stat.statName().prometheusName(), name -> new ArrayList<>()).add(stat);
    }
    StringBuilder line = new StringBuilder(256);
    writeFamilies(counters, "counter", line, out);
    writeFamilies(gauges, "gauge", line, out);
    writeFamilies(histograms, "histogram", line, out);
  }

  private static void writeFamilies(
      Map<String, List<Stat>> families, String type, StringBuilder line, Appendable out) throws IOException {
    for (Map.Entry<String, List<Stat>> family : families.entrySet()) {
      out.append("# TYPE ").append(family.getKey()).append(' ').append(type).append('\n');
      for (Stat stat : family.getValue()) {
        line.setLength(0);
        switch (stat) {
          case Counter counter -> sample(line, stat, "", null, Long.toString(counter.value()));
          case Gauge gauge -> sample(line, stat, "", null, Long.toString(gauge.value()));
          case SuppliedGauge gauge -> sample(line, stat, "", null, PrometheusNames.sampleValue(gauge.value()));
          case Histogram histogram -> histogram(line, histogram);
        }
        out.append(line);
      }
    }
  }

  private static void histogram(StringBuilder line, Histogram histogram) {
    HistogramSnapshot snapshot = histogram.snapshot();
    for (int i = 0; i < snapshot.bucketCount(); i++) {
      sample(line, histogram, "_bucket", DecimalText.format(snapshot.bucketBound(i)),
          Long.toString(snapshot.cumulativeBucketCount(i)));
    }
    String count = Long.toString(snapshot.sampleCount());
    sample(line, histogram, "_bucket", "+Inf", count);
    sample(line, histogram, "_sum", null, PrometheusNames.sampleValue(snapshot.sampleSum()));
    sample(line, histogram, "_count", null, count);
  }

  /** Appends {@code <family><suffix>{<tags>[,le="<le>"]} <value>\n}. */
  private static void sample(StringBuilder line, Stat stat, String suffix, String le, String value) {
    StatName name = stat.statName();
    line.append(name.prometheusName()).append(suffix).append('{');
    PrometheusNames.appendLabels(line, name.tags());
    if (le != null) {
      if (!name.tags().isEmpty()) {
        line.append(',');
      }
      line.append("le=\"").append(le).append('"');
    }
    line.append("} ").append(value).append('\n');
  }
}
