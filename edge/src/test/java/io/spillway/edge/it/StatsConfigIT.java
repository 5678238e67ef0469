package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.OriginServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * stats_config as Prometheus and /stats show it: an Istio-style custom tag, a fixed tag, an exclusion
 * list; histogram_bucket_settings.
 */
class StatsConfigIT {
  private OriginServer origin;
  private EdgeHarness edge;

  @AfterEach
  void close() {
    edge.close();
    origin.close();
  }

  private String admin(String path) throws Exception {
    return edge.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.adminPort() + path)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  @Test
  void customTagsAndTheMatcherShapeWhatIsRendered() throws Exception {
    origin = OriginServer.start("origin");
    edge = EdgeHarness.start(bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", "", origin.port())) + """
        stats_config:
          use_all_default_tags: false
          stats_tags:
          - tag_name: cluster_name
            regex: "^cluster\\\\.((.+?)\\\\.)"
          - tag_name: mesh_id
            fixed_value: blue
          stats_matcher:
            exclusion_list:
              patterns: [{prefix: "http2."}]
        """);
    assertThat(edge.get("/").statusCode()).isEqualTo(200);

    String prometheus = admin("/stats/prometheus");
    assertThat(prometheus).contains("envoy_cluster_upstream_rq_total{cluster_name=\"origin\",mesh_id=\"blue\"} 1");
    // Without the default tags, a listener's address stays in its metric name.
    assertThat(prometheus).containsPattern("envoy_listener_127_0_0_1_\\d+_downstream_cx_total\\{mesh_id=\"blue\"\\}");
    String flat = admin("/stats");
    assertThat(flat).contains("cluster.origin.upstream_rq_total: 1").doesNotContain("http2.");
  }

  @Test
  void histogramBucketSettingsGiveTheMatchingHistogramsTheirBuckets() throws Exception {
    origin = OriginServer.start("origin");
    edge = EdgeHarness.start(bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", "", origin.port())) + """
        stats_config:
          histogram_bucket_settings:
          - match: {suffix: upstream_rq_time}
            buckets: [60000, 1000]
        """);
    for (int i = 0; i < 3; i++) {
      assertThat(edge.get("/").statusCode()).isEqualTo(200);
    }

    String prometheus = admin("/stats/prometheus");
    String family = "envoy_cluster_upstream_rq_time_bucket{envoy_cluster_name=\"origin\"";
    assertThat(prometheus.lines().filter(line -> line.startsWith(family)).map(line -> line.substring(family.length())))
        .containsExactly(",le=\"1000\"} 3", ",le=\"60000\"} 3", ",le=\"+Inf\"} 3");
    // A histogram the rule does not match keeps Envoy's 19 default buckets.
    assertThat(prometheus.lines().filter(line -> line.startsWith("envoy_cluster_upstream_cx_connect_ms_bucket{")))
        .hasSize(20);
  }
}
