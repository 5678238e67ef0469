package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.FreePorts;
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
 * Active health checking, outlier detection and panic routing against real origins on 127.0.0.1.
 * Every wait is bounded (a few seconds) and every request loop by count.
 */
class HostHealthIT {
  private static final String ROUTES = """
      - match: { prefix: "/" }
        route: { cluster: backend }
      """;
  private OriginServer a;
  private OriginServer b;

  @BeforeEach
  void origins() {
    a = OriginServer.start("a");
    b = OriginServer.start("b");
  }

  @AfterEach
  void stop() {
    a.close();
    b.close();
  }

  /** Polls until {@code value} reaches {@code expected} or {@code limit} passes; returns the time it took. */
  private static Duration await(LongSupplier value, long expected, Duration limit) throws InterruptedException {
    long start = System.nanoTime();
    long deadline = start + limit.toNanos();
    while (value.getAsLong() != expected && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(value.getAsLong()).as("value after %s", limit).isEqualTo(expected);
    return Duration.ofNanos(System.nanoTime() - start);
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
  void aHostWhoseHealthEndpointAnswers503LeavesRotationAndComesBack() throws Exception {
    String yaml = bootstrap(ROUTES, cluster("backend", """
        health_checks:
        - timeout: 0.5s
          interval: 0.1s
          no_traffic_interval: 0.1s
          unhealthy_threshold: 2
          healthy_threshold: 2
          http_health_check: { path: /healthz, host: health.local }
        """, a.port(), b.port()));
    try (EdgeHarness edge = EdgeHarness.start(yaml)) {
      await(() -> edge.stat("cluster.backend.health_check.healthy"), 2, Duration.ofSeconds(5));
      assertThat(a.lastRequest().path()).isEqualTo("/healthz");
      assertThat(a.lastRequest().header("host")).isEqualTo("health.local");
      assertThat(a.lastRequest().header("user-agent")).isEqualTo("Envoy/HC");
      assertThat(origins(edge, 10)).containsOnlyKeys("a", "b");

      a.failNext(1_000_000, 503);
      // 503 is not an expected status: Envoy marks the host unhealthy at the first such answer,
      // so it is out within interval x unhealthy_threshold (0.2 s); 1 s of tolerance for a busy machine.
      Duration out = await(() -> edge.stat("cluster.backend.health_check.healthy"), 1, Duration.ofSeconds(5));
      assertThat(out).isLessThan(Duration.ofMillis(200 + 1000));
      assertThat(edge.stat("cluster.backend.membership_healthy")).isEqualTo(1);
      assertThat(origins(edge, 10)).containsOnlyKeys("b");
      assertThat(clusters(edge)).contains("backend::127.0.0.1:" + a.port() + "::health_flags::/failed_active_hc")
          .contains("backend::127.0.0.1:" + b.port() + "::health_flags::healthy");
      assertThat(edge.stat("cluster.backend.health_check.failure")).isPositive();

      a.failNext(0, 0);
      Duration back = await(() -> edge.stat("cluster.backend.health_check.healthy"), 2, Duration.ofSeconds(5));
      assertThat(back).isLessThan(Duration.ofMillis(2 * 100 + 1000));
      assertThat(origins(edge, 10)).containsOnlyKeys("a", "b");
      assertThat(edge.stat("cluster.backend.health_check.attempt"))
          .isGreaterThanOrEqualTo(edge.stat("cluster.backend.health_check.success"));
      assertThat(edge.stat("cluster.backend.lb_healthy_panic")).isZero();
    }
  }

  @Test
  void aHostAnswering5xxIsEjectedByConsecutive5xxAndReturnsAfterTheBaseEjectionTime() throws Exception {
    String yaml = bootstrap(ROUTES, cluster("backend", """
        outlier_detection:
          consecutive_5xx: 3
          interval: 0.1s
          base_ejection_time: 0.5s
          max_ejection_percent: 50
        """, a.port(), b.port()));
    try (EdgeHarness edge = EdgeHarness.start(yaml)) {
      a.failNext(3, 500);
      int fiveHundreds = 0;
      for (int i = 0; i < 20 && edge.stat("cluster.backend.outlier_detection.ejections_active") == 0; i++) {
        if (edge.get("/x" + i).statusCode() == 500) {
          fiveHundreds++;
        }
        if (fiveHundreds == 3) {
          await(() -> edge.stat("cluster.backend.outlier_detection.ejections_active"), 1, Duration.ofSeconds(5));
        }
      }
      assertThat(fiveHundreds).isEqualTo(3);
      assertThat(edge.stat("cluster.backend.outlier_detection.ejections_enforced_consecutive_5xx")).isEqualTo(1);
      assertThat(edge.stat("cluster.backend.outlier_detection.ejections_detected_consecutive_5xx")).isEqualTo(1);
      assertThat(edge.stat("cluster.backend.outlier_detection.ejections_enforced_total")).isEqualTo(1);
      assertThat(clusters(edge)).contains("backend::127.0.0.1:" + a.port() + "::health_flags::/failed_outlier_check");
      long ejectedAt = System.nanoTime();
      int toA = a.requestCount();
      Map<String, Integer> whileEjected = new HashMap<>();
      for (int i = 0; i < 5; i++) {
        whileEjected.merge(edge.get("/e" + i).headers().firstValue("x-origin").orElse("?"), 1, Integer::sum);
      }
      if (System.nanoTime() - ejectedAt < Duration.ofMillis(400).toNanos()) {
        assertThat(whileEjected).containsOnlyKeys("b");
        assertThat(a.requestCount()).isEqualTo(toA);
      }
      Duration back = await(() -> edge.stat("cluster.backend.outlier_detection.ejections_active"), 0,
          Duration.ofSeconds(5));
      // base_ejection_time (0.5 s) plus at most one interval (0.1 s) before the sweep sees it; 1 s of tolerance.
      assertThat(back).isLessThan(Duration.ofMillis(600 + 1000));
      assertThat(origins(edge, 10)).containsOnlyKeys("a", "b");
    }
  }

  @Test
  void withEveryHostUnhealthyPanicRoutingStillServes() throws Exception {
    String yaml = bootstrap(ROUTES, cluster("backend", """
        health_checks:
        - timeout: 0.5s
          interval: 0.1s
          no_traffic_interval: 0.1s
          unhealthy_threshold: 1
          healthy_threshold: 1
          http_health_check: { path: /status/503 }
        """, a.port(), b.port()));
    try (EdgeHarness edge = EdgeHarness.start(yaml)) {
      await(() -> edge.stat("cluster.backend.health_check.failure") >= 2 ? 1 : 0, 1, Duration.ofSeconds(5));
      assertThat(edge.stat("cluster.backend.health_check.healthy")).isZero();
      assertThat(edge.stat("cluster.backend.membership_healthy")).isZero();
      assertThat(origins(edge, 6)).containsOnlyKeys("a", "b");
      assertThat(edge.stat("cluster.backend.lb_healthy_panic")).isEqualTo(6);
      assertThat(clusters(edge)).contains("::health_flags::/failed_active_hc");
    }
  }

  @Test
  void anHttp2CheckPassesAndFailsLikeAnHttp1One() throws Exception {
    String yaml = bootstrap(ROUTES, cluster("backend", """
        health_checks:
        - timeout: 0.5s
          interval: 0.1s
          no_traffic_interval: 0.1s
          unhealthy_threshold: 3
          healthy_threshold: 1
          reuse_connection: true
          http_health_check: { path: /healthz, codec_client_type: HTTP2 }
        """, a.port(), b.port()));
    try (EdgeHarness edge = EdgeHarness.start(yaml)) {
      await(() -> edge.stat("cluster.backend.health_check.healthy"), 2, Duration.ofSeconds(5));
      assertThat(a.lastRequest().isHttp2()).isTrue();
      assertThat(a.lastRequest().header("user-agent")).isEqualTo("Envoy/HC");
      assertThat(a.connectionCount()).as("one reused connection for every check").isEqualTo(1);
      b.failNext(1_000_000, 500);
      await(() -> edge.stat("cluster.backend.health_check.healthy"), 1, Duration.ofSeconds(5));
      assertThat(origins(edge, 6)).containsOnlyKeys("a");
    }
  }

  @Test
  void aTcpConnectCheckTakesAClosedPortOutOfRotation() throws Exception {
    int dead = FreePorts.pick();
    String yaml = bootstrap(ROUTES, cluster("backend", """
        health_checks:
        - timeout: 0.5s
          interval: 0.1s
          no_traffic_interval: 0.1s
          unhealthy_threshold: 1
          healthy_threshold: 1
          tcp_health_check: {}
        """, a.port(), dead));
    try (EdgeHarness edge = EdgeHarness.start(yaml)) {
      await(() -> edge.stat("cluster.backend.health_check.healthy"), 1, Duration.ofSeconds(5));
      await(() -> edge.stat("cluster.backend.membership_healthy"), 1, Duration.ofSeconds(5));
      await(() -> edge.stat("cluster.backend.health_check.network_failure") > 0 ? 1 : 0, 1, Duration.ofSeconds(5));
      assertThat(clusters(edge)).contains("backend::127.0.0.1:" + dead + "::health_flags::/failed_active_hc\n");
      assertThat(origins(edge, 6)).containsOnlyKeys("a");
      assertThat(a.requestCount()).isEqualTo(6);
    }
  }
}
