package io.spillway.edge.stats;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class StatsOptionsTest {

  private static Counter clusterCounter(StatsOptions options) {
    return new StatsStore(options).rootScope().taggedScope("cluster", "backend", Tag.CLUSTER_NAME)
        .counter("upstream_rq_total");
  }

  @Test
  void theDefaultsKeepEnvoysDefaultTags() {
    StatName name = clusterCounter(StatsOptions.DEFAULTS).statName();

    assertThat(name.prometheusName()).isEqualTo("envoy_cluster_upstream_rq_total");
    assertThat(name.tags()).containsExactly(new Tag(Tag.CLUSTER_NAME, "backend"));
  }

  @Test
  void withoutDefaultTagsTheWholeNameIsTheMetricAndThereAreNoLabels() {
    StatName name = clusterCounter(new StatsOptions(n -> true, false, List.of())).statName();

    assertThat(name.name()).isEqualTo("cluster.backend.upstream_rq_total");
    assertThat(name.prometheusName()).isEqualTo("envoy_cluster_backend_upstream_rq_total");
    assertThat(name.tags()).isEmpty();
  }

  @Test
  void customTagsCutTheirFirstGroupAndTakeTheSecondAsTheValueOrAddAFixedValue() {
    StatsOptions options = new StatsOptions(n -> true, false, List.of(
        new StatsOptions.CustomTag("cluster_name", Pattern.compile("^cluster\\.((.+?)\\.)"), null),
        new StatsOptions.CustomTag("mesh.id", null, "blue")));

    StatName name = clusterCounter(options).statName();

    assertThat(name.tagExtractedName()).isEqualTo("cluster.upstream_rq_total");
    assertThat(name.prometheusName()).isEqualTo("envoy_cluster_upstream_rq_total");
    assertThat(name.tags()).containsExactly(new Tag("cluster_name", "backend"), new Tag("mesh_id", "blue"));
  }

  @Test
  void aTagWhoseRegexDoesNotMatchAddsNothing() {
    StatsOptions options = new StatsOptions(n -> true, true, List.of(
        new StatsOptions.CustomTag("listener", Pattern.compile("^listener\\.((.+?)\\.)"), null)));

    assertThat(clusterCounter(options).statName().tags()).containsExactly(new Tag(Tag.CLUSTER_NAME, "backend"));
  }

  @Test
  void aRejectedStatCountsButIsNeverListed() {
    StatsStore store = new StatsStore(new StatsOptions(n -> !n.startsWith("cluster."), true, List.of()));
    Counter rejected = store.rootScope().scope("cluster").scope("backend").counter("upstream_rq_total");
    Counter kept = store.rootScope().scope("server").counter("kept");

    rejected.inc();
    kept.inc();

    assertThat(rejected.value()).isEqualTo(1);
    assertThat(store.find("cluster.backend.upstream_rq_total")).isEmpty();
    assertThat(store.find("server.kept")).contains(kept);
  }

  @Test
  void theFirstBucketRuleThatMatchesAHistogramsFlatNameGivesItsBounds() {
    StatsStore store = new StatsStore(new StatsOptions(n -> true, true, List.of(), List.of(
        new StatsOptions.BucketRule(n -> n.endsWith("upstream_rq_time"), List.of(2.0, 20.0)),
        new StatsOptions.BucketRule(n -> n.startsWith("cluster."), List.of(7.0)))));
    Scope cluster = store.rootScope().taggedScope("cluster", "backend", Tag.CLUSTER_NAME);
    Histogram time = cluster.histogram("upstream_rq_time", Histogram.Unit.MILLISECONDS);
    Histogram length = cluster.histogram("upstream_cx_length_ms", Histogram.Unit.MILLISECONDS);
    Histogram other = store.rootScope().scope("server").histogram("initialization_time_ms",
        Histogram.Unit.MILLISECONDS);
    Histogram custom = store.customScope().histogram("http_upstream_rq_time", java.util.Map.of(),
        Histogram.Unit.MILLISECONDS);
    for (long v : new long[] {1, 3, 30}) {
      time.record(v);
      length.record(v);
    }

    HistogramSnapshot t = time.snapshot();
    assertThat(t.bucketCount()).isEqualTo(2);
    assertThat(t.bucketBound(0)).isEqualTo(2.0);
    assertThat(t.cumulativeBucketCount(0)).isEqualTo(1);
    assertThat(t.cumulativeBucketCount(1)).isEqualTo(2); // 30 is above 20: only in +Inf
    HistogramSnapshot l = length.snapshot();
    assertThat(l.bucketCount()).isEqualTo(1);
    assertThat(l.cumulativeBucketCount(0)).isEqualTo(2);
    assertThat(other.snapshot().bucketCount()).isEqualTo(HistogramSnapshot.BUCKETS.size());
    assertThat(custom.snapshot().bucketCount()).isEqualTo(2); // the rule sees the flat name
  }

  @Test
  void bucketBoundsMustBeAscendingAndAboveZero() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new StatsOptions.BucketRule(n -> true, List.of(2.0, 1.0)))
        .isInstanceOf(IllegalArgumentException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new StatsOptions.BucketRule(n -> true, List.of(0.0)))
        .isInstanceOf(IllegalArgumentException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new StatsOptions.BucketRule(n -> true, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
