package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameTypes;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RawHttp2;
import io.spillway.testkit.RawHttp2.Frame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The downstream HTTP/2 connection protocol, seen on the wire by a raw-frame client: each
 * connection error ends with GOAWAY carrying the RFC 9113 code and the last stream id (then a
 * close), counted.
 */
class Http2ConnectionIT {

  private static final Duration WAIT = Duration.ofSeconds(10);
  /**
   * The last stream id of a GOAWAY for an error Netty's codec finds while reading frames: it does
   * not know what the frame it failed on did, so it names every stream (netty/netty#10670).
   */
  private static final int NETTY_LAST_STREAM = Integer.MAX_VALUE;
  private static OriginServer origin;
  private static EdgeHarness defaults;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    origin = OriginServer.start("h2-origin");
    defaults = EdgeHarness.start(edgeYaml(""));
  }

  @AfterAll
  static void stop() {
    defaults.close();
    origin.close();
  }

  @AfterEach
  void cleanup() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close(); // clients before their edge
    }
  }

  private static String edgeYaml(String hcmExtra) {
    return bootstrap(hcmExtra, """
        - match: { prefix: "/" }
          route: { cluster: origin, timeout: 30s }
        """, cluster("origin", "", origin.port()));
  }

  /** A connection past the preface and the SETTINGS exchange. */
  private RawHttp2 connect(EdgeHarness edge) {
    RawHttp2 h2 = RawHttp2.connect(edge.port());
    closeables.add(h2);
    h2.preface();
    h2.awaitServerSettings(WAIT);
    return h2;
  }

  private static void assertGoAway(RawHttp2 h2, Http2Error error, int lastStreamId) {
    Frame goAway = h2.awaitGoAway(WAIT);
    assertThat(goAway.errorCode()).as("GOAWAY error code (%s)", goAway).isEqualTo(error.code());
    assertThat(goAway.lastStreamId()).as("last stream id").isEqualTo(lastStreamId);
    assertThat(h2.awaitClosed(WAIT)).as("closed after GOAWAY").isTrue();
  }

  /** Sends a request to a route that answers at once and reads its response. */
  private static int exchange(RawHttp2 h2, int streamId) {
    h2.headers(streamId, RawHttp2.request("GET", "/ok"), true);
    Frame response = h2.awaitFrame(f -> f.type() == Http2FrameTypes.HEADERS && f.streamId() == streamId, WAIT)
        .orElseThrow(() -> new AssertionError("no response on stream " + streamId));
    return Integer.parseInt(response.headers().status().toString());
  }

  // --- connection errors (RFC 9113 §5.4.1) ---------------------------------------------------

  @Test
  void dataOnStreamZeroIsAProtocolError() {
    long before = defaults.stat("http.ingress.downstream_cx_protocol_error");
    RawHttp2 h2 = connect(defaults);
    h2.data(0, new byte[] {1}, false);

    assertGoAway(h2, Http2Error.PROTOCOL_ERROR, NETTY_LAST_STREAM);
    assertThat(defaults.stat("http.ingress.downstream_cx_protocol_error")).isEqualTo(before + 1);
  }

  @Test
  void aStreamIdTheServerWouldOwnIsAProtocolError() {
    RawHttp2 h2 = connect(defaults);
    assertThat(exchange(h2, 1)).isEqualTo(200);
    h2.headers(2, RawHttp2.request("GET", "/even"), true);

    assertGoAway(h2, Http2Error.PROTOCOL_ERROR, NETTY_LAST_STREAM);
  }

  @Test
  void aFrameOverTheMaximumFrameSizeIsAFrameSizeError() {
    RawHttp2 h2 = connect(defaults);
    h2.headers(1, RawHttp2.request("POST", "/drain"), false);
    h2.data(1, new byte[Http2CodecUtil.DEFAULT_MAX_FRAME_SIZE + 1], true);

    assertGoAway(h2, Http2Error.FRAME_SIZE_ERROR, NETTY_LAST_STREAM);
  }

  @Test
  void aWindowOverflowIsAFlowControlError() {
    RawHttp2 h2 = connect(defaults);
    h2.windowUpdate(0, Integer.MAX_VALUE);

    assertGoAway(h2, Http2Error.FLOW_CONTROL_ERROR, NETTY_LAST_STREAM);
  }

  @Test
  void anUndecodableHeaderBlockIsACompressionError() {
    RawHttp2 h2 = connect(defaults);
    // An indexed header field with index 0, which HPACK forbids (RFC 7541 §6.1).
    h2.frame(Http2FrameTypes.HEADERS, RawHttp2.END_HEADERS | RawHttp2.END_STREAM, 1, new byte[] {(byte) 0x80});

    assertGoAway(h2, Http2Error.COMPRESSION_ERROR, NETTY_LAST_STREAM);
  }

  // --- header blocks -------------------------------------------------------------------------

  @Test
  void aHeaderBlockOverTheListLimitEndsTheConnectionInTheCodec() {
    // Netty stops accumulating a header block at 1.25 × SETTINGS_MAX_HEADER_LIST_SIZE (60 KiB here),
    // whatever the frame count: a connection error PROTOCOL_ERROR.
    RawHttp2 h2 = connect(defaults);
    byte[] fragment = new byte[Http2CodecUtil.DEFAULT_MAX_FRAME_SIZE];
    h2.frame(Http2FrameTypes.HEADERS, RawHttp2.END_STREAM, 1, fragment);
    for (int i = 0; i < 5 && !h2.writeFailed(); i++) {
      h2.frame(Http2FrameTypes.CONTINUATION, 0, 1, fragment);
    }

    assertGoAway(h2, Http2Error.PROTOCOL_ERROR, NETTY_LAST_STREAM);
  }
}
