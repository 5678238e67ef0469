package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.H2cClient;
import io.spillway.testkit.OriginServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A cluster's {@code max_connections} is shared by the edge's two workers: when one worker's pool
 * holds the whole budget in idle connections, requests on the other worker still get connections
 * (the idle ones are closed for them) instead of waiting for the idle timeout (an hour here) and
 * ending in the route timeout's 504.
 *
 * <p>Downstream connections are spread over the workers in turn, so of two clients connected one
 * after the other, one is on each worker.
 */
class ConnectionBudgetIT {

  private OriginServer origin;

  @BeforeEach
  void origin() {
    origin = OriginServer.start("budget-origin");
  }

  @AfterEach
  void stop() {
    origin.close();
  }

  private String yaml(int maxConnections, String protocol) {
    return bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: origin, timeout: 5s }
        """, cluster("origin", """
        circuit_breakers:
          thresholds:
          - max_connections: %d
        typed_extension_protocol_options:
          envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
            "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
            common_http_protocol_options: { idle_timeout: 3600s }
            explicit_http_config: { %s: {} }
        """.formatted(maxConnections, protocol), origin.port()));
  }

  @Test
  void http1IdleConnectionsOfOneWorkerAreClosedForTheOther() throws Exception {
    try (EdgeHarness edge = EdgeHarness.start(yaml(4, "http_protocol_options"))) {
      // One client (one worker) makes its pool open all four connections, which then stay idle.
      try (H2cClient filler = H2cClient.connect(edge.port())) {
        assertThat(statuses(send(filler, 8, "/delay/500"))).containsOnly(200);
      }
      assertThat(edge.awaitStat("cluster.origin.upstream_rq_active", 0)).isZero();
      assertThat(edge.stat("cluster.origin.upstream_cx_active")).isEqualTo(4);
      assertThat(edge.stat("cluster.origin.upstream_cx_total")).isEqualTo(4);
      assertThat(edge.stat("cluster.origin.upstream_cx_reclaimed")).isZero();

      // Two more clients: one on each worker. Both are served.
      try (H2cClient first = H2cClient.connect(edge.port()); H2cClient second = H2cClient.connect(edge.port())) {
        List<CompletableFuture<H2cClient.Response>> all = new ArrayList<>(send(first, 4, "/delay/100"));
        all.addAll(send(second, 4, "/delay/100"));
        assertThat(statuses(all)).containsOnly(200);
      }

      assertThat(edge.stat("cluster.origin.upstream_cx_reclaimed")).isPositive();
      assertThat(edge.stat("cluster.origin.upstream_rq_timeout")).isZero();
      assertThat(edge.awaitStat("cluster.origin.upstream_rq_active", 0)).isZero();
      assertThat(edge.stat("cluster.origin.upstream_cx_active")).isLessThanOrEqualTo(4);
    }
  }

  @Test
  void http2ConnectionWithoutStreamsIsClosedForTheOtherWorker() throws Exception {
    try (EdgeHarness edge = EdgeHarness.start(yaml(1, "http2_protocol_options"))) {
      try (H2cClient filler = H2cClient.connect(edge.port())) {
        assertThat(statuses(send(filler, 3, "/delay/100"))).containsOnly(200);
      }
      assertThat(edge.awaitStat("cluster.origin.upstream_rq_active", 0)).isZero();
      assertThat(edge.stat("cluster.origin.upstream_cx_active")).isEqualTo(1);

      try (H2cClient first = H2cClient.connect(edge.port()); H2cClient second = H2cClient.connect(edge.port())) {
        List<CompletableFuture<H2cClient.Response>> all = new ArrayList<>(send(first, 3, "/delay/100"));
        all.addAll(send(second, 3, "/delay/100"));
        assertThat(statuses(all)).containsOnly(200);
      }

      assertThat(edge.stat("cluster.origin.upstream_cx_reclaimed")).isPositive();
      assertThat(edge.stat("cluster.origin.upstream_rq_timeout")).isZero();
      assertThat(edge.stat("cluster.origin.upstream_cx_active")).isLessThanOrEqualTo(1);
    }
  }

  private static List<CompletableFuture<H2cClient.Response>> send(H2cClient client, int count, String path) {
    List<CompletableFuture<H2cClient.Response>> responses = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      responses.add(client.send("GET", path, List.of(), null));
    }
    return responses;
  }

  private static List<Integer> statuses(List<CompletableFuture<H2cClient.Response>> responses) {
    return responses.stream().map(r -> H2cClient.await(r).status()).toList();
  }
}
