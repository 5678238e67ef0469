package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.OriginServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Priority levels and locality weighted balancing through a real edge to real origins on
 * 127.0.0.1. Every wait is bounded (a few seconds) and every request loop by count.
 */
class LocalityLoadBalancingIT {
  private static final String ROUTES = """
      - match: { prefix: "/" }
        route: { cluster: backend }
      """;
  private OriginServer p0a;
  private OriginServer p0b;
  private OriginServer p1;

  @BeforeEach
  void origins() {
    p0a = OriginServer.start("p0a");
    p0b = OriginServer.start("p0b");
    p1 = OriginServer.start("p1");
  }

  @AfterEach
  void stop() {
    p0a.close();
    p0b.close();
    p1.close();
  }

  private static String endpoint(OriginServer o) {
    return "      - endpoint: { address: { socket_address: { address: 127.0.0.1, port_value: " + o.port() + " } } }\n";
  }

  private static void await(LongSupplier value, long expected, Duration limit) throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (value.getAsLong() != expected && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(value.getAsLong()).as("value after %s", limit).isEqualTo(expected);
  }

  private static Map<String, Integer> origins(EdgeHarness edge, int requests) throws Exception {
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < requests; i++) {
      HttpResponse<String> r = edge.get("/r" + i);
      assertThat(r.statusCode()).isEqualTo(200);
      seen.merge(r.headers().firstValue("x-origin").orElse("?"), 1, Integer::sum);
    }
    return seen;
  }

  private static String clusters(EdgeHarness edge) throws Exception {
    return edge.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.adminPort() + "/clusters"))
        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
  }

  @Test
  void trafficStaysOnP0WhileHealthyAndMovesToP1WhenP0FailsItsHealthChecks() throws Exception {
    String cluster = """
        - name: backend
          type: STATIC
          connect_timeout: 1s
          lb_policy: ROUND_ROBIN
          health_checks:
          - timeout: 0.5s
            interval: 0.1s
            no_traffic_interval: 0.1s
            unhealthy_threshold: 1
            healthy_threshold: 1
            http_health_check: { path: /healthz }
          load_assignment:
            cluster_name: backend
            endpoints:
            - locality: { zone: primary }
              lb_endpoints:
        %s    - locality: { zone: backup }
              priority: 1
              lb_endpoints:
        %s""".formatted(endpoint(p0a) + endpoint(p0b), endpoint(p1));
    try (EdgeHarness edge = EdgeHarness.start(bootstrap(ROUTES, cluster))) {
      await(() -> edge.stat("cluster.backend.health_check.healthy"), 3, Duration.ofSeconds(5));
      assertThat(origins(edge, 40)).containsOnlyKeys("p0a", "p0b");
      String page = clusters(edge);
      assertThat(page).contains("backend::127.0.0.1:" + p1.port() + "::priority::1")
          .contains("backend::127.0.0.1:" + p1.port() + "::zone::backup")
          .contains("backend::127.0.0.1:" + p0a.port() + "::priority::0")
          .contains("backend::127.0.0.1:" + p0a.port() + "::zone::primary");

      p0a.failNext(1_000_000, 503);
      p0b.failNext(1_000_000, 503);
      await(() -> edge.stat("cluster.backend.health_check.healthy"), 1, Duration.ofSeconds(5));
      assertThat(origins(edge, 40)).containsOnlyKeys("p1");
      assertThat(edge.stat("cluster.backend.lb_healthy_panic")).isZero();

      p0a.failNext(0, 0);
      p0b.failNext(0, 0);
      await(() -> edge.stat("cluster.backend.health_check.healthy"), 3, Duration.ofSeconds(5));
      assertThat(origins(edge, 40)).containsOnlyKeys("p0a", "p0b");
    }
  }

  @Test
  void localityWeightsThreeToOneSplitTrafficThreeToOne() throws Exception {
    String cluster = """
        - name: backend
          type: STATIC
          connect_timeout: 1s
          lb_policy: ROUND_ROBIN
          common_lb_config: { locality_weighted_lb_config: {} }
          load_assignment:
            cluster_name: backend
            endpoints:
            - locality: { zone: big }
              load_balancing_weight: 3
              lb_endpoints:
        %s    - locality: { zone: small }
              load_balancing_weight: 1
              lb_endpoints:
        %s    - locality: { zone: unweighted }
              lb_endpoints:
        %s""".formatted(endpoint(p0a), endpoint(p0b), endpoint(p1));
    try (EdgeHarness edge = EdgeHarness.start(bootstrap(ROUTES, cluster))) {
      int requests = 400;
      Map<String, Integer> seen = origins(edge, requests);
      assertThat(seen).doesNotContainKey("p1"); // a locality without a weight takes nothing, as in Envoy
      // Each worker keeps its own schedule, exact over whole rounds of 4: at most a round's
      // worth (3 requests) off per worker.
      assertThat(seen.get("p0a")).isBetween(300 - 12, 300 + 12);
      assertThat(seen.get("p0b")).isBetween(100 - 12, 100 + 12);
    }
  }
}
