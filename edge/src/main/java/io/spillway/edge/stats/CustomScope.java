package io.spillway.edge.stats;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * Our own metrics, named as SPEC §3.5 names them rather than as Envoy would: the Prometheus name is
 * used verbatim (no {@code envoy_} prefix) and tags are given per stat.
 *
 * <p>{@code counter("http_admission_refused_total", Map.of("tier", "start", "mode", "shadow"))}
 * renders as {@code http_admission_refused_total{mode="shadow",tier="start"}} in Prometheus and as
 * {@code http_admission_refused_total.mode.shadow.tier.start} in {@code /stats}: the flat name is the
 * metric name followed by {@code .<tag>.<value>} for each tag, tags ordered by name both there and
 * in the labels, so any {@code Map} gives the same stat. The tag-extracted name (DogStatsD's) is the
 * metric name.
 */
public final class CustomScope {

  private final StatsStore store;

  CustomScope(StatsStore store) {
    this.store = store;
  }

  public Counter counter(String name) {
    return counter(name, Map.of());
  }

  public Counter counter(String name, Map<String, String> tags) {
    return store.register(statName(name, tags), Counter.class, Counter::new);
  }

  public Gauge gauge(String name) {
    return gauge(name, Map.of());
  }

  public Gauge gauge(String name, Map<String, String> tags) {
    return store.register(statName(name, tags), Gauge.class, Gauge::new);
  }

  /** A gauge read from {@code supplier} at render time. */
  public SuppliedGauge gauge(String name, Map<String, String> tags, LongSupplier supplier) {
    Objects.requireNonNull(supplier, "supplier");
    return fractionalGauge(name, tags, () -> supplier.getAsLong());
  }

  /** A gauge with a fractional value, e.g. {@code http_admission_rtt_seconds}, read at render time. */
  public SuppliedGauge fractionalGauge(String name, Map<String, String> tags, DoubleSupplier supplier) {
    SuppliedGauge gauge = store.register(
        statName(name, tags), SuppliedGauge.class, statName -> new SuppliedGauge(statName, supplier));
    gauge.supplyFrom(supplier);
    return gauge;
  }

  /** @throws IllegalArgumentException if the histogram exists with another unit */
  public Histogram histogram(String name, Map<String, String> tags, Histogram.Unit unit) {
    Objects.requireNonNull(unit, "unit");
    Histogram histogram = store.register(
        statName(name, tags), Histogram.class, statName -> new Histogram(statName, unit, store.options().buckets(statName.name())));
    if (histogram.unit() != unit) {
      throw new IllegalArgumentException(
          "histogram " + histogram.name() + " already exists in " + histogram.unit() + ", not " + unit);
    }
    return histogram;
  }

  private static StatName statName(String name, Map<String, String> tags) {
    PrometheusNames.requireMetricName(name);
    StringBuilder flat = new StringBuilder(name);
    List<Tag> labels = new ArrayList<>(tags.size());
    for (Map.Entry<String, String> tag : new TreeMap<>(tags).entrySet()) {
      labels.add(new Tag(tag.getKey(), tag.getValue()));
      flat.append('.').append(tag.getKey()).append('.').append(tag.getValue());
    }
    return new StatName(flat.toString(), name, name, labels);
  }
}
