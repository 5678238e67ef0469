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
}
