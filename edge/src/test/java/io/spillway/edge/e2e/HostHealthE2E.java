package io.spillway.edge.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.EdgeProcess;
import io.spillway.testkit.FreePorts;
import io.spillway.testkit.OriginServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged edge loading an Envoy bootstrap whose cluster has {@code health_checks},
 * {@code outlier_detection} and {@code common_lb_config}: a host whose health endpoint fails leaves
 * rotation, and the stats and {@code /clusters} say so under Envoy's names.
 */
class HostHealthE2E {

  @TempDir
  Path dir;

  private static void await(LongSupplier value, long expected, Duration limit) throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (value.getAsLong() != expected && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(value.getAsLong()).isEqualTo(expected);
  }

  @Test
  void anEnvoyBootstrapWithHealthChecksAndOutlierDetectionRoutesAroundAFailingHost() throws Exception {
    try (OriginServer good = OriginServer.start("good"); OriginServer bad = OriginServer.start("bad")) {
      int[] ports = FreePorts.pick(2);
      Path bootstrap = BootstrapYaml.withAdmin(ports[1])
          .listener(BootstrapYaml.Listener.named("main", ports[0]).routes("""
              - match: { prefix: "/" }
                route: { cluster: backend }
              """))
          .staticCluster("backend", """
              health_checks:
              - timeout: 1s
                interval: 0.2s
                interval_jitter: 0.05s
                no_traffic_interval: 0.2s
                unhealthy_threshold: 2
                healthy_threshold: 1
                reuse_connection: true
                always_log_health_check_failures: true
                http_health_check:
                  path: /healthz
                  expected_statuses: [{ start: 200, end: 300 }]
                  request_headers_to_add:
                  - header: { key: x-health-probe, value: edge }
              outlier_detection:
                consecutive_5xx: 5
                interval: 1s
                base_ejection_time: 10s
                max_ejection_percent: 50
              common_lb_config:
                healthy_panic_threshold: { value: 40 }
              """, good.port(), bad.port())
          .writeTo(dir, "edge.yaml");
      try (EdgeProcess edge = EdgeProcess.start(bootstrap, ports[1], "--concurrency", "2")) {
        AdminClient admin = new AdminClient(edge);
        await(() -> admin.stat("cluster.backend.health_check.healthy"), 2, Duration.ofSeconds(10));
        assertThat(good.lastRequest().header("x-health-probe")).isEqualTo("edge");

        bad.failNext(1_000_000, 503);
        await(() -> admin.stat("cluster.backend.health_check.healthy"), 1, Duration.ofSeconds(10));
        assertThat(admin.stat("cluster.backend.membership_healthy")).isEqualTo(1);

        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        Set<String> origins = new HashSet<>();
        for (int i = 0; i < 10; i++) {
          HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ports[0] + "/x" + i))
              .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
          assertThat(r.statusCode()).isEqualTo(200);
          origins.add(r.headers().firstValue("x-origin").orElse("?"));
        }
        assertThat(origins).containsExactly("good");
        String clusters = admin.get("/clusters").body();
        assertThat(clusters).contains("backend::127.0.0.1:" + bad.port() + "::health_flags::/failed_active_hc")
            .contains("backend::127.0.0.1:" + good.port() + "::health_flags::healthy");
        assertThat(admin.get("/clusters?format=json").body()).contains("\"failed_active_health_check\": true");
        assertThat(admin.stat("cluster.backend.health_check.failure")).isPositive();
        assertThat(admin.stat("cluster.backend.outlier_detection.ejections_active")).isZero();
        assertThat(admin.stat("cluster.backend.lb_healthy_panic")).isZero();
      }
    }
  }
}
