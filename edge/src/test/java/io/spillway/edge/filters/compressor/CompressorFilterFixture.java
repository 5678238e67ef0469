package io.spillway.edge.filters.compressor;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
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
import org.junit.jupiter.api.AfterEach;
/**
 * What the compressor filter's tests share: the configurations, a chain of factories, fake stream
 * callbacks that record what the filter injects, decoding, and the check that every buffer was
 * given back.
 */
abstract class CompressorFilterFixture {

  static final String TEXT = "The quick brown fox jumps over the lazy dog. ".repeat(40);
  static final String PREFIX = "http.ingress.compressor.lib.gzip.";

  final StatsStore stats = new StatsStore();
  final ByteBufAllocator alloc = new UnpooledByteBufAllocator(true);
  final List<ByteBuf> buffers = new ArrayList<>();

  @AfterEach
  void everyBufferWasGivenBack() {
    for (ByteBuf b : buffers) {
      assertThat(b.refCnt()).as("a buffer the filter took or made").isZero();
    }
  }

  /** The runtime the factories read: an admin layer that tests may write. */
  final io.spillway.edge.runtime.Runtime runtime = new io.spillway.edge.runtime.Runtime(
      new io.spillway.edge.config.RuntimeConfig(List.of(new io.spillway.edge.config.RuntimeConfig.AdminLayer("admin"))),
      "", stats.rootScope().scope("runtime"));

  // ---- configs -------------------------------------------------------------------------------

  static CompressorConfig.Response response() {
    return new CompressorConfig.Response(RuntimeFlag.of(true), 30, Set.copyOf(CompressorConfig.DEFAULT_CONTENT_TYPES),
        false, false, Set.of(), false);
  }

  static CompressorConfig gzip(CompressorConfig.Response r) {
    return new CompressorConfig("lib", new CompressorConfig.Gzip(-1, CompressorConfig.GzipStrategy.DEFAULT, 5, 12,
        4096), r, false, Optional.empty());
  }

  static CompressorConfig brotli() {
    return new CompressorConfig("lib", new CompressorConfig.Brotli(3, CompressorConfig.BrotliMode.GENERIC, 18, 4096),
        response(), false, Optional.empty());
  }

  static CompressorConfig zstd(boolean chooseFirst) {
    return new CompressorConfig("lib", new CompressorConfig.Zstd(3, true, 0, 4096), response(), chooseFirst,
        Optional.empty());
  }

  /** The factories of a chain holding these compressor entries (name, config, name, config, ...). */
  List<CompressorFactory> chain(Object... namesAndConfigs) {
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

  CompressorFactory factory(CompressorConfig config) {
    return chain("envoy.filters.http.compressor", config).get(0);
  }

  static RouteEntry route(Map<String, Object> filterConfigs, Set<String> disabled) {
    Route route = new Route("r", new Route.Match(new Route.PathMatch.Prefix("/"), true, List.of(), List.of()),
        new Route.RouteAction(List.of(new Route.WeightedCluster("backend", 1)), Optional.empty(), Optional.empty(),
            Optional.empty(), false, Duration.ofSeconds(15), Optional.empty(), RetryPolicy.NONE),
        HeaderMutations.NONE, HeaderMutations.NONE, Map.of(), disabled, Map.of(), Route.RateLimits.NONE,
        Optional.empty());
    return new RouteEntry(route, "vh", List.of(), List.of(), RetryPolicy.NONE, new int[0], filterConfigs);
  }

  // ---- one exchange --------------------------------------------------------------------------

  static HttpHeaders headers(String... nameValues) {
    HttpHeaders h = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    for (int i = 0; i < nameValues.length; i += 2) {
      h.add(nameValues[i], nameValues[i + 1]);
    }
    return h;
  }

  static RequestHeaders get(String... nameValues) {
    return new RequestHeaders("GET", "http", "example.com", "/", headers(nameValues));
  }

  static ResponseHeaders ok(String... nameValues) {
    return new ResponseHeaders(200, headers(nameValues));
  }

  ByteBuf part(String text) {
    ByteBuf b = alloc.buffer().writeBytes(text.getBytes(StandardCharsets.UTF_8));
    buffers.add(b);
    return b;
  }

  /** What left the filter: each part (compressed or as it was), in order. */
  final class Exchange {
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

    void takeInjected() {
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

  Exchange exchange(CompressorFactory f, RequestHeaders request, ResponseHeaders response, String... parts) {
    Exchange e = new Exchange(f, null, request).headers(response, parts.length == 0);
    for (int i = 0; i < parts.length; i++) {
      e.data(parts[i], i == parts.length - 1);
    }
    e.destroy();
    return e;
  }

  static String gunzip(byte[] body) throws IOException {
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  long counter(String name) {
    return stats.find(name).map(s -> ((Counter) s).value()).orElse(0L);
  }

  // ---- compressing ---------------------------------------------------------------------------
}
