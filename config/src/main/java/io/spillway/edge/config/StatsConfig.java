package io.spillway.edge.config;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Envoy's {@code stats_config}: the tags extracted from stat names, which stats exist and the
 * histograms' bucket bounds.
 *
 * @param useAllDefaultTags {@code use_all_default_tags} (default true)
 * @param tags {@code stats_tags}, in order
 * @param matcher {@code stats_matcher}
 * @param histogramBuckets {@code histogram_bucket_settings}, in order: the first whose match
 *     accepts a histogram's name gives its buckets; none, Envoy's defaults
 */
public record StatsConfig(boolean useAllDefaultTags, List<TagSpecifier> tags, Matcher matcher,
    List<HistogramBuckets> histogramBuckets) {
  public static final StatsConfig DEFAULTS = new StatsConfig(true, List.of(), new Matcher.All(), List.of());

  public StatsConfig {
    tags = List.copyOf(tags);
    Objects.requireNonNull(matcher, "matcher");
    histogramBuckets = List.copyOf(histogramBuckets);
  }

  /**
   * One {@code histogram_bucket_settings} entry.
   *
   * @param match tested against the stat's name before tag extraction, e.g.
   *     {@code cluster.backend.upstream_rq_time}
   * @param buckets the upper bounds, distinct, above 0, sorted ascending
   */
  public record HistogramBuckets(Route.StringMatch match, List<Double> buckets) {
    public HistogramBuckets {
      Objects.requireNonNull(match, "match");
      buckets = List.copyOf(buckets);
    }
  }

  /**
   * One {@code stats_tags} entry.
   *
   * @param regex searched in the stat's name; group 1 is cut out, group 2 (else 1) is the value; null
   *     with a fixed value
   * @param fixedValue the value every stat gets; null with a regex
   */
  public record TagSpecifier(String name, Pattern regex, String fixedValue) {}

  /** {@code stats_matcher}: which stats are created. */
  public sealed interface Matcher {
    /** No matcher: every stat. */
    record All() implements Matcher {}

    /** {@code reject_all: true}. */
    record RejectAll() implements Matcher {}

    /** {@code inclusion_list}: only the stats whose name matches one. */
    record Inclusion(List<Route.StringMatch> patterns) implements Matcher {
      public Inclusion {
        patterns = List.copyOf(patterns);
      }
    }

    /** {@code exclusion_list}: every stat but those whose name matches one. */
    record Exclusion(List<Route.StringMatch> patterns) implements Matcher {
      public Exclusion {
        patterns = List.copyOf(patterns);
      }
    }
  }
}
