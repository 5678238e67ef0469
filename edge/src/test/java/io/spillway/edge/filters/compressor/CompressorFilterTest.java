package io.spillway.edge.filters.compressor;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.CompressorConfig;
import io.spillway.edge.config.RuntimeFlag;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterTrailersStatus;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.zip.Inflater;
import org.junit.jupiter.api.Test;
/**
 * The compressor filter through fake stream callbacks: when it compresses and when not (each of
 * Envoy's conditions, with its stat), the headers it changes, streamed parts each decodable on
 * arrival, trailers, per-route settings and the request direction. The choice among several
 * compressors and the zstd and brotli libraries are in {@link CompressorLibrariesFilterTest}.
 */
class CompressorFilterTest extends CompressorFilterFixture {

  @Test
  void compressesATextResponseTheClientAcceptsAndSaysSo() throws IOException {
    ResponseHeaders response = ok("content-type", "text/plain; charset=utf-8", "content-length",
        String.valueOf(TEXT.length() * 2));
    Exchange e = exchange(factory(gzip(response())), get("accept-encoding", "gzip, deflate"), response, TEXT, TEXT);
    HttpHeaders h = response.headers();
    assertThat(h.get("content-encoding")).isEqualTo("gzip");
    assertThat(h.contains("content-length")).isFalse();
    assertThat(h.get("vary")).isEqualTo("Accept-Encoding");
    byte[] body = e.body();
    assertThat(gunzip(body)).isEqualTo(TEXT + TEXT);
    assertThat(body.length).isLessThan(TEXT.length());
    assertThat(counter(PREFIX + "compressed")).isEqualTo(1);
    assertThat(counter(PREFIX + "not_compressed")).isZero();
    assertThat(counter(PREFIX + "header_compressor_used")).isEqualTo(1);
    assertThat(counter(PREFIX + "total_uncompressed_bytes")).isEqualTo(2L * TEXT.length());
    assertThat(counter(PREFIX + "total_compressed_bytes")).isEqualTo(body.length);
  }

  @Test
  void eachPartIsFlushedSoAStreamedResponseDecodesAsItArrives() throws Exception {
    Exchange e = new Exchange(factory(gzip(response())), null, get("accept-encoding", "gzip"))
        .headers(ok("content-type", "text/event-stream"), false);
    // text/event-stream is not in Envoy's default list: this response passes as it is.
    e.data("data: 1\n\n", false);
    assertThat(new String(e.out.get(0), StandardCharsets.UTF_8)).isEqualTo("data: 1\n\n");
    e.destroy();

    Exchange s = new Exchange(factory(gzip(response())), null, get("accept-encoding", "gzip"))
        .headers(ok("content-type", "text/plain"), false);
    Inflater inflater = new Inflater(true); // raw deflate: the gzip header is skipped by hand
    try {
      byte[] out = new byte[4096];
      s.data("first part;", false);
      byte[] first = s.out.get(0);
      assertThat(first.length).isGreaterThan(10);
      inflater.setInput(first, 10, first.length - 10);
      int n = inflater.inflate(out);
      assertThat(new String(out, 0, n, StandardCharsets.UTF_8)).isEqualTo("first part;");
      s.data("second part", false);
      inflater.setInput(s.out.get(1));
      n = inflater.inflate(out);
      assertThat(new String(out, 0, n, StandardCharsets.UTF_8)).isEqualTo("second part");
    } finally {
      inflater.end();
    }
    s.data("", true);
    assertThat(gunzip(s.body())).isEqualTo("first part;second part");
    s.destroy();
  }

  @Test
  void trailersEndTheEncodedBodyAndPassUnchanged() throws IOException {
    Exchange e = new Exchange(factory(gzip(response())), null, get("accept-encoding", "gzip"))
        .headers(ok("content-type", "application/grpc-web"), false);
    e.data(TEXT, false).trailers();
    assertThat(gunzip(e.body())).isEqualTo(TEXT);
    e.destroy();
  }

  @Test
  void aStreamThatEndsEarlyGivesBackItsCompressor() {
    Exchange e = new Exchange(factory(gzip(response())), null, get("accept-encoding", "gzip"))
        .headers(ok("content-type", "text/plain"), false);
    e.data(TEXT, false);
    e.destroy();
    e.destroy(); // idempotent
  }

