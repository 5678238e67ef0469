package io.spillway.edge.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.EdgeProcess;
import io.spillway.testkit.FreePorts;
import io.spillway.testkit.OriginServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP/2 load shed points on the packaged edge, driven by an injected_resource file and seen
 * on the wire by a raw HTTP/2 client: {@code http2_server_go_away_on_dispatch} serves the stream
 * and sends GOAWAY; {@code http2_server_go_away_and_close_on_dispatch} serves nothing and closes
 * the connection after GOAWAY. Below the threshold neither fires.
 */
class Http2ShedPointsE2E {

  @TempDir
  Path dir;

  private OriginServer origin;
  private EdgeProcess edge;
  private Path pressureFile;
  private int port;
  private AdminClient admin;

  @BeforeEach
  void origin() {
    origin = OriginServer.start("h2-shed-origin");
  }

  @AfterEach
  void stop() {
    if (edge != null) {
      edge.close();
    }
    origin.close();
  }

  private void startEdge(String shedPoint) throws Exception {
    startEdgeWith("""
          loadshed_points:
          - name: %s
            triggers: [{ name: envoy.resource_monitors.injected_resource, threshold: { value: 0.9 } }]
        """.formatted(shedPoint));
  }

  /** An edge whose overload_manager reads the injected pressure file, followed by {@code rest} (indented by 2). */
  private void startEdgeWith(String rest) throws Exception {
    int[] ports = FreePorts.pick(2);
    port = ports[0];
    pressureFile = dir.resolve("pressure");
    setPressure(0.1);
    String yaml = BootstrapYaml.withAdmin(ports[1])
        .listener(BootstrapYaml.Listener.named("main", port).routes("""
            - match: { prefix: "/" }
              route: { cluster: backend }
            """))
        .staticCluster("backend", "", origin.port())
        .render() + BootstrapYaml.injectedOverloadManager(pressureFile) + rest;
    Path bootstrap = dir.resolve("h2-shed.yaml");
    Files.writeString(bootstrap, yaml);
    edge = EdgeProcess.start(bootstrap, ports[1], "--concurrency", "1");
    admin = new AdminClient(edge);
  }

  private void setPressure(double value) throws Exception {
    Path tmp = dir.resolve("pressure.tmp");
    Files.writeString(tmp, Double.toString(value));
    Files.move(tmp, pressureFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Waits (bounded) until the overload manager has read a pressure of at least 0.9. */
  private void awaitPressure() throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      if (admin.get("/overload").body().contains("\"pressure\" : 0.95")) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the pressure never reached 0.95: " + admin.get("/overload").body());
  }

  @Test
  void goAwayOnDispatchServesTheStreamAndSendsGoAway() throws Exception {
    startEdge("envoy.load_shed_points.http2_server_go_away_on_dispatch");
    try (H2Probe calm = H2Probe.connect(port)) {
      assertThat(calm.request("GET", "/calm", Map.of()).get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
      assertThat(calm.goAway()).isNotDone();
    }

    setPressure(0.95);
    awaitPressure();
    try (H2Probe probe = H2Probe.connect(port)) {
      H2Probe.Exchange served = probe.request("GET", "/shed", Map.of()).get(10, TimeUnit.SECONDS);
      assertThat(served.status()).as("the stream that triggered it is still served").isEqualTo(200);
      assertThat(probe.goAway().get(10, TimeUnit.SECONDS)).as("GOAWAY with NO_ERROR").isEqualTo(0L);
    }
    assertThat(admin.get("/overload").body()).containsPattern(
        "\"name\" : \"envoy.load_shed_points.http2_server_go_away_on_dispatch\",\\s*\"probability\" : 1.0");
  }

  @Test
  void goAwayAndCloseOnDispatchServesNothingAndClosesTheConnection() throws Exception {
    startEdge("envoy.load_shed_points.http2_server_go_away_and_close_on_dispatch");
    setPressure(0.95);
    awaitPressure();
    int originBefore = origin.requestCount();
    try (H2Probe probe = H2Probe.connect(port)) {
      var exchange = probe.request("GET", "/shed", Map.of());
      probe.closed().get(10, TimeUnit.SECONDS);
      assertThat(probe.goAway().get(1, TimeUnit.SECONDS)).isEqualTo(0L);
      assertThat(exchange.handle((e, t) -> e == null || e.status() == 0).get(10, TimeUnit.SECONDS))
          .as("no response for the shed stream").isTrue();
    }
    assertThat(origin.requestCount()).as("nothing reached the upstream").isEqualTo(originBefore);

    setPressure(0.1);
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    int status = 0;
    while (status != 200 && System.nanoTime() < deadline) {
      try (H2Probe probe = H2Probe.connect(port)) {
        status = probe.request("GET", "/calm", Map.of()).handle((e, t) -> e == null ? 0 : e.status())
            .get(10, TimeUnit.SECONDS);
      }
    }
    assertThat(status).as("served again once the pressure dropped").isEqualTo(200);
  }

  @Test
  void resetHighMemoryStreamResetsAStreamThatHoldsBufferedMemory() throws Exception {
    startEdgeWith("""
          buffer_factory_config: { minimum_account_to_track_power_of_two: 15 }
          actions:
          - name: envoy.overload_actions.reset_high_memory_stream
            triggers:
            - name: envoy.resource_monitors.injected_resource
              scaled: { scaling_threshold: 0.5, saturation_threshold: 0.9 }
        """);
    try (H2Probe probe = H2Probe.connect(port); H2Probe other = H2Probe.connect(port)) {
      // A 20 MB response the client never reads: the edge holds what flow control will not let out
      // and pauses the upstream. (The unread stream also holds its connection's window, so the
      // small requests go on another connection.)
      var stuck = probe.requestWithoutReading("GET", "/bytes/20000000");
      assertThat(other.request("GET", "/small", Map.of()).get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
      Thread.sleep(300);
      assertThat(stuck).as("nothing happens below the scaling threshold").isNotDone();

      setPressure(0.95);
      H2Probe.Exchange reset = stuck.get(10, TimeUnit.SECONDS);
      assertThat(reset.reset()).as("the stream was reset: " + reset).isTrue();
      assertThat(other.request("GET", "/after", Map.of()).get(10, TimeUnit.SECONDS).status())
          .as("streams holding little memory carry on").isEqualTo(200);
    }
    assertThat(admin.stat("overload.envoy.overload_actions.reset_high_memory_stream.count")).isEqualTo(1);
  }
}
