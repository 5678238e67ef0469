package io.spillway.edge.filters.compressor;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.ZstdInputStream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.CompressorConfig;
import io.spillway.edge.config.RuntimeFlag;
import io.spillway.edge.config.ExtensionRegistry;
import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.HttpConnectionManagerConfig;
import io.spillway.edge.config.HttpFilterConfig;
import io.spillway.edge.config.RetryPolicy;
import io.spillway.edge.config.Route;
import io.spillway.edge.config.RouteConfig;
import io.spillway.edge.http.filter.FilterContext;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.FilterTrailersStatus;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.StatsStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The compressor filter through fake stream callbacks: when it compresses and when not (each of
 * Envoy's conditions, with its stat), the headers it changes, streamed parts each decodable on
 * arrival, trailers, the choice among several compressors, per-route settings, zstd, and that
 * every buffer is given back.
 */
class CompressorFilterTest {

  private static final String TEXT = "The quick brown fox jumps over the lazy dog. ".repeat(40);
  private static final String PREFIX = "http.ingress.compressor.lib.gzip.";

  private final StatsStore stats = new StatsStore();
  private final ByteBufAllocator alloc = new UnpooledByteBufAllocator(true);
  private final List<ByteBuf> buffers = new ArrayList<>();

  @AfterEach
  void everyBufferWasGivenBack() {
    for (ByteBuf b : buffers) {
      assertThat(b.refCnt()).as("a buffer the filter took or made").isZero();
    }
  }

  /** The runtime the factories read: an admin layer that tests may write. */
  private final io.spillway.edge.runtime.Runtime runtime = new io.spillway.edge.runtime.Runtime(
      new io.spillway.edge.config.RuntimeConfig(List.of(new io.spillway.edge.config.RuntimeConfig.AdminLayer("admin"))),
      "", stats.rootScope().scope("runtime"));

  // ---- configs -------------------------------------------------------------------------------

  private static CompressorConfig.Response response() {
    return new CompressorConfig.Response(RuntimeFlag.of(true), 30, Set.copyOf(CompressorConfig.DEFAULT_CONTENT_TYPES),
        false, false, Set.of(), false);
  }

  private static CompressorConfig gzip(CompressorConfig.Response r) {
    return new CompressorConfig("lib", new CompressorConfig.Gzip(-1, CompressorConfig.GzipStrategy.DEFAULT, 5, 12,
        4096), r, false, Optional.empty());
  }

  private static CompressorConfig brotli() {
    return new CompressorConfig("lib", new CompressorConfig.Brotli(3, CompressorConfig.BrotliMode.GENERIC, 18, 4096),
        response(), false, Optional.empty());
  }

  private static CompressorConfig zstd(boolean chooseFirst) {
    return new CompressorConfig("lib", new CompressorConfig.Zstd(3, true, 0, 4096), response(), chooseFirst,
        Optional.empty());
  }

  /** The factories of a chain holding these compressor entries (name, config, name, config, ...). */
  private List<CompressorFactory> chain(Object... namesAndConfigs) {
    List<HttpFilterConfig> entries = new ArrayList<>();
    for (int i = 0; i < namesAndConfigs.length; i += 2) {
      entries.add(new HttpFilterConfig(ExtensionRegistry.COMPRESSOR, (String) namesAndConfigs[i],
          (CompressorConfig) namesAndConfigs[i + 1]));
    }
    entries.add(HttpFilterConfig.router());
    HttpConnectionManagerConfig d = HttpConnectionManagerConfig.defaults("ingress",
        HttpConnectionManagerConfig.CodecType.AUTO,
        new RouteConfig("r", List.of(), HeaderMutations.NONE, HeaderMutations.NONE));
    HttpConnectionManagerConfig hcm = new HttpConnectionManagerConfig(d.statPrefix(), d.codecType(), d.routeConfig(),
        d.idleTimeout(), d.streamIdleTimeout(), d.requestTimeout(), d.requestHeadersTimeout(),
        d.maxConnectionDuration(), d.drainTimeout(), d.maxRequestHeadersBytes(), d.maxRequestHeadersCount(),
        d.useRemoteAddress(), d.xffNumTrustedHops(), d.generateRequestId(), d.preserveExternalRequestId(),
        d.appendLocalOverload(), d.serverName(), entries, d.rdsRouteConfigName(), d.http1(), d.http2(),
        d.accessLogs(), d.upgradeConfigs(), d.pathNormalization(), d.headersWithUnderscores());
    FilterContext context = new FilterContext(hcm, stats.rootScope().scope("http").scope("ingress"), null, null,
        null, 1 << 20, false, stats.rootScope(), System::nanoTime, runtime,
        io.spillway.edge.authz.AuthorizationClients.NONE, () -> false,
        io.spillway.edge.rls.RateLimitClients.NONE, "", List.of());
    List<CompressorFactory> factories = new ArrayList<>();
    for (int i = 0; i < entries.size() - 1; i++) {
      factories.add(new CompressorFactory(entries.get(i), context));
    }
    return factories;
  }

  private CompressorFactory factory(CompressorConfig config) {
    return chain("envoy.filters.http.compressor", config).get(0);
  }

  private static RouteEntry route(Map<String, Object> filterConfigs, Set<String> disabled) {
    Route route = new Route("r", new Route.Match(new Route.PathMatch.Prefix("/"), true, List.of(), List.of()),
        new Route.RouteAction(List.of(new Route.WeightedCluster("backend", 1)), Optional.empty(), Optional.empty(),
            Optional.empty(), false, Duration.ofSeconds(15), Optional.empty(), RetryPolicy.NONE),
        HeaderMutations.NONE, HeaderMutations.NONE, Map.of(), disabled, Map.of(), Route.RateLimits.NONE,
        Optional.empty());
    return new RouteEntry(route, "vh", List.of(), List.of(), RetryPolicy.NONE, new int[0], filterConfigs);
  }

  // ---- one exchange --------------------------------------------------------------------------

  private static HttpHeaders headers(String... nameValues) {
    HttpHeaders h = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    for (int i = 0; i < nameValues.length; i += 2) {
      h.add(nameValues[i], nameValues[i + 1]);
    }
    return h;
  }

  private static RequestHeaders get(String... nameValues) {
    return new RequestHeaders("GET", "http", "example.com", "/", headers(nameValues));
  }

  private static ResponseHeaders ok(String... nameValues) {
    return new ResponseHeaders(200, headers(nameValues));
  }

  private ByteBuf part(String text) {
    ByteBuf b = alloc.buffer().writeBytes(text.getBytes(StandardCharsets.UTF_8));
    buffers.add(b);
    return b;
  }

  /** What left the filter: each part (compressed or as it was), in order. */
  private final class Exchange {
    final FakeStream stream;
    final CompressorFilter filter;
    final List<byte[]> out = new ArrayList<>();

    Exchange(CompressorFactory factory, RouteEntry route, RequestHeaders request) {
      stream = new FakeStream(alloc, route, request);
      filter = new CompressorFilter(factory);
      filter.setDecoderFilterCallbacks(stream);
      filter.setEncoderFilterCallbacks(stream);
      assertThat(filter.decodeHeaders(request, true)).isEqualTo(FilterHeadersStatus.CONTINUE);
    }

    Exchange headers(ResponseHeaders response, boolean endStream) {
      assertThat(filter.encodeHeaders(response, endStream)).isEqualTo(FilterHeadersStatus.CONTINUE);
      return this;
    }

    Exchange data(String text, boolean endStream) {
      ByteBuf in = part(text);
      FilterDataStatus s = filter.encodeData(in, endStream);
      if (s == FilterDataStatus.CONTINUE) {
        out.add(ByteBufUtil.getBytes(in));
        in.release();
      } else {
        assertThat(s).isEqualTo(FilterDataStatus.STOP_ITERATION_NO_BUFFER);
        takeInjected();
      }
      return this;
    }

    Exchange trailers() {
      assertThat(filter.encodeTrailers(CompressorFilterTest.headers("grpc-status", "0"))).isEqualTo(FilterTrailersStatus.CONTINUE);
      takeInjected();
      return this;
    }

    private void takeInjected() {
      for (ByteBuf b : stream.injected) {
        buffers.add(b);
        out.add(ByteBufUtil.getBytes(b));
        b.release();
      }
      stream.injected.clear();
    }

    byte[] body() {
      int n = out.stream().mapToInt(b -> b.length).sum();
      byte[] all = new byte[n];
      int at = 0;
      for (byte[] b : out) {
        System.arraycopy(b, 0, all, at, b.length);
        at += b.length;
      }
      return all;
    }

    void destroy() {
      filter.onDestroy();
    }
  }

  private Exchange exchange(CompressorFactory f, RequestHeaders request, ResponseHeaders response, String... parts) {
    Exchange e = new Exchange(f, null, request).headers(response, parts.length == 0);
    for (int i = 0; i < parts.length; i++) {
      e.data(parts[i], i == parts.length - 1);
    }
    e.destroy();
    return e;
  }

  private static String gunzip(byte[] body) throws IOException {
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private long counter(String name) {
    return stats.find(name).map(s -> ((Counter) s).value()).orElse(0L);
  }

  // ---- compressing ---------------------------------------------------------------------------

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

  // ---- several compressors -------------------------------------------------------------------

  @Test
  void ofSeveralCompressorsTheHighestQualityOneCompresses() throws IOException {
    List<CompressorFactory> chain = chain("gz", gzip(response()), "zs", zstd(false));
    RequestHeaders request = get("accept-encoding", "gzip;q=0.5, zstd");
    ResponseHeaders response = ok("content-type", "application/json");
    FakeStream stream = new FakeStream(alloc, null, request);
    CompressorFilter gz = new CompressorFilter(chain.get(0));
    CompressorFilter zs = new CompressorFilter(chain.get(1));
    for (CompressorFilter f : List.of(gz, zs)) {
      f.setDecoderFilterCallbacks(stream);
      f.setEncoderFilterCallbacks(stream);
      f.decodeHeaders(request, true);
    }
    // Encoder order is the reverse of the chain's: zstd sees the response first.
    zs.encodeHeaders(response, false);
    gz.encodeHeaders(response, false);
    assertThat(response.headers().get("content-encoding")).isEqualTo("zstd");
    ByteBuf in = part(TEXT);
    assertThat(zs.encodeData(in, true)).isEqualTo(FilterDataStatus.STOP_ITERATION_NO_BUFFER);
    ByteBuf compressed = stream.injected.remove(0);
    buffers.add(compressed);
    assertThat(gz.encodeData(compressed, true)).as("gzip passes it on").isEqualTo(FilterDataStatus.CONTINUE);
    byte[] body = ByteBufUtil.getBytes(compressed);
    compressed.release();
    gz.onDestroy();
    zs.onDestroy();
    try (InputStream z = new ZstdInputStream(new ByteArrayInputStream(body))) {
      assertThat(new String(z.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(TEXT);
    }
    assertThat(counter("http.ingress.compressor.lib.zstd.header_compressor_used")).isEqualTo(1);
    assertThat(counter("http.ingress.compressor.lib.gzip.header_compressor_overshadowed")).isEqualTo(1);
    assertThat(counter("http.ingress.compressor.lib.gzip.not_compressed")).isEqualTo(1);
  }

  @Test
  void aCompressorARouteTurnsOffTakesNoPartInTheChoice() {
    List<CompressorFactory> chain = chain("gz", gzip(response()), "zs", zstd(false));
    RouteEntry noZstd = route(Map.of(), Set.of("zs"));
    ResponseHeaders response = ok("content-type", "text/html");
    // Only gzip runs on this route: zstd, preferred by the client, is not a candidate.
    new Exchange(chain.get(0), noZstd, get("accept-encoding", "zstd, gzip;q=0.1")).headers(response, false)
        .data(TEXT, true).destroy();
    assertThat(response.headers().get("content-encoding")).isEqualTo("gzip");
  }

  @Test
  void zstdRoundTripsAStreamedBody() throws IOException {
    ResponseHeaders response = ok("content-type", "text/css");
    Exchange e = exchange(factory(zstd(false)), get("accept-encoding", "zstd"), response, TEXT, "tail", TEXT);
    assertThat(response.headers().get("content-encoding")).isEqualTo("zstd");
    try (InputStream z = new ZstdInputStream(new ByteArrayInputStream(e.body()))) {
      assertThat(new String(z.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(TEXT + "tail" + TEXT);
    }
    assertThat(counter("http.ingress.compressor.lib.zstd.compressed")).isEqualTo(1);
  }

  @Test
  void aHeapPartIsCompressedToo() throws IOException {
    // The codec's parts are usually direct; a heap one (or a composite) takes the copying path of zstd.
    Exchange e = new Exchange(factory(zstd(false)), null, get("accept-encoding", "zstd"))
        .headers(ok("content-type", "text/css"), false);
    ByteBuf heap = Unpooled.wrappedBuffer(TEXT.getBytes(StandardCharsets.UTF_8));
    buffers.add(heap);
    e.filter.encodeData(heap, true);
    e.takeInjected();
    e.destroy();
    try (InputStream z = new ZstdInputStream(new ByteArrayInputStream(e.body()))) {
      assertThat(new String(z.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(TEXT);
    }
  }

  // ---- brotli --------------------------------------------------------------------------------

  @Test
  void brotliStreamsEachPartDecodableAndEndsAheadOfTrailers() throws IOException {
    ResponseHeaders response = ok("content-type", "application/grpc-web", "content-length", "5000");
    Exchange e = new Exchange(factory(brotli()), null, get("accept-encoding", "br"))
        .headers(response, false);
    assertThat(response.headers().get("content-encoding")).isEqualTo("br");
    assertThat(response.headers().contains("content-length")).isFalse();
    e.data("first part;", false);
    BrotliCompressorTest.Decoded soFar = BrotliCompressorTest.decode(e.body());
    assertThat(soFar.text()).isEqualTo("first part;");
    assertThat(soFar.done()).isFalse();
    e.data(TEXT, false).trailers();
    BrotliCompressorTest.Decoded all = BrotliCompressorTest.decode(e.body());
    assertThat(all.done()).as("the trailers ended the encoded stream").isTrue();
    assertThat(all.text()).isEqualTo("first part;" + TEXT);
    assertThat(counter("http.ingress.compressor.lib.br.compressed")).isEqualTo(1);
    assertThat(counter("http.ingress.compressor.lib.br.total_uncompressed_bytes"))
        .isEqualTo("first part;".length() + TEXT.length());
    assertThat(counter("http.ingress.compressor.lib.br.total_compressed_bytes")).isEqualTo(e.body().length);
    e.destroy();
  }

  @Test
  void brotliEndsTheStreamOnTheLastPart() throws IOException {
    ResponseHeaders response = ok("content-type", "text/css");
    Exchange e = exchange(factory(brotli()), get("accept-encoding", "gzip;q=0.2, br"), response, TEXT, "tail");
    assertThat(response.headers().get("content-encoding")).isEqualTo("br");
    BrotliCompressorTest.Decoded d = BrotliCompressorTest.decode(e.body());
    assertThat(d.done()).isTrue();
    assertThat(d.text()).isEqualTo(TEXT + "tail");
  }

  @Test
  void aBrotliStreamThatEndsEarlyGivesBackItsEncoder() {
    Exchange e = new Exchange(factory(brotli()), null, get("accept-encoding", "br"))
        .headers(ok("content-type", "text/plain"), false);
    e.data(TEXT, false);
    e.destroy();
    e.destroy(); // idempotent: a second destroy of the native encoder would throw
  }

  @Test
  void theClientsPreferenceChoosesBetweenGzipAndBrotli() throws IOException {
    List<CompressorFactory> chain = chain("gz", gzip(response()), "br", brotli());
    for (String accept : List.of("gzip;q=1, br;q=0.5", "br;q=0.5, gzip", "br;q=0.5, gzip;q=0.9")) {
      ResponseHeaders response = ok("content-type", "text/html");
      new Exchange(chain.get(1), null, get("accept-encoding", accept)).headers(response, false).destroy();
      Exchange gz = new Exchange(chain.get(0), null, get("accept-encoding", accept)).headers(response, false)
          .data(TEXT, true);
      gz.destroy();
      assertThat(response.headers().get("content-encoding")).as(accept).isEqualTo("gzip");
      assertThat(gunzip(gz.body())).isEqualTo(TEXT);
    }
    ResponseHeaders response = ok("content-type", "text/html");
    Exchange br = new Exchange(chain.get(1), null, get("accept-encoding", "gzip;q=0.5, br"))
        .headers(response, false).data(TEXT, true);
    br.destroy();
    new Exchange(chain.get(0), null, get("accept-encoding", "gzip;q=0.5, br")).headers(response, false).destroy();
    assertThat(response.headers().get("content-encoding")).isEqualTo("br");
    assertThat(BrotliCompressorTest.decode(br.body()).text()).isEqualTo(TEXT);
    assertThat(counter("http.ingress.compressor.lib.br.header_compressor_overshadowed")).isEqualTo(3);
    assertThat(counter("http.ingress.compressor.lib.br.header_compressor_used")).isEqualTo(1);
  }
}
