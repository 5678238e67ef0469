package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.OriginServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.health_check in a real edge on 127.0.0.1: health checks answered by the edge
 * (200, or 503 when a cluster lacks its share of healthy hosts), passed through to the upstream,
 * and answered 503 with every response marked {@code x-envoy-immediate-health-check-fail} while
 * {@code /healthcheck/fail} is in force.
 */
class HealthCheckFilterIT {

  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.health_check.v3.HealthCheck";
  private static final String ROUTE = """
      - match: { prefix: "/" }
        route: { cluster: upstream, timeout: 10s }
      """;

  private OriginServer upstream;
  private EdgeHarness edge;

  @BeforeEach
  void origin() {
    upstream = OriginServer.start("upstream");
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    upstream.close();
  }

  private void start(String filterFields) throws Exception {
    edge = EdgeHarness.startWithFilter(ROUTE, cluster("upstream", "", upstream.port()) + "\n" + cluster("empty", ""),
        "envoy.filters.http.health_check", TYPE, filterFields);
  }


  private int admin(String path) throws Exception {
    return edge.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.adminPort() + path))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).statusCode();
  }

  @Test
  void theEdgeAnswersHealthChecksItselfAndFailsThemOnRequest() throws Exception {
    start("""
        pass_through_mode: false
        headers: [ { name: ":path", string_match: { exact: /healthz } } ]
        cluster_min_healthy_percentages: { upstream: { value: 100 } }
        """);
    HttpResponse<String> ok = edge.get("/healthz");
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.body()).isEmpty();
    assertThat(ok.headers().firstValue("x-envoy-immediate-health-check-fail")).isEmpty();
    assertThat(edge.get("/other").statusCode()).isEqualTo(200);
    assertThat(upstream.requestCount()).as("only /other went upstream").isEqualTo(1);

    assertThat(admin("/healthcheck/fail")).isEqualTo(200);
    assertThat(edge.get("/healthz").statusCode()).isEqualTo(503);
    HttpResponse<String> marked = edge.get("/other");
    assertThat(marked.statusCode()).isEqualTo(200);
    assertThat(marked.headers().firstValue("x-envoy-immediate-health-check-fail")).contains("true");

    assertThat(admin("/healthcheck/ok")).isEqualTo(200);
    assertThat(edge.get("/healthz").statusCode()).isEqualTo(200);
  }

  @Test
  void aClusterWithoutItsShareOfHealthyHostsFailsTheCheck() throws Exception {
    start("""
        pass_through_mode: false
        headers: [ { name: ":path", string_match: { exact: /healthz } } ]
        cluster_min_healthy_percentages: { upstream: { value: 100 }, empty: { value: 50 } }
        """);
    assertThat(edge.get("/healthz").statusCode()).isEqualTo(503);
    assertThat(upstream.requestCount()).isZero();
  }

  @Test
  void passThroughSendsHealthChecksUpstreamUnlessTheEdgeFailsItsOwn() throws Exception {
    start("""
        pass_through_mode: true
        headers: [ { name: ":path", string_match: { exact: /healthz } } ]
        """);
    assertThat(edge.get("/healthz").statusCode()).isEqualTo(200);
    assertThat(upstream.requestCount()).isEqualTo(1);
    assertThat(admin("/healthcheck/fail")).isEqualTo(200);
    assertThat(edge.get("/healthz").statusCode()).isEqualTo(503);
    assertThat(upstream.requestCount()).isEqualTo(1);
  }
}
