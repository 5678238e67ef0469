package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.H2cClient;
import io.spillway.testkit.OriginServer;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One downstream connection cannot take a cluster's whole request budget: an HTTP/2 client with
 * 100 streams open against a cluster of {@code max_requests: 20} gets 10 of them to the upstream
 * and 503 (UO) for the rest, and other clients are still served meanwhile.
 */
class ConnectionShareIT {

  private OriginServer origin;

  @BeforeEach
  void origin() {
    origin = OriginServer.start("share-origin");
  }

  @AfterEach
  void stop() {
    origin.close();
  }

  @Test
  void aGreedyHttp2ConnectionGetsHalfTheRequestBudgetAndOthersTheRest() throws Exception {
    String yaml = bootstrap("http2_protocol_options: { max_concurrent_streams: 1000 }", """
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", """
        circuit_breakers:
          thresholds:
          - max_requests: 20
        """, origin.port()));
    try (EdgeHarness edge = EdgeHarness.start(yaml); H2cClient greedy = H2cClient.connect(edge.port())) {
      List<CompletableFuture<H2cClient.Response>> held = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        held.add(greedy.send("GET", "/hang", List.of(), null));
      }
      assertThat(edge.awaitStat("cluster.origin.upstream_rq_share_overflow", 90)).isEqualTo(90);
      assertThat(edge.awaitStat("cluster.origin.upstream_rq_active", 10)).isEqualTo(10);
      origin.awaitRequestCount(10, java.time.Duration.ofSeconds(5));
      awaitDone(held, 90);
      List<H2cClient.Response> refused = held.stream().filter(CompletableFuture::isDone).map(H2cClient::await).toList();
      assertThat(refused).hasSize(90);
      assertThat(refused).allSatisfy(r -> {
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.bodyText()).endsWith("reset reason: overflow"); // flag UO
      });

      // While the greedy connection holds its ten, other clients are served.
      for (int i = 0; i < 5; i++) {
        HttpResponse<String> r = edge.get("/other/" + i);
        assertThat(r.statusCode()).isEqualTo(200);
      }
      try (H2cClient other = H2cClient.connect(edge.port())) {
        List<CompletableFuture<H2cClient.Response>> concurrent = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          concurrent.add(other.send("GET", "/delay/100", List.of(), null));
        }
        assertThat(concurrent.stream().map(r -> H2cClient.await(r).status())).containsOnly(200);
      }

      assertThat(edge.stat("cluster.origin.upstream_rq_pending_overflow")).isEqualTo(90);
      assertThat(edge.stat("cluster.origin.upstream_rq_share_overflow")).isEqualTo(90);
      assertThat(edge.stat("cluster.origin.upstream_rq_active")).isEqualTo(10);
      assertThat(held.stream().filter(CompletableFuture::isDone)).hasSize(90);
    }
  }

  /** Waits (up to 5 s) until {@code count} of the responses have arrived. */
  private static void awaitDone(List<CompletableFuture<H2cClient.Response>> responses, int count)
      throws InterruptedException {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
    while (responses.stream().filter(CompletableFuture::isDone).count() < count && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
  }
}
