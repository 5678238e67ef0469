package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.RawHttp;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * WebSocket through a real edge on 127.0.0.1 (HCM {@code upgrade_configs: [{upgrade_type: websocket}]}):
 * a Netty WebSocket echo server behind it, the JDK's WebSocket client in front. The handshake,
 * text and binary messages both ways, a message far larger than any buffer (back-pressure both
 * ways), a close from either side, the stats and the access log line; a route with the upgrade
 * turned off refuses it with 403; the route timeout stops once upgraded while the stream idle
 * timeout still ends an idle tunnel; any answer but 101 is relayed and ends both connections.
 */
class WebSocketIT {

  private static final int LARGE = 8 * 1024 * 1024;

  @TempDir
  Path dir;

  private WebSocketEchoServer echo;
  private EdgeHarness edge;
  private Path accessLog;
  private final HttpClient client = HttpClient.newHttpClient();

  @BeforeEach
  void start() throws Exception {
    echo = new WebSocketEchoServer(2 * LARGE);
    accessLog = dir.resolve("access.log");
    String hcm = """
        upgrade_configs:
        - upgrade_type: WebSocket
        access_log:
        - name: envoy.access_loggers.file
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog
            path: %s
            log_format:
              text_format_source: {inline_string: "%%REQ(:PATH)%% %%PROTOCOL%% %%RESPONSE_CODE%% %%BYTES_RECEIVED%% %%BYTES_SENT%%\\n"}
        """.formatted(accessLog);
    String routes = """
        - match: { prefix: "/off" }
          route:
            cluster: ws
            upgrade_configs: [{upgrade_type: websocket, enabled: false}]
        - match: { prefix: "/idle" }
          route: { cluster: ws, idle_timeout: 1s }
        - match: { prefix: "/" }
          route: { cluster: ws, timeout: 1s }
        """;
    edge = EdgeHarness.start(bootstrap(hcm, routes, cluster("ws", "", echo.port())));
  }

  @AfterEach
  void stop() {
    if (edge != null) {
      edge.close();
    }
    echo.close();
  }

  @Test
  void textBinaryAndALargeMessageGoBothWaysAndTheClientCloses() throws Exception {
    Messages in = new Messages();
    WebSocket ws = client.newWebSocketBuilder().buildAsync(uri("/ws/echo"), in).get(10, TimeUnit.SECONDS);
    assertThat(edge.awaitStat("http.ingress.downstream_cx_upgrades_active", 1)).isEqualTo(1);

    ws.sendText("hello", true).get(10, TimeUnit.SECONDS);
    assertThat(in.next()).isEqualTo("text:hello");
    byte[] small = {0, 1, 2, (byte) 0xff};
    ws.sendBinary(ByteBuffer.wrap(small), true).get(10, TimeUnit.SECONDS);
    assertThat(in.next()).isEqualTo("binary:" + java.util.HexFormat.of().formatHex(small));

    byte[] large = new byte[LARGE];
    new Random(7).nextBytes(large);
    ws.sendBinary(ByteBuffer.wrap(large), true).get(30, TimeUnit.SECONDS);
    assertThat(in.nextBinary()).isEqualTo(large);

    ws.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(10, TimeUnit.SECONDS);
    assertThat(in.next()).isEqualTo("close:1000");
    assertThat(edge.awaitStat("http.ingress.downstream_cx_upgrades_active", 0)).isEqualTo(0);
    assertThat(edge.stat("http.ingress.downstream_cx_upgrades_total")).isEqualTo(1);
    assertThat(edge.stat("http.ingress.downstream_rq_1xx")).isEqualTo(1);
    // The upgraded upstream connection is closed, never parked in the pool.
    assertThat(edge.awaitStat("cluster.ws.upstream_cx_active", 0)).isEqualTo(0);
    assertThat(edge.stat("cluster.ws.upstream_cx_total")).isEqualTo(1);
    assertThat(edge.awaitStat("http.ingress.downstream_cx_active", 0)).isEqualTo(0);

    String line = awaitLogLine("/ws/echo");
    String[] f = line.split(" ");
    assertThat(f[1]).isEqualTo("HTTP/1.1");
    assertThat(f[2]).isEqualTo("101");
    // The tunnelled bytes count: frames of both messages each way, headers not included.
    assertThat(Long.parseLong(f[3])).isGreaterThan(LARGE);
    assertThat(Long.parseLong(f[4])).isGreaterThan(LARGE);
  }

