package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameTypes;
import io.netty.handler.codec.http2.Http2Headers;
import io.spillway.testkit.RawHttp2;
import io.spillway.testkit.RawHttp2.Frame;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CONNECT through a real edge on 127.0.0.1, terminated by the edge (route {@code connect_config}):
 * a TCP echo server behind it; HTTP/1.1 CONNECT over a raw socket and HTTP/2 CONNECT over raw
 * frames; the refusals (no {@code upgrade_configs}: 403; a closed port: 503 UF; a bad target: 400;
 * a malformed HTTP/2 CONNECT: PROTOCOL_ERROR), the stats and the access log line.
 */
class ConnectIT {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir
  Path dir;

  private TcpEcho echo;
  /** Resets each connection (RST, SO_LINGER 0) once it has read a byte. */
  private TcpEcho resetter;
  private int closedPort;
  private Path accessLog;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    echo = new TcpEcho(false);
    resetter = new TcpEcho(true);
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    }
    accessLog = dir.resolve("access.log");
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    echo.close();
    resetter.close();
  }

  private EdgeHarness edge(String hcmExtra) throws Exception {
    return edge(hcmExtra, """
        - match:
            connect_matcher: {}
            headers: [{name: ":authority", string_match: {exact: "closed.example:1"}}]
          route:
            cluster: closed
            upgrade_configs: [{upgrade_type: CONNECT, connect_config: {}}]
        - match:
            connect_matcher: {}
            headers: [{name: ":authority", string_match: {exact: "reset.example:1"}}]
          route:
            cluster: reset
            upgrade_configs: [{upgrade_type: CONNECT, connect_config: {}}]
        - match:
            connect_matcher: {}
            headers: [{name: ":authority", string_match: {exact: "idle.example:1"}}]
          route:
            cluster: echo
            idle_timeout: 0.5s
            upgrade_configs: [{upgrade_type: CONNECT, connect_config: {}}]
        - match: {connect_matcher: {}}
          route:
            cluster: echo
            timeout: 0.5s
            upgrade_configs: [{upgrade_type: CONNECT, connect_config: {}}]
        - match: {prefix: "/"}
          direct_response: {status: 200, body: {inline_string: "plain"}}
        """);
  }

  private EdgeHarness edge(String hcmExtra, String routes) throws Exception {
    return edge(hcmExtra, routes, null);
  }

  private EdgeHarness edge(String hcmExtra, String routes, String policyJson) throws Exception {
    String hcm = hcmExtra + """

        access_log:
        - name: envoy.access_loggers.file
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog
            path: %s
            log_format:
              text_format_source: {inline_string: "%%REQ(:METHOD)%% %%PROTOCOL%% %%RESPONSE_CODE%% %%RESPONSE_FLAGS%% %%BYTES_RECEIVED%% %%BYTES_SENT%%\\n"}
        """.formatted(accessLog);
    String yaml = bootstrap(hcm, routes, cluster("echo", "", echo.port()) + "\n" + cluster("closed", "", closedPort)
        + "\n" + cluster("reset", "", resetter.port()));
    EdgeHarness h = policyJson == null ? EdgeHarness.start(yaml) : EdgeHarness.start(yaml, policyJson);
    closeables.add(h);
    return h;
  }

  private Socket socket(EdgeHarness edge) throws IOException {
    Socket s = new Socket();
    closeables.add(s);
    s.connect(new InetSocketAddress("127.0.0.1", edge.port()), 5_000);
    s.setSoTimeout(10_000);
    return s;
  }

  /**
   * A tunnel gives its admission permit back once open: with the limit pinned at 2 in enforce,
   * three tunnels stay open side by side (the third got 503 while tunnels held their permits) and
   * the edge counts none of them in flight.
   */
  @Test
  void openTunnelsHoldNoAdmissionPermit() throws Exception {
    EdgeHarness edge = edge("upgrade_configs: [{upgrade_type: CONNECT}]", """
        - match: {connect_matcher: {}}
          route:
            cluster: echo
            upgrade_configs: [{upgrade_type: CONNECT, connect_config: {}}]
        """, """
        {"inbound": {"mode": "enforce", "maxInFlight": 2, "adaptive": {"minLimit": 2, "maxLimit": 2}}}
        """);
    List<Socket> tunnels = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Socket s = socket(edge);
      s.getOutputStream().write("CONNECT echo.example:443 HTTP/1.1\r\nHost: echo.example:443\r\n\r\n"
          .getBytes(StandardCharsets.US_ASCII));
      assertThat(readHead(s.getInputStream())).as("tunnel %d", i).startsWith("HTTP/1.1 200 ");
      tunnels.add(s);
    }
    for (Socket s : tunnels) {
      s.getOutputStream().write("ok".getBytes(StandardCharsets.US_ASCII));
      assertThat(new String(s.getInputStream().readNBytes(2), StandardCharsets.US_ASCII)).isEqualTo("ok");
    }
    String overload = edge.http.send(java.net.http.HttpRequest.newBuilder(
        java.net.URI.create("http://127.0.0.1:" + edge.adminPort() + "/overload")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    assertThat(overload).containsPattern("\"in_flight\"\\s*:\\s*0,");
  }

  @Test
  void http1ConnectBecomesATunnelToTheHostUntilBothSidesClose() throws Exception {
    EdgeHarness edge = edge("upgrade_configs: [{upgrade_type: CONNECT}]");
    Socket s = socket(edge);
    OutputStream out = s.getOutputStream();
    InputStream in = s.getInputStream();
    out.write("CONNECT echo.example:443 HTTP/1.1\r\nHost: echo.example:443\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    String head = readHead(in);
    assertThat(head).startsWith("HTTP/1.1 200 ");
    assertThat(head.toLowerCase()).doesNotContain("content-length").doesNotContain("transfer-encoding");
    assertThat(edge.awaitStat("http.ingress.downstream_cx_upgrades_active", 1)).isEqualTo(1);

    out.write("ping".getBytes(StandardCharsets.US_ASCII));
    assertThat(new String(in.readNBytes(4), StandardCharsets.US_ASCII)).isEqualTo("ping");
    // The route timeout (0.5 s) does not apply to an established tunnel.
    Thread.sleep(800);
    byte[] large = new byte[256 * 1024];
    new java.util.Random(3).nextBytes(large);
    Thread writer = Thread.ofVirtual().start(() -> {
      try {
        out.write(large);
        s.shutdownOutput(); // the client's FIN half-closes the tunnel; the echo answers, then closes
      } catch (IOException ignored) {
        // the read side's assertion reports it
      }
    });
    assertThat(in.readNBytes(large.length)).isEqualTo(large);
    assertThat(in.read()).isEqualTo(-1);
    writer.join(10_000);

    assertThat(edge.awaitStat("http.ingress.downstream_cx_upgrades_active", 0)).isEqualTo(0);
    assertThat(edge.stat("http.ingress.downstream_cx_upgrades_total")).isEqualTo(1);
    assertThat(edge.stat("http.ingress.downstream_rq_2xx")).isEqualTo(1);
    assertThat(edge.stat("cluster.echo.upstream_cx_total")).isEqualTo(1);
    assertThat(edge.awaitStat("cluster.echo.upstream_cx_active", 0)).isEqualTo(0);
    String[] f = awaitLogLine("CONNECT").split(" ");
    assertThat(f[1]).isEqualTo("HTTP/1.1");
    assertThat(f[2]).isEqualTo("200");
    assertThat(Long.parseLong(f[4])).isEqualTo(4 + large.length);
    assertThat(Long.parseLong(f[5])).isEqualTo(4 + large.length);
  }

  @Test
  void bytesSentRightBehindTheConnectHeadGoThroughTheTunnel() throws Exception {
    EdgeHarness edge = edge("upgrade_configs: [{upgrade_type: CONNECT}]");
    Socket s = socket(edge);
    s.getOutputStream().write("CONNECT echo.example:443 HTTP/1.1\r\nHost: echo.example:443\r\n\r\nGET / HTTP/1.1\r\n\r\n"
        .getBytes(StandardCharsets.US_ASCII));
    assertThat(readHead(s.getInputStream())).startsWith("HTTP/1.1 200 ");
    // Not parsed as a pipelined request: tunnelled as they are.
    assertThat(new String(s.getInputStream().readNBytes(18), StandardCharsets.US_ASCII))
        .isEqualTo("GET / HTTP/1.1\r\n\r\n");
    assertThat(edge.stat("http.ingress.downstream_rq_total")).isEqualTo(1);
  }

  @Test
  void connectIsRefusedWithoutUpgradeConfigs() throws Exception {
    EdgeHarness edge = edge("", """
        - match: {prefix: "/"}
          route: {cluster: echo}
        """);
    Socket s = socket(edge);
    s.getOutputStream().write("CONNECT echo.example:443 HTTP/1.1\r\nHost: echo.example:443\r\n\r\n"
        .getBytes(StandardCharsets.US_ASCII));
    assertThat(readHead(s.getInputStream())).startsWith("HTTP/1.1 403 ");
    assertThat(s.getInputStream().read()).isEqualTo(-1); // the connection closes, as after any refused upgrade
    assertThat(edge.stat("http.ingress.downstream_rq_ws_on_non_ws_route")).isEqualTo(1);
    assertThat(edge.stat("cluster.echo.upstream_cx_total")).isZero();
  }

  @Test
  void aPrefixRouteDoesNotMatchConnect() throws Exception {
    EdgeHarness edge = edge("upgrade_configs: [{upgrade_type: CONNECT}]", """
        - match: {prefix: ""}
          direct_response: {status: 200, body: {inline_string: "plain"}}
        """);
    Socket s = socket(edge);
    s.getOutputStream().write("CONNECT echo.example:443 HTTP/1.1\r\nHost: echo.example:443\r\n\r\n"
        .getBytes(StandardCharsets.US_ASCII));
    assertThat(readHead(s.getInputStream())).startsWith("HTTP/1.1 404 ");
    assertThat(edge.stat("http.ingress.no_route")).isEqualTo(1);
    assertThat(edge.get("/x").body()).isEqualTo("plain");
  }

  @Test
  void aClosedPortIsA503WithFlagUf() throws Exception {
    EdgeHarness edge = edge("upgrade_configs: [{upgrade_type: CONNECT}]");
    Socket s = socket(edge);
    s.getOutputStream().write("CONNECT closed.example:1 HTTP/1.1\r\nHost: closed.example:1\r\n\r\n"
        .getBytes(StandardCharsets.US_ASCII));
    assertThat(readHead(s.getInputStream())).startsWith("HTTP/1.1 503 ");
    assertThat(awaitLogLine("CONNECT")).startsWith("CONNECT HTTP/1.1 503 UF ");
    assertThat(edge.stat("cluster.closed.upstream_cx_connect_fail")).isEqualTo(1);
    assertThat(edge.stat("http.ingress.downstream_cx_upgrades_total")).isZero();
  }

  @Test
  void aMalformedAuthorityFormTargetIs400() throws Exception {
    EdgeHarness edge = edge("upgrade_configs: [{upgrade_type: CONNECT}]");
    for (String target : List.of("echo.example", "echo.example:", "user@echo.example:443", "/echo")) {
      Socket s = socket(edge);
      s.getOutputStream().write(("CONNECT " + target + " HTTP/1.1\r\nHost: echo.example:443\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      assertThat(readHead(s.getInputStream())).as(target).startsWith("HTTP/1.1 400 ");
    }
    assertThat(edge.stat("cluster.echo.upstream_cx_total")).isZero();
  }

  @Test
  void http2ConnectCarriesTheTunnelInDataFramesAndEndStreamHalfCloses() throws Exception {
    EdgeHarness edge = edge("upgrade_configs: [{upgrade_type: CONNECT}]");
    RawHttp2 h2 = h2(edge);
    h2.headers(1, new DefaultHttp2Headers(false).method("CONNECT").authority("echo.example:443"), false);
    Frame response = h2.awaitFrame(f -> f.type() == Http2FrameTypes.HEADERS && f.streamId() == 1, WAIT).orElseThrow();
    assertThat(response.headers().status().toString()).isEqualTo("200");
    assertThat(response.flags() & RawHttp2.END_STREAM).isZero();

    h2.data(1, "hello".getBytes(StandardCharsets.US_ASCII), false);
    assertThat(readData(h2, 5)).isEqualTo("hello");
    // END_STREAM half-closes the TCP connection: the echo server closes in turn, ending the stream.
    h2.data(1, "bye".getBytes(StandardCharsets.US_ASCII), true);
    ByteArrayOutputStream rest = new ByteArrayOutputStream();
    Frame last;
    do {
      last = h2.awaitFrame(f -> f.type() == Http2FrameTypes.DATA && f.streamId() == 1, WAIT).orElseThrow();
      rest.write(last.payload());
    } while ((last.flags() & RawHttp2.END_STREAM) == 0);
    assertThat(rest.toString(StandardCharsets.US_ASCII)).isEqualTo("bye");
    assertThat(edge.awaitStat("http.ingress.downstream_cx_upgrades_active", 0)).isEqualTo(0);
    assertThat(edge.stat("http.ingress.downstream_cx_upgrades_total")).isEqualTo(1);
    assertThat(awaitLogLine("CONNECT")).startsWith("CONNECT HTTP/2 200 - 8 8");
  }

  @Test
  void http2ConnectWithAPathIsAStreamErrorWhenStreamErrorsAreOn() throws Exception {
    EdgeHarness edge = edge("""
        upgrade_configs: [{upgrade_type: CONNECT}]
        stream_error_on_invalid_http_message: true""");
    RawHttp2 h2 = h2(edge);
    Http2Headers withPath = new DefaultHttp2Headers(false).method("CONNECT").authority("echo.example:443")
        .path("/x");
    h2.headers(1, withPath, false);
    assertThat(h2.awaitReset(1, WAIT).errorCode()).isEqualTo(Http2Error.PROTOCOL_ERROR.code());
    // Extended CONNECT (RFC 8441) is not enabled: malformed as well.
    Http2Headers extended = new DefaultHttp2Headers(false).method("CONNECT").authority("echo.example:443")
        .scheme("http").path("/chat");
    extended.set(Http2Headers.PseudoHeaderName.PROTOCOL.value(), "websocket");
    h2.headers(3, extended, false);
    assertThat(h2.awaitReset(3, WAIT).errorCode()).isEqualTo(Http2Error.PROTOCOL_ERROR.code());
    // The connection still serves a good CONNECT.
    h2.headers(5, new DefaultHttp2Headers(false).method("CONNECT").authority("echo.example:443"), false);
    Frame ok = h2.awaitFrame(f -> f.type() == Http2FrameTypes.HEADERS && f.streamId() == 5, WAIT).orElseThrow();
    assertThat(ok.headers().status().toString()).isEqualTo("200");
    assertThat(edge.stat("http2.rx_messaging_error")).isEqualTo(2);
    assertThat(edge.stat("cluster.echo.upstream_cx_total")).isEqualTo(1);
  }

  @Test
  void http2ConnectWithAPathClosesTheConnectionByDefaultAsEnvoy() throws Exception {
    EdgeHarness edge = edge("upgrade_configs: [{upgrade_type: CONNECT}]");
    RawHttp2 h2 = h2(edge);
    h2.headers(1, new DefaultHttp2Headers(false).method("CONNECT").authority("echo.example:443").scheme("http"),
        false);
    assertThat(h2.awaitGoAway(WAIT).errorCode()).isEqualTo(Http2Error.PROTOCOL_ERROR.code());
    assertThat(edge.stat("cluster.echo.upstream_cx_total")).isZero();
  }

  @Test
  void theHostResettingTheConnectionResetsTheHttp2Stream() throws Exception {
    EdgeHarness edge = edge("upgrade_configs: [{upgrade_type: CONNECT}]");
    RawHttp2 h2 = h2(edge);
    h2.headers(1, new DefaultHttp2Headers(false).method("CONNECT").authority("reset.example:1"), false);
    Frame response = h2.awaitFrame(f -> f.type() == Http2FrameTypes.HEADERS && f.streamId() == 1, WAIT).orElseThrow();
    assertThat(response.headers().status().toString()).isEqualTo("200");
    h2.data(1, "x".getBytes(StandardCharsets.US_ASCII), false);
    assertThat(h2.awaitReset(1, WAIT).errorCode()).isEqualTo(Http2Error.CONNECT_ERROR.code());
    assertThat(awaitLogLine("CONNECT")).startsWith("CONNECT HTTP/2 200 UR ");
    assertThat(edge.awaitStat("cluster.reset.upstream_cx_active", 0)).isEqualTo(0);
  }

  @Test
  void anIdleTunnelIsClosedByTheStreamIdleTimeout() throws Exception {
    EdgeHarness edge = edge("upgrade_configs: [{upgrade_type: CONNECT}]");
    Socket s = socket(edge);
    s.getOutputStream().write("CONNECT idle.example:1 HTTP/1.1\r\nHost: idle.example:1\r\n\r\n"
        .getBytes(StandardCharsets.US_ASCII));
    assertThat(readHead(s.getInputStream())).startsWith("HTTP/1.1 200 ");
    assertThat(s.getInputStream().read()).isEqualTo(-1); // closed after 0.5 s without a byte either way
    assertThat(edge.stat("http.ingress.downstream_rq_idle_timeout")).isEqualTo(1);
    assertThat(edge.awaitStat("cluster.echo.upstream_cx_active", 0)).isEqualTo(0);
  }

  private RawHttp2 h2(EdgeHarness edge) {
    RawHttp2 h2 = RawHttp2.connect(edge.port());
    closeables.add(h2);
    h2.preface();
    h2.awaitServerSettings(WAIT);
    return h2;
  }

  private static String readData(RawHttp2 h2, int bytes) {
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    while (got.size() < bytes) {
      Frame f = h2.awaitFrame(x -> x.type() == Http2FrameTypes.DATA && x.streamId() == 1, WAIT).orElseThrow();
      got.writeBytes(f.payload());
    }
    return got.toString(StandardCharsets.US_ASCII);
  }

  /** Reads an HTTP/1.1 response head up to and including its blank line (at most 16 KiB). */
  static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    for (int i = 0; i < 16 * 1024; i++) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      head.write(b);
      byte[] h = head.toByteArray();
      int n = h.length;
      if (n >= 4 && h[n - 4] == '\r' && h[n - 3] == '\n' && h[n - 2] == '\r' && h[n - 1] == '\n') {
        break;
      }
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }

  private String awaitLogLine(String start) throws Exception {
    // The file is written every flush interval (Envoy's default, 10 s) or when enough is queued.
    for (int i = 0; i < 250; i++) {
      if (Files.exists(accessLog)) {
        for (String line : Files.readAllLines(accessLog)) {
          if (line.startsWith(start)) {
            return line;
          }
        }
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no access log line starting with " + start + " in "
        + (Files.exists(accessLog) ? Files.readAllLines(accessLog) : "no file"));
  }

  /** Echoes what each connection sends; at the client's end of input it closes the connection. */
  private static final class TcpEcho implements AutoCloseable {
    private final ServerSocket server;
    private final boolean reset;

    TcpEcho(boolean reset) throws IOException {
      this.reset = reset;
      server = new ServerSocket(0, 16, java.net.InetAddress.getLoopbackAddress());
      Thread.ofVirtual().start(this::acceptLoop);
    }

    int port() {
      return server.getLocalPort();
    }

    private void acceptLoop() {
      while (!server.isClosed()) {
        try {
          Socket s = server.accept();
          Thread.ofVirtual().start(() -> echo(s, reset));
        } catch (IOException closed) {
          return;
        }
      }
    }

    private static void echo(Socket s, boolean reset) {
      try (s) {
        InputStream in = s.getInputStream();
        OutputStream out = s.getOutputStream();
        byte[] buf = new byte[16 * 1024];
        int n;
        while ((n = in.read(buf)) >= 0) {
          if (reset) {
            s.setSoLinger(true, 0);
            return;
          }
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (IOException ignored) {
        // the connection went away
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }
}
