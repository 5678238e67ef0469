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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * WebSocket over HTTP/2 (RFC 8441 extended CONNECT) through a real edge on 127.0.0.1 to a real
 * HTTP/1.1 WebSocket server (Netty's RFC 6455 handshake, which insists on
 * {@code Sec-WebSocket-Key}), with the connection manager's
 * {@code http2_protocol_options.allow_connect}: the edge advertises SETTINGS_ENABLE_CONNECT_PROTOCOL,
 * carries {@code :protocol websocket} to the server as an HTTP/1.1 upgrade and its 101 back as a
 * 200, and the stream's DATA frames are the WebSocket's bytes both ways. The client's frames here
 * are written by hand (RFC 6455 §5.2), so the test sees exactly the bytes on the stream.
 */
class ExtendedConnectIT {

  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final int SETTINGS_ENABLE_CONNECT_PROTOCOL = 0x8;

  private WebSocketEchoServer echo;
  private EdgeHarness edge;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  /** The last DATA frame {@link #readServerFrame} read had END_STREAM. */
  private boolean streamEnded;

  @BeforeEach
  void start() throws Exception {
    echo = new WebSocketEchoServer(1 << 20);
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    if (edge != null) {
      edge.close();
    }
    echo.close();
  }

  private void edge(String hcmExtra) throws Exception {
    String routes = """
        - match: { prefix: "/off" }
          route:
            cluster: ws
            upgrade_configs: [{upgrade_type: websocket, enabled: false}]
        - match: { prefix: "/" }
          route: { cluster: ws }
        """;
    edge = EdgeHarness.start(bootstrap(hcmExtra, routes, cluster("ws", "", echo.port())));
  }

  private void edge() throws Exception {
    edge("""
        upgrade_configs: [{upgrade_type: websocket}]
        http2_protocol_options: {allow_connect: true}""");
  }

  @Test
  void theEdgeAdvertisesExtendedConnectOnlyWhenAllowed() throws Exception {
    edge();
    RawHttp2 h2 = RawHttp2.connect(edge.port());
    closeables.add(h2);
    h2.preface();
    assertThat(h2.awaitServerSettings(WAIT).setting(SETTINGS_ENABLE_CONNECT_PROTOCOL)).contains(1L);
    edge.close();

    edge("upgrade_configs: [{upgrade_type: websocket}]");
    RawHttp2 plain = RawHttp2.connect(edge.port());
    closeables.add(plain);
    plain.preface();
    assertThat(plain.awaitServerSettings(WAIT).setting(SETTINGS_ENABLE_CONNECT_PROTOCOL)).isEmpty();
  }

  @Test
  void aWebSocketOverHttp2ReachesAnHttp1ServerAndEchoesBothWays() throws Exception {
    edge();
    RawHttp2 h2 = h2();
    h2.headers(1, webSocket("/ws/echo"), false);
    // A frame sent before the answer waits for the switch and goes after it.
    h2.data(1, clientFrame(0x1, "early"), false);
    Frame response = h2.awaitFrame(f -> f.type() == Http2FrameTypes.HEADERS && f.streamId() == 1, WAIT).orElseThrow();
    assertThat(response.headers().status().toString()).isEqualTo("200");
    assertThat(response.flags() & RawHttp2.END_STREAM).isZero();
    assertThat(readServerFrame(h2)).isEqualTo("text:early");
    // The HTTP/1.1 handshake's fields stay on that hop (RFC 8441 §5).
    assertThat(response.headers().contains("sec-websocket-accept")).isFalse();
    assertThat(response.headers().contains("upgrade")).isFalse();
    assertThat(edge.awaitStat("http.ingress.downstream_cx_upgrades_active", 1)).isEqualTo(1);

    h2.data(1, clientFrame(0x1, "hello"), false);
    assertThat(readServerFrame(h2)).isEqualTo("text:hello");
    h2.data(1, clientFrame(0x2, "\u0000\u0001\u0002"), false);
    assertThat(readServerFrame(h2)).isEqualTo("binary:3");
    // The server closes the WebSocket: its close frame, then its FIN ends the stream.
    h2.data(1, clientFrame(0x1, "close-please"), false);
    assertThat(readServerFrame(h2)).isEqualTo("close:4000");
    if (!streamEnded) {
      Frame end = h2.awaitFrame(f -> f.streamId() == 1
          && (f.type() == Http2FrameTypes.DATA || f.type() == Http2FrameTypes.RST_STREAM), WAIT).orElseThrow();
      assertThat(end.type()).as("the server's FIN ends the stream, no reset: " + end).isEqualTo(Http2FrameTypes.DATA);
      assertThat(end.payload()).isEmpty();
      assertThat(end.flags() & RawHttp2.END_STREAM).isNotZero();
    }
    assertThat(edge.awaitStat("http.ingress.downstream_cx_upgrades_active", 0)).isEqualTo(0);
    assertThat(edge.stat("http.ingress.downstream_cx_upgrades_total")).isEqualTo(1);
    assertThat(edge.awaitStat("cluster.ws.upstream_cx_active", 0)).isEqualTo(0);
    assertThat(echo.requests.get()).isEqualTo(1);
  }

