package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.OriginServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The cluster's {@code common_http_protocol_options.idle_timeout} closes upstream connections that
 * have nothing to do: an HTTP/1.1 connection with no request, an HTTP/2 one with no open stream.
 * A short explicit value stands in for the 60 s default, which takes the same path (the default
 * itself is checked by the config tests).
 */
class UpstreamIdleTimeoutIT {

  private OriginServer origin;

  @BeforeEach
  void origin() {
    origin = OriginServer.start("idle-origin");
  }

  @AfterEach
  void stop() {
    origin.close();
  }

  private String yaml(String protocol) {
    return bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", """
        typed_extension_protocol_options:
          envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
            "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
            common_http_protocol_options: { idle_timeout: 0.2s }
            explicit_http_config: { %s: {} }
        """.formatted(protocol), origin.port()));
  }

  @Test
  void idleHttp1ConnectionIsClosed() throws Exception {
    assertClosedWhenIdle("http_protocol_options");
  }

  @Test
  void http2ConnectionWithoutStreamsIsClosed() throws Exception {
    assertClosedWhenIdle("http2_protocol_options");
  }

  private void assertClosedWhenIdle(String protocol) throws Exception {
    try (EdgeHarness edge = EdgeHarness.start(yaml(protocol))) {
      assertThat(edge.get("/first").statusCode()).isEqualTo(200);
      assertThat(origin.connectionCount()).isEqualTo(1);

      assertThat(edge.awaitStat("cluster.origin.upstream_cx_idle_timeout", 1)).isEqualTo(1);
      assertThat(edge.awaitStat("cluster.origin.upstream_cx_active", 0)).isZero();
      assertThat(edge.stat("cluster.origin.upstream_cx_destroy")).isEqualTo(1);
      awaitOriginConnections(0);

      // The next request opens a new connection.
      assertThat(edge.get("/second").statusCode()).isEqualTo(200);
      assertThat(origin.connectionCount()).isEqualTo(2);
    }
  }

  private void awaitOriginConnections(int open) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (origin.openConnectionCount() != open && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(origin.openConnectionCount()).isEqualTo(open);
  }
}