  @Test
  void theServerClosesAndTheClientHearsIt() throws Exception {
    Messages in = new Messages();
    WebSocket ws = client.newWebSocketBuilder().buildAsync(uri("/ws/echo"), in).get(10, TimeUnit.SECONDS);
    ws.sendText("close-please", true).get(10, TimeUnit.SECONDS);
    assertThat(in.next()).isEqualTo("close:4000");
    assertThat(edge.awaitStat("http.ingress.downstream_cx_upgrades_active", 0)).isEqualTo(0);
    assertThat(edge.awaitStat("cluster.ws.upstream_cx_active", 0)).isEqualTo(0);
    assertThat(edge.awaitStat("http.ingress.downstream_cx_active", 0)).isEqualTo(0);
  }

  @Test
  void theRouteTimeoutStopsOnceUpgradedButTheStreamIdleTimeoutStillEndsTheTunnel() throws Exception {
    Messages in = new Messages();
    WebSocket ws = client.newWebSocketBuilder().buildAsync(uri("/ws/echo"), in).get(10, TimeUnit.SECONDS);
    Thread.sleep(1500); // longer than the route's 1 s timeout
    ws.sendText("still here", true).get(10, TimeUnit.SECONDS);
    assertThat(in.next()).isEqualTo("text:still here");
    ws.sendClose(WebSocket.NORMAL_CLOSURE, "").get(10, TimeUnit.SECONDS);

    Messages idle = new Messages();
    client.newWebSocketBuilder().buildAsync(uri("/idle/ws"), idle).get(10, TimeUnit.SECONDS);
    // Nothing moves: idle_timeout (1 s) resets the stream, which closes both connections.
    assertThat(idle.next()).startsWith("close:").isNotEqualTo("close:1000");
    assertThat(edge.awaitStat("http.ingress.downstream_rq_idle_timeout", 1)).isEqualTo(1);
    assertThat(edge.awaitStat("cluster.ws.upstream_cx_active", 0)).isEqualTo(0);
  }

  @Test
  void aRouteWithTheUpgradeTurnedOffRefusesItWith403() throws Exception {
    RawHttp.Response r = RawHttp.exchange(edge.port(), handshake("/off/ws", ""), Duration.ofSeconds(10));
    assertThat(r.status()).isEqualTo(403);
    assertThat(r.bodyText()).isEmpty();
    assertThat(edge.stat("http.ingress.downstream_rq_ws_on_non_ws_route")).isEqualTo(1);
    assertThat(echo.requests.get()).isZero();
  }

