package io.spillway.edge.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.EdgeProcess;
import io.spillway.testkit.FreePorts;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RawHttp;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged edge's lifecycle: SIGTERM drains (the listener stops accepting, in-flight requests
 * finish, HTTP/1 gets {@code Connection: close}, HTTP/2 gets GOAWAY, exit 0), {@code /quitquitquit}
 * (POST only) and {@code /healthcheck/fail|ok}. Each test starts its own edge, since most end it.
 */
class DrainE2E {

  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final int IN_FLIGHT_MS = 3000;

  @TempDir
  static Path dir;

  private static OriginServer origin;
  private EdgeProcess edge;
  private int port;

  @BeforeAll
  static void startOrigin() {
    origin = OriginServer.start("drain-origin");
  }

  @AfterAll
  static void stopOrigin() {
    if (origin != null) {
      origin.close();
    }
  }

  @AfterEach
  void stopEdge() {
    if (edge != null) {
      edge.close();
    }
  }

  private AdminClient startEdge(String name) {
    int[] ports = FreePorts.pick(2);
    port = ports[0];
    Path bootstrap = BootstrapYaml.withAdmin(ports[1])
        .listener(BootstrapYaml.Listener.named(name, port).routes("""
            - match: { prefix: "/" }
              route: { cluster: backend }
            """))
        .staticCluster("backend", "", origin.port())
        .writeTo(dir, name + ".yaml");
    edge = EdgeProcess.start(bootstrap, ports[1], "--concurrency", "2", "--drain-time-s", "10");
    return new AdminClient(edge);
  }

  @Test
  void sigtermDrainsInFlightRequestsAndExitsZero() throws Exception {
    startEdge("drain");
    int before = origin.requestCount();
    try (RawHttp.Connection http1 = RawHttp.connect(port, TIMEOUT);
         H2Probe h2 = H2Probe.connect(port)) {
      http1.send("GET /drain-h1/delay/" + IN_FLIGHT_MS + " HTTP/1.1\r\nHost: a\r\n\r\n");
      CompletableFuture<RawHttp.Response> http1Response = CompletableFuture.supplyAsync(
          () -> http1.readResponse(TIMEOUT));
      CompletableFuture<H2Probe.Exchange> h2Response = h2.request("GET", "/drain-h2/delay/" + IN_FLIGHT_MS, Map.of());
      origin.awaitRequestCount(before + 2, TIMEOUT); // both are at the origin: in flight

      ProcessHandle.of(edge.pid()).orElseThrow().destroy(); // SIGTERM

      awaitConnectionsRefused(port);
      assertThat(http1Response).as("the HTTP/1 request is still in flight when the listener has closed").isNotDone();
      assertThat(h2Response).as("the HTTP/2 request is still in flight when the listener has closed").isNotDone();

      RawHttp.Response h1 = http1Response.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      assertThat(h1.status()).isEqualTo(200);
      assertThat(h1.bodyText()).isEqualTo("drain-origin GET /drain-h1/delay/" + IN_FLIGHT_MS + "\n");
      assertThat(h1.header("connection")).isEqualToIgnoringCase("close");
      assertThat(h1.closed()).isTrue();

      H2Probe.Exchange h2Exchange = h2Response.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      assertThat(h2Exchange.status()).isEqualTo(200);
      assertThat(h2Exchange.reset()).isFalse();
      assertThat(h2.goAway()).as("GOAWAY on the open HTTP/2 connection").isCompleted();
      assertThat(h2.goAway().get()).as("GOAWAY error code").isZero();
      h2.closed().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }
    assertThat(edge.stop()).as("exit code after the drain; log:\n" + edge.logTail()).isZero();
  }

  @Test
  void quitQuitQuitIsPostOnlyAndExitsZero() {
    AdminClient admin = startEdge("quit");

    HttpResponse<String> get = admin.get("/quitquitquit");
    assertThat(get.statusCode()).isEqualTo(405);
    assertThat(edge.isAlive()).isTrue();
    assertThat(admin.get("/ready").statusCode()).isEqualTo(200);

    HttpResponse<String> post = admin.post("/quitquitquit");
    assertThat(post.statusCode()).isEqualTo(200);
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (edge.isAlive() && System.nanoTime() < deadline) {
      sleep(50);
    }
    assertThat(edge.isAlive()).as("the edge exited on its own after POST /quitquitquit").isFalse();
    assertThat(edge.stop()).as("exit code; log:\n" + edge.logTail()).isZero();
  }

  @Test
  void healthcheckFailAndOkToggleReadiness() throws Exception {
    AdminClient admin = startEdge("health");

    assertThat(admin.get("/healthcheck/fail").statusCode()).as("GET is refused").isEqualTo(405);
    assertThat(admin.get("/ready").statusCode()).isEqualTo(200);

    assertThat(admin.post("/healthcheck/fail").statusCode()).isEqualTo(200);
    assertThat(admin.get("/ready").statusCode()).isEqualTo(503);
    RawHttp.Response proxied = RawHttp.exchange(port, "GET /health/while-failing HTTP/1.1\r\nHost: a\r\n\r\n", TIMEOUT);
    assertThat(proxied.status()).as("traffic is still served while failing health checks").isEqualTo(200);

    assertThat(admin.post("/healthcheck/ok").statusCode()).isEqualTo(200);
    assertThat(admin.get("/ready").statusCode()).isEqualTo(200);
  }

  /** Polls until a connection to the port is refused (bounded: 5 s). */
  private static void awaitConnectionsRefused(int port) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (System.nanoTime() < deadline) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      } catch (ConnectException e) {
        return;
      } catch (IOException e) {
        // a reset or timeout is not a refusal yet; try again
      }
      sleep(50);
    }
    throw new AssertionError("127.0.0.1:" + port + " still accepted connections 5 s after SIGTERM");
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
