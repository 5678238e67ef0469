package io.spillway.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.HttpConnectionManagerConfig;
import io.spillway.edge.config.OverloadConfig;
import io.spillway.edge.config.RetryPolicy;
import io.spillway.edge.config.Route;
import io.spillway.edge.config.RouteConfig;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamFilter;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.overload.OverloadManager;
import io.spillway.edge.router.RouteTable;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.upstream.ConnectionShare;
import io.spillway.edge.upstream.Worker;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One stream through the connection manager with scripted filters and a recording downstream:
 * filter order both ways, stop and resume, local replies, per-route disabling, the end of a stream.
 * No sockets; the worker's loop is an {@link EmbeddedChannel}'s.
 */
class HttpStreamTest {

  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final List<String> calls = new ArrayList<>();
  private final RecordingDownstream downstream = new RecordingDownstream();
  private io.spillway.edge.accesslog.AccessLogs accessLogs = io.spillway.edge.accesslog.AccessLogs.NONE;

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  /** A stream filter whose answers are scripted per test; records its calls. */
  private final class Scripted implements StreamFilter {
    final String name;
    DecoderFilterCallbacks decoder;
    EncoderFilterCallbacks encoder;
    FilterHeadersStatus onRequestHeaders = FilterHeadersStatus.CONTINUE;
    FilterDataStatus onRequestData = FilterDataStatus.CONTINUE;
    FilterHeadersStatus onResponseHeaders = FilterHeadersStatus.CONTINUE;
    FilterDataStatus onResponseData = FilterDataStatus.CONTINUE;
    Consumer<Scripted> whenHeaders = f -> {};

    Scripted(String name) {
      this.name = name;
    }

    @Override
    public void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks) {
      decoder = callbacks;
    }

    @Override
    public void setEncoderFilterCallbacks(EncoderFilterCallbacks callbacks) {
      encoder = callbacks;
    }

