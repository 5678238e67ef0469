package io.spillway.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.spillway.edge.config.HttpConnectionManagerConfig.Http1Options;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.stats.Tag;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The HTTP/1.1 request codec steps of {@link HttpPipelines} (decoder, conformance, validator) on an
 * {@link EmbeddedChannel}: raw bytes in, and either the response the validator wrote (its status,
 * {@code Connection: close}, the channel closed, no request passed on, the stats charged) or the
 * request the connection handler would get.
 */
class Http1ConformanceTest {

  private static final int MAX_HEADERS_BYTES = 60 * 1024;
  private static final String BIG = "a".repeat(70 * 1024);

  private final StatsStore store = new StatsStore();
  private final HcmStats stats = new HcmStats(store.rootScope().taggedScope("http", "test", Tag.HTTP_CONN_MANAGER_PREFIX),
      new Http1CodecStats(store.rootScope().scope("http1")), new io.spillway.edge.http2.Http2CodecStats(store.rootScope().scope("http2")));
  private final List<HttpRequest> passedRequests = new ArrayList<>();
  private final StringBuilder passedBody = new StringBuilder();
  private boolean passedEnd;
  /** Bytes that reached the connection handler as they are (after an upgrade's switch). */
  private final StringBuilder passedRaw = new StringBuilder();
  private int protocolErrorEvents;