  @Test
  void anUpgradeRequestWithABodyIsRefused() throws Exception {
    RawHttp.Response r = RawHttp.exchange(edge.port(),
        handshake("/ws/echo", "Content-Length: 5\r\n") + "hello", Duration.ofSeconds(10));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.bodyText()).isEqualTo("upgrade request with a body");
    assertThat(echo.requests.get()).isZero();
  }

  @Test
  void anyOtherAnswerIsRelayedAndEndsBothConnections() throws Exception {
    RawHttp.Response r = RawHttp.exchange(edge.port(), handshake("/refused", ""), Duration.ofSeconds(10));
    assertThat(r.status()).isEqualTo(404);
    assertThat(r.header("connection")).isEqualTo("close");
    assertThat(echo.requests.get()).isEqualTo(1);
    assertThat(edge.awaitStat("cluster.ws.upstream_cx_active", 0)).isEqualTo(0);
    assertThat(edge.stat("http.ingress.downstream_cx_upgrades_total")).isZero();
    // A plain request afterwards gets a fresh upstream connection, not the refused upgrade's.
    assertThat(edge.get("/plain").statusCode()).isEqualTo(404);
    assertThat(edge.stat("cluster.ws.upstream_cx_total")).isEqualTo(2);
  }

  @Test
  void bytesSentRightAfterTheHandshakeArriveAndTheClientsHalfCloseEndsTheTunnel() throws Exception {
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", edge.port())) {
      socket.setSoTimeout(20_000);
      java.io.OutputStream out = socket.getOutputStream();
      // A frame in the same write as the handshake: the edge holds it until it has switched.
      ByteArrayOutputStream first = new ByteArrayOutputStream();
      first.writeBytes(handshake("/ws/echo", "").getBytes(StandardCharsets.ISO_8859_1));
      first.writeBytes(maskedText("early"));
      out.write(first.toByteArray());
      out.flush();
      java.io.InputStream in = socket.getInputStream();
      String head = readHead(in);
      assertThat(head).startsWith("HTTP/1.1 101 ");
      assertThat(head.toLowerCase(java.util.Locale.ROOT)).contains("upgrade: websocket", "connection: upgrade")
          .doesNotContain("transfer-encoding", "content-length");
      assertThat(readTextFrame(in)).isEqualTo("early");
      out.write(maskedText("second"));
      out.flush();
      assertThat(readTextFrame(in)).isEqualTo("second");

      socket.shutdownOutput();
      // The FIN goes on to the server, which closes; that close ends the client's side too.
      assertThat(in.read()).isEqualTo(-1);
    }
    assertThat(edge.awaitStat("http.ingress.downstream_cx_upgrades_active", 0)).isEqualTo(0);
    assertThat(edge.awaitStat("cluster.ws.upstream_cx_active", 0)).isEqualTo(0);
  }

  private static byte[] maskedText(String text) {
    byte[] payload = text.getBytes(StandardCharsets.UTF_8);
    byte[] mask = {1, 2, 3, 4};
    byte[] frame = new byte[2 + 4 + payload.length];
    frame[0] = (byte) 0x81; // FIN, text
    frame[1] = (byte) (0x80 | payload.length); // masked, short length
    System.arraycopy(mask, 0, frame, 2, 4);
    for (int i = 0; i < payload.length; i++) {
      frame[6 + i] = (byte) (payload[i] ^ mask[i % 4]);
    }
    return frame;
  }

  private static String readHead(java.io.InputStream in) throws java.io.IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n") && head.length() < 16_384) {
      int b = in.read();
      if (b < 0) {
        throw new AssertionError("closed after " + head);
      }
      head.append((char) b);
    }
    return head.toString();
  }

  private static String readTextFrame(java.io.InputStream in) throws java.io.IOException {
    byte[] h = in.readNBytes(2);
    assertThat(h[0]).isEqualTo((byte) 0x81);
    byte[] payload = in.readNBytes(h[1] & 0x7f); // the server does not mask
    return new String(payload, StandardCharsets.UTF_8);
  }

  private URI uri(String path) {
    return URI.create("ws://127.0.0.1:" + edge.port() + path);
  }

  private static String handshake(String path, String extra) {
    return "GET " + path + " HTTP/1.1\r\nHost: example.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
        + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" + extra + "\r\n";
  }

  private String awaitLogLine(String path) throws Exception {
    // The file is written every flush interval (Envoy's default, 10 s) or when enough is queued.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(25);
    while (System.nanoTime() < deadline) {
      if (Files.exists(accessLog)) {
        for (String line : Files.readAllLines(accessLog)) {
          if (line.startsWith(path + " ")) {
            return line;
          }
        }
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no access log line for " + path + " in "
        + (Files.exists(accessLog) ? Files.readAllLines(accessLog) : "no file"));
  }

  /** The client's side: whole messages and the close, in arrival order. */
  private static final class Messages implements WebSocket.Listener {
    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final StringBuilder text = new StringBuilder();
    private final ByteArrayOutputStream binary = new ByteArrayOutputStream();

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      text.append(data);
      if (last) {
        queue.add("text:" + text);
        text.setLength(0);
      }
      ws.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
      byte[] b = new byte[data.remaining()];
      data.get(b);
      binary.writeBytes(b);
      if (last) {
        queue.add(binary.toByteArray());
        binary.reset();
      }
      ws.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
      queue.add("close:" + statusCode);
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public void onError(WebSocket ws, Throwable error) {
      queue.add("close:error " + error);
    }

    String next() throws InterruptedException {
      Object m = queue.poll(20, TimeUnit.SECONDS);
      assertThat(m).as("a message within 20 s").isNotNull();
      return m instanceof byte[] b ? "binary:" + java.util.HexFormat.of().formatHex(b) : (String) m;
    }

    byte[] nextBinary() throws InterruptedException {
      Object m = queue.poll(30, TimeUnit.SECONDS);
      assertThat(m).as("a binary message within 30 s").isInstanceOf(byte[].class);
      return (byte[]) m;
    }
  }

  /**
   * A WebSocket echo server under {@code /ws} (and {@code /idle/ws}): each message comes back as
   * it came; the text {@code close-please} gets a close frame (4000) and the connection's end.
   * Any other request gets 404.
   */
}