  @Test
  void aLocalReplyReplacingTheResponseStartsOver() throws IOException {
    Exchange e = new Exchange(factory(gzip(response())), null, get("accept-encoding", "gzip"))
        .headers(ok("content-type", "text/plain"), false);
    e.data(TEXT, false);
    e.out.clear();
    ResponseHeaders reply = new ResponseHeaders(503, headers("content-type", "text/plain"));
    e.headers(reply, false).data("upstream connect error or disconnect/reset before headers", true);
    assertThat(reply.headers().get("content-encoding")).isEqualTo("gzip");
    assertThat(gunzip(e.body())).isEqualTo("upstream connect error or disconnect/reset before headers");
    e.destroy();
  }

  @Test
  void aWeakEtagStaysAndAStrongOneGoes() {
    ResponseHeaders weak = ok("content-type", "text/html", "etag", "W/\"abc\"");
    exchange(factory(gzip(response())), get("accept-encoding", "gzip"), weak, TEXT);
    assertThat(weak.headers().get("etag")).isEqualTo("W/\"abc\"");
    ResponseHeaders strong = ok("content-type", "text/html", "etag", "\"abc\"");
    exchange(factory(gzip(response())), get("accept-encoding", "gzip"), strong, TEXT);
    assertThat(strong.headers().contains("etag")).isFalse();
    assertThat(strong.headers().get("content-encoding")).isEqualTo("gzip");
  }

  @Test
  void varyGainsAcceptEncodingOnce() {
    ResponseHeaders other = ok("content-type", "text/html", "vary", "Origin");
    exchange(factory(gzip(response())), get("accept-encoding", "gzip"), other, TEXT);
    assertThat(other.headers().get("vary")).isEqualTo("Origin, Accept-Encoding");
    ResponseHeaders already = ok("content-type", "text/html", "vary", "origin, accept-encoding");
    exchange(factory(gzip(response())), get("accept-encoding", "gzip"), already, TEXT);
    assertThat(already.headers().get("vary")).isEqualTo("origin, accept-encoding");
  }

  @Test
  void aResponseWithoutContentTypeOrLengthIsCompressed() {
    ResponseHeaders bare = ok();
    exchange(factory(gzip(response())), get("accept-encoding", "gzip"), bare, TEXT);
    assertThat(bare.headers().get("content-encoding")).isEqualTo("gzip");
  }

  // ---- not compressing -----------------------------------------------------------------------

  @Test
  void withoutAcceptEncodingTheResponseIsLeftAloneButVaries() {
    ResponseHeaders response = ok("content-type", "text/html");
    Exchange e = exchange(factory(gzip(response())), get(), response, TEXT);
    assertThat(new String(e.body(), StandardCharsets.UTF_8)).isEqualTo(TEXT);
    assertThat(response.headers().contains("content-encoding")).isFalse();
    assertThat(response.headers().get("vary")).isEqualTo("Accept-Encoding");
    assertThat(counter(PREFIX + "no_accept_header")).isEqualTo(1);
    assertThat(counter(PREFIX + "not_compressed")).isEqualTo(1);
  }

  @Test
  void identityAndZeroQualityAreHonoured() {
    exchange(factory(gzip(response())), get("accept-encoding", "identity"), ok("content-type", "text/html"), TEXT);
    assertThat(counter(PREFIX + "header_identity")).isEqualTo(1);
    ResponseHeaders refused = ok("content-type", "text/html");
    exchange(factory(gzip(response())), get("accept-encoding", "gzip;q=0, br"), refused, TEXT);
    assertThat(refused.headers().contains("content-encoding")).isFalse();
    assertThat(counter(PREFIX + "header_not_valid")).isEqualTo(1);
    ResponseHeaders wildcard = ok("content-type", "text/html");
    exchange(factory(gzip(response())), get("accept-encoding", "*"), wildcard, TEXT);
    assertThat(wildcard.headers().get("content-encoding")).isEqualTo("gzip");
    assertThat(counter(PREFIX + "header_wildcard")).isEqualTo(1);
    assertThat(counter(PREFIX + "compressed")).isEqualTo(1);
    assertThat(counter(PREFIX + "not_compressed")).isEqualTo(2);
  }

