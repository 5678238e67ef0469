package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.H2cClient;
import io.spillway.testkit.OriginServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An HTTP/2 connection's idle timeout ({@code common_http_protocol_options.idle_timeout}) counts
 * only time with no open stream: a stream outlasting the timeout keeps the connection, which then
 * closes once it has been idle for the whole timeout.
 */
class Http2IdleTimeoutIT {

  private OriginServer origin;
  private EdgeHarness edge;

  @BeforeEach
  void start() throws Exception {
    origin = OriginServer.start("origin");
    edge = EdgeHarness.start(bootstrap("common_http_protocol_options: { idle_timeout: 0.5s }", """
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", "", origin.port())));
  }

  @AfterEach
  void stop() throws Exception {
    edge.close();
    origin.close();
  }

  @Test
  void aStreamLongerThanTheIdleTimeoutKeepsTheConnectionWhichThenClosesWhenIdle() throws Exception {
    try (H2cClient h2 = H2cClient.connect(edge.port())) {
      // 1.2 s of response time, more than twice the idle timeout: the connection must stay up.
      H2cClient.Response slow = H2cClient.await(h2.send("GET", "/delay/1200", List.of(), null));
      assertThat(slow.status()).isEqualTo(200);
      assertThat(h2.isOpen()).isTrue();
      assertThat(edge.stat("http.ingress.downstream_cx_idle_timeout")).isZero();
      H2cClient.Response next = h2.get("/again");
      assertThat(next.status()).isEqualTo(200);
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (h2.isOpen() && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(h2.isOpen()).as("closed once idle").isFalse();
    }
    assertThat(edge.awaitStat("http.ingress.downstream_cx_idle_timeout", 1)).isEqualTo(1);
  }
}
