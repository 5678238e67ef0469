package io.spillway.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.PrometheusStatsFormat;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.stats.Tag;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatsEndpointTest {
  private final StatsStore store = new StatsStore();
  private final PrometheusStatsEndpoint prometheus = new PrometheusStatsEndpoint(store, () -> { });
  private final StatsEndpoint stats = new StatsEndpoint(store, prometheus, () -> { });
  private final Scope http = store.rootScope().taggedScope("http", "ingress", Tag.HTTP_CONN_MANAGER_PREFIX);
  private final Scope cluster = store.rootScope().taggedScope("cluster", "backend", Tag.CLUSTER_NAME);
  private final Counter rqTotal = http.counter("downstream_rq_total");

  StatsEndpointTest() {
    rqTotal.add(3);
    cluster.counter("upstream_rq_total");
    cluster.gauge("upstream_rq_active").set(2);
  }

  @Test
  void textIsOneSortedNameValueLinePerStat() {
    AdminResponse r = stats.handle(Requests.get("/stats"));

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).startsWith("text/plain");
    assertThat(r.bodyText()).isEqualTo("""
        cluster.backend.upstream_rq_active: 2
        cluster.backend.upstream_rq_total: 0
        http.ingress.downstream_rq_total: 3
        """);
  }

  @Test
  void filterIsARegexFoundAnywhereInTheName() {
    assertThat(lines(stats.handle(Requests.get("/stats?filter=rq_(total|active)$"))))
        .containsExactly("cluster.backend.upstream_rq_active: 2", "cluster.backend.upstream_rq_total: 0",
            "http.ingress.downstream_rq_total: 3");
    // '+' is not a space: the regex arrives as written.
    assertThat(lines(stats.handle(Requests.get("/stats?filter=^http\\..+_total"))))
        .containsExactly("http.ingress.downstream_rq_total: 3");
  }

  @Test
  void usedOnlyHidesStatsNeverWritten() {
    assertThat(lines(stats.handle(Requests.get("/stats?usedonly"))))
        .containsExactly("cluster.backend.upstream_rq_active: 2", "http.ingress.downstream_rq_total: 3");
    assertThat(lines(stats.handle(Requests.get("/stats?usedonly&filter=http"))))
        .containsExactly("http.ingress.downstream_rq_total: 3");
  }

  @Test
  void invalidRegexIsA400NamingTheProblem() {
    AdminResponse r = stats.handle(Requests.get("/stats?filter=upstream_(rq"));

    assertThat(r.status()).isEqualTo(400);
    assertThat(r.bodyText()).startsWith("invalid regex in filter=upstream_(rq: ");
    assertThat(prometheus.handle(Requests.get("/stats/prometheus?filter=[")).status()).isEqualTo(400);
    assertThat(stats.handle(Requests.get("/stats?format=prometheus&filter=[")).status()).isEqualTo(400);
  }

  @Test
  void unknownFormatIsA400() {
    AdminResponse r = stats.handle(Requests.get("/stats?format=xml"));

    assertThat(r.status()).isEqualTo(400);
    assertThat(r.bodyText()).contains("xml").contains("text, json or prometheus");
  }

  @Test
  void jsonFormatIsEnvoysStatsArray() throws Exception {
    AdminResponse r = stats.handle(Requests.get("/stats?format=json&filter=rq_total"));

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).isEqualTo("application/json");
    JsonNode doc = new ObjectMapper().readTree(r.body());
    assertThat(doc.get("stats")).hasSize(2);
    assertThat(doc.get("stats").get(1).get("name").asText()).isEqualTo("http.ingress.downstream_rq_total");
    assertThat(doc.get("stats").get(1).get("value").asLong()).isEqualTo(3);
  }

  @Test
  void prometheusFormatIsTheSameAsStatsPrometheus() {
    AdminResponse viaStats = stats.handle(Requests.get("/stats?format=prometheus&usedonly"));
    AdminResponse direct = prometheus.handle(Requests.get("/stats/prometheus?usedonly"));

    assertThat(direct.contentType()).isEqualTo(PrometheusStatsFormat.CONTENT_TYPE);
    assertThat(viaStats.contentType()).isEqualTo(PrometheusStatsFormat.CONTENT_TYPE);
    assertThat(viaStats.bodyText()).isEqualTo(direct.bodyText());
    assertThat(direct.bodyText())
        .contains("envoy_http_downstream_rq_total{envoy_http_conn_manager_prefix=\"ingress\"} 3\n")
        .contains("envoy_cluster_upstream_rq_active{envoy_cluster_name=\"backend\"} 2\n")
        .doesNotContain("envoy_cluster_upstream_rq_total");
  }

  @Test
  void prometheusFilterAppliesToFlatNames() {
    String body = prometheus.handle(Requests.get("/stats/prometheus?filter=^cluster\\.")).bodyText();

    assertThat(body).contains("envoy_cluster_upstream_rq_total").doesNotContain("envoy_http_");
  }

  @Test
  void resetCountersZeroesCountersAndKeepsGauges() {
    ResetCountersEndpoint reset = new ResetCountersEndpoint(store);

    AdminResponse r = reset.handle(Requests.post("/reset_counters"));

    assertThat(reset.mutating()).isTrue();
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.bodyText()).isEqualTo("OK\n");
    assertThat(rqTotal.value()).isZero();
    assertThat(lines(stats.handle(Requests.get("/stats?usedonly"))))
        .containsExactly("cluster.backend.upstream_rq_active: 2", "http.ingress.downstream_rq_total: 0");
  }

  private static List<String> lines(AdminResponse r) {
    assertThat(r.status()).isEqualTo(200);
    return new ArrayList<>(r.bodyText().lines().toList());
  }
}
