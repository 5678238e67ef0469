package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RawHttp;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The overload manager wired into a running edge, pressure driven through an injected_resource
 * file: the seed's tiers (keep-alive off at 0.92, 503 at 0.95) and the global connection limit.
 */
class OverloadIT {

  @TempDir
  Path dir;
  private OriginServer origin;
  private EdgeHarness edge;

  @BeforeEach
  void origin() {
    origin = OriginServer.start("origin");
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    origin.close();
  }

  /**
   * An overload_manager whose only monitor is injected_resource reading {@code file}, refreshed
   * every 50 ms, followed by {@code rest} (actions and load shed points, YAML indented by 2).
   */
  private static String injectedOverload(Path file, String rest) {
    return """
        overload_manager:
          refresh_interval: 0.05s
          resource_monitors:
          - name: envoy.resource_monitors.injected_resource
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.resource_monitors.injected_resource.v3.InjectedResourceConfig
              filename: %s
        """.formatted(file) + rest;
  }

  private Path pressure(double value) throws Exception {
    Path file = dir.resolve("pressure");
    Path tmp = dir.resolve("pressure.tmp");
    Files.writeString(tmp, Double.toString(value));
    Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    return file;
  }

  private HttpResponse<String> awaitResponse(Predicate<HttpResponse<String>> condition) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    HttpResponse<String> r;
    do {
      r = edge.get("/x");
      if (condition.test(r)) {
        return r;
      }
      Thread.sleep(20);
    } while (System.nanoTime() < deadline);
    return r;
  }

  @Test
  void tieredActionsFollowTheInjectedPressure() throws Exception {
    Path file = pressure(0.5);
    String yaml = bootstrap("append_local_overload: true", """
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", "", origin.port())) + injectedOverload(file, """
          actions:
          - name: envoy.overload_actions.disable_http_keepalive
            triggers:
            - name: envoy.resource_monitors.injected_resource
              threshold: { value: 0.92 }
          - name: envoy.overload_actions.stop_accepting_requests
            triggers:
            - name: envoy.resource_monitors.injected_resource
              threshold: { value: 0.95 }
        """);
    edge = EdgeHarness.start(yaml);

    HttpResponse<String> normal = edge.get("/x");
    assertThat(normal.statusCode()).isEqualTo(200);
    assertThat(normal.headers().firstValue("connection")).isEmpty();

    pressure(0.93);
    HttpResponse<String> closing = awaitResponse(r -> r.headers().firstValue("connection").isPresent());
    assertThat(closing.statusCode()).isEqualTo(200);
    assertThat(closing.headers().firstValue("connection")).hasValue("close");

    pressure(0.96);
    HttpResponse<String> refused = awaitResponse(r -> r.statusCode() == 503);
    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.body()).isEqualTo("envoy overloaded");
    assertThat(refused.headers().firstValue("x-envoy-local-overloaded")).hasValue("true");
    assertThat(edge.stat("http.ingress.downstream_rq_overload_close")).isPositive();
    int seenBefore = origin.requestCount();
    assertThat(edge.get("/y").statusCode()).isEqualTo(503);
    assertThat(origin.requestCount()).isEqualTo(seenBefore);

    pressure(0.1);
    HttpResponse<String> recovered = awaitResponse(r -> r.statusCode() == 200 && r.headers().firstValue("connection").isEmpty());
    assertThat(recovered.statusCode()).isEqualTo(200);
    assertThat(recovered.headers().firstValue("connection")).isEmpty();

    // The admin page shows the monitor and both actions.
    HttpResponse<String> page = edge.http.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + edge.adminPort() + "/overload")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(page.body()).contains("envoy.resource_monitors.injected_resource", "stop_accepting_requests",
        "disable_http_keepalive");
  }

  /**
   * A 30 s connection idle timeout, and reduce_timeouts (scaled 0.5–0.9 on the injected pressure)
   * bringing it down to 0.2 s when saturated.
   */
  private String reduceTimeoutsBootstrap(Path file) {
    return reduceTimeoutsBootstrap(file, "common_http_protocol_options: { idle_timeout: 30s }",
        "HTTP_DOWNSTREAM_CONNECTION_IDLE");
  }

  /**
   * The connection manager with {@code hcmTimeout} (a YAML line), and reduce_timeouts (scaled
   * 0.5–0.9 on the injected pressure) bringing {@code timer} down to 0.2 s when saturated.
   */
  private String reduceTimeoutsBootstrap(Path file, String hcmTimeout, String timer) {
    return bootstrap(hcmTimeout + "\n", """
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", "", origin.port())) + injectedOverload(file, """
          actions:
          - name: envoy.overload_actions.reduce_timeouts
            triggers:
            - name: envoy.resource_monitors.injected_resource
              scaled: { scaling_threshold: 0.5, saturation_threshold: 0.9 }
            typed_config:
              "@type": type.googleapis.com/envoy.config.overload.v3.ScaleTimersOverloadActionConfig
              timer_scale_factors:
              - timer: %s
                min_timeout: 0.2s
        """.formatted(timer));
  }

  @Test
  void reduceTimeoutsShortensTheConnectionIdleTimeoutUnderPressure() throws Exception {
    Path file = pressure(1.0);
    String yaml = reduceTimeoutsBootstrap(file);
    edge = EdgeHarness.start(yaml);
    // Wait until the saturated state is published, then an idle keep-alive connection is closed
    // after the 0.2 s minimum instead of the configured 30 s.
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!edge.stats().find("overload.envoy.overload_actions.reduce_timeouts.scale_percent")
        .map(st -> ((io.spillway.edge.stats.Gauge) st).value() >= 100).orElse(false)
        && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    try (RawHttp.Connection c = RawHttp.connect(edge.port(), Duration.ofSeconds(5))) {
      assertThat(c.exchange("GET /a HTTP/1.1\r\nHost: x\r\n\r\n", Duration.ofSeconds(5)).status()).isEqualTo(200);
      assertThat(c.awaitClose(Duration.ofSeconds(10))).isTrue();
    }
    assertThat(edge.awaitStat("http.ingress.downstream_cx_idle_timeout", 1)).isEqualTo(1);
  }

  @Test
  void reduceTimeoutsRetimesAConnectionThatIsAlreadyIdle() throws Exception {
    Path file = pressure(0.1);
    String yaml = reduceTimeoutsBootstrap(file);
    edge = EdgeHarness.start(yaml);
    // Idle under a 30 s timeout; then the pressure saturates reduce_timeouts: the running idle
    // timer is re-timed to 0.2 s from when the connection went idle, so it closes at once.
    assertServedConnectionClosesWhenPressureSaturates();
    assertThat(edge.awaitStat("http.ingress.downstream_cx_idle_timeout", 1)).isEqualTo(1);
  }

  @Test
  void reduceTimeoutsRetimesTheStreamIdleTimerOfARequestInFlightOnBothProtocols() throws Exception {
    Path file = pressure(0.1);
    String yaml = reduceTimeoutsBootstrap(file, "stream_idle_timeout: 30s", "HTTP_DOWNSTREAM_STREAM_IDLE");
    edge = EdgeHarness.start(yaml);
    // Both requests wait for an upstream that answers after 8 s, under a 30 s stream idle timeout;
    // then reduce_timeouts saturates and both idle timers are re-timed to 0.2 s: 504, long before 8 s.
    var h1 = edge.http.sendAsync(java.net.http.HttpRequest.newBuilder(edge.uri("/delay/8000"))
        .timeout(Duration.ofSeconds(20)).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
    try (io.spillway.testkit.H2cClient h2c = io.spillway.testkit.H2cClient.connect(edge.port())) {
      var h2 = h2c.send("GET", "/delay/8000", java.util.List.of(), null);
      origin.awaitRequestCount(2, Duration.ofSeconds(5));
      pressure(1.0);
      assertThat(io.spillway.testkit.H2cClient.await(h2).status()).isEqualTo(504);
      assertThat(h1.get(20, java.util.concurrent.TimeUnit.SECONDS).statusCode()).isEqualTo(504);
    }
    assertThat(edge.awaitStat("http.ingress.downstream_rq_idle_timeout", 2)).isEqualTo(2);
  }

  @Test
  void reduceTimeoutsRetimesTheMaximumConnectionDuration() throws Exception {
    Path file = pressure(0.1);
    String yaml = reduceTimeoutsBootstrap(file, "common_http_protocol_options: { max_connection_duration: 60s }",
        "HTTP_DOWNSTREAM_CONNECTION_MAX");
    edge = EdgeHarness.start(yaml);
    // Opened under a 60 s maximum; when reduce_timeouts saturates, the connection is already
    // older than the 0.2 s minimum, so it is drained (idle: closed) at once.
    assertServedConnectionClosesWhenPressureSaturates();
    assertThat(edge.awaitStat("http.ingress.downstream_cx_max_duration_reached", 1)).isEqualTo(1);
  }

  /** One request on a kept-alive connection, 0.3 s idle, then the pressure saturates: the edge closes it. */
  private void assertServedConnectionClosesWhenPressureSaturates() throws Exception {
    try (RawHttp.Connection c = RawHttp.connect(edge.port(), Duration.ofSeconds(5))) {
      assertThat(c.exchange("GET /a HTTP/1.1\r\nHost: x\r\n\r\n", Duration.ofSeconds(5)).status()).isEqualTo(200);
      Thread.sleep(300);
      pressure(1.0);
      assertThat(c.awaitClose(Duration.ofSeconds(10))).isTrue();
    }
  }

  private String shedPointBootstrap(Path file, String point) {
    return bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", "", origin.port())) + injectedOverload(file, """
          loadshed_points:
          - name: %s
            triggers:
            - name: envoy.resource_monitors.injected_resource
              threshold: { value: 0.9 }
        """.formatted(point));
  }

  /** Waits until the shed point's probability is published as 100 %. */
  private void awaitShedding(String point) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!edge.stats().find("overload." + point + ".scale_percent")
        .map(st -> ((io.spillway.edge.stats.Gauge) st).value() >= 100).orElse(false)
        && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
  }

  @Test
  void connectionShedPointsCloseBeforeAnyRequestIsServed() throws Exception {
    for (String point : java.util.List.of("envoy.load_shed_points.tcp_listener_accept",
        "envoy.load_shed_points.hcm_ondata_creating_codec", "envoy.load_shed_points.http1_server_abort_dispatch")) {
      edge = EdgeHarness.start(shedPointBootstrap(pressure(1.0), point));
      awaitShedding(point);
      int before = origin.requestCount();
      RawHttp.Response r = RawHttp.exchange(edge.port(), "GET /shed HTTP/1.1\r\nHost: x\r\n\r\n", Duration.ofSeconds(5));
      assertThat(r.answered()).as(point).isFalse();
      assertThat(origin.requestCount()).as(point).isEqualTo(before);
      assertThat(edge.awaitStat("overload." + point + ".shed_load_count", 1)).as(point).isEqualTo(1);
      edge.close();
      edge = null;
    }
  }

  @Test
  void newUpstreamConnectionsAreShedAsOverflow() throws Exception {
    String point = "envoy.load_shed_points.connection_pool_new_connection";
    edge = EdgeHarness.start(shedPointBootstrap(pressure(1.0), point));
    awaitShedding(point);
    HttpResponse<String> r = edge.get("/x");
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(r.body()).contains("overflow");
    assertThat(origin.requestCount()).isZero();
    pressure(0.1);
    assertThat(awaitResponse(x -> x.statusCode() == 200).statusCode()).isEqualTo(200);
  }

  @Test
  void closeIdleHttpConnectionsClosesIdleConnectionsWhenSaturated() throws Exception {
    Path file = pressure(0.1);
    String yaml = bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", "", origin.port())) + injectedOverload(file, """
          actions:
          - name: envoy.overload_actions.close_idle_http_connections
            triggers:
            - name: envoy.resource_monitors.injected_resource
              threshold: { value: 0.9 }
        """);
    edge = EdgeHarness.start(yaml);
    try (RawHttp.Connection idle = RawHttp.connect(edge.port(), Duration.ofSeconds(5))) {
      assertThat(idle.exchange("GET /a HTTP/1.1\r\nHost: x\r\n\r\n", Duration.ofSeconds(5)).status()).isEqualTo(200);
      // Below the threshold the keep-alive connection stays open.
      assertThat(idle.awaitClose(Duration.ofMillis(300))).isFalse();
      pressure(1.0);
      assertThat(idle.awaitClose(Duration.ofSeconds(10))).isTrue();
    }
    assertThat(edge.awaitStat("http.ingress.downstream_cx_overload_close_idle", 1)).isEqualTo(1);
  }

  @Test
  void globalConnectionLimitRefusesTheConnectionOverTheLimit() throws Exception {
    String yaml = bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", "", origin.port())) + """
        overload_manager:
          resource_monitors:
          - name: envoy.resource_monitors.global_downstream_max_connections
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.resource_monitors.downstream_connections.v3.DownstreamConnectionsConfig
              max_active_downstream_connections: 2
        """;
    edge = EdgeHarness.start(yaml);
    try (RawHttp.Connection a = RawHttp.connect(edge.port(), Duration.ofSeconds(5));
        RawHttp.Connection b = RawHttp.connect(edge.port(), Duration.ofSeconds(5))) {
      assertThat(a.exchange("GET /a HTTP/1.1\r\nHost: x\r\n\r\n", Duration.ofSeconds(5)).status()).isEqualTo(200);
      assertThat(b.exchange("GET /b HTTP/1.1\r\nHost: x\r\n\r\n", Duration.ofSeconds(5)).status()).isEqualTo(200);
      try (RawHttp.Connection c = RawHttp.connect(edge.port(), Duration.ofSeconds(5))) {
        assertThat(c.awaitClose(Duration.ofSeconds(5))).isTrue();
      }
      assertThat(edge.awaitStat("listener.127.0.0.1_0.downstream_global_cx_overflow", 1)).isEqualTo(1);
      // The admin listener is never refused.
      HttpResponse<String> ready = edge.http.send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + edge.adminPort() + "/ready")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(ready.statusCode()).isEqualTo(200);
      // Counted though: two proxied connections plus the admin connection carrying this request.
      HttpResponse<String> page = edge.http.send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + edge.adminPort() + "/overload")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(page.body()).containsPattern("\"active\"\\s*:\\s*3\\b");
    }
    // Closing connections frees their slots.
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    int status = 0;
    while (System.nanoTime() < deadline && status != 200) {
      try (RawHttp.Connection d = RawHttp.connect(edge.port(), Duration.ofSeconds(5))) {
        status = d.exchange("GET /d HTTP/1.1\r\nHost: x\r\n\r\n", Duration.ofSeconds(5)).status();
      }
      Thread.sleep(20);
    }
    assertThat(status).isEqualTo(200);
  }
}