  @Test
  void aShortDeclaredLengthIsNotCompressed() {
    ResponseHeaders shortOne = ok("content-type", "text/html", "content-length", "29");
    Exchange e = exchange(factory(gzip(response())), get("accept-encoding", "gzip"), shortOne, "x".repeat(29));
    assertThat(e.body()).hasSize(29);
    assertThat(shortOne.headers().get("content-length")).isEqualTo("29");
    assertThat(shortOne.headers().contains("vary")).isFalse();
    assertThat(counter(PREFIX + "content_length_too_small")).isEqualTo(1);
    assertThat(counter(PREFIX + "no_accept_header")).as("Accept-Encoding is not even looked at").isZero();
  }

  @Test
  void otherMediaTypesNoTransformEncodedBodiesAndExcludedStatusesAreLeftAlone() {
    for (ResponseHeaders r : List.of(ok("content-type", "image/png"),
        ok("content-type", "text/html", "cache-control", "public, No-Transform"),
        ok("content-type", "text/html", "content-encoding", "br"),
        new ResponseHeaders(206, headers("content-type", "text/html")))) {
      CompressorConfig.Response excluding206 = new CompressorConfig.Response(RuntimeFlag.of(true), 30,
          Set.copyOf(CompressorConfig.DEFAULT_CONTENT_TYPES), false, false, Set.of(206), false);
      exchange(factory(gzip(excluding206)), get("accept-encoding", "gzip"), r, TEXT);
      assertThat(r.headers().get("content-encoding")).isNotEqualTo("gzip");
      assertThat(r.headers().contains("vary")).isFalse();
    }
    assertThat(counter(PREFIX + "not_compressed")).isEqualTo(4);
  }

  @Test
  void anEtagTurnsCompressionOffWhenConfigured() {
    CompressorConfig.Response r = new CompressorConfig.Response(RuntimeFlag.of(true), 30,
        Set.copyOf(CompressorConfig.DEFAULT_CONTENT_TYPES), true, false, Set.of(), true);
    ResponseHeaders tagged = ok("content-type", "text/html", "etag", "W/\"abc\"");
    exchange(factory(gzip(r)), get("accept-encoding", "gzip"), tagged, TEXT);
    assertThat(tagged.headers().contains("content-encoding")).isFalse();
    String prefix = "http.ingress.compressor.lib.gzip.";
    assertThat(counter(prefix + "not_compressed_etag")).isEqualTo(1);
    assertThat(counter(prefix + "response.not_compressed")).as("response_direction_config set").isEqualTo(1);
  }

  @Test
  void headResponsesAndBodilessOnesAreNotCompressed() {
    ResponseHeaders head = ok("content-type", "text/html", "content-length", "2000");
    new Exchange(factory(gzip(response())), null,
        new RequestHeaders("HEAD", "http", "example.com", "/", headers("accept-encoding", "gzip")))
        .headers(head, false).destroy();
    assertThat(head.headers().get("content-length")).isEqualTo("2000");
    ResponseHeaders notModified = new ResponseHeaders(304, headers("content-type", "text/html"));
    exchange(factory(gzip(response())), get("accept-encoding", "gzip"), notModified);
    assertThat(notModified.headers().contains("content-encoding")).isFalse();
    ResponseHeaders empty = ok("content-type", "text/html");
    exchange(factory(gzip(response())), get("accept-encoding", "gzip"), empty);
    assertThat(empty.headers().contains("content-encoding")).isFalse();
    assertThat(counter(PREFIX + "compressed")).isZero();
  }

  @Test
  void disabledCompressionIsNotCompressed() {
    CompressorConfig.Response off = new CompressorConfig.Response(RuntimeFlag.of(false), 30,
        Set.copyOf(CompressorConfig.DEFAULT_CONTENT_TYPES), false, true, Set.of(), false);
    RequestHeaders request = get("accept-encoding", "gzip");
    ResponseHeaders response = ok("content-type", "text/html");
    exchange(factory(gzip(off)), request, response, TEXT);
    assertThat(response.headers().contains("content-encoding")).isFalse();
    assertThat(request.headers().get("accept-encoding")).as("removed only while compression is on").isEqualTo("gzip");
  }

