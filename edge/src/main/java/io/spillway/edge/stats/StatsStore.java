package io.spillway.edge.stats;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The root of all stats of one edge process: one is built at startup and handed to whatever builds
 * config (there is no global registry). Stats are created through {@link #rootScope()} or
 * {@link #customScope()} when a config snapshot is built, held by reference, and never removed.
 *
 * <p>Creating a stat that exists returns the existing object, so a config reload that rebuilds its
 * scopes keeps counting where the previous config left off. Creating a name that exists with a
 * different kind, unit or Prometheus identity, or a Prometheus series that another flat name already
 * renders, is a load-time {@link IllegalArgumentException}: it would corrupt the exposition.
 *
 * <p>Creation serializes on a lock (config build path only); reading and the stats themselves never
 * do.
 */
public final class StatsStore {

  private final ConcurrentSkipListMap<String, Stat> stats = new ConcurrentSkipListMap<>();
  private final Collection<Stat> statsView = Collections.unmodifiableCollection(stats.values());
  private final ReentrantLock registration = new ReentrantLock();
  // Guarded by registration: the Prometheus type of each family, and every series rendered.
  private final Map<String, String> familyTypes = new HashMap<>();
  private final Set<Series> series = new HashSet<>();
  private final Scope rootScope = new Scope(this, "", "", List.of());
  private final CustomScope customScope = new CustomScope(this);

  private final StatsOptions options;

  public StatsStore() {
    this(StatsOptions.DEFAULTS);
  }

  /** @param options {@code stats_config}: which stats exist and how they are tagged */
  public StatsStore(StatsOptions options) {
    this.options = options;
  }

  StatsOptions options() {
    return options;
  }

  /** The scope with an empty prefix whose Prometheus names get Envoy's {@code envoy_} prefix. */
  public Scope rootScope() {
    return rootScope;
  }

  /** The scope for our own metrics, whose Prometheus names are used verbatim (SPEC §3.5). */
  public CustomScope customScope() {
    return customScope;
  }

  /** Every stat, sorted by flat name; a live, weakly consistent, read-only view. */
  public Collection<Stat> stats() {
    return statsView;
  }

  /** Visits every stat in flat-name order. */
  public void forEach(Consumer<? super Stat> visitor) {
    statsView.forEach(visitor);
  }

  /** The stat with this flat name, e.g. {@code cluster.backend.upstream_rq_total}. */
  public Optional<Stat> find(String name) {
    return Optional.ofNullable(stats.get(name));
  }

  /**
   * {@code /reset_counters}: counters read zero afterwards and keep counting, histograms drop their
   * values; gauges are untouched and every stat keeps its {@link Stat#used()} flag.
   */
  public void resetCounters() {
    for (Stat stat : stats.values()) {
      switch (stat) {
        case Counter counter -> counter.reset();
        case Histogram histogram -> histogram.reset();
        case Gauge gauge -> { }
        case SuppliedGauge gauge -> { }
      }
    }
  }

  /**
   * Returns the stat named {@code name.name()} if it exists with the same kind and names, else
   * creates it with {@code factory}.
   */
  <T extends Stat> T register(StatName name, Class<T> kind, Function<StatName, T> factory) {
    if (!options.accepts().test(name.name())) {
      return factory.apply(name); // kept by its owner, never listed (stats_matcher)
    }
    Stat existing = stats.get(name.name());
    if (existing == null) {
      registration.lock();
      try {
        existing = stats.get(name.name());
        if (existing == null) {
          claimSeries(name, kind);
          T created = factory.apply(name);
          stats.put(name.name(), created);
          return created;
        }
      } finally {
        registration.unlock();
      }
    }
    if (!kind.isInstance(existing)) {
      throw new IllegalArgumentException("stat " + name.name() + " already exists as a "
          + existing.getClass().getSimpleName() + ", not a " + kind.getSimpleName());
    }
    if (!existing.statName().equals(name)) {
      throw new IllegalArgumentException(
          "stat " + name.name() + " already exists as " + existing.statName() + ", not " + name);
    }
    return kind.cast(existing);
  }

  private void claimSeries(StatName name, Class<? extends Stat> kind) {
    String type = prometheusType(kind);
    String knownType = familyTypes.get(name.prometheusName());
    if (knownType != null && !knownType.equals(type)) {
      throw new IllegalArgumentException("stat " + name.name() + " would make Prometheus family "
          + name.prometheusName() + " a " + type + ", but it is a " + knownType);
    }
    Series key = new Series(name.prometheusName(), Set.copyOf(name.tags()));
    if (!series.add(key)) {
      throw new IllegalArgumentException("stat " + name.name() + " would render the same Prometheus series "
          + name.prometheusName() + name.tags() + " as another stat");
    }
    familyTypes.put(name.prometheusName(), type);
  }

  static String prometheusType(Class<? extends Stat> kind) {
    if (kind == Counter.class) {
      return "counter";
    }
    if (kind == Histogram.class) {
      return "histogram";
    }
    return "gauge";
  }

  private record Series(String family, Set<Tag> labels) {}
}
