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
import org.junit.jupiter.api.Test;

/**
 * Degraded hosts (an HTTP health check answered with {@code x-envoy-degraded}, or an endpoint's
 * {@code health_status: DEGRADED}) and an empty cluster, through a real edge to real origins on
 * 127.0.0.1. Every wait is bounded (a few seconds) and every request loop by count.
 */
class DegradedHostsIT {
  private static final String ROUTES = """
      - match: { prefix: "/" }
        route: { cluster: backend }
      """;
  private static final String HEALTH_CHECK = """
        health_checks:
        - timeout: 0.5s
          interval: 0.1s
          no_traffic_interval: 0.1s
          unhealthy_threshold: 1
          healthy_threshold: 1
          http_health_check: { path: /healthz }
      """;
  private OriginServer degraded;
  private OriginServer healthy;

  @AfterEach
  void stop() {
    for (OriginServer o : new OriginServer[] {degraded, healthy}) {
      if (o != null) {
        o.close();
      }
    }
  }

  /** An origin whose every answer, its health check's included, carries {@code x-envoy-degraded}. */
  private static OriginServer degradedOrigin(String name, int port) {
    return OriginServer.builder().name(name).port(port).responseHeader("x-envoy-degraded", "true").start();
  }

  private static String endpoint(OriginServer o, String extra) {
    return "      - endpoint: { address: { socket_address: { address: 127.0.0.1, port_value: " + o.port() + " } } }"
        + extra + "\n";
  }

  /** A STATIC round-robin cluster {@code backend}: P0's endpoints, then P1's when given. */
  private static String cluster(String extra, String p0, String p1) {
    String levels = "    - lb_endpoints:\n" + p0
        + (p1 == null ? "" : "    - priority: 1\n      lb_endpoints:\n" + p1);
    return """
        - name: backend
          type: STATIC
          connect_timeout: 1s
          lb_policy: ROUND_ROBIN
        %s
          load_assignment:
            cluster_name: backend
            endpoints:
        %s""".formatted(extra.stripTrailing(), levels.stripTrailing());
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
  void aP0DegradedByItsHealthCheckYieldsToAHealthyP1AndTakesTrafficBackOnceItIsNot() throws Exception {
    degraded = degradedOrigin("p0", 0);
    healthy = OriginServer.start("p1");
    String yaml = bootstrap(ROUTES, cluster(HEALTH_CHECK, endpoint(degraded, ""), endpoint(healthy, "")));
    try (EdgeHarness edge = EdgeHarness.start(yaml)) {
      await(() -> edge.stat("cluster.backend.health_check.degraded"), 1, Duration.ofSeconds(5));
      await(() -> edge.stat("cluster.backend.membership_healthy"), 1, Duration.ofSeconds(5));
      assertThat(edge.stat("cluster.backend.health_check.healthy")).isEqualTo(2); // degraded still passes
      assertThat(edge.stat("cluster.backend.membership_degraded")).isEqualTo(1);
      // P0: health 0, degraded 100; P1: health 100. Healthy load first: all of it to P1.
      assertThat(origins(edge, 40)).containsOnlyKeys("p1");
      assertThat(clusters(edge)).contains("backend::127.0.0.1:" + degraded.port() + "::health_flags::/degraded_active_hc")
          .contains("backend::127.0.0.1:" + healthy.port() + "::health_flags::healthy");

      // The same address answering without the header: the next passed check clears the flag.
      int port = degraded.port();
      degraded.close();
      degraded = OriginServer.builder().name("p0").port(port).start();
      await(() -> edge.stat("cluster.backend.membership_degraded"), 0, Duration.ofSeconds(5));
      await(() -> edge.stat("cluster.backend.membership_healthy"), 2, Duration.ofSeconds(5));
      assertThat(origins(edge, 40)).containsOnlyKeys("p0");
      assertThat(edge.stat("cluster.backend.lb_healthy_panic")).isZero();
    }
  }

  @Test
  void aDegradedHostWithoutAnyOtherStillTakesTheTraffic() throws Exception {
    degraded = degradedOrigin("p0", 0);
    String yaml = bootstrap(ROUTES, cluster(HEALTH_CHECK, endpoint(degraded, ""), null));
    try (EdgeHarness edge = EdgeHarness.start(yaml)) {
      await(() -> edge.stat("cluster.backend.membership_degraded"), 1, Duration.ofSeconds(5));
      assertThat(origins(edge, 20)).containsOnlyKeys("p0");
      // healthy + degraded = 100 %: not in panic (Envoy's isHostSetInPanic counts both).
      assertThat(edge.stat("cluster.backend.lb_healthy_panic")).isZero();
      assertThat(clusters(edge)).contains("backend::127.0.0.1:" + degraded.port() + "::health_flags::/degraded_active_hc");
    }
  }

  @Test
  void staticHealthStatusDegradedAndDrainingAreReadAsEnvoyDoes() throws Exception {
    degraded = OriginServer.start("p0");
    healthy = OriginServer.start("p1");
    OriginServer draining = OriginServer.start("draining");
    try {
      String p0 = endpoint(degraded, "\n        health_status: DEGRADED")
          + endpoint(draining, "\n        health_status: DRAINING");
      String yaml = bootstrap(ROUTES, cluster("", p0, endpoint(healthy, "")));
      try (EdgeHarness edge = EdgeHarness.start(yaml)) {
        assertThat(edge.stat("cluster.backend.membership_degraded")).isEqualTo(1);
        assertThat(edge.stat("cluster.backend.membership_healthy")).isEqualTo(1);
        assertThat(origins(edge, 30)).containsOnlyKeys("p1");
        assertThat(clusters(edge))
            .contains("backend::127.0.0.1:" + degraded.port() + "::health_flags::/degraded_eds_health")
            .contains("backend::127.0.0.1:" + draining.port() + "::health_flags::/eds_status_draining");
      }
    } finally {
      draining.close();
    }
  }

  @Test
  void anEmptyClusterAnswers503NoHealthyUpstreamAndCountsPanic() throws Exception {
    String yaml = bootstrap(ROUTES, EdgeHarness.cluster("backend", ""));
    try (EdgeHarness edge = EdgeHarness.start(yaml)) {
      for (int i = 0; i < 3; i++) {
        HttpResponse<String> r = edge.get("/e" + i);
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.body()).isEqualTo("no healthy upstream");
      }
      assertThat(edge.stat("cluster.backend.lb_healthy_panic")).isEqualTo(3);
      assertThat(edge.stat("cluster.backend.upstream_cx_none_healthy")).isEqualTo(3);
      assertThat(edge.stat("cluster.backend.membership_total")).isZero();
    }
  }
}
