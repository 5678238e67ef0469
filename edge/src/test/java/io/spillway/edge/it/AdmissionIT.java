package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.stats.PrometheusStatsFormat;
import io.spillway.edge.stats.StatFilter;
import io.spillway.testkit.OriginServer;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Inbound admission in a running edge: the tier comes from route metadata, enforce refuses above
 * the tier's share with 503 + Retry-After, shadow refuses nothing but counts, and every permit is
 * released (in-flight back to 0).
 */
class AdmissionIT {

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

  private String yaml() {
    return bootstrap("""
        - match: { prefix: "/login" }
          route: { cluster: origin }
          metadata: { filter_metadata: { spillway.admission: { tier: start } } }
        - match: { prefix: "/health" }
          direct_response: { status: 200 }
          metadata: { filter_metadata: { spillway.admission: { tier: exempt } } }
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", "", origin.port()));
  }

  /** A limit pinned at 4 (min = max): start may hold 2, proxy 4. */
  private static String policy(String mode) {
    return """
        {"inbound": {"mode": "%s", "maxInFlight": 4, "startShare": 0.5, "continuationShare": 0.75,
          "retryAfterSeconds": 7, "adaptive": {"minLimit": 4, "maxLimit": 4}}}
        """.formatted(mode);
  }

  private List<HttpResponse<String>> concurrent(String path, int n) throws Exception {
    List<CompletableFuture<HttpResponse<String>>> futures = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      futures.add(edge.http.sendAsync(HttpRequest.newBuilder(edge.uri(path)).build(), HttpResponse.BodyHandlers.ofString()));
    }
    List<HttpResponse<String>> out = new ArrayList<>();
    for (var f : futures) {
      out.add(f.get());
    }
    return out;
  }

  private static long count(List<HttpResponse<String>> rs, int status) {
    return rs.stream().filter(r -> r.statusCode() == status).count();
  }

  @Test
  void enforceRefusesAboveTheTierShareWithRetryAfter() throws Exception {
    edge = EdgeHarness.start(yaml(), policy("enforce"));
    List<HttpResponse<String>> start = concurrent("/login/delay/1500", 6);
    assertThat(count(start, 200)).isEqualTo(2);
    assertThat(count(start, 503)).isEqualTo(4);
    HttpResponse<String> refused = start.stream().filter(r -> r.statusCode() == 503).findFirst().orElseThrow();
    assertThat(refused.headers().firstValue("retry-after")).hasValue("7");

    List<HttpResponse<String>> proxy = concurrent("/api/delay/1500", 6);
    assertThat(count(proxy, 200)).isEqualTo(4);
    assertThat(count(proxy, 503)).isEqualTo(2);

    // Exempt routes are never counted or refused; everything was released.
    assertThat(edge.get("/health").statusCode()).isEqualTo(200);
    assertThat(edge.awaitStat("http.ingress.downstream_rq_active", 0)).isZero();
    String metrics = PrometheusStatsFormat.render(edge.stats(), StatFilter.ALL);
    assertThat(metrics).contains("http_admission_refused_total{mode=\"enforce\",tier=\"start\"} 4");
    assertThat(metrics).contains("http_admission_refused_total{mode=\"enforce\",tier=\"proxy\"} 2");
    // The admin /overload page shows the same picture.
    HttpResponse<String> page = edge.http.send(HttpRequest.newBuilder(
        java.net.URI.create("http://127.0.0.1:" + edge.adminPort() + "/overload")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(page.body()).containsPattern("\"mode\"\\s*:\\s*\"enforce\"")
        .containsPattern("\"limit\"\\s*:\\s*4")
        .containsPattern("\"refused_enforce\"\\s*:\\s*4");
    assertThat(metrics).contains("http_admission_in_flight{} 0");
  }

  @Test
  void everyEndingReleasesItsPermitExactlyOnce() throws Exception {
    String yaml = bootstrap("""
        - match: { prefix: "/slow" }
          route: { cluster: origin, timeout: 0.2s }
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", "", origin.port()));
    edge = EdgeHarness.start(yaml, policy("enforce"));
    assertThat(edge.get("/ok").statusCode()).isEqualTo(200);          // success
    assertThat(edge.get("/status/500").statusCode()).isEqualTo(500);  // upstream error
    assertThat(edge.get("/reset").statusCode()).isEqualTo(503);       // upstream reset
    assertThat(edge.get("/slow/delay/2000").statusCode()).isEqualTo(504); // route timeout
    try (io.spillway.testkit.RawHttp.Connection c =
        io.spillway.testkit.RawHttp.connect(edge.port(), java.time.Duration.ofSeconds(5))) {
      c.send("GET /hang HTTP/1.1\r\nHost: x\r\n\r\n");                    // client disconnect
      origin.awaitRequestCount(5, java.time.Duration.ofSeconds(5));
    }
    assertThat(edge.awaitStat("http.ingress.downstream_rq_active", 0)).isZero();
    String metrics = PrometheusStatsFormat.render(edge.stats(), StatFilter.ALL);
    assertThat(metrics).contains("http_admission_in_flight{} 0");
    // Had the five endings above leaked their permits, in-flight would sit at the limit of 4 and these would be refused.
    for (int i = 0; i < 5; i++) {
      assertThat(edge.get("/after/" + i).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void shadowRefusesNothingButCountsWhatEnforceWould() throws Exception {
    edge = EdgeHarness.start(yaml(), policy("shadow"));
    List<HttpResponse<String>> start = concurrent("/login/delay/1500", 6);
    assertThat(count(start, 200)).isEqualTo(6);
    String metrics = PrometheusStatsFormat.render(edge.stats(), StatFilter.ALL);
    assertThat(metrics).contains("http_admission_refused_total{mode=\"shadow\",tier=\"start\"} 4");
  }

  @Test
  void offCountsNothing() throws Exception {
    edge = EdgeHarness.start(yaml(), policy("off"));
    assertThat(count(concurrent("/login/delay/300", 6), 200)).isEqualTo(6);
    String metrics = PrometheusStatsFormat.render(edge.stats(), StatFilter.ALL);
    assertThat(metrics).doesNotContainPattern("http_admission_refused_total\\{[^}]*\\} [1-9]");
  }
}
