package io.spillway.edge.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameTypes;
import io.spillway.testkit.EdgeProcess;
import io.spillway.testkit.FreePorts;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RawHttp2;
import io.spillway.testkit.RawHttp2.Frame;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged edge's HTTP/2 connection protocol from a bootstrap file, on cleartext (prior
 * knowledge) and over TLS (ALPN h2), seen by a raw-frame client: the configured
 * {@code http2_protocol_options} are advertised, a protocol error ends in GOAWAY with its RFC 9113
 * code rather than NO_ERROR, floods and rapid resets end in GOAWAY(ENHANCE_YOUR_CALM), and the
 * admin endpoints count them under Envoy's names.
 */
class Http2ProtocolE2E {

  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir
  static Path dir;

  private static OriginServer origin;
  private static EdgeProcess edge;
  private static AdminClient admin;
  private static int plainPort;
  private static int tlsPort;

  @BeforeAll
  static void start() throws Exception {
    TestTls tls = TestTls.selfSigned(dir);
    origin = OriginServer.start("h2-protocol-origin");
    int[] ports = FreePorts.pick(3);
    plainPort = ports[0];
    tlsPort = ports[1];
    String routes = """
        - match: { prefix: "/" }
          route: { cluster: backend }
        """;
    String h2Options = """
        http2_protocol_options:
          max_concurrent_streams: 50
          max_inbound_priority_frames_per_stream: 10
        """;
    Path bootstrap = BootstrapYaml.withAdmin(ports[2])
        .listener(BootstrapYaml.Listener.named("plain", plainPort).routes(routes).hcmOptions(h2Options))
        .listener(BootstrapYaml.Listener.named("tls", tlsPort).routes(routes).hcmOptions(h2Options)
            .transportSocket(tls.transportSocket()))
        .staticCluster("backend", "", origin.port())
        .writeTo(dir, "h2-protocol.yaml");
    edge = EdgeProcess.start(bootstrap, ports[2], "--concurrency", "1");
    admin = new AdminClient(edge);
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

  @Test
  void advertisesTheConfiguredStreamLimitAndEndsAProtocolErrorWithItsCode() {
    long before = admin.stat("http.plain.downstream_cx_protocol_error");
    try (RawHttp2 h2 = RawHttp2.connect(plainPort)) {
      h2.preface();
      Frame settings = h2.awaitServerSettings(WAIT);
      assertThat(settings.setting(Http2CodecUtil.SETTINGS_MAX_CONCURRENT_STREAMS)).contains(50L);
      h2.data(0, new byte[] {1}, false);

      assertThat(h2.awaitGoAway(WAIT).errorCode()).isEqualTo(Http2Error.PROTOCOL_ERROR.code());
      assertThat(h2.awaitClosed(WAIT)).isTrue();
    }
    assertThat(admin.stat("http.plain.downstream_cx_protocol_error")).isEqualTo(before + 1);
  }

  @Test
  void aPriorityFloodOverTlsEndsWithEnhanceYourCalm() {
    long before = admin.stat("http2.inbound_priority_frames_flood");
    try (RawHttp2 h2 = RawHttp2.connectTls(tlsPort)) {
      h2.preface();
      h2.awaitServerSettings(WAIT);
      for (int i = 0; i <= 10; i++) {
        h2.priority(1 + 2 * i);
      }

      Frame goAway = h2.awaitGoAway(WAIT);
      assertThat(goAway.errorCode()).isEqualTo(Http2Error.ENHANCE_YOUR_CALM.code());
      assertThat(goAway.lastStreamId()).isZero();
    }
    assertThat(admin.stat("http2.inbound_priority_frames_flood")).isEqualTo(before + 1);
    assertThat(admin.prometheusSample("envoy_http2_inbound_priority_frames_flood", Map.of()))
        .isEqualTo(before + 1.0);
  }

  @Test
  void aRapidResetFloodClosesTheConnection() {
    long before = admin.stat("http.plain.downstream_rq_too_many_premature_resets");
    try (RawHttp2 h2 = RawHttp2.connect(plainPort)) {
      h2.preface();
      h2.awaitServerSettings(WAIT);
      for (int i = 0, stream = 1; i < 300 && !h2.writeFailed(); i++, stream += 2) {
        h2.send(RawHttp2.concat(List.of(
            RawHttp2.encodeFrame(Http2FrameTypes.HEADERS, RawHttp2.END_HEADERS | RawHttp2.END_STREAM, stream,
                h2.headerBlock(RawHttp2.request("GET", "/hang"))),
            RawHttp2.encodeFrame(Http2FrameTypes.RST_STREAM, 0, stream, new byte[] {0, 0, 0, 8}))));
      }

      assertThat(h2.awaitGoAway(WAIT).errorCode()).isEqualTo(Http2Error.ENHANCE_YOUR_CALM.code());
      assertThat(h2.awaitClosed(WAIT)).isTrue();
    }
    assertThat(admin.stat("http.plain.downstream_rq_too_many_premature_resets")).isEqualTo(before + 1);
  }
}
