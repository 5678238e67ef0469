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
 * close), stream errors with RST_STREAM carrying theirs, and Envoy's flood limits and
 * premature-reset protection close abusive connections with ENHANCE_YOUR_CALM, each counted.
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
        - match: { prefix: "/direct" }
          direct_response: { status: 403, body: { inline_string: "denied" } }
        - match: { prefix: "/" }
          route: { cluster: origin, timeout: 30s }
        """, cluster("origin", "", origin.port()));
  }

  private EdgeHarness edge(String hcmExtra) throws Exception {
    EdgeHarness h = EdgeHarness.start(edgeYaml(hcmExtra));
    closeables.add(h);
    return h;
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
  void aCompleteResponseToAnUnfinishedRequestArrivesWholeBeforeTheNoErrorReset() throws Exception {
    RawHttp2 h2 = connect(defaults);
    h2.headers(1, RawHttp2.request("POST", "/direct", "content-length", "100000"), false);
    h2.data(1, new byte[100], false);
    Frame head = h2.awaitFrame(f -> f.type() == Http2FrameTypes.HEADERS && f.streamId() == 1, WAIT).orElseThrow();
    assertThat(head.headers().status().toString()).isEqualTo("403");
    // RFC 9113 §8.1: the whole response (its body ends the stream), then RST_STREAM(NO_ERROR) for the rest.
    Frame body = h2.awaitFrame(f -> f.streamId() == 1 && f.type() != Http2FrameTypes.HEADERS, WAIT).orElseThrow();
    assertThat(body.type()).as(body.toString()).isEqualTo(Http2FrameTypes.DATA);
    assertThat(new String(body.payload(), java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("denied");
    assertThat(body.flags() & RawHttp2.END_STREAM).isNotZero();
    assertThat(h2.awaitReset(1, WAIT).errorCode()).isEqualTo(Http2Error.NO_ERROR.code());
  }

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
  void manySmallContinuationFramesAreAFlood() {
    long before = defaults.stat("http2.inbound_continuation_frames_flood");
    RawHttp2 h2 = connect(defaults);
    byte[] block = h2.headerBlock(RawHttp2.request("GET", "/continued", "x-filler", "f".repeat(200)));
    h2.frame(Http2FrameTypes.HEADERS, 0, 1, java.util.Arrays.copyOfRange(block, 0, 1));
    for (int i = 1; i < block.length; i++) {
      h2.frame(Http2FrameTypes.CONTINUATION, 0, 1, java.util.Arrays.copyOfRange(block, i, i + 1));
    }

    assertGoAway(h2, Http2Error.ENHANCE_YOUR_CALM, 0);
    assertThat(defaults.stat("http2.inbound_continuation_frames_flood")).isEqualTo(before + 1);
  }

  @Test
  void aHeaderBlockSplitOverAFewContinuationFramesIsServed() {
    RawHttp2 h2 = connect(defaults);
    byte[] block = h2.headerBlock(RawHttp2.request("GET", "/split"));
    int third = block.length / 3;
    h2.frame(Http2FrameTypes.HEADERS, RawHttp2.END_STREAM, 1, java.util.Arrays.copyOfRange(block, 0, third));
    h2.frame(Http2FrameTypes.CONTINUATION, 0, 1, java.util.Arrays.copyOfRange(block, third, 2 * third));
    h2.frame(Http2FrameTypes.CONTINUATION, RawHttp2.END_HEADERS, 1, java.util.Arrays.copyOfRange(block, 2 * third,
        block.length));

    Frame response = h2.awaitFrame(f -> f.type() == Http2FrameTypes.HEADERS, WAIT).orElseThrow();
    assertThat(response.headers().status().toString()).isEqualTo("200");
  }

  @Test
  void emptyContinuationFramesAreAnEmptyFrameFlood() {
    long before = defaults.stat("http2.inbound_empty_frames_flood");
    RawHttp2 h2 = connect(defaults);
    byte[] block = h2.headerBlock(RawHttp2.request("GET", "/empty"));
    h2.frame(Http2FrameTypes.HEADERS, RawHttp2.END_STREAM, 1, block);
    for (int i = 0; i < 2; i++) {
      h2.frame(Http2FrameTypes.CONTINUATION, 0, 1, new byte[0]);
    }

    assertGoAway(h2, Http2Error.ENHANCE_YOUR_CALM, 0);
    assertThat(defaults.stat("http2.inbound_empty_frames_flood")).isEqualTo(before + 1);
  }

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

  // --- stream errors (RFC 9113 §5.4.2) and malformed messages (§8.1.1) -----------------------

  @Test
  void aContentLengthMismatchClosesTheConnectionByDefault() {
    long before = defaults.stat("http2.rx_messaging_error");
    RawHttp2 h2 = connect(defaults);
    assertThat(exchange(h2, 1)).isEqualTo(200);
    h2.headers(3, RawHttp2.request("POST", "/drain", "content-length", "10"), false);
    h2.data(3, new byte[5], true);

    assertGoAway(h2, Http2Error.PROTOCOL_ERROR, 3);
    assertThat(defaults.stat("http2.rx_messaging_error")).isEqualTo(before + 1);
  }

  @Test
  void aContentLengthMismatchResetsOnlyItsStreamWithStreamErrorOnInvalidHttpMessage() throws Exception {
    EdgeHarness edge = edge("http2_protocol_options: { override_stream_error_on_invalid_http_message: true }");
    RawHttp2 h2 = connect(edge);
    h2.headers(1, RawHttp2.request("POST", "/drain", "content-length", "10"), false);
    h2.data(1, new byte[5], true);

    Frame reset = h2.awaitReset(1, WAIT);
    assertThat(reset.errorCode()).as("RST_STREAM code").isEqualTo(Http2Error.PROTOCOL_ERROR.code());
    assertThat(exchange(h2, 3)).as("the connection still serves").isEqualTo(200);
    assertThat(edge.stat("http2.rx_messaging_error")).isEqualTo(1);
    assertThat(edge.stat("http2.tx_reset")).isEqualTo(1);
  }

  @Test
  void otherStreamErrorsResetTheStreamWithTheCodecsCode() {
    RawHttp2 h2 = connect(defaults);
    h2.headers(1, RawHttp2.request("GET", "/hang"), true);
    h2.data(1, new byte[] {1}, false); // the client had ended the stream (RFC 9113 §5.1: half-closed)
    assertThat(h2.awaitReset(1, WAIT).errorCode()).isEqualTo(Http2Error.STREAM_CLOSED.code());

    h2.headers(3, RawHttp2.request("GET", "/hang"), true);
    h2.windowUpdate(3, Integer.MAX_VALUE); // past 2^31-1 on the stream (RFC 9113 §6.9.1)
    assertThat(h2.awaitReset(3, WAIT).errorCode()).isEqualTo(Http2Error.FLOW_CONTROL_ERROR.code());
    assertThat(exchange(h2, 5)).as("the connection stays").isEqualTo(200);
  }

  // --- concurrency (RFC 9113 §5.1.2) ---------------------------------------------------------

  @Test
  void advertisesAHundredConcurrentStreamsByDefault() {
    RawHttp2 h2 = RawHttp2.connect(defaults.port());
    closeables.add(h2);
    h2.preface();

    Frame settings = h2.awaitServerSettings(WAIT);
    assertThat(settings.setting(Http2CodecUtil.SETTINGS_MAX_CONCURRENT_STREAMS)).contains(100L);
  }

  @Test
  void opensTheWindowsFromTheListenersBufferLimitByDefault() {
    RawHttp2 h2 = RawHttp2.connect(defaults.port());
    closeables.add(h2);
    h2.preface();

    Frame settings = h2.awaitServerSettings(WAIT);
    assertThat(settings.setting(Http2CodecUtil.SETTINGS_INITIAL_WINDOW_SIZE)).as("1 MiB per stream").contains(1048576L);
    assertThat(settings.setting(Http2CodecUtil.SETTINGS_HEADER_TABLE_SIZE)).as("HPACK's default, not sent").isEmpty();
    Frame window = h2.awaitFrame(f -> f.type() == Http2FrameTypes.WINDOW_UPDATE && f.streamId() == 0, WAIT)
        .orElseThrow();
    assertThat(window.errorCode()).as("connection window increment: twice the stream window's")
        .isEqualTo(2 * (1048576L - 65535));
  }

  @Test
  void advertisesTheConfiguredSettingsAndKeepsTheConfiguredConnectionWindow() throws Exception {
    EdgeHarness edge = edge("""
        http2_protocol_options:
          hpack_table_size: 0
          initial_stream_window_size: 65536
          initial_connection_window_size: 1048576
        """);
    RawHttp2 h2 = RawHttp2.connect(edge.port());
    closeables.add(h2);
    h2.preface();

    Frame settings = h2.awaitServerSettings(WAIT);
    assertThat(settings.setting(Http2CodecUtil.SETTINGS_INITIAL_WINDOW_SIZE)).contains(65536L);
    assertThat(settings.setting(Http2CodecUtil.SETTINGS_HEADER_TABLE_SIZE)).contains(0L);
    Frame window = h2.awaitFrame(f -> f.type() == Http2FrameTypes.WINDOW_UPDATE && f.streamId() == 0, WAIT)
        .orElseThrow();
    assertThat(window.errorCode()).as("connection window increment: up to 1 MiB").isEqualTo(1048576L - 65535);
    assertThat(exchange(h2, 1)).isEqualTo(200);
  }

  @Test
  void aStreamBeyondTheConfiguredMaximumIsRefused() throws Exception {
    EdgeHarness edge = edge("http2_protocol_options: { max_concurrent_streams: 3 }");
    RawHttp2 h2 = RawHttp2.connect(edge.port());
    closeables.add(h2);
    h2.preface();
    Frame settings = h2.awaitServerSettings(WAIT);
    assertThat(settings.setting(Http2CodecUtil.SETTINGS_MAX_CONCURRENT_STREAMS)).contains(3L);
    // The server applies its limit once it has our ACK (just sent): a PING answered proves it read it.
    h2.ping(7);
    h2.awaitFrame(f -> f.type() == Http2FrameTypes.PING, WAIT).orElseThrow();
    for (int stream = 1; stream <= 5; stream += 2) {
      h2.headers(stream, RawHttp2.request("GET", "/hang"), true);
    }
    h2.headers(7, RawHttp2.request("GET", "/hang"), true);

    Frame refused = h2.awaitReset(7, WAIT);
    assertThat(refused.errorCode()).isEqualTo(Http2Error.REFUSED_STREAM.code());
    h2.ping(8);
    assertThat(h2.awaitFrame(f -> f.type() == Http2FrameTypes.PING, WAIT)).as("the connection stays").isPresent();
  }

  // --- floods ----------------------------------------------------------------------------------

  @Test
  void priorityFramesBeyondTheLimitAreAFlood() {
    long before = defaults.stat("http2.inbound_priority_frames_flood");
    RawHttp2 h2 = connect(defaults);
    // No stream has been answered: 100 × (1 + 0) PRIORITY frames are allowed.
    for (int i = 0; i < 100; i++) {
      h2.priority(1 + 2 * i);
    }
    h2.ping(1);
    assertThat(h2.awaitFrame(f -> f.type() == Http2FrameTypes.PING, WAIT)).as("100 are allowed").isPresent();
    h2.priority(301);

    assertGoAway(h2, Http2Error.ENHANCE_YOUR_CALM, 0);
    assertThat(defaults.stat("http2.inbound_priority_frames_flood")).isEqualTo(before + 1);
  }

  @Test
  void windowUpdatesWithoutDataSentAreAFlood() {
    long before = defaults.stat("http2.inbound_window_update_frames_flood");
    RawHttp2 h2 = connect(defaults);
    // Nothing sent yet: 5 + 2 × (0 + 10 × 0) WINDOW_UPDATE frames are allowed.
    for (int i = 0; i < 6; i++) {
      h2.windowUpdate(0, 1);
    }

    assertGoAway(h2, Http2Error.ENHANCE_YOUR_CALM, 0);
    assertThat(defaults.stat("http2.inbound_window_update_frames_flood")).isEqualTo(before + 1);
  }

  @Test
  void consecutiveEmptyDataFramesAreAFlood() {
    long before = defaults.stat("http2.inbound_empty_frames_flood");
    RawHttp2 h2 = connect(defaults);
    h2.headers(1, RawHttp2.request("POST", "/drain"), false);
    h2.data(1, new byte[0], false);
    h2.data(1, new byte[0], false);

    assertGoAway(h2, Http2Error.ENHANCE_YOUR_CALM, 1);
    assertThat(defaults.stat("http2.inbound_empty_frames_flood")).isEqualTo(before + 1);
  }

  @Test
  void pingsThatAreNeverReadAreAnOutboundControlFlood() throws Exception {
    EdgeHarness edge = edge("http2_protocol_options: { max_outbound_control_frames: 100 }");
    RawHttp2 h2 = RawHttp2.connect(edge.port(), 4096);
    closeables.add(h2);
    h2.preface();
    h2.awaitServerSettings(WAIT);
    // Without reading, PING ACKs pile up behind the full socket buffers; send in batches, bounded.
    byte[] batch = RawHttp2.concat(java.util.Collections.nCopies(1000,
        RawHttp2.encodeFrame(Http2FrameTypes.PING, 0, 0, new byte[8])));
    long deadline = System.nanoTime() + WAIT.toNanos();
    for (int i = 0; i < 2000 && !h2.writeFailed() && edge.stat("http2.outbound_control_flood") == 0
        && System.nanoTime() < deadline; i++) {
      h2.send(batch);
    }

    assertThat(edge.awaitStat("http2.outbound_control_flood", 1)).isEqualTo(1);
    assertThat(h2.awaitClosed(WAIT)).isTrue();
  }

  // --- premature resets ------------------------------------------------------------------------

  @Test
  void streamsResetBeforeTheirResponseCloseTheConnection() {
    long before = defaults.stat("http.ingress.downstream_rq_too_many_premature_resets");
    RawHttp2 h2 = connect(defaults);
    int stream = 1;
    // Before 500 streams, 250 premature ones close the connection (it cannot reach half any more).
    for (int i = 0; i < 300 && !h2.writeFailed(); i++, stream += 2) {
      h2.send(RawHttp2.concat(List.of(
          RawHttp2.encodeFrame(Http2FrameTypes.HEADERS, RawHttp2.END_HEADERS | RawHttp2.END_STREAM, stream,
              h2.headerBlock(RawHttp2.request("GET", "/hang"))),
          rst(stream))));
    }

    Frame goAway = h2.awaitGoAway(WAIT);
    assertThat(goAway.errorCode()).isEqualTo(Http2Error.ENHANCE_YOUR_CALM.code());
    assertThat(h2.awaitClosed(WAIT)).isTrue();
    assertThat(defaults.stat("http.ingress.downstream_rq_too_many_premature_resets")).isEqualTo(before + 1);
    assertThat(defaults.stat("http2.rx_reset")).isGreaterThanOrEqualTo(250);
  }

  @Test
  void theRuntimeSetsThePrematureResetThresholds() throws Exception {
    EdgeHarness edge = EdgeHarness.start(edgeYaml("") + """
        layered_runtime:
          layers:
          - name: static_layer_0
            static_layer:
              overload: { premature_reset_total_stream_count: 20 }
        """);
    closeables.add(edge);
    RawHttp2 h2 = connect(edge);
    int stream = 1;
    // With 20 instead of 500, 10 premature resets are enough; 40 are sent at most.
    for (int i = 0; i < 40 && !h2.writeFailed(); i++, stream += 2) {
      h2.send(RawHttp2.concat(List.of(
          RawHttp2.encodeFrame(Http2FrameTypes.HEADERS, RawHttp2.END_HEADERS | RawHttp2.END_STREAM, stream,
              h2.headerBlock(RawHttp2.request("GET", "/hang"))),
          rst(stream))));
    }

    Frame goAway = h2.awaitGoAway(WAIT);
    assertThat(goAway.errorCode()).isEqualTo(Http2Error.ENHANCE_YOUR_CALM.code());
    assertThat(edge.awaitStat("http.ingress.downstream_rq_too_many_premature_resets", 1)).isEqualTo(1);
    assertThat(edge.stat("http2.rx_reset")).isBetween(10L, 40L);
  }

  @Test
  void streamsResetAfterTheirResponseAreNotPremature() {
    long before = defaults.stat("http.ingress.downstream_rq_too_many_premature_resets");
    RawHttp2 h2 = connect(defaults);
    for (int i = 0, stream = 1; i < 300; i++, stream += 2) {
      h2.headers(stream, RawHttp2.request("GET", "/bytes/100000"), true);
      int s = stream;
      h2.awaitFrame(f -> f.type() == Http2FrameTypes.HEADERS && f.streamId() == s, WAIT).orElseThrow();
      h2.send(rst(stream));
    }

    assertThat(exchange(h2, 601)).isEqualTo(200);
    assertThat(defaults.stat("http.ingress.downstream_rq_too_many_premature_resets")).isEqualTo(before);
  }

  private static byte[] rst(int stream) {
    byte[] cancel = {0, 0, 0, (byte) Http2Error.CANCEL.code()};
    return RawHttp2.encodeFrame(Http2FrameTypes.RST_STREAM, 0, stream, cancel);
  }
}
