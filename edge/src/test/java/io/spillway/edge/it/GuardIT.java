package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.OriginServer;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The outbound guard on the request path: per-peer concurrency, queue, request timeout, breaker. */
class GuardIT {

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
        - match: { prefix: "/" }
          route: { cluster: origin, timeout: 10s }
        """, cluster("origin", "", origin.port()));
  }

  @Test
  void concurrencyQueueAndQueueTimeoutInEnforce() throws Exception {
    edge = EdgeHarness.start(yaml(), """
        {"outbound": {"mode": "enforce", "maxConcurrent": 1, "maxQueue": 1, "queueTimeoutMillis": 300}}
        """);
    List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      calls.add(edge.http.sendAsync(HttpRequest.newBuilder(edge.uri("/delay/1500")).build(),
          HttpResponse.BodyHandlers.ofString()));
      Thread.sleep(100); // the first holds the slot, the second queues, the third finds the queue full
    }
    List<HttpResponse<String>> rs = new ArrayList<>();
    for (var c : calls) {
      rs.add(c.get());
    }
    assertThat(rs.get(0).statusCode()).isEqualTo(200);
    assertThat(rs.get(1).statusCode()).isEqualTo(503);
    assertThat(rs.get(1).body()).contains("queue");
    assertThat(rs.get(2).statusCode()).isEqualTo(503);
    assertThat(rs.get(2).body()).contains("queue");
    assertThat(origin.requestCount()).isEqualTo(1);
  }

  @Test
  void requestTimeoutIs504InEnforce() throws Exception {
    edge = EdgeHarness.start(yaml(), """
        {"outbound": {"mode": "enforce", "requestTimeoutMillis": 300}}
        """);
    HttpResponse<String> r = edge.get("/delay/3000");
    assertThat(r.statusCode()).isEqualTo(504);
    assertThat(r.body()).isEqualTo("upstream request timeout");
  }

  @Test
  void breakerOpensOnFailuresAndThenRefusesWithoutCallingThePeer() throws Exception {
    edge = EdgeHarness.start(yaml(), """
        {"outbound": {"mode": "enforce", "breaker": {"enabled": true, "minCalls": 2, "failureRatio": 0.5,
          "windowSeconds": 10, "openSeconds": 60}}}
        """);
    assertThat(edge.get("/status/503").statusCode()).isEqualTo(503);
    assertThat(edge.get("/status/503").statusCode()).isEqualTo(503);
    int seen = origin.requestCount();
    HttpResponse<String> refused = edge.get("/ok");
    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.body()).contains("breaker");
    assertThat(origin.requestCount()).isEqualTo(seen);
  }

  @Test
  void shadowRefusesNothing() throws Exception {
    edge = EdgeHarness.start(yaml(), """
        {"outbound": {"mode": "shadow", "maxConcurrent": 1, "maxQueue": 1, "queueTimeoutMillis": 300}}
        """);
    List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      calls.add(edge.http.sendAsync(HttpRequest.newBuilder(edge.uri("/delay/800")).build(),
          HttpResponse.BodyHandlers.ofString()));
    }
    for (var c : calls) {
      assertThat(c.get().statusCode()).isEqualTo(200);
    }
    String metrics = io.spillway.edge.stats.PrometheusStatsFormat.render(edge.stats(), io.spillway.edge.stats.StatFilter.ALL);
    assertThat(metrics).containsPattern("http_client_guard_rejected_total\\{[^}]*mode=\"shadow\"[^}]*\\} [1-9]");
  }
}