    @Override
    public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
      calls.add(name + ":decodeHeaders");
      whenHeaders.accept(this);
      return onRequestHeaders;
    }

    @Override
    public FilterDataStatus decodeData(ByteBuf data, boolean endStream) {
      calls.add(name + ":decodeData:" + data.toString(StandardCharsets.US_ASCII));
      return onRequestData;
    }

    @Override
    public FilterHeadersStatus encodeHeaders(ResponseHeaders headers, boolean endStream) {
      calls.add(name + ":encodeHeaders:" + headers.status());
      headers.headers().add("x-seen-by", name);
      return onResponseHeaders;
    }

    @Override
    public FilterDataStatus encodeData(ByteBuf data, boolean endStream) {
      return onResponseData;
    }

    @Override
    public void onDestroy() {
      calls.add(name + ":destroy");
    }
  }

  /** The terminal filter: answers 200 with the request body it got, once the request is complete. */
  private class Responder implements io.spillway.edge.http.filter.DecoderFilter {
    DecoderFilterCallbacks callbacks;
    final StringBuilder body = new StringBuilder();

    @Override
    public void setDecoderFilterCallbacks(DecoderFilterCallbacks c) {
      callbacks = c;
    }

    @Override
    public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
      calls.add("responder:decodeHeaders");
      if (endStream) {
        respond();
      }
      return FilterHeadersStatus.STOP_ITERATION;
    }

    @Override
    public FilterDataStatus decodeData(ByteBuf data, boolean endStream) {
      body.append(data.toString(StandardCharsets.US_ASCII));
      data.release();
      if (endStream) {
        respond();
      }
      return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
    }

    private void respond() {
      HttpHeaders h = DefaultHttpHeadersFactory.headersFactory().newHeaders();
      callbacks.encodeHeaders(new ResponseHeaders(200, h), false);
      callbacks.encodeData(Unpooled.copiedBuffer("echo:" + body, StandardCharsets.US_ASCII), true);
    }

    @Override
    public void onDestroy() {
      calls.add("responder:destroy");
    }
  }

  private static HttpFilterFactory factory(String name, Runnable add, FilterChainBuilderHolder holder) {
    return new HttpFilterFactory() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public void createFilters(FilterChainBuilder chain) {
        holder.chain = chain;
        add.run();
      }
    };
  }

  private static final class FilterChainBuilderHolder {
    FilterChainBuilder chain;
  }

  private HttpStream stream(Set<String> disabledOnRoute, Object... filters) {
    return stream(disabledOnRoute, Map.of(), new Route.DirectResponse(200, Optional.empty()), filters);
  }

  private HcmStats hcmStats;
  private HttpConnectionManagerConfig.PathNormalization pathNormalization =
      HttpConnectionManagerConfig.PathNormalization.ENVOY_DEFAULTS;
  private HttpConnectionManagerConfig.HeadersWithUnderscoresAction underscores =
      HttpConnectionManagerConfig.HeadersWithUnderscoresAction.ALLOW;

  private HttpStream stream(Set<String> disabledOnRoute, Map<String, Boolean> upgradeConfigs, Route.Action action,
      Object... filters) {
    FilterChainBuilderHolder holder = new FilterChainBuilderHolder();
    List<HttpFilterFactory> factories = new ArrayList<>();
    for (Object f : filters) {
      String name = f instanceof Scripted s ? s.name : "responder";
      factories.add(factory(name, () -> {
        if (f instanceof Scripted s) {
          holder.chain.addStreamFilter(s);
        } else {
          holder.chain.addDecoderFilter((io.spillway.edge.http.filter.DecoderFilter) f);
        }
      }, holder));
    }
    Route route = new Route("all", new Route.Match(new Route.PathMatch.Prefix("/"), true, List.of(), List.of()),
        action, HeaderMutations.NONE, HeaderMutations.NONE, Map.of(), disabledOnRoute);
    RouteConfig routes = new RouteConfig("test", List.of(new RouteConfig.VirtualHost("any", List.of("*"),
        List.of(route), HeaderMutations.NONE, HeaderMutations.NONE, RetryPolicy.NONE)), HeaderMutations.NONE,
        HeaderMutations.NONE);
    HttpConnectionManagerConfig d = HttpConnectionManagerConfig.defaults("test",
        HttpConnectionManagerConfig.CodecType.AUTO, routes);
    HttpConnectionManagerConfig config = new HttpConnectionManagerConfig(d.statPrefix(), d.codecType(), routes,
        d.idleTimeout(), d.streamIdleTimeout(), d.requestTimeout(), d.requestHeadersTimeout(),
        d.maxConnectionDuration(), d.drainTimeout(), d.maxRequestHeadersBytes(), d.maxRequestHeadersCount(),
        d.useRemoteAddress(), d.xffNumTrustedHops(), d.generateRequestId(), d.preserveExternalRequestId(),
        d.appendLocalOverload(), d.serverName(), d.httpFilters(), d.rdsRouteConfigName(), d.http1(), d.http2(),
        d.accessLogs(), upgradeConfigs, pathNormalization, underscores);
    StatsStore stats = new StatsStore();
    OverloadManager overload = OverloadManager.builder(OverloadConfig.disabled()).stats(stats.rootScope()).nanoClock(() -> 0L)
        .monitors(m -> callbacks -> {}).build();
    hcmStats = new HcmStats(stats.rootScope().scope("http.test"), new Http1CodecStats(stats.rootScope().scope("http1")),
        new io.spillway.edge.http2.Http2CodecStats(stats.rootScope().scope("http2")));
    HttpConnectionManager hcm = new HttpConnectionManager(config, hcmStats,
        RouteTable.compile(routes), new DrainSignal(), false, 16, OverloadHooks.of(overload), factories, accessLogs,
        () -> io.spillway.edge.runtime.RuntimeSnapshot.EMPTY);
    return new HttpStream(hcm, downstream);
  }

  private static RequestHeaders get(String path) {
    return new RequestHeaders("GET", "http", "example.com", path, DefaultHttpHeadersFactory.headersFactory().newHeaders());
  }

  private static ByteBuf text(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
  }

  @Test
  void everyFinishedStreamWritesOneAccessLogLine() throws Exception {
    List<String> lines = new ArrayList<>();
    accessLogs = new io.spillway.edge.accesslog.AccessLogs(List.of(new io.spillway.edge.accesslog.AccessLogger(
        io.spillway.edge.accesslog.LogFilter.ALL, io.spillway.edge.accesslog.LogFormatter.compile(
            io.spillway.edge.config.AccessLogConfig.textFormat("%REQ(:METHOD)% %REQ(:PATH)% %RESPONSE_CODE% "
                + "%BYTES_RECEIVED% %BYTES_SENT% %RESPONSE_FLAGS% %ROUTE_NAME% %RESPONSE_CODE_DETAILS%", false)),
        lines::add)));
    HttpStream s = stream(Set.of(), new Responder());
    s.onRequestHeaders(get("/x"), false);
    assertThat(lines).isEmpty();
    s.onRequestData(text("abc"), true);
    assertThat(lines).containsExactly("GET /x 200 3 8 - all via_upstream"); // "echo:abc"

    Scripted deny = new Scripted("deny");
    deny.whenHeaders = f -> f.decoder.sendLocalReply(403, "access denied", ResponseFlag.UAEX);
    deny.onRequestHeaders = FilterHeadersStatus.STOP_ITERATION;
    stream(Set.of(), deny, new Responder()).onRequestHeaders(get("/y"), true);
    assertThat(lines).last().isEqualTo("GET /y 403 0 13 UAEX all access_denied");

    HttpStream reset = stream(Set.of(), new Scripted("wait"), new Scripted("hold"));
    reset.onRequestHeaders(get("/z"), false);
    reset.onDownstreamReset();
    assertThat(lines).hasSize(3).last().isEqualTo("GET /z 0 0 0 DC all -");
  }

  @Test
  void decoderFiltersRunInOrderAndEncoderFiltersInReverse() {
    Scripted a = new Scripted("a");
    Scripted b = new Scripted("b");
    HttpStream s = stream(Set.of(), a, b, new Responder());
    s.onRequestHeaders(get("/"), true);
    assertThat(calls).containsExactly("a:decodeHeaders", "b:decodeHeaders", "responder:decodeHeaders",
        "b:encodeHeaders:200", "a:encodeHeaders:200", "a:destroy", "b:destroy", "responder:destroy");
    assertThat(downstream.status).isEqualTo(200);
    assertThat(downstream.headers.getAll("x-seen-by")).containsExactly("b", "a");
    assertThat(downstream.body.toString()).isEqualTo("echo:");
    assertThat(downstream.finished).isTrue();
  }

  @Test
  void aLocalReplyFromADecoderFilterSkipsTheRestAndEveryEncoderFilterSeesIt() {
    Scripted a = new Scripted("a");
    Scripted b = new Scripted("b");
    b.whenHeaders = f -> f.decoder.sendLocalReply(403, "no", ResponseFlag.UAEX);
    b.onRequestHeaders = FilterHeadersStatus.STOP_ITERATION;
    Scripted c = new Scripted("c");
    HttpStream s = stream(Set.of(), a, b, c, new Responder());
    s.onRequestHeaders(get("/"), false);
    s.onRequestData(text("late"), true);
    assertThat(calls).containsExactly("a:decodeHeaders", "b:decodeHeaders",
        "c:encodeHeaders:403", "b:encodeHeaders:403", "a:encodeHeaders:403",
        "a:destroy", "b:destroy", "c:destroy", "responder:destroy");
    assertThat(downstream.status).isEqualTo(403);
    assertThat(downstream.body.toString()).isEqualTo("no");
    assertThat(downstream.headers.get("content-type")).isEqualTo("text/plain");
  }

  @Test
  void aFilterThatStopsResumesTheChainLaterWithTheBufferedBody() {
    Scripted a = new Scripted("a");
    a.onRequestHeaders = FilterHeadersStatus.STOP_ITERATION;
    a.onRequestData = FilterDataStatus.STOP_ITERATION_AND_BUFFER;
    Responder responder = new Responder();
    HttpStream s = stream(Set.of(), a, responder);
    s.onRequestHeaders(get("/"), false);
    s.onRequestData(text("he"), false);
    s.onRequestData(text("llo"), true);
    assertThat(calls).containsExactly("a:decodeHeaders", "a:decodeData:he", "a:decodeData:llo");
    assertThat(s.heldRequestBytes()).isEqualTo(5);
    assertThat(downstream.status).isZero();

    a.onRequestData = FilterDataStatus.CONTINUE;
    a.decoder.continueDecoding();
    assertThat(downstream.status).isEqualTo(200);
    assertThat(downstream.body.toString()).isEqualTo("echo:hello");
  }

  @Test
  void anEncoderFilterHoldsTheResponseUntilItContinues() {
    Scripted a = new Scripted("a");
    a.onResponseHeaders = FilterHeadersStatus.STOP_ITERATION;
    a.onResponseData = FilterDataStatus.STOP_ITERATION_AND_BUFFER;
    HttpStream s = stream(Set.of(), a, new Responder());
    s.onRequestHeaders(get("/"), true);
    assertThat(downstream.status).isZero();
    assertThat(downstream.finished).isFalse();
    a.onResponseData = FilterDataStatus.CONTINUE;
    a.encoder.continueEncoding();
    assertThat(downstream.status).isEqualTo(200);
    assertThat(downstream.body.toString()).isEqualTo("echo:");
    assertThat(downstream.finished).isTrue();
  }

  @Test
  void aRouteThatDisablesAFilterLeavesItOutOfTheChain() {
    Scripted a = new Scripted("a");
    Scripted b = new Scripted("b");
    HttpStream s = stream(Set.of("a"), a, b, new Responder());
    s.onRequestHeaders(get("/"), true);
    assertThat(calls).noneMatch(c -> c.startsWith("a:"));
    assertThat(calls).contains("b:decodeHeaders", "b:encodeHeaders:200");
  }

  @Test
  void bufferingPastTheLimitAnswers413() {
    Scripted a = new Scripted("a");
    a.onRequestHeaders = FilterHeadersStatus.STOP_ITERATION;
    a.onRequestData = FilterDataStatus.STOP_ITERATION_AND_BUFFER;
    HttpStream s = stream(Set.of(), a, new Responder());
    s.onRequestHeaders(get("/"), false);
    s.onRequestData(text("0123456789"), false);
    s.onRequestData(text("0123456789"), false); // 20 bytes against the limit of 16
    assertThat(downstream.status).isEqualTo(413);
    assertThat(downstream.headers.get("connection")).isEqualTo("close");
    assertThat(s.heldRequestBytes()).isZero();
  }

  @Test
  void watermarkBufferingPausesTheClientAndResumesIt() {
    Scripted a = new Scripted("a");
    a.onRequestHeaders = FilterHeadersStatus.STOP_ITERATION;
    a.onRequestData = FilterDataStatus.STOP_ITERATION_AND_WATERMARK;
    HttpStream s = stream(Set.of(), a, new Responder());
    s.onRequestHeaders(get("/"), false);
    s.onRequestData(text("0123456789"), false);
    s.onRequestData(text("0123456789"), false);
    assertThat(downstream.pauses).containsExactly(true);
    a.onRequestData = FilterDataStatus.CONTINUE;
    a.decoder.continueDecoding();
    assertThat(downstream.pauses).containsExactly(true, false);
    s.onRequestData(text("!"), true);
    assertThat(downstream.body.toString()).isEqualTo("echo:01234567890123456789!");
  }

  @Test
  void aClientResetDestroysEveryFilterOnceAndSendsNothing() {
    Scripted a = new Scripted("a");
    a.onRequestHeaders = FilterHeadersStatus.STOP_ITERATION;
    HttpStream s = stream(Set.of(), a, new Responder());
    s.onRequestHeaders(get("/"), false);
    s.onDownstreamReset();
    s.onDownstreamReset();
    assertThat(calls).containsExactly("a:decodeHeaders", "a:destroy", "responder:destroy");
    assertThat(downstream.status).isZero();
    assertThat(downstream.finished).isTrue();
  }

  @Test
  void aLocalReplyAfterTheResponseStartedResetsTheStream() {
    Scripted a = new Scripted("a");
    Responder responder = new Responder() {
      @Override
      public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
        callbacks.encodeHeaders(new ResponseHeaders(200, DefaultHttpHeadersFactory.headersFactory().newHeaders()), false);
        callbacks.sendLocalReply(504, "too late", ResponseFlag.UT);
        return FilterHeadersStatus.STOP_ITERATION;
      }
    };
    HttpStream s = stream(Set.of(), a, responder);
    s.onRequestHeaders(get("/"), true);
    assertThat(downstream.status).isEqualTo(200);
    assertThat(downstream.resets).isEqualTo(1);
    assertThat(downstream.finished).isTrue();
  }

  /** A filter that records the path and the header names it is given. */
  private Scripted recorder() {
    Scripted seen = new Scripted("seen");
    seen.whenHeaders = f -> {
      calls.add("path=" + f.decoder.requestHeaders().pathAndQuery());
      calls.add("names=" + new java.util.TreeSet<>(f.decoder.requestHeaders().headers().names()));
    };
    return seen;
  }

  @Test
  void theRouteAndEveryFilterSeeTheNormalizedPath() {
    pathNormalization = new HttpConnectionManagerConfig.PathNormalization(Optional.of(true), true,
        HttpConnectionManagerConfig.EscapedSlashesAction.UNESCAPE_AND_FORWARD);
    HttpStream s = stream(Set.of(), recorder(), new Responder());
    s.onRequestHeaders(get("/a/./b/..//c%2Fd%7E?q=/../%2F"), true);
    assertThat(calls).contains("path=/a/c/d~?q=/../%2F");
    assertThat(downstream.status).isEqualTo(200);
  }

  @Test
  void aPathThatCannotBeNormalizedGets400AndTheConnectionCloses() {
    pathNormalization = new HttpConnectionManagerConfig.PathNormalization(Optional.of(true), false,
        HttpConnectionManagerConfig.EscapedSlashesAction.KEEP_UNCHANGED);
    HttpStream s = stream(Set.of(), recorder(), new Responder());
    s.onRequestHeaders(get("/a/%00"), true);
    assertThat(downstream.status).isEqualTo(400);
    assertThat(downstream.headers.get("connection")).isEqualTo("close");
    assertThat(downstream.body.toString()).isEmpty();
    assertThat(s.streamInfo().responseCodeDetails()).isEqualTo("path_normalization_failed");
    assertThat(calls).noneMatch(c -> c.startsWith("path="));
    assertThat(hcmStats.downstreamRqFailedPathNormalization.value()).isEqualTo(1);
  }

  @Test
  void escapedSlashesAreRejectedOrRedirectedButAGrpcCallCannotBeRedirected() {
    pathNormalization = new HttpConnectionManagerConfig.PathNormalization(Optional.empty(), false,
        HttpConnectionManagerConfig.EscapedSlashesAction.UNESCAPE_AND_REDIRECT);
    HttpStream s = stream(Set.of(), recorder(), new Responder());
    s.onRequestHeaders(get("/a%2Fb?x=%2F"), true);
    assertThat(downstream.status).isEqualTo(307);
    assertThat(downstream.headers.get("location")).isEqualTo("/a/b?x=%2F");
    assertThat(downstream.headers.get("connection")).isNull();
    assertThat(hcmStats.downstreamRqRedirectedWithNormalizedPath.value()).isEqualTo(1);

    RequestHeaders grpc = get("/pkg.Svc%2FMethod");
    grpc.headers().set("content-type", "application/grpc+proto");
    stream(Set.of(), recorder(), new Responder()).onRequestHeaders(grpc, true);
    // The 400 reaches a gRPC client as Envoy sends it: trailers-only, 400 mapped to INTERNAL.
    assertThat(downstream.status).isEqualTo(200);
    assertThat(downstream.headers.get("grpc-status")).isEqualTo("13");
    assertThat(downstream.headers.get("content-type")).isEqualTo("application/grpc");
    assertThat(hcmStats.downstreamRqFailedPathNormalization.value()).isEqualTo(1);
    assertThat(calls).noneMatch(c -> c.startsWith("path="));
  }

  @Test
  void dropHeaderRemovesUnderscoredNamesBeforeAnyFilterAndCountsEachField() {
    underscores = HttpConnectionManagerConfig.HeadersWithUnderscoresAction.DROP_HEADER;
    HttpStream s = stream(Set.of(), recorder(), new Responder());
    RequestHeaders h = get("/");
    h.headers().add("x_foo", "1").add("X_Foo", "2").add("x-bar", "3").add("_", "4");
    s.onRequestHeaders(h, true);
    assertThat(calls).contains("names=[x-bar, x-forwarded-proto, x-request-id]");
    assertThat(downstream.status).isEqualTo(200);
    assertThat(hcmStats.http1.droppedHeadersWithUnderscores.value()).isEqualTo(3);
  }

  @Test
  void rejectRequestRefusesUnderscoredNamesWith400OnHttp1AndAResetOnHttp2() {
    underscores = HttpConnectionManagerConfig.HeadersWithUnderscoresAction.REJECT_REQUEST;
    RequestHeaders clean = get("/");
    clean.headers().add("x-foo", "1");
    stream(Set.of(), recorder(), new Responder()).onRequestHeaders(clean, true);
    assertThat(downstream.status).isEqualTo(200);
    downstream.body.setLength(0);

    RequestHeaders h = get("/");
    h.headers().add("x_foo", "1");
    HttpStream s = stream(Set.of(), recorder(), new Responder());
    s.onRequestHeaders(h, true);
    assertThat(downstream.status).isEqualTo(400);
    assertThat(downstream.body.toString()).isEqualTo("Bad Request");
    assertThat(downstream.headers.get("connection")).isEqualTo("close");
    assertThat(s.streamInfo().responseCodeDetails()).isEqualTo("http1.unexpected_underscore");
    assertThat(hcmStats.http1.requestsRejectedWithUnderscoresInHeaders.value()).isEqualTo(1);
    assertThat(hcmStats.downstreamCxProtocolError.value()).isEqualTo(1);

    downstream.http2 = true;
    downstream.status = 0;
    RequestHeaders h2 = get("/");
    h2.headers().add("x_foo", "1");
    HttpStream s2 = stream(Set.of(), recorder(), new Responder());
    s2.onRequestHeaders(h2, true);
    assertThat(downstream.status).isZero();
    assertThat(downstream.resets).isEqualTo(1);
    assertThat(s2.streamInfo().responseCodeDetails()).isEqualTo("http2.unexpected_underscore");
    assertThat(hcmStats.http2.requestsRejectedWithUnderscoresInHeaders.value()).isEqualTo(1);
    assertThat(calls.stream().filter(c -> c.startsWith("path="))).hasSize(1); // only the clean request's
  }

  private static RequestHeaders upgrade(String path) {
    RequestHeaders h = get(path);
    h.headers().set("connection", "upgrade").set("upgrade", "websocket");
    return h;
  }

  private static Route.RouteAction forward(Map<String, Boolean> upgradeConfigs) {
    return new Route.RouteAction(List.of(new Route.WeightedCluster("c", 1)), Optional.empty(), Optional.empty(),
        Optional.empty(), false, java.time.Duration.ofSeconds(15), Optional.empty(), RetryPolicy.NONE,
        upgradeConfigs, List.of());
  }

  /** Answers an upgrade with 101, then relays body parts both ways until the client's end ends the response. */
  private final class Switcher implements io.spillway.edge.http.filter.DecoderFilter {
    DecoderFilterCallbacks callbacks;

    @Override
    public void setDecoderFilterCallbacks(DecoderFilterCallbacks c) {
      callbacks = c;
    }

    @Override
    public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
      calls.add("switcher:" + headers.headers().get("upgrade") + " end=" + endStream);
      HttpHeaders h = DefaultHttpHeadersFactory.headersFactory().newHeaders();
      h.set("upgrade", "websocket").set("connection", "upgrade");
      callbacks.encodeHeaders(new ResponseHeaders(101, h), false);
      return FilterHeadersStatus.STOP_ITERATION;
    }

    @Override
    public FilterDataStatus decodeData(ByteBuf data, boolean endStream) {
      callbacks.encodeData(data, endStream);
      return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
    }
  }

  @Test
  void anUpgradeWhereTheRouteTurnsItOffGets403UpgradeFailedBeforeAnyFilter() {
    HttpStream stream = stream(Set.of(), Map.of("websocket", true), forward(Map.of("websocket", false)),
        new Switcher());

    stream.onRequestHeaders(upgrade("/ws"), false);

    assertThat(downstream.status).isEqualTo(403);
    assertThat(downstream.body.toString()).isEmpty();
    assertThat(calls).isEmpty();
    assertThat(stream.streamInfo().responseCodeDetails()).isEqualTo("upgrade_failed");
    assertThat(hcmStats.downstreamRqWsOnNonWsRoute.value()).isEqualTo(1);
    assertThat(downstream.finished).isTrue();
  }

  @Test
  void anUpgradeNeitherTheRouteNorTheConnectionManagerEnablesIsRefusedAndOneTheRouteEnablesGoesThrough() {
    stream(Set.of(), Map.of(), forward(Map.of()), new Switcher()).onRequestHeaders(upgrade("/ws"), false);
    assertThat(downstream.status).isEqualTo(403);

    HttpStream enabled = stream(Set.of(), Map.of(), forward(Map.of("websocket", true)), new Switcher());
    enabled.onRequestHeaders(upgrade("/ws"), false);
    assertThat(downstream.status).isEqualTo(101);
    assertThat(calls).containsExactly("switcher:websocket end=false");
  }

  @Test
  void aSwitchedStreamCountsAsAnActiveUpgradeUntilItEnds() {
    HttpStream stream = stream(Set.of(), Map.of("websocket", true), forward(Map.of()), new Switcher());

    stream.onRequestHeaders(upgrade("/ws"), false);
    assertThat(downstream.status).isEqualTo(101);
    assertThat(downstream.headers.get("upgrade")).isEqualTo("websocket");
    assertThat(hcmStats.downstreamCxUpgradesTotal.value()).isEqualTo(1);
    assertThat(hcmStats.downstreamCxUpgradesActive.value()).isEqualTo(1);

    stream.onRequestData(text("frame"), false);
    stream.onRequestData(text("last"), true);
    assertThat(downstream.body.toString()).isEqualTo("framelast");
    assertThat(downstream.finished).isTrue();
    assertThat(hcmStats.downstreamCxUpgradesActive.value()).isZero();
    assertThat(stream.streamInfo().bytesReceived()).isEqualTo(9);
    assertThat(stream.streamInfo().bytesSent()).isEqualTo(9);
  }

  /** Records what the stream sends to the client. */
  private final class RecordingDownstream implements Downstream {
    int status;
    HttpHeaders headers;
    final StringBuilder body = new StringBuilder();
    final List<Boolean> pauses = new ArrayList<>();
    int resets;
    boolean finished;
    private final ConnectionShare share = new ConnectionShare();
    private final Worker worker = new Worker(0, channel.eventLoop(), new SplittableRandom(1), () -> null,
        ByteBufAllocator.DEFAULT);

    @Override
    public Worker worker() {
      return worker;
    }

    boolean http2;

    @Override
    public boolean isHttp2() {
      return http2;
    }

    @Override
    public ConnectionShare connectionShare() {
      return share;
    }

    @Override
    public String remoteAddress() {
      return "127.0.0.1";
    }

    @Override
    public void sendHeaders(ResponseHeaders response, boolean endStream) {
      status = response.status();
      headers = response.headers();
    }

    @Override
    public void send100Continue() {}

    @Override
    public void sendData(ByteBuf data, boolean endStream) {
      body.append(data.toString(StandardCharsets.US_ASCII));
      data.release();
    }

    @Override
    public void sendTrailers(HttpHeaders trailers) {}

    @Override
    public void flush() {}

    @Override
    public boolean isWritable() {
      return true;
    }

    @Override
    public void pauseReading(boolean paused) {
      pauses.add(paused);
    }

    @Override
    public void disableKeepAlive() {}

    @Override
    public void resetStream() {
      resets++;
    }

    @Override
    public void armTimer(long deadlineNanos) {}

    @Override
    public void requestFinished(HttpStream stream, boolean requestBodyComplete) {
      finished = true;
    }
  }
}