  static Stream<Arguments> refused() {
    return Stream.of(
        // field lines: RFC 9112 §5.1, §5.2, §2.2; RFC 9110 §5.5
        refused("obs-fold with SP", 400, "GET / HTTP/1.1\r\nHost: a\r\nX-A: one\r\n two\r\n\r\n"),
        refused("obs-fold with HTAB", 400, "GET / HTTP/1.1\r\nHost: a\r\nX-A: one\r\n\ttwo\r\n\r\n"),
        refused("obs-fold hiding Transfer-Encoding", 400,
            "POST / HTTP/1.1\r\nHost: a\r\nX-A: one\r\n\tTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        refused("obs-fold in Transfer-Encoding", 400,
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n"),
        refused("whitespace before the first field line", 400, "GET / HTTP/1.1\r\n X-A: one\r\nHost: a\r\n\r\n"),
        refused("whitespace before the request line", 400, " GET / HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("SP between field name and colon", 400, "GET / HTTP/1.1\r\nHost : a\r\n\r\n"),
        refused("HTAB between field name and colon", 400, "GET / HTTP/1.1\r\nHost: a\r\nX-A\t: one\r\n\r\n"),
        refused("invalid field-name character", 400, "GET / HTTP/1.1\r\nHost: a\r\nX(A): one\r\n\r\n"),
        refused("empty field name", 400, "GET / HTTP/1.1\r\nHost: a\r\n: one\r\n\r\n"),
        refused("field line without colon", 400, "GET / HTTP/1.1\r\nHost: a\r\nX-A one\r\n\r\n"),
        refused("bare CR in a field value", 400, "GET / HTTP/1.1\r\nHost: a\r\nX-A: one\rtwo\r\n\r\n"),
        refused("NUL in a field value", 400, "GET / HTTP/1.1\r\nHost: a\r\nX-A: one\0two\r\n\r\n"),
        refused("control character in a field value", 400, "GET / HTTP/1.1\r\nHost: a\r\nX-A: one\u0001two\r\n\r\n"),
        refused("bare LF line endings", 400, "GET / HTTP/1.1\nHost: a\n\n"),
        refused("bare CR in the request line", 400, "GET /x\rHTTP/1.1\r\nHost: a\r\n\r\n"),
        // Host: RFC 9112 §3.2, RFC 9110 §7.2
        refused("HTTP/1.1 without Host", 400, "GET / HTTP/1.1\r\nX-A: one\r\n\r\n"),
        refused("two Host fields, same value", 400, "GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n"),
        refused("two Host fields, different values", 400, "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
        refused("Host with a space", 400, "GET / HTTP/1.1\r\nHost: a b\r\n\r\n"),
        refused("Host with a path", 400, "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n"),
        refused("Host with userinfo", 400, "GET / HTTP/1.1\r\nHost: user@a\r\n\r\n"),
        refused("Host with a non-numeric port", 400, "GET / HTTP/1.1\r\nHost: a:8x\r\n\r\n"),
        refused("Host with two ports", 400, "GET / HTTP/1.1\r\nHost: a:80:81\r\n\r\n"),
        refused("Host with an unclosed IP-literal", 400, "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n"),
        refused("Host with a bad pct-encoding", 400, "GET / HTTP/1.1\r\nHost: a%zz\r\n\r\n"),
        refused("Host with a port and no host", 400, "GET / HTTP/1.1\r\nHost: :80\r\n\r\n"),
        refused("empty Host", 400, "GET / HTTP/1.1\r\nHost: \r\n\r\n"),
        refused("absolute-form, HTTP/1.1 without Host", 400, "GET http://a/x HTTP/1.1\r\n\r\n"),
        refused("absolute-form with userinfo", 400, "GET http://u@a/x HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("absolute-form with an empty host", 400, "GET http:///x HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("absolute-form with another scheme", 400, "GET ftp://a/x HTTP/1.1\r\nHost: a\r\n\r\n"),
        // versions: RFC 9112 §2.3, RFC 9110 §15.6.6
        refused("HTTP/2.0", 505, "GET / HTTP/2.0\r\nHost: a\r\n\r\n"),
        refused("HTTP/9.9", 505, "GET / HTTP/9.9\r\nHost: a\r\n\r\n"),
        refused("HTTP/0.9", 505, "GET / HTTP/0.9\r\nHost: a\r\n\r\n"),
        refused("HTTP/1.x", 400, "GET / HTTP/1.x\r\nHost: a\r\n\r\n"),
        refused("lower-case http/1.1", 400, "GET / http/1.1\r\nHost: a\r\n\r\n"),
        refused("HTTP/1.10", 400, "GET / HTTP/1.10\r\nHost: a\r\n\r\n"),
        refused("HTTP/01.1", 400, "GET / HTTP/01.1\r\nHost: a\r\n\r\n"),
        refused("no version", 400, "GET /\r\nHost: a\r\n\r\n"),
        refused("SP after the version", 400, "GET / HTTP/1.1 \r\nHost: a\r\n\r\n"),
        // framing: RFC 9112 §6.1, §6.3, §7.1
        refused("Content-Length and Transfer-Encoding", 400,
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        refused("final coding not chunked", 400, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n"),
        refused("chunked, then another coding", 400,
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n"),
        refused("a coding before chunked", 501,
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
        refused("chunked, chunked", 400,
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n"),
        refused("chunked in two fields", 400,
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        refused("xchunked", 400, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n"),
        refused("chunked with a vertical tab", 400,
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\u000b\r\n\r\n0\r\n\r\n"),
        refused("Transfer-Encoding on HTTP/1.0", 400,
            "POST / HTTP/1.0\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        refused("two Content-Length fields, same value", 400,
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello"),
        refused("two Content-Length fields on HTTP/1.0", 400,
            "POST / HTTP/1.0\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"),
        refused("Content-Length +5", 400, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\nhello"),
        refused("Content-Length -1", 400, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n"),
        refused("Content-Length 0x10", 400, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x10\r\n\r\n"),
        refused("Content-Length 5,6", 400, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5,6\r\n\r\nhello!"),
        refused("Content-Length overflow", 400,
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n"),
        // request-target: RFC 9112 §3.2
        refused("asterisk-form with GET", 400, "GET * HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("authority-form with GET", 400, "GET a:80 HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("CONNECT with origin-form", 400, "CONNECT /x HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("CONNECT without a port", 400, "CONNECT a HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("fragment", 400, "GET /x#frag HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("NUL in the target", 400, "GET /x\0y HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("control character in the target", 400, "GET /x\u0001y HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("DEL in the target", 400, "GET /x\u007fy HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("space in the target", 400, "GET /x y HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("HTAB in the target", 400, "GET /x\ty HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("non-ASCII in the target", 400, "GET /caf\u00c3\u00a9 HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("invalid method character", 400, "G@T / HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("HTAB as separator", 400, "GET\t/ HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("two SP as separator", 400, "GET  / HTTP/1.1\r\nHost: a\r\n\r\n"),
        // limits: as in Envoy, the request line counts against max_request_headers_kb
        refused("request line over the limit", 431, "GET /" + BIG + " HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("header block over the limit", 431, "GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + BIG + "\r\n\r\n"));
  }

  /** Bad chunked framing: the head was valid and went on; the body never ends, the request is reset. */
  static Stream<Arguments> refusedBodies() {
    return Stream.of(
        refused("chunk-size overflow", 400,
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff1\r\nhello\r\n0\r\n\r\n"),
        refused("chunk extension ended by bare LF", 400,
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\nhello\r\n0\r\n\r\n"),
        refused("invalid chunk-size", 400,
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"),
        refused("negative chunk-size", 400,
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n"),
        refused("no CRLF after chunk data", 400,
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX0\r\n\r\n"),
        refused("bare LF after chunk data", 400,
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\n0\r\n\r\n"),
        refused("control character in a chunk extension", 400,
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;a\u0001b\r\nhello\r\n0\r\n\r\n"),
        refused("chunk-size line over the limit", 400,
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;a=" + BIG + "\r\nhello\r\n0\r\n\r\n"),
        refused("trailer section over the limit", 431,
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-Big: " + BIG + "\r\n\r\n"));
  }

  private static Arguments refused(String rule, int status, String raw) {
    return Arguments.of(rule, status, raw);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("refused")
  void refusedWithItsStatusAndTheConnectionClosed(String rule, int status, String raw) {
    EmbeddedChannel channel = channel(new Http1Options(true, ""));

    channel.writeInbound(bytes(raw));

    String response = responseText(channel);
    assertThat(response).as(rule).startsWith("HTTP/1.1 " + status + " ");
    assertThat(response.toLowerCase()).contains("connection: close");
    assertThat(channel.isOpen()).as("closed").isFalse();
    assertThat(passedRequests).as("nothing reaches the connection handler").isEmpty();
    assertThat(protocolErrorEvents).isEqualTo(1);
    assertThat(stats.downstreamCxProtocolError.value()).isEqualTo(1);
    assertThat(stats.downstreamRqClass[status / 100].value()).as("downstream_rq_" + status / 100 + "xx").isEqualTo(1);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("refusedBodies")
  void badChunkEndsTheRequestInFlightAndTheConnection(String rule, int status, String raw) {
    EmbeddedChannel channel = channel(Http1Options.ENVOY_DEFAULTS);

    channel.writeInbound(bytes(raw));

    assertThat(responseText(channel)).as(rule).startsWith("HTTP/1.1 " + status + " ");
    assertThat(channel.isOpen()).isFalse();
    assertThat(passedRequests).hasSize(1);
    assertThat(passedEnd).as("the body never completes").isFalse();
    assertThat(protocolErrorEvents).as("the request in flight is told").isEqualTo(1);
    assertThat(stats.downstreamCxProtocolError.value()).isEqualTo(1);
  }

  @Test
  void obsFoldSplitAcrossReadsIsRefused() {
    EmbeddedChannel channel = channel(Http1Options.ENVOY_DEFAULTS);

    channel.writeInbound(bytes("GET / HTTP/1.1\r\nHost: a\r\nX-A: one\r\n"));
    channel.writeInbound(bytes(" two\r\n\r\n"));

    assertThat(responseText(channel)).startsWith("HTTP/1.1 400 ");
    assertThat(passedRequests).isEmpty();
  }

  @Test
  void requestSentOneByteAtATimePasses() {
    EmbeddedChannel channel = channel(Http1Options.ENVOY_DEFAULTS);

    for (byte b : "\r\nGET /x HTTP/1.1\r\nHost: a\r\nX-A: one two\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)) {
      channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
    }

    assertThat(passedRequests).hasSize(1);
    assertThat(passedRequests.get(0).headers().get("x-a")).isEqualTo("one two");
    assertThat(channel.outboundMessages()).isEmpty();
  }

  @Test
  void bodyBytesThatLookLikeFoldsAreNotChecked() {
    EmbeddedChannel channel = channel(Http1Options.ENVOY_DEFAULTS);

    channel.writeInbound(bytes("POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 6\r\n\r\nx\n y\r\n"
        + "POST /b HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n\n\tz\n\r\n0\r\n\r\n"
        + "GET /c HTTP/1.1\r\nHost: a\r\n\r\n"));

    assertThat(passedRequests).extracting(HttpRequest::uri).containsExactly("/a", "/b", "/c");
    assertThat(passedBody.toString()).isEqualTo("x\n y\r\n\n\tz\n");
    assertThat(channel.outboundMessages()).isEmpty();
  }

  @Test
  void pipelinedRequestAfterAGoodOneIsRefusedAlone() {
    EmbeddedChannel channel = channel(Http1Options.ENVOY_DEFAULTS);

    channel.writeInbound(bytes("GET /good HTTP/1.1\r\nHost: a\r\n\r\n"
        + "GET /bad HTTP/1.1\r\nHost: a\r\nX-A: one\r\n two\r\n\r\n"));

    assertThat(passedRequests).extracting(HttpRequest::uri).containsExactly("/good");
    assertThat(responseText(channel)).startsWith("HTTP/1.1 400 ");
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void bytesAfterAnUpgradeRequestWaitInTheDecoderAndPassAsTheyAreOnceTheCodecLeaves() {
    EmbeddedChannel channel = channel(Http1Options.ENVOY_DEFAULTS);

    // RFC 9110 §7.8: what follows the upgrade request is the new protocol, never a next request.
    channel.writeInbound(bytes("GET /ws HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, Upgrade\r\n"
        + "Upgrade: websocket\r\n\r\n\u0081\u0002hi GET /x HTTP/1.1\r\n"));
    channel.writeInbound(bytes("Host: a\r\n\r\n"));

    assertThat(passedRequests).extracting(HttpRequest::uri).containsExactly("/ws");
    assertThat(passedEnd).isTrue();
    assertThat(passedRaw).isEmpty();
    assertThat(responseText(channel)).isEmpty();

    HttpPipelines.removeHttp1CodecOutbound(channel.pipeline());
    HttpPipelines.removeHttp1Decoder(channel.pipeline());
    assertThat(passedRaw.toString()).isEqualTo("\u0081\u0002hi GET /x HTTP/1.1\r\nHost: a\r\n\r\n");
    channel.writeInbound(bytes("more"));
    assertThat(passedRaw.toString()).endsWith("more");
    channel.writeOutbound(bytes("out"));
    assertThat(responseText(channel)).isEqualTo("out");
    assertThat(channel.isOpen()).isTrue();
  }

  @Test
  void onlyAnHttp11RequestWithConnectionUpgradeAndNotH2cHoldsTheBytesAfterIt() {
    for (String head : List.of(
        "GET /a HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n",
        "GET /a HTTP/1.0\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")) {
      passedRequests.clear();
      EmbeddedChannel channel = channel(new Http1Options(true, ""));
      channel.writeInbound(bytes(head + "GET /b HTTP/1.1\r\nHost: a\r\n\r\n"));
      assertThat(passedRequests).as(head).extracting(HttpRequest::uri).containsExactly("/a", "/b");
      channel.finishAndReleaseAll();
    }
    assertThat(Http1RequestDecoder.asksToUpgrade(new io.netty.handler.codec.http.DefaultHttpRequest(
        io.netty.handler.codec.http.HttpVersion.HTTP_1_1, io.netty.handler.codec.http.HttpMethod.GET, "/",
        new io.netty.handler.codec.http.DefaultHttpHeaders().add("connection", "x, UPGRADE").add("upgrade", "WebSocket"))))
        .isTrue();
  }

  @Test
  void absoluteFormBecomesOriginFormAndItsAuthorityReplacesHost() {
    // RFC 9112 §3.2.2: the target's authority wins; a conflicting Host is not sent on (as nginx).
    HttpRequest request = passes(Http1Options.ENVOY_DEFAULTS, "GET http://a.example:8080/x?q=1 HTTP/1.1\r\nHost: b\r\n\r\n");

    assertThat(request.uri()).isEqualTo("/x?q=1");
    assertThat(request.headers().getAll(HttpHeaderNames.HOST)).containsExactly("a.example:8080");
  }

  @Test
  void absoluteFormWithoutAPathGetsSlash() {
    assertThat(passes(Http1Options.ENVOY_DEFAULTS, "GET HTTPS://a HTTP/1.1\r\nHost: a\r\n\r\n").uri()).isEqualTo("/");
    assertThat(passes(Http1Options.ENVOY_DEFAULTS, "GET http://a?q HTTP/1.1\r\nHost: a\r\n\r\n").uri()).isEqualTo("/?q");
  }

  @Test
  void laterHttp1MinorVersionIsServedAsHttp11() {
    // RFC 9110 §2.5
    assertThat(passes(Http1Options.ENVOY_DEFAULTS, "GET / HTTP/1.2\r\nHost: a\r\n\r\n").protocolVersion())
        .isSameAs(HttpVersion.HTTP_1_1);
  }

  @Test
  void validButUnusualRequestsPass() {
    Http1Options legacy = new Http1Options(true, "");
    passes(legacy, "GET / HTTP/1.0\r\n\r\n");
    passes(legacy, "GET http://a/x HTTP/1.0\r\n\r\n");
    passes(Http1Options.ENVOY_DEFAULTS, "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n");
    passes(Http1Options.ENVOY_DEFAULTS, "CONNECT a.example:443 HTTP/1.1\r\nHost: a.example:443\r\n\r\n");
    passes(Http1Options.ENVOY_DEFAULTS, "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n");
    passes(Http1Options.ENVOY_DEFAULTS, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    passes(Http1Options.ENVOY_DEFAULTS, "GET / HTTP/1.1\r\nHost: a%2Db.example:\r\n\r\n");
    passes(Http1Options.ENVOY_DEFAULTS, "GET /a/b;c?d=/e?f&g=%20|{} HTTP/1.1\r\nHost: a\r\n\r\n");
    passes(Http1Options.ENVOY_DEFAULTS, "GET / HTTP/1.1\r\nhost: a\r\nX-A: caf\u00e9\r\nX-B:\tone\t\r\n\r\n");
    passes(Http1Options.ENVOY_DEFAULTS, "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n");
  }

  @Test
  void chunkedBodyWithExtensionsTrailersAndLooseCaseOrWhitespacePasses() {
    HttpRequest request = passes(Http1Options.ENVOY_DEFAULTS, "POST / HTTP/1.1\r\nHost: a\r\n"
        + "Transfer-Encoding:\tChunked \r\n\r\n5;ext=1\r\nhello\r\n0\r\nX-Trailer: t\r\n\r\n");

    assertThat(request.headers().get(HttpHeaderNames.TRANSFER_ENCODING)).isEqualTo("Chunked");
    assertThat(passedBody.toString()).isEqualTo("hello");
    assertThat(passedEnd).isTrue();
  }

  @Test
  void http10IsStill426WhenNotAccepted() {
    EmbeddedChannel channel = channel(Http1Options.ENVOY_DEFAULTS);

    channel.writeInbound(bytes("GET / HTTP/1.0\r\nHost: a\r\n\r\n"));

    assertThat(responseText(channel)).startsWith("HTTP/1.1 426 ");
    assertThat(passedRequests).isEmpty();
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private HttpRequest passes(Http1Options http1, String raw) {
    passedRequests.clear();
    EmbeddedChannel channel = channel(http1);
    channel.writeInbound(bytes(raw));
    assertThat(channel.outboundMessages()).as("no response for " + raw).isEmpty();
    assertThat(channel.isOpen()).isTrue();
    assertThat(passedRequests).as(raw).hasSize(1);
    channel.finishAndReleaseAll();
    return passedRequests.get(0);
  }

  private EmbeddedChannel channel(Http1Options http1) {
    EmbeddedChannel channel = new EmbeddedChannel();
    HttpPipelines.addHttp1Codec(channel.pipeline(), MAX_HEADERS_BYTES, new Http1RequestValidator(stats, "spillway", http1));
    channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
          passedRequests.add(request);
        }
        if (msg instanceof HttpContent content) {
          passedBody.append(content.content().toString(StandardCharsets.ISO_8859_1));
          passedEnd |= msg instanceof LastHttpContent;
        }
        if (msg instanceof ByteBuf raw) {
          passedRaw.append(raw.toString(StandardCharsets.ISO_8859_1));
        }
        ReferenceCountUtil.release(msg);
      }

      @Override
      public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof Http1RequestValidator.ProtocolError) {
          protocolErrorEvents++;
        }
      }
    });
    return channel;
  }

  private static ByteBuf bytes(String raw) {
    return Unpooled.copiedBuffer(raw, StandardCharsets.ISO_8859_1);
  }

  private static String responseText(EmbeddedChannel channel) {
    StringBuilder out = new StringBuilder();
    Object msg;
    while ((msg = channel.readOutbound()) != null) {
      ByteBuf buf = (ByteBuf) msg;
      out.append(buf.toString(StandardCharsets.ISO_8859_1));
      buf.release();
    }
    return out.toString();
  }
}
