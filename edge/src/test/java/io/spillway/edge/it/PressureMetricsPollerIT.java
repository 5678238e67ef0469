package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The pressure policy's metrics poller through a real edge: two backends on 127.0.0.1 (the JDK's
 * HTTP server), each serving its CPU on {@code /metrics} in the Prometheus text format and
 * answering every other path with its name. The backend whose metrics say it is busy gets a
 * smaller share of a bounded request loop; a backend whose metrics endpoint starts failing keeps
 * the share its last good poll gave it (a failed poll is not zero pressure).
 */
class PressureMetricsPollerIT {
  private static final long DEADLINE_NANOS = 20_000_000_000L;

  private final List<Backend> backends = new ArrayList<>();

  /** A backend: its name on every response, its metrics on /metrics (status and body set by the test). */
  private static final class Backend implements AutoCloseable {
    final String name;
    final HttpServer server;
    final AtomicReference<String> metrics = new AtomicReference<>();
    final AtomicInteger metricsStatus = new AtomicInteger(200);
    final AtomicInteger polls = new AtomicInteger();

    Backend(String name, double cpuPercent) throws IOException {
      this.name = name;
      cpu(cpuPercent);
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
      server.createContext("/metrics", ex -> {
        polls.incrementAndGet();
        reply(ex, metricsStatus.get(), metrics.get());
      });
      server.createContext("/", ex -> reply(ex, 200, name));
      server.start();
    }

    void cpu(double percent) {
      metrics.set("# HELP process_cpu_percent CPU in use\n# TYPE process_cpu_percent gauge\n"
          + "process_cpu_percent{mode=\"all\"} " + percent + "\n"
          + "process_cpu_percent{mode=\"user\"} 1\n");
    }

    int port() {
      return server.getAddress().getPort();
    }

    private void reply(HttpExchange ex, int status, String body) throws IOException {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("x-origin", name);
      ex.sendResponseHeaders(status, bytes.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }

  @AfterEach
  void stop() {
    backends.forEach(Backend::close);
  }

  private Backend backend(String name, double cpuPercent) throws IOException {
    Backend b = new Backend(name, cpuPercent);
    backends.add(b);
    return b;
  }

  /** CPU from the poller only (the edge's own signals out), no blackout, fast updates, no ejection. */
  private static String yaml(int... ports) {
    return bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", """
        load_balancing_policy:
          policies:
          - typed_extension_config:
              name: spillway.load_balancing_policies.pressure
              typed_config:
                "@type": type.googleapis.com/spillway.edge.lb.v1.Pressure
                dimensions: { cpu: 1 }
                blackout_period: 0s
                weight_update_period: 0.1s
                smoothing_time_constant: 0.2s
                max_ejection_percent: 0
                metrics_poller:
                  path: /metrics
                  interval: 1s
                  timeout: 0.5s
                  format: PROMETHEUS
                  metrics:
                  - { dimension: cpu, metric: process_cpu_percent, labels: { mode: all }, max: 100 }
        """, ports));
  }

  @Test
  void theBusyBackendGetsASmallerShareAndAFailingEndpointKeepsItsShare() throws Exception {
    Backend idle = backend("idle", 20);
    Backend busy = backend("busy", 70);
    try (EdgeHarness edge = EdgeHarness.start(yaml(idle.port(), busy.port()))) {
      awaitStat(edge, "cluster.origin.lb_pressure_poll_success", 4); // both hosts polled twice
      Thread.sleep(500); // several weight updates, 100 ms apart, take the polls in

      // weights 0.8 : 0.3; one request at a time, so the schedule's shares: about 727 : 273 of 1000
      Map<String, Integer> before = send(edge, 1000);
      System.out.println("metrics poller, 1000 requests, busy at 70 % CPU: " + before);
      assertThat(before.getOrDefault("busy", 0)).isBetween(180, 370);
      assertThat(before.get("idle")).isGreaterThan(630);
      assertThat(admin(edge, "/clusters")).contains("origin::127.0.0.1:" + busy.port() + "::pressure_score::0.7");

      // The busy backend's metrics endpoint now fails: 500s, then garbage. Read as zero pressure it
      // would take about 56 % (1 : 0.8); dropped, about half (two random choices). Kept, it stays near 27 %.
      busy.metricsStatus.set(500);
      long failures = edge.stat("cluster.origin.lb_pressure_poll_failure");
      awaitStat(edge, "cluster.origin.lb_pressure_poll_failure", failures + 2);
      busy.metricsStatus.set(200);
      busy.metrics.set("<html>oops</html>\nprocess_cpu_percent{mode=\"all\"} NaN\n");
      long parseErrors = edge.stat("cluster.origin.lb_pressure_poll_parse_error");
      awaitStat(edge, "cluster.origin.lb_pressure_poll_parse_error", parseErrors + 2);

      Map<String, Integer> after = send(edge, 1000);
      System.out.println("metrics poller, 1000 requests, busy's endpoint failing: " + after);
      assertThat(after.getOrDefault("busy", 0)).isBetween(180, 370);
      assertThat(edge.stat("cluster.origin.lb_pressure_poll_malformed_lines")).isGreaterThanOrEqualTo(2);
      String clusters = admin(edge, "/clusters");
      assertThat(clusters).contains("origin::127.0.0.1:" + busy.port() + "::pressure_scored::true");
      assertThat(clusters).contains("origin::127.0.0.1:" + busy.port() + "::pressure_score::0.7");
      assertThat(busy.polls.get()).isGreaterThanOrEqualTo(6);
    }
  }

  private static void awaitStat(EdgeHarness edge, String name, long atLeast) throws Exception {
    long deadline = System.nanoTime() + DEADLINE_NANOS;
    while (edge.stat(name) < atLeast && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(edge.stat(name)).as(name).isGreaterThanOrEqualTo(atLeast);
  }

  private static String admin(EdgeHarness edge, String path) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.adminPort()
        + path)).build(), HttpResponse.BodyHandlers.ofString()).body();
  }

  private static Map<String, Integer> send(EdgeHarness edge, int requests) throws Exception {
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < requests; i++) {
      HttpResponse<String> r = edge.get("/p/" + i);
      assertThat(r.statusCode()).isEqualTo(200);
      counts.merge(r.headers().firstValue("x-origin").orElseThrow(), 1, Integer::sum);
    }
    return counts;
  }
}
