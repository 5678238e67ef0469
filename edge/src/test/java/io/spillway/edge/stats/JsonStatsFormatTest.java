package io.spillway.edge.stats;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonStatsFormatTest {

  private final StatsStore store = new StatsStore();
  private final Scope cluster = store.rootScope().taggedScope("cluster", "backend", Tag.CLUSTER_NAME);

  @Test
  void countersAndGaugesThenHistogramsAsEnvoyWritesThem() {
    cluster.counter("upstream_rq_total").add(4);
    cluster.gauge("upstream_rq_active").set(2);
    cluster.histogram("upstream_rq_time", Histogram.Unit.MILLISECONDS).record(200);

    assertThat(JsonStatsFormat.render(store, StatFilter.ALL)).isEqualTo("""
        {"stats":[\
        {"name":"cluster.backend.upstream_rq_active","value":2},\
        {"name":"cluster.backend.upstream_rq_total","value":4},\
        {"histograms":{"supported_quantiles":[0,25,50,75,90,95,99,99.5,99.9,100],\
        "computed_quantiles":[{"name":"cluster.backend.upstream_rq_time","values":[\
        {"interval":200,"cumulative":200},{"interval":200,"cumulative":200},\
        {"interval":200,"cumulative":200},{"interval":200,"cumulative":200},\
        {"interval":200,"cumulative":200},{"interval":200,"cumulative":200},\
        {"interval":200,"cumulative":200},{"interval":200,"cumulative":200},\
        {"interval":200,"cumulative":200},{"interval":200,"cumulative":200}]}]}}]}""");
  }

  @Test
  void emptyQuantilesAreNull() throws Exception {
    cluster.histogram("upstream_rq_time", Histogram.Unit.MILLISECONDS).record(3);
    JsonStatsFormat.render(store, StatFilter.ALL);

    JsonNode values = parse(JsonStatsFormat.render(store, StatFilter.ALL))
        .at("/stats/0/histograms/computed_quantiles/0/values");

    assertThat(values).hasSize(10);
    for (JsonNode value : values) {
      assertThat(value.get("interval").isNull()).isTrue();
      assertThat(value.get("cumulative").asLong()).isEqualTo(3);
    }
  }

  @Test
  void noHistogramsElementWhenNoneMatches() throws Exception {
    cluster.counter("upstream_rq_total").inc();
    cluster.histogram("upstream_rq_time", Histogram.Unit.MILLISECONDS);

    JsonNode stats = parse(JsonStatsFormat.render(store, StatFilter.of("total", false))).get("stats");

    assertThat(stats).hasSize(1);
    assertThat(stats.get(0).get("name").asText()).isEqualTo("cluster.backend.upstream_rq_total");
    assertThat(stats.get(0).get("value").asLong()).isEqualTo(1);
  }

  @Test
  void usedOnlyAndFractionalValues() throws Exception {
    cluster.counter("upstream_rq_total");
    cluster.gauge("upstream_cx_active").inc();
    store.customScope().fractionalGauge("http_admission_adaptive_limit_ratio", java.util.Map.of(), () -> 0.75);

    JsonNode stats = parse(JsonStatsFormat.render(store, StatFilter.of(null, true))).get("stats");

    List<String> names = new ArrayList<>();
    stats.forEach(stat -> names.add(stat.get("name").asText()));
    assertThat(names).containsExactly("cluster.backend.upstream_cx_active", "http_admission_adaptive_limit_ratio");
    assertThat(stats.get(1).get("value").asDouble()).isEqualTo(0.75);
  }

  private static JsonNode parse(String json) throws Exception {
    return new ObjectMapper().readTree(json);
  }
}
