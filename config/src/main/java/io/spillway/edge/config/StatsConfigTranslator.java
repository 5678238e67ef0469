package io.spillway.edge.config;

import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.envoyproxy.envoy.config.metrics.v3.StatsMatcher;
import io.envoyproxy.envoy.config.metrics.v3.TagSpecifier;
import io.envoyproxy.envoy.type.matcher.v3.ListStringMatcher;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code stats_config} → {@link StatsConfig}. Stats eviction and default-tag overrides are not
 * supported and are refused.
 */
final class StatsConfigTranslator {
  private static final SupportedFields STATS_CONFIG = SupportedFields.of(
      io.envoyproxy.envoy.config.metrics.v3.StatsConfig.getDescriptor(), "stats_tags", "use_all_default_tags",
      "stats_matcher", "histogram_bucket_settings");
  private static final SupportedFields BUCKETS = SupportedFields.of(
      io.envoyproxy.envoy.config.metrics.v3.HistogramBucketSettings.getDescriptor(), "match", "buckets");
  private static final SupportedFields TAG = SupportedFields.of(TagSpecifier.getDescriptor(),
      "tag_name", "regex", "fixed_value");
  private static final SupportedFields LIST = SupportedFields.of(ListStringMatcher.getDescriptor(), "patterns");

  private StatsConfigTranslator() {}

  static StatsConfig translate(Bootstrap bootstrap, FieldPath root) throws ConfigException {
    if (!bootstrap.hasStatsConfig()) {
      return StatsConfig.DEFAULTS;
    }
    FieldPath path = root.field("stats_config");
    var c = bootstrap.getStatsConfig();
    STATS_CONFIG.check(c, path);
    List<StatsConfig.TagSpecifier> tags = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (int i = 0; i < c.getStatsTagsCount(); i++) {
      FieldPath at = path.field("stats_tags").index(i);
      TagSpecifier t = c.getStatsTags(i);
      TAG.check(t, at);
      if (t.getTagName().isEmpty()) {
        throw new ConfigException(at.field("tag_name"), "tag_name is required");
      }
      if (!names.add(t.getTagName())) {
        throw new ConfigException(at.field("tag_name"), "tag \"" + t.getTagName() + "\" is specified twice");
      }
      tags.add(switch (t.getTagValueCase()) {
        case FIXED_VALUE -> new StatsConfig.TagSpecifier(t.getTagName(), null, t.getFixedValue());
        case REGEX -> new StatsConfig.TagSpecifier(t.getTagName(), regex(t.getRegex(), at.field("regex")), null);
        default -> throw new ConfigException(at, "a regex or a fixed_value is required (Envoy's default regex"
            + " for a tag name is not supported)");
      });
    }
    boolean defaults = !c.hasUseAllDefaultTags() || c.getUseAllDefaultTags().getValue();
    return new StatsConfig(defaults, tags, matcher(c, path), buckets(c, path));
  }

  /** Envoy's rules: a match is required, at least one bound, each above 0 and given once; any order. */
  private static List<StatsConfig.HistogramBuckets> buckets(io.envoyproxy.envoy.config.metrics.v3.StatsConfig c,
      FieldPath path) throws ConfigException {
    List<StatsConfig.HistogramBuckets> out = new ArrayList<>();
    for (int i = 0; i < c.getHistogramBucketSettingsCount(); i++) {
      FieldPath at = path.field("histogram_bucket_settings").index(i);
      var setting = c.getHistogramBucketSettings(i);
      BUCKETS.check(setting, at);
      if (!setting.hasMatch()) {
        throw new ConfigException(at.field("match"), "match is required");
      }
      Route.StringMatch match = MatchTranslator.string(setting.getMatch(), at.field("match"));
      if (setting.getBucketsCount() == 0) {
        throw new ConfigException(at.field("buckets"), "at least one bucket is required");
      }
      Set<Double> seen = new HashSet<>();
      for (int b = 0; b < setting.getBucketsCount(); b++) {
        double bound = setting.getBuckets(b);
        if (!(bound > 0) || Double.isInfinite(bound)) {
          throw new ConfigException(at.field("buckets").index(b), "a bucket must be a finite number greater than 0,"
              + " got " + bound);
        }
        if (!seen.add(bound)) {
          throw new ConfigException(at.field("buckets").index(b), "bucket " + bound + " is given twice");
        }
      }
      out.add(new StatsConfig.HistogramBuckets(match, seen.stream().sorted().toList()));
    }
    return out;
  }

  private static Pattern regex(String regex, FieldPath path) throws ConfigException {
    Pattern p;
    try {
      p = Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      throw new ConfigException(path, "invalid regex: " + e.getDescription());
    }
    if (p.matcher("").groupCount() < 1) {
      throw new ConfigException(path, "the regex needs a capture group (the part of the name that is the tag)");
    }
    return p;
  }

  private static StatsConfig.Matcher matcher(io.envoyproxy.envoy.config.metrics.v3.StatsConfig c, FieldPath path)
      throws ConfigException {
    if (!c.hasStatsMatcher()) {
      return new StatsConfig.Matcher.All();
    }
    FieldPath at = path.field("stats_matcher");
    StatsMatcher m = c.getStatsMatcher();
    return switch (m.getStatsMatcherCase()) {
      case REJECT_ALL -> m.getRejectAll() ? new StatsConfig.Matcher.RejectAll() : new StatsConfig.Matcher.All();
      case INCLUSION_LIST -> new StatsConfig.Matcher.Inclusion(patterns(m.getInclusionList(),
          at.field("inclusion_list")));
      case EXCLUSION_LIST -> new StatsConfig.Matcher.Exclusion(patterns(m.getExclusionList(),
          at.field("exclusion_list")));
      default -> throw new ConfigException(at, "one of reject_all, inclusion_list or exclusion_list is required");
    };
  }

  private static List<Route.StringMatch> patterns(ListStringMatcher list, FieldPath path) throws ConfigException {
    LIST.check(list, path);
    if (list.getPatternsCount() == 0) {
      throw new ConfigException(path.field("patterns"), "at least one pattern is required");
    }
    List<Route.StringMatch> out = new ArrayList<>();
    for (int i = 0; i < list.getPatternsCount(); i++) {
      out.add(MatchTranslator.string(list.getPatterns(i), path.field("patterns").index(i)));
    }
    return out;
  }
}