  @Test
  void theRuntimeKeyOfEnabledTurnsCompressionOffAndOn() {
    CompressorConfig.Response flagged = new CompressorConfig.Response(new RuntimeFlag("compression.on", true), 30,
        Set.copyOf(CompressorConfig.DEFAULT_CONTENT_TYPES), false, false, Set.of(), false);
    CompressorFactory f = factory(gzip(flagged));
    runtime.modifyAdminLayer(Map.of("compression.on", "false"));
    ResponseHeaders off = ok("content-type", "text/html");
    exchange(f, get("accept-encoding", "gzip"), off, TEXT);
    assertThat(off.headers().contains("content-encoding")).isFalse();

    runtime.modifyAdminLayer(Map.of("compression.on", "true"));
    ResponseHeaders on = ok("content-type", "text/html");
    exchange(f, get("accept-encoding", "gzip"), on, TEXT);
    assertThat(on.headers().get("content-encoding")).isEqualTo("gzip");
  }

  // ---- request side and routes ---------------------------------------------------------------

  @Test
  void acceptEncodingIsRemovedFromTheRequestWhenConfiguredAndStillDecides() {
    CompressorConfig.Response remove = new CompressorConfig.Response(RuntimeFlag.of(true), 30,
        Set.copyOf(CompressorConfig.DEFAULT_CONTENT_TYPES), false, true, Set.of(), false);
    RequestHeaders request = get("accept-encoding", "gzip");
    ResponseHeaders response = ok("content-type", "text/html");
    exchange(factory(gzip(remove)), request, response, TEXT);
    assertThat(request.headers().contains("accept-encoding")).isFalse();
    assertThat(response.headers().get("content-encoding")).isEqualTo("gzip");
  }

  @Test
  void aRouteMayTurnCompressionOffOrOnAndOverrideTheRemoval() {
    String name = "envoy.filters.http.compressor";
    CompressorFactory f = factory(gzip(response()));
    RequestHeaders request = get("accept-encoding", "gzip");
    ResponseHeaders response = ok("content-type", "text/html");
    Exchange off = new Exchange(f, route(Map.of(name, new CompressorConfig.PerRoute(Optional.of(false),
        Optional.empty())), Set.of()), request).headers(response, false);
    off.data(TEXT, true).destroy();
    assertThat(response.headers().contains("content-encoding")).isFalse();

    CompressorConfig.Response disabled = new CompressorConfig.Response(RuntimeFlag.of(false), 30,
        Set.copyOf(CompressorConfig.DEFAULT_CONTENT_TYPES), false, false, Set.of(), false);
    RequestHeaders removed = get("accept-encoding", "gzip");
    ResponseHeaders on = ok("content-type", "text/html");
    Exchange e = new Exchange(factory(gzip(disabled)), route(Map.of(name, new CompressorConfig.PerRoute(
        Optional.of(true), Optional.of(true))), Set.of()), removed).headers(on, false);
    e.data(TEXT, true).destroy();
    assertThat(on.headers().get("content-encoding")).isEqualTo("gzip");
    assertThat(removed.headers().contains("accept-encoding")).isFalse();
  }

  // ---- request bodies ------------------------------------------------------------------------

  private static CompressorConfig gzipRequests(CompressorConfig.Request request) {
    return new CompressorConfig("lib", new CompressorConfig.Gzip(-1, CompressorConfig.GzipStrategy.DEFAULT, 5, 12,
        4096), response(), false, Optional.of(request));
  }

  /** Decodes a request through a fresh filter: the parts that went on (compressed or as they were). */
  private List<byte[]> sendRequest(CompressorFilter filter, FakeStream stream, RequestHeaders request,
      boolean trailers, String... parts) {
    filter.setDecoderFilterCallbacks(stream);
    filter.setEncoderFilterCallbacks(stream);
    List<byte[]> out = new ArrayList<>();
    filter.decodeHeaders(request, parts.length == 0);
    for (int i = 0; i < parts.length; i++) {
      ByteBuf in = part(parts[i]);
      FilterDataStatus s = filter.decodeData(in, i == parts.length - 1 && !trailers);
      if (s == FilterDataStatus.CONTINUE) {
        out.add(ByteBufUtil.getBytes(in));
        in.release();
      }
      drain(stream.injectedRequest, out);
    }
    if (trailers) {
      assertThat(filter.decodeTrailers(headers("x-checksum", "1"))).isEqualTo(FilterTrailersStatus.CONTINUE);
      drain(stream.injectedRequest, out);
    }
    filter.onDestroy();
    return out;
  }

