package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class StatsConfigTranslationTest {

  @Test
  void defaultsWithoutStatsConfig() throws ConfigException {
    assertThat(BootstrapYaml.minimal().translate().statsConfig()).isEqualTo(StatsConfig.DEFAULTS);
  }

  @Test
  void readsTagsTheDefaultTagSwitchAndTheMatcher() throws ConfigException {
    StatsConfig c = BootstrapYaml.minimal().top("""
        stats_config:
          use_all_default_tags: false
          stats_tags:
          - tag_name: cluster_name
            regex: "^cluster\\\\.((.+?)\\\\.)"
          - tag_name: mesh_id
            fixed_value: blue
          stats_matcher:
            exclusion_list:
              patterns: [{prefix: "http2."}, {safe_regex: {regex: ".*_rq_[0-9]{3}$"}}]
        """).translate().statsConfig();

    assertThat(c.useAllDefaultTags()).isFalse();
    assertThat(c.tags()).hasSize(2);
    assertThat(c.tags().get(0).regex().pattern()).isEqualTo("^cluster\\.((.+?)\\.)");
    assertThat(c.tags().get(1).fixedValue()).isEqualTo("blue");
    assertThat(c.matcher()).isInstanceOf(StatsConfig.Matcher.Exclusion.class);
    assertThat(((StatsConfig.Matcher.Exclusion) c.matcher()).patterns()).hasSize(2);
    assertThat(BootstrapYaml.minimal().top("stats_config: {stats_matcher: {reject_all: true}}\n").translate()
        .statsConfig().matcher()).isEqualTo(new StatsConfig.Matcher.RejectAll());
    assertThat(BootstrapYaml.minimal().top("stats_config: {stats_matcher: {inclusion_list: {patterns: [{exact: a}]}}}\n")
        .translate().statsConfig().matcher()).isEqualTo(new StatsConfig.Matcher.Inclusion(
            List.of(new Route.StringMatch.Exact("a", false))));
  }

  @Test
  void refusesWhatItCannotHonourWithThePath() {
    BootstrapYaml.minimal().top("stats_config: {stats_tags: [{tag_name: a, regex: \"no-group\"}]}\n")
        .rejects("stats_config.stats_tags[0].regex: the regex needs a capture group (the part of the name that"
            + " is the tag)");
    BootstrapYaml.minimal().top("stats_config: {stats_tags: [{tag_name: envoy.cluster_name}]}\n")
        .rejects("stats_config.stats_tags[0]: a regex or a fixed_value is required (Envoy's default regex for a"
            + " tag name is not supported)");
    BootstrapYaml.minimal().top("stats_config: {stats_tags: [{tag_name: a, fixed_value: x}, {tag_name: a,"
        + " fixed_value: y}]}\n").rejects("stats_config.stats_tags[1].tag_name: tag \"a\" is specified twice");
    BootstrapYaml.minimal().top("stats_config: {stats_matcher: {inclusion_list: {}}}\n")
        .rejects("stats_config.stats_matcher.inclusion_list.patterns: at least one pattern is required");
  }

  @Test
  void readsHistogramBucketSettingsSortedInOrderOfTheRules() throws ConfigException {
    StatsConfig c = BootstrapYaml.minimal().top("""
        stats_config:
          histogram_bucket_settings:
          - match: {suffix: upstream_rq_time}
            buckets: [250, 0.5, 10]
          - match: {prefix: "cluster."}
            buckets: [1]
        """).translate().statsConfig();

    assertThat(c.histogramBuckets()).containsExactly(
        new StatsConfig.HistogramBuckets(new Route.StringMatch.Suffix("upstream_rq_time", false), List.of(0.5, 10.0, 250.0)),
        new StatsConfig.HistogramBuckets(new Route.StringMatch.Prefix("cluster.", false), List.of(1.0)));
  }

  @Test
  void refusesBadHistogramBucketSettingsWithThePath() {
    BootstrapYaml.minimal().top("stats_config: {histogram_bucket_settings: [{buckets: [1]}]}\n")
        .rejects("stats_config.histogram_bucket_settings[0].match: match is required");
    BootstrapYaml.minimal().top("stats_config: {histogram_bucket_settings: [{match: {prefix: a}}]}\n")
        .rejects("stats_config.histogram_bucket_settings[0].buckets: at least one bucket is required");
    BootstrapYaml.minimal().top("stats_config: {histogram_bucket_settings: [{match: {prefix: a}, buckets: [1, 0]}]}\n")
        .rejects("stats_config.histogram_bucket_settings[0].buckets[1]: a bucket must be a finite number greater"
            + " than 0, got 0.0");
    BootstrapYaml.minimal().top("stats_config: {histogram_bucket_settings: [{match: {prefix: a}, buckets: [-2]}]}\n")
        .rejects("stats_config.histogram_bucket_settings[0].buckets[0]: a bucket must be a finite number greater"
            + " than 0, got -2.0");
    BootstrapYaml.minimal().top("stats_config: {histogram_bucket_settings: [{match: {prefix: a}, buckets: [1, 5, 1]}]}\n")
        .rejects("stats_config.histogram_bucket_settings[0].buckets[2]: bucket 1.0 is given twice");
  }
}
