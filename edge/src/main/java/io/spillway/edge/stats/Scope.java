package io.spillway.edge.stats;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * A stat name prefix plus the Prometheus tags extracted from it, as Envoy builds them.
 *
 * <p>{@code root.taggedScope("cluster", "backend", Tag.CLUSTER_NAME).counter("upstream_rq_total")}
 * is {@code cluster.backend.upstream_rq_total} in {@code /stats} and
 * {@code envoy_cluster_upstream_rq_total{envoy_cluster_name="backend"}} in Prometheus: a tagged
 * segment's value is part of the flat name but not of the Prometheus name. The split is structural,
 * so values containing dots ({@code listener.0.0.0.0_10000.}) need no name parsing.
 *
 * <p>Prometheus names are {@code envoy_} plus the flat name without tagged values, with every
 * character outside {@code [a-zA-Z0-9_:]} replaced by {@code _}. Labels render in the order Envoy's
 * default tag extraction produces them: the stat's own tag (response code class) first, then the
 * scopes' tags from the innermost outwards.
 *
 * <p>Scopes are cheap immutable values; build them and their stats when config is built, never per
 * request.
 */
public final class Scope {

  static final String ENVOY_PREFIX = "envoy_";

  private final StatsStore store;
  private final String prefix;
  private final String tagExtractedPrefix;
  private final List<Tag> tags;

  Scope(StatsStore store, String prefix, String tagExtractedPrefix, List<Tag> tags) {
    this.store = store;
    this.prefix = prefix;
    this.tagExtractedPrefix = tagExtractedPrefix;
    this.tags = List.copyOf(tags);
  }

  /** The flat prefix of stats in this scope, e.g. {@code cluster.backend.}; empty for the root. */
  public String prefix() {
    return prefix;
  }

  /** The tags this scope adds to its stats, innermost first. */
  public List<Tag> tags() {
    return tags;
  }

  /** The child scope {@code <prefix><segment>.}. */
  public Scope scope(String segment) {
    requireSegment(segment, "segment");
    return new Scope(store, prefix + segment + ".", tagExtractedPrefix + segment + ".", tags);
  }

  /**
   * The child scope {@code <prefix><segment>.<value>.} whose stats carry {@code tagName=value} and
   * whose Prometheus names leave {@code <value>} out. {@code value} may contain dots.
   *
   * @throws IllegalArgumentException if this scope already carries {@code tagName}
   */
  public Scope taggedScope(String segment, String value, String tagName) {
    requireSegment(segment, "segment");
    requireSegment(value, "tag value");
    Tag tag = new Tag(tagName, value);
    for (Tag existing : tags) {
      if (existing.name().equals(tagName)) {
        throw new IllegalArgumentException("scope " + prefix + " already carries tag " + tagName);
      }
    }
    List<Tag> nested = new ArrayList<>(tags.size() + 1);
    nested.add(tag);
    nested.addAll(tags);
    return new Scope(store, prefix + segment + "." + value + ".", tagExtractedPrefix + segment + ".", nested);
  }

  /**
   * The child scope {@code <prefix><value>.<segment>.}, for Envoy's names whose tagged value comes
   * first ({@code <stat_prefix>.http_local_rate_limit.}): its stats carry {@code tagName=value} and
   * their Prometheus names leave {@code <value>} out.
   *
   * @throws IllegalArgumentException if this scope already carries {@code tagName}
   */
  public Scope valueFirstTaggedScope(String value, String segment, String tagName) {
    requireSegment(segment, "segment");
    requireSegment(value, "tag value");
    for (Tag existing : tags) {
      if (existing.name().equals(tagName)) {
        throw new IllegalArgumentException("scope " + prefix + " already carries tag " + tagName);
      }
    }
    List<Tag> nested = new ArrayList<>(tags.size() + 1);
    nested.add(new Tag(tagName, value));
    nested.addAll(tags);
    return new Scope(store, prefix + value + "." + segment + ".", tagExtractedPrefix + segment + ".", nested);
  }

  public Counter counter(String name) {
    return store.register(statName(name, name, null), Counter.class, Counter::new);
  }