  private void drain(List<ByteBuf> injected, List<byte[]> out) {
    for (ByteBuf b : injected) {
      buffers.add(b);
      out.add(ByteBufUtil.getBytes(b));
      b.release();
    }
    injected.clear();
  }

  private static byte[] joined(List<byte[]> parts) {
    return String.join("", parts.stream().map(b -> new String(b, StandardCharsets.ISO_8859_1)).toList())
        .getBytes(StandardCharsets.ISO_8859_1);
  }

  @Test
  void requestBodiesGoUpstreamCompressedWhenTheRequestDirectionIsOn() throws IOException {
    CompressorFactory f = factory(gzipRequests(new CompressorConfig.Request(RuntimeFlag.of(true), 30,
        Set.of("application/json"))));
    RequestHeaders request = new RequestHeaders("POST", "http", "example.com", "/", headers(
        "content-type", "application/json", "content-length", String.valueOf(2 * TEXT.length())));
    FakeStream stream = new FakeStream(alloc, null, request);
    List<byte[]> out = sendRequest(new CompressorFilter(f), stream, request, false, TEXT, TEXT);
    assertThat(request.headers().get("content-encoding")).isEqualTo("gzip");
    assertThat(request.headers().contains("content-length")).isFalse();
    assertThat(gunzip(joined(out))).isEqualTo(TEXT + TEXT);
    assertThat(counter(PREFIX + "request.compressed")).isEqualTo(1);
    assertThat(counter(PREFIX + "request.total_uncompressed_bytes")).isEqualTo(2L * TEXT.length());

    RequestHeaders withTrailers = new RequestHeaders("POST", "http", "example.com", "/", headers(
        "content-type", "application/json"));
    List<byte[]> streamed = sendRequest(new CompressorFilter(f), new FakeStream(alloc, null, withTrailers),
        withTrailers, true, TEXT);
    assertThat(gunzip(joined(streamed))).as("the trailers end the encoded body").isEqualTo(TEXT);
  }

  @Test
  void requestBodiesAreLeftAloneUnlessEveryRuleAllows() {
    CompressorFactory f = factory(gzipRequests(new CompressorConfig.Request(RuntimeFlag.of(true), 30,
        Set.of("application/json"))));
    List<RequestHeaders> requests = List.of(
        new RequestHeaders("POST", "http", "h", "/", headers("content-type", "text/plain")),
        new RequestHeaders("POST", "http", "h", "/", headers("content-type", "application/json",
            "content-length", "10")),
        new RequestHeaders("POST", "http", "h", "/", headers("content-type", "application/json",
            "content-encoding", "br")),
        new RequestHeaders("GET", "http", "h", "/", headers("upgrade", "websocket")));
    for (RequestHeaders r : requests) {
      List<byte[]> out = sendRequest(new CompressorFilter(f), new FakeStream(alloc, null, r), r, false,
          "0123456789");
      assertThat(new String(joined(out), StandardCharsets.UTF_8)).isEqualTo("0123456789");
    }
    RequestHeaders noBody = get();
    sendRequest(new CompressorFilter(f), new FakeStream(alloc, null, noBody), noBody, false);
    assertThat(counter(PREFIX + "request.not_compressed")).isEqualTo(5);
    assertThat(counter(PREFIX + "request.content_length_too_small")).isEqualTo(1);
    assertThat(counter(PREFIX + "request.compressed")).isZero();

    CompressorFactory off = factory(gzipRequests(new CompressorConfig.Request(RuntimeFlag.of(false), 30, Set.of())));
    RequestHeaders json = new RequestHeaders("POST", "http", "h", "/", headers("content-type", "application/json"));
    sendRequest(new CompressorFilter(off), new FakeStream(alloc, null, json), json, false, TEXT);
    assertThat(json.headers().contains("content-encoding")).isFalse();
  }

  @Test
  void withoutARequestDirectionRequestsAreCountedAsNotCompressed() {
    RequestHeaders r = new RequestHeaders("POST", "http", "h", "/", headers("content-type", "application/json"));
    sendRequest(new CompressorFilter(factory(gzip(response()))), new FakeStream(alloc, null, r), r, false, TEXT);
    assertThat(r.headers().contains("content-encoding")).isFalse();
    assertThat(counter(PREFIX + "request.not_compressed")).isEqualTo(1);
  }
}