  @Test
  void aRouteWithTheUpgradeOffRefusesItWith403() throws Exception {
    edge();
    RawHttp2 h2 = h2();
    h2.headers(1, webSocket("/off/ws"), false);
    Frame response = h2.awaitFrame(f -> f.type() == Http2FrameTypes.HEADERS && f.streamId() == 1, WAIT).orElseThrow();
    assertThat(response.headers().status().toString()).isEqualTo("403");
    assertThat(echo.requests.get()).isZero();
  }

  @Test
  void anAnswerOtherThan101IsRelayedAsItIs() throws Exception {
    edge();
    RawHttp2 h2 = h2();
    h2.headers(1, webSocket("/elsewhere"), false);
    Frame response = h2.awaitFrame(f -> f.type() == Http2FrameTypes.HEADERS && f.streamId() == 1, WAIT).orElseThrow();
    assertThat(response.headers().status().toString()).isEqualTo("404");
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    Frame last = response;
    while ((last.flags() & RawHttp2.END_STREAM) == 0) {
      last = h2.awaitFrame(f -> f.type() == Http2FrameTypes.DATA && f.streamId() == 1, WAIT).orElseThrow();
      body.writeBytes(last.payload());
    }
    assertThat(body.toString(StandardCharsets.US_ASCII)).isEqualTo("nope");
  }

  @Test
  void extendedConnectIsMalformedWithoutAllowConnectAndProtocolOnlyGoesWithConnect() throws Exception {
    edge("""
        upgrade_configs: [{upgrade_type: websocket}]
        stream_error_on_invalid_http_message: true""");
    RawHttp2 h2 = h2();
    h2.headers(1, webSocket("/ws/echo"), false);
    assertThat(h2.awaitReset(1, WAIT).errorCode()).isEqualTo(Http2Error.PROTOCOL_ERROR.code());
    edge.close();

    edge("""
        upgrade_configs: [{upgrade_type: websocket}]
        stream_error_on_invalid_http_message: true
        http2_protocol_options: {allow_connect: true}""");
    RawHttp2 allowed = h2();
    Http2Headers get = RawHttp2.request("GET", "/ws/echo");
    get.set(Http2Headers.PseudoHeaderName.PROTOCOL.value(), "websocket");
    allowed.headers(1, get, true);
    assertThat(allowed.awaitReset(1, WAIT).errorCode()).isEqualTo(Http2Error.PROTOCOL_ERROR.code());
    Http2Headers noPath = new DefaultHttp2Headers(false).method("CONNECT").scheme("http").authority("ws.example");
    noPath.set(Http2Headers.PseudoHeaderName.PROTOCOL.value(), "websocket");
    allowed.headers(3, noPath, false);
    assertThat(allowed.awaitReset(3, WAIT).errorCode()).isEqualTo(Http2Error.PROTOCOL_ERROR.code());
    assertThat(echo.requests.get()).isZero();
  }

  private RawHttp2 h2() {
    RawHttp2 h2 = RawHttp2.connect(edge.port());
    closeables.add(h2);
    h2.preface();
    h2.awaitServerSettings(WAIT);
    return h2;
  }

  /** RFC 8441 §5: no Sec-WebSocket-Key, the version as in RFC 6455. */
  private static Http2Headers webSocket(String path) {
    Http2Headers h = new DefaultHttp2Headers(false).method("CONNECT").scheme("http").authority("ws.example")
        .path(path);
    h.set(Http2Headers.PseudoHeaderName.PROTOCOL.value(), "websocket");
    h.set("sec-websocket-version", "13");
    return h;
  }

  /** A masked client frame with FIN set (RFC 6455 §5.2), payload under 126 bytes. */
  private static byte[] clientFrame(int opcode, String payload) {
    byte[] p = payload.getBytes(StandardCharsets.ISO_8859_1);
    byte[] mask = {0x11, 0x22, 0x33, 0x44};
    byte[] out = new byte[2 + 4 + p.length];
    out[0] = (byte) (0x80 | opcode);
    out[1] = (byte) (0x80 | p.length);
    System.arraycopy(mask, 0, out, 2, 4);
    for (int i = 0; i < p.length; i++) {
      out[6 + i] = (byte) (p[i] ^ mask[i % 4]);
    }
    return out;
  }

  /**
   * The server's next frame from the stream's DATA (unmasked, payload under 126 bytes): "text:…",
   * "binary:length" or "close:code".
   */
  private String readServerFrame(RawHttp2 h2) {
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    while (got.size() < 2 || got.size() < 2 + (got.toByteArray()[1] & 0x7f)) {
      Frame f = h2.awaitFrame(x -> x.type() == Http2FrameTypes.DATA && x.streamId() == 1, WAIT).orElseThrow();
      got.writeBytes(f.payload());
      streamEnded = (f.flags() & RawHttp2.END_STREAM) != 0;
    }
    byte[] b = got.toByteArray();
    int opcode = b[0] & 0x0f;
    int length = b[1] & 0x7f;
    assertThat(b[1] & 0x80).as("server frames are not masked").isZero();
    return switch (opcode) {
      case 0x1 -> "text:" + new String(b, 2, length, StandardCharsets.UTF_8);
      case 0x2 -> "binary:" + length;
      case 0x8 -> "close:" + (((b[2] & 0xff) << 8) | (b[3] & 0xff));
      default -> "opcode:" + opcode;
    };
  }
}
