package io.spillway.edge.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.EdgeProcess;
import io.spillway.testkit.FreePorts;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RecordedRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Envoy's local replies and the stats that count them, from the packaged edge: no route, connect
 * failure, route timeout, no healthy upstream, circuit-breaker overflow, a retried 5xx, and the
 * Prometheus rendering of the counters.
 */
class ErrorsE2E {

  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final String CONNECT_FAILURE =
      "upstream connect error or disconnect/reset before headers. reset reason: connection failure";

  @TempDir
  static Path dir;

  private static OriginServer origin;
  private static EdgeProcess edge;
  private static AdminClient admin;
  private static HttpClient client;
  private static int errorsPort;
  private static int promPort;

  @BeforeAll
  static void start() {
    origin = OriginServer.start("errors-origin");
    int[] ports = FreePorts.pick(4);
    errorsPort = ports[0];
    promPort = ports[1];
    int closedPort = ports[2]; // nothing listens there
    Path bootstrap = BootstrapYaml.withAdmin(ports[3])
        .listener(BootstrapYaml.Listener.named("errors", errorsPort).routes("""
            - match: { prefix: "/dead" }
              route: { cluster: dead }
            - match: { prefix: "/slow" }
              route: { cluster: backend, timeout: 0.5s }
            - match: { prefix: "/empty" }
              route: { cluster: empty }
            - match: { prefix: "/cb" }
              route: { cluster: breaker }
            - match: { prefix: "/retry" }
              route:
                cluster: retrying
                retry_policy: { retry_on: 5xx, num_retries: 1 }
            """))
        .listener(BootstrapYaml.Listener.named("prom", promPort).routes("""
            - match: { prefix: "/" }
              route: { cluster: counted }
            """))
        .staticCluster("backend", "", origin.port())
        .staticCluster("dead", "", closedPort)
        .staticCluster("empty", "")
        .staticCluster("breaker", """
            circuit_breakers:
              thresholds:
              - priority: DEFAULT
                max_requests: 1
                max_pending_requests: 1
            """, origin.port())
        .staticCluster("retrying", "", origin.port())
        .staticCluster("counted", "", origin.port())
        .writeTo(dir, "errors.yaml");
    edge = EdgeProcess.start(bootstrap, ports[3], "--concurrency", "2");
    admin = new AdminClient(edge);
    client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build();
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
    if (edge != null) {
      edge.close();
    }
    if (origin != null) {
      origin.close();
    }
  }

  @Test
  void noRouteIs404AndCounted() throws Exception {
    long noRoute = admin.stat("http.errors.no_route");
    int before = origin.requestCount();

    HttpResponse<String> response = get(errorsPort, "/nowhere");

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(admin.stat("http.errors.no_route") - noRoute).isEqualTo(1);
    assertThat(origin.requestCount()).isEqualTo(before);
  }

  @Test
  void connectFailureIs503AndCounted() throws Exception {
    long connectFailures = admin.stat("cluster.dead.upstream_cx_connect_fail");

    HttpResponse<String> response = get(errorsPort, "/dead/x");

    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.body()).isEqualTo(CONNECT_FAILURE);
    assertThat(admin.stat("cluster.dead.upstream_cx_connect_fail") - connectFailures).isEqualTo(1);
  }

  @Test
  void routeTimeoutIs504() throws Exception {
    long timeouts = admin.stat("cluster.backend.upstream_rq_timeout");

    HttpResponse<String> response = get(errorsPort, "/slow/delay/3000");

    assertThat(response.statusCode()).isEqualTo(504);
    assertThat(response.body()).isEqualTo("upstream request timeout");
    assertThat(admin.stat("cluster.backend.upstream_rq_timeout") - timeouts).isEqualTo(1);
    assertThat(origin.requests()).extracting(RecordedRequest::path).contains("/slow/delay/3000");
  }

  @Test
  void clusterWithoutEndpointsIs503NoHealthyUpstream() throws Exception {
    long noneHealthy = admin.stat("cluster.empty.upstream_cx_none_healthy");

    HttpResponse<String> response = get(errorsPort, "/empty/x");

    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.body()).isEqualTo("no healthy upstream");
    assertThat(admin.stat("cluster.empty.upstream_cx_none_healthy") - noneHealthy).isEqualTo(1);
  }

  @Test
  void circuitBreakerOverflowIs503() throws Exception {
    long overflows = admin.stat("cluster.breaker.upstream_rq_pending_overflow");
    int concurrent = 6;
    List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
    for (int i = 0; i < concurrent; i++) {
      responses.add(client.sendAsync(request(errorsPort, "/cb/delay/1000?i=" + i), HttpResponse.BodyHandlers.ofString()));
    }
    int ok = 0;
    int overflowed = 0;
    for (CompletableFuture<HttpResponse<String>> future : responses) {
      HttpResponse<String> response = future.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      if (response.statusCode() == 200) {
        ok++;
      } else {
        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.body()).endsWith("reset reason: overflow");
        overflowed++;
      }
    }

    assertThat(ok).as("requests admitted").isGreaterThanOrEqualTo(1);
    assertThat(overflowed).as("requests refused by the breaker").isGreaterThanOrEqualTo(1);
    assertThat(admin.stat("cluster.breaker.upstream_rq_pending_overflow") - overflows).isEqualTo(overflowed);
    assertThat(origin.requests()).extracting(RecordedRequest::path).filteredOn(p -> p.startsWith("/cb/")).hasSize(ok);
  }

  @Test
  void fiveHundredIsRetriedOnce() throws Exception {
    long retries = admin.stat("cluster.retrying.upstream_rq_retry");
    long retrySuccesses = admin.stat("cluster.retrying.upstream_rq_retry_success");
    origin.failNext(1, 503);

    HttpResponse<String> response = get(errorsPort, "/retry/once");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("errors-origin GET /retry/once\n");
    assertThat(origin.requests()).extracting(RecordedRequest::path).filteredOn("/retry/once"::equals).hasSize(2);
    assertThat(admin.stat("cluster.retrying.upstream_rq_retry") - retries).isEqualTo(1);
    assertThat(admin.stat("cluster.retrying.upstream_rq_retry_success") - retrySuccesses).isEqualTo(1);
  }

  @Test
  void prometheusCountsRequestsPerClusterAndResponseClass() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertThat(get(promPort, "/p/" + i).statusCode()).isEqualTo(200);
    }

    assertThat(admin.prometheusSample("envoy_cluster_upstream_rq_total", Map.of("envoy_cluster_name", "counted")))
        .isEqualTo(3.0);
    assertThat(admin.prometheusSample("envoy_http_downstream_rq_xx",
        Map.of("envoy_response_code_class", "2", "envoy_http_conn_manager_prefix", "prom"))).isEqualTo(3.0);
    assertThat(admin.stat("cluster.counted.upstream_rq_total")).isEqualTo(3);
    assertThat(admin.stat("http.prom.downstream_rq_2xx")).isEqualTo(3);
    String prometheus = admin.get("/stats/prometheus").body();
    assertThat(prometheus).contains("envoy_cluster_upstream_rq_total{envoy_cluster_name=\"counted\"} 3");
    assertThat(prometheus).containsPattern("(?m)^# TYPE envoy_cluster_upstream_rq_total counter$");
  }

  private static HttpRequest request(int port, String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(TIMEOUT).build();
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return client.send(request(port, path), HttpResponse.BodyHandlers.ofString());
  }
}
