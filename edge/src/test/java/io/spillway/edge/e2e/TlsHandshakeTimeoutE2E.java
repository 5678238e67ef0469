package io.spillway.edge.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.EdgeProcess;
import io.spillway.testkit.FreePorts;
import io.spillway.testkit.OriginServer;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The filter chain's {@code transport_socket_connect_timeout} on the packaged edge: a client that
 * connects to a TLS listener and never starts its handshake is closed and counted, and the
 * overload manager's reduce_timeouts shortens the timeout (timer TRANSPORT_SOCKET_CONNECT) while
 * the pressure, read from an injected_resource file, is high.
 */
class TlsHandshakeTimeoutE2E {

  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final String SCALE = "overload.envoy.overload_actions.reduce_timeouts.scale_percent";

  @TempDir
  static Path dir;

  private static OriginServer origin;
  private static EdgeProcess edge;
  private static TestTls tls;
  private static Path pressure;
  private static int shortPort;
  private static int longPort;

  @BeforeAll
  static void start() throws Exception {
    tls = TestTls.selfSigned(dir);
    origin = OriginServer.start("handshake-origin");
    int[] ports = FreePorts.pick(3);
    shortPort = ports[0];
    longPort = ports[1];
    pressure = dir.resolve("pressure");
    Files.writeString(pressure, "0");
    String routes = """
        - match: { prefix: "/" }
          route: { cluster: backend }
        """;
    String yaml = BootstrapYaml.withAdmin(ports[2])
        .listener(BootstrapYaml.Listener.named("short", shortPort).routes(routes).transportSocket(tls.transportSocket())
            .chainOptions("transport_socket_connect_timeout: 4s"))
        .listener(BootstrapYaml.Listener.named("long", longPort).routes(routes).transportSocket(tls.transportSocket())
            .chainOptions("transport_socket_connect_timeout: 60s"))
        .staticCluster("backend", "", origin.port())
        .render() + BootstrapYaml.injectedOverloadManager(pressure) + """
          actions:
          - name: envoy.overload_actions.reduce_timeouts
            triggers: [{ name: envoy.resource_monitors.injected_resource, scaled: { scaling_threshold: 0.5, saturation_threshold: 0.9 } }]
            typed_config:
              "@type": type.googleapis.com/envoy.config.overload.v3.ScaleTimersOverloadActionConfig
              timer_scale_factors: [{ timer: TRANSPORT_SOCKET_CONNECT, min_timeout: 0.2s }]
        """;
    Path bootstrap = dir.resolve("handshake.yaml");
    Files.writeString(bootstrap, yaml);
    edge = EdgeProcess.start(bootstrap, ports[2], "--concurrency", "2");
  }

  @AfterAll
  static void stop() {
    if (edge != null) {
      edge.close();
    }
    if (origin != null) {
      origin.close();
    }
  }

  /** Sets the injected pressure and waits until the action's state shows it. */
  private static void pressure(String value, long scalePercent) throws Exception {
    Files.writeString(pressure, value);
    AdminClient admin = new AdminClient(edge);
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (admin.stat(SCALE) != scalePercent && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(admin.stat(SCALE)).isEqualTo(scalePercent);
  }

  /** A client that connects and sends nothing is closed by the edge (the read bound only stops a hang). */
  private static void assertSilentClientIsClosed(int port) throws Exception {
    try (Socket silent = new Socket("127.0.0.1", port)) {
      silent.setSoTimeout(10_000);
      assertThat(silent.getInputStream().read()).as("closed by the edge, nothing sent").isEqualTo(-1);
    }
  }

  @Test
  void aHandshakeThatNeverStartsIsClosedAndCountedWhileRealHandshakesComplete() throws Exception {
    pressure("0", 0);
    AdminClient admin = new AdminClient(edge);
    String stat = "listener.127.0.0.1_" + shortPort + ".downstream_cx_transport_socket_connect_timeout";
    long before = admin.stat(stat);
    assertSilentClientIsClosed(shortPort);
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (admin.stat(stat) == before && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(admin.stat(stat)).isEqualTo(before + 1);
    try (HttpClient client = HttpClient.newBuilder().sslContext(tls.trustingClient()).build()) {
      HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + shortPort + "/ok"))
          .timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
    }
    assertThat(admin.stat(stat)).as("a completed handshake is not a timeout").isEqualTo(before + 1);
  }

  @Test
  void reduceTimeoutsShortensTheHandshakeTimeoutUnderPressure() throws Exception {
    // Saturated: the 60 s timeout of new connections drops to its 0.2 s minimum.
    pressure("1.0", 100);
    try {
      assertSilentClientIsClosed(longPort);
    } finally {
      pressure("0", 0);
    }
  }
}
