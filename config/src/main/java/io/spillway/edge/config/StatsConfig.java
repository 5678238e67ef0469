package io.spillway.edge.config;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Envoy's {@code stats_config}: the tags extracted from stat names and which stats exist.
 *
 * @param useAllDefaultTags {@code use_all_default_tags} (default true)
 * @param tags {@code stats_tags}, in order
 * @param matcher {@code stats_matcher}
 */
public record StatsConfig(boolean useAllDefaultTags, List<TagSpecifier> tags, Matcher matcher) {
  public static final StatsConfig DEFAULTS = new StatsConfig(true, List.of(), new Matcher.All());

  public StatsConfig {
    tags = List.copyOf(tags);
    Objects.requireNonNull(matcher, "matcher");
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
