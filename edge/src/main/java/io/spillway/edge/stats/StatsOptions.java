package io.spillway.edge.stats;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Envoy's {@code stats_config}, as the stats store applies it when a stat is created: which stats
 * exist at all ({@code stats_matcher}), whether the default tags are extracted
 * ({@code use_all_default_tags}), the operator's own tags ({@code stats_tags}) and the histograms'
 * bucket bounds ({@code histogram_bucket_settings}).
 *
 * @param accepts whether a stat of that flat name is created; a rejected one still counts but is
 *     never listed, rendered or flushed (Envoy's null stats)
 * @param defaultTags extract Envoy's default tags (cluster name, listener address, ...); without
 *     them a stat's Prometheus name is its whole flat name and it has no labels
 * @param customTags applied in order to the tag-extracted name after the default tags
 * @param bucketRules tried in order on a histogram's flat name when it is created; the first that
 *     matches gives its bucket bounds, none {@link HistogramSnapshot#BUCKETS}
 */
public record StatsOptions(Predicate<String> accepts, boolean defaultTags, List<CustomTag> customTags,
    List<BucketRule> bucketRules) {
  /** Envoy's defaults: every stat, the default tags, no custom tags, the default buckets. */
  public static final StatsOptions DEFAULTS = new StatsOptions(name -> true, true, List.of());

  public StatsOptions {
    Objects.requireNonNull(accepts, "accepts");
    customTags = List.copyOf(customTags);
    bucketRules = List.copyOf(bucketRules);
  }

  /** Options with the default buckets for every histogram. */
  public StatsOptions(Predicate<String> accepts, boolean defaultTags, List<CustomTag> customTags) {
    this(accepts, defaultTags, customTags, List.of());
  }

  /**
   * One {@code histogram_bucket_settings} entry.
   *
   * @param matches whether a histogram of that flat name (before tag extraction) takes these bounds
   * @param bounds upper bounds in the histogram's unit, ascending, distinct, above 0
   */
  public record BucketRule(Predicate<String> matches, List<Double> bounds) {
    public BucketRule {
      Objects.requireNonNull(matches, "matches");
      bounds = List.copyOf(bounds);
      for (int i = 0; i < bounds.size(); i++) {
        if (!(bounds.get(i) > 0) || i > 0 && !(bounds.get(i) > bounds.get(i - 1))) {
          throw new IllegalArgumentException("bucket bounds must be above 0 and ascending: " + bounds);
        }
      }
      if (bounds.isEmpty()) {
        throw new IllegalArgumentException("a bucket rule needs at least one bound");
      }
    }
  }

  /** The bucket bounds of a histogram named {@code flatName}; read once, when it is created. */
  double[] buckets(String flatName) {
    for (BucketRule rule : bucketRules) {
      if (rule.matches().test(flatName)) {
        return rule.bounds().stream().mapToDouble(Double::doubleValue).toArray();
      }
    }
    return HistogramSnapshot.DEFAULT_BOUNDS;
  }

  /**
   * One {@code stats_tags} entry: a fixed value on every stat, or a regex searched in the
   * tag-extracted name whose first group is cut out of the name and whose second group (the first
   * when there is one) is the value.
   *
   * @param name Envoy's tag name; its Prometheus label has '.' and other invalid characters as '_'
   */
  public record CustomTag(String name, Pattern regex, String fixedValue) {
    public CustomTag {
      Objects.requireNonNull(name, "name");
      if ((regex == null) == (fixedValue == null)) {
        throw new IllegalArgumentException("a tag has a regex or a fixed value");
      }
      if (regex != null && regex.matcher("").groupCount() < 1) {
        throw new IllegalArgumentException("a tag's regex needs a capture group");
      }
    }

    String label() {
      return PrometheusNames.sanitize(name);
    }
  }

  /** A name made by a {@link Scope}, with the default tags dropped and the custom tags applied. */
  StatName apply(StatName name) {
    if (defaultTags && customTags.isEmpty()) {
      return name;
    }
    String extracted = defaultTags ? name.tagExtractedName() : name.name();
    List<Tag> tags = defaultTags ? new ArrayList<>(name.tags()) : new ArrayList<>();
    for (CustomTag t : customTags) {
      String label = t.label();
      if (tags.stream().anyMatch(existing -> existing.name().equals(label))) {
        continue; // a label once, as Envoy's tag producer gives a name one value
      }
      if (t.fixedValue() != null) {
        tags.add(new Tag(label, t.fixedValue()));
        continue;
      }
      Matcher m = t.regex().matcher(extracted);
      if (m.find() && m.group(1) != null) {
        String value = m.groupCount() >= 2 && m.group(2) != null ? m.group(2) : m.group(1);
        extracted = extracted.substring(0, m.start(1)) + extracted.substring(m.end(1));
        tags.add(new Tag(label, value));
      }
    }
    return new StatName(name.name(), extracted, Scope.ENVOY_PREFIX + PrometheusNames.sanitize(extracted), tags);
  }
}