  /**
   * A counter whose Prometheus name and extra tag differ from its flat name, as for Envoy's
   * response-code stats: {@code counter("downstream_rq_2xx", "downstream_rq_xx",
   * Tag.RESPONSE_CODE_CLASS, "2")}.
   *
   * @param name the flat name's last part
   * @param promName the Prometheus name's last part (without {@code envoy_} and the scope prefix)
   */
  public Counter counter(String name, String promName, String tagName, String tagValue) {
    requireSegment(promName, "Prometheus name");
    return store.register(statName(name, promName, new Tag(tagName, tagValue)), Counter.class, Counter::new);
  }

  /**
   * Envoy's {@code <prefix>_<class>xx} counter, e.g. {@code responseCodeClassCounter("downstream_rq", 2)}:
   * {@code http.ingress.downstream_rq_2xx}, rendered as
   * {@code envoy_http_downstream_rq_xx{envoy_response_code_class="2",envoy_http_conn_manager_prefix="ingress"}}.
   *
   * @param codeClass 1 to 5
   */
  public Counter responseCodeClassCounter(String prefix, int codeClass) {
    if (codeClass < 1 || codeClass > 5) {
      throw new IllegalArgumentException("response code class must be 1 to 5: " + codeClass);
    }
    return counter(prefix + "_" + codeClass + "xx", prefix + "_xx", Tag.RESPONSE_CODE_CLASS,
        Integer.toString(codeClass));
  }

  /**
   * Envoy's {@code <prefix>_<code>} counter, e.g. {@code responseCodeCounter("upstream_rq", 503)}:
   * {@code cluster.backend.upstream_rq_503}, rendered as
   * {@code envoy_cluster_upstream_rq{envoy_response_code="503",envoy_cluster_name="backend"}}.
   *
   * @param code 100 to 599
   */
  public Counter responseCodeCounter(String prefix, int code) {
    if (code < 100 || code > 599) {
      throw new IllegalArgumentException("response code must be 100 to 599: " + code);
    }
    return counter(prefix + "_" + code, prefix, Tag.RESPONSE_CODE, Integer.toString(code));
  }

  public Gauge gauge(String name) {
    return store.register(statName(name, name, null), Gauge.class, Gauge::new);
  }

  /** A gauge read from {@code supplier} at render time, e.g. heap in use. */
  public SuppliedGauge gauge(String name, LongSupplier supplier) {
    Objects.requireNonNull(supplier, "supplier");
    return fractionalGauge(name, () -> supplier.getAsLong());
  }

  /** A gauge with a fractional value read from {@code supplier} at render time. */
  public SuppliedGauge fractionalGauge(String name, DoubleSupplier supplier) {
    SuppliedGauge gauge = store.register(
        statName(name, name, null), SuppliedGauge.class, statName -> new SuppliedGauge(statName, supplier));
    gauge.supplyFrom(supplier);
    return gauge;
  }

  /** @throws IllegalArgumentException if the histogram exists with another unit */
  public Histogram histogram(String name, Histogram.Unit unit) {
    Objects.requireNonNull(unit, "unit");
    Histogram histogram = store.register(
        statName(name, name, null), Histogram.class, statName -> new Histogram(statName, unit, store.options().buckets(statName.name())));
    if (histogram.unit() != unit) {
      throw new IllegalArgumentException(
          "histogram " + histogram.name() + " already exists in " + histogram.unit() + ", not " + unit);
    }
    return histogram;
  }

  private StatName statName(String name, String promName, Tag statTag) {
    requireSegment(name, "stat name");
    List<Tag> statTags = tags;
    if (statTag != null) {
      statTags = new ArrayList<>(tags.size() + 1);
      statTags.add(statTag);
      statTags.addAll(tags);
    }
    String tagExtracted = tagExtractedPrefix + promName;
    return store.options().apply(
        new StatName(prefix + name, tagExtracted, ENVOY_PREFIX + PrometheusNames.sanitize(tagExtracted), statTags));
  }

  private static void requireSegment(String segment, String what) {
    if (segment == null || segment.isEmpty()) {
      throw new IllegalArgumentException(what + " must not be empty");
    }
  }

  @Override
  public String toString() {
    return "Scope[" + prefix + ", tags=" + tags + "]";
  }
}
