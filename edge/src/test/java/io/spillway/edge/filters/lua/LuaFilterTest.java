package io.spillway.edge.filters.lua;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.LuaConfig;
import io.spillway.edge.config.RetryPolicy;
import io.spillway.edge.config.Route;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.FilterTrailersStatus;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.lua.LuaScript;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.StatsStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The Lua filter against real header maps and a fake stream: the header API, respond(), the
 * buffered body (read, replaced, content-length fixed), trailers, metadata and stream info,
 * errors (counted, the stream goes on as in Envoy), the instruction budget, the sandbox, per-route
 * scripts, route re-matching and handles kept past their call.
 */
class LuaFilterTest {
  private static final String NAME = "lua-entry";
  private final StatsStore stats = new StatsStore();
  private long now;

  private static LuaScript script(String source) throws Exception {
    return LuaScript.compile(source.getBytes(StandardCharsets.UTF_8), "test", 100_000);
  }

  private LuaFilterFactory factory(String source) throws Exception {
    return factory(new LuaConfig(Optional.of(script(source)), Map.of(), "", true));
  }

  private LuaFilterFactory factory(LuaConfig config) {
    return new LuaFilterFactory(NAME, config, stats.rootScope().scope("http").scope("ingress"), 1, () -> now);
  }

  private long counter(String name) {
    return stats.find(name).map(s -> ((Counter) s).value()).orElse(0L);
  }

  private static RouteEntry route(Map<String, String> metadata, Map<String, Object> filterConfigs) {
    Route route = new Route("the-route", new Route.Match(new Route.PathMatch.Prefix("/"), true, List.of(), List.of()),
        new Route.RouteAction(List.of(new Route.WeightedCluster("backend", 1)), Optional.empty(), Optional.empty(),
            Optional.empty(), false, Duration.ofSeconds(15), Optional.empty(), RetryPolicy.NONE),
        HeaderMutations.NONE, HeaderMutations.NONE, metadata, Set.of(), Map.of(), Route.RateLimits.NONE,
        Optional.empty());
    return new RouteEntry(route, "vh", List.of(), List.of(), RetryPolicy.NONE, new int[0], filterConfigs);
  }

  private static RequestHeaders get(String path, String... headers) {
    HttpHeaders h = new DefaultHttpHeaders();
    for (int i = 0; i < headers.length; i += 2) {
      h.add(headers[i], headers[i + 1]);
    }
    return new RequestHeaders("GET", "http", "example.com", path, h);
  }

  /** A filter on a fresh stream. */
  private record Stream(LuaFilter filter, LuaFakeStream callbacks) {}

  private Stream stream(LuaFilterFactory factory, RouteEntry route) {
    LuaFilter f = new LuaFilter(factory);
    LuaFakeStream s = new LuaFakeStream(route);
    f.setDecoderFilterCallbacks(s);
    f.setEncoderFilterCallbacks(s);
    return new Stream(f, s);
  }

  private Stream stream(LuaFilterFactory factory) {
    return stream(factory, route(Map.of(), Map.of()));
  }

  private static ByteBuf bytes(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
  }

  @Test
  void theHeaderApiReadsAddsReplacesRemovesAndIterates() throws Exception {
    LuaFilterFactory f = factory("""
        function envoy_on_request(h)
          local hs = h:headers()
          hs:add("x-seen-path", hs:get(":path"))
          hs:add("x-count", tostring(hs:getNumValues("x-multi")))
          hs:add("x-second", hs:getAtIndex("x-multi", 1))
          hs:add("x-joined", hs:get("x-multi"))
          hs:add("x-none", tostring(hs:get("x-absent")) .. tostring(hs:getAtIndex("x-multi", 9)))
          hs:replace("x-replaced", "new")
          hs:remove("x-gone")
          hs:replace(":path", "/rewritten")
          local names = {}
          for k, v in pairs(hs) do names[#names + 1] = k .. "=" .. v end
          hs:add("x-all", table.concat(names, ";"))
        end
        """);
    Stream s = stream(f);
    RequestHeaders req = get("/p?q=1", "x-multi", "a", "x-multi", "b", "X-Replaced", "old", "x-gone", "1");
    assertThat(s.filter().decodeHeaders(req, true)).isEqualTo(FilterHeadersStatus.CONTINUE);
    HttpHeaders h = req.headers();
    assertThat(h.get("x-seen-path")).isEqualTo("/p?q=1");
    assertThat(h.get("x-count")).isEqualTo("2");
    assertThat(h.get("x-second")).isEqualTo("b");
    assertThat(h.get("x-joined")).isEqualTo("a,b");
    assertThat(h.get("x-none")).isEqualTo("nilnil");
    assertThat(h.getAll("x-replaced")).containsExactly("new");
    assertThat(h.contains("x-gone")).isFalse();
    assertThat(req.pathAndQuery()).isEqualTo("/rewritten");
    assertThat(h.get("x-all")).startsWith(":method=GET;:scheme=http;:authority=example.com;:path=/rewritten;")
        .contains("x-multi=a;x-multi=b");
    assertThat(s.callbacks().routeRematches).as("clear_route_cache: the headers changed").isEqualTo(1);
    assertThat(counter("http.ingress.lua.executions")).isEqualTo(1);
    assertThat(counter("http.ingress.lua.errors")).isZero();
  }

  @Test
  void aResponseScriptSeesTheStatusAndChangesTheResponse() throws Exception {
    Stream s = stream(factory("""
        function envoy_on_response(h)
          h:headers():add("x-status-was", h:headers():get(":status"))
          h:headers():replace(":status", "203")
        end
        """));
    ResponseHeaders resp = new ResponseHeaders(200, new DefaultHttpHeaders());
    assertThat(s.filter().encodeHeaders(resp, false)).isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(s.filter().encodeData(bytes("streamed"), true)).as("no body() in the script: it streams")
        .isEqualTo(FilterDataStatus.CONTINUE);
    assertThat(resp.status()).isEqualTo(203);
    assertThat(resp.headers().get("x-status-was")).isEqualTo("200");
  }

  @Test
  void respondAnswersTheRequestAndNothingAfterItRuns() throws Exception {
    Stream s = stream(factory("""
        function envoy_on_request(h)
          pcall(function()
            h:respond({[":status"] = "403", ["x-why"] = {"a", "b"}}, "nope")
          end)
          h:headers():add("x-after", "ran")
        end
        """));
    RequestHeaders req = get("/secret");
    assertThat(s.filter().decodeHeaders(req, true)).isEqualTo(FilterHeadersStatus.STOP_ITERATION);
    assertThat(s.callbacks().reply.status()).isEqualTo(403);
    assertThat(s.callbacks().reply.headers().getAll("x-why")).containsExactly("a", "b");
    assertThat(s.callbacks().reply.headers().get("content-length")).isEqualTo("4");
    assertThat(s.callbacks().replyBody).isEqualTo("nope");
    assertThat(req.headers().contains("x-after")).as("the script stops at respond(), pcall or not").isFalse();
    assertThat(s.callbacks().info.responseCodeDetails()).isEqualTo("lua_response");
    assertThat(counter("http.ingress.lua.errors")).isZero();
  }

  @Test
  void theBodyIsBufferedReadAndReplacedWithItsContentLengthFixed() throws Exception {
    Stream s = stream(factory("""
        function envoy_on_request(h)
          local b = h:body()
          h:headers():add("x-len", tostring(b:length()))
          h:headers():add("x-head", b:getBytes(0, 5))
          b:setBytes("replaced!")
        end
        function envoy_on_response(h)
          local body = h:body()
          h:headers():add("x-resp", body:getBytes(0, body:length()))
        end
        """));
    RequestHeaders req = get("/upload", "content-length", "11");
    assertThat(s.filter().decodeHeaders(req, false)).isEqualTo(FilterHeadersStatus.STOP_ITERATION);
    assertThat(s.filter().decodeData(bytes("hello "), false)).isEqualTo(FilterDataStatus.STOP_ITERATION_NO_BUFFER);
    assertThat(req.headers().contains("x-len")).as("not called before the whole body is here").isFalse();
    assertThat(s.filter().decodeData(bytes("world"), true)).isEqualTo(FilterDataStatus.STOP_ITERATION_NO_BUFFER);
    assertThat(req.headers().get("x-len")).isEqualTo("11");
    assertThat(req.headers().get("x-head")).isEqualTo("hello");
    assertThat(req.headers().get("content-length")).isEqualTo("9");
    assertThat(LuaFakeStream.text(s.callbacks().injectedRequest)).isEqualTo("replaced!");

    ResponseHeaders resp = new ResponseHeaders(200, new DefaultHttpHeaders());
    assertThat(s.filter().encodeHeaders(resp, false)).isEqualTo(FilterHeadersStatus.STOP_ITERATION);
    s.filter().encodeData(bytes("from "), false);
    s.filter().encodeData(bytes("upstream"), true);
    assertThat(resp.headers().get("x-resp")).isEqualTo("from upstream");
    assertThat(LuaFakeStream.text(s.callbacks().injectedResponse)).isEqualTo("from upstream");
  }

  @Test
  void trailersAndBodyChunksOverTheBufferedRequest() throws Exception {
    Stream s = stream(factory("""
        function envoy_on_request(h)
          local n = 0
          for chunk in h:bodyChunks() do n = n + chunk:length() end
          h:headers():add("x-chunked", tostring(n))
          h:trailers():add("x-trailer-seen", h:trailers():get("grpc-status"))
        end
        """));
    RequestHeaders req = get("/t");
    s.filter().decodeHeaders(req, false);
    s.filter().decodeData(bytes("abc"), false);
    HttpHeaders trailers = new DefaultHttpHeaders().add("grpc-status", "0");
    assertThat(s.filter().decodeTrailers(trailers)).isEqualTo(FilterTrailersStatus.CONTINUE);
    assertThat(req.headers().get("x-chunked")).isEqualTo("3");
    assertThat(trailers.get("x-trailer-seen")).isEqualTo("0");
    assertThat(LuaFakeStream.text(s.callbacks().injectedRequest)).isEqualTo("abc");
  }

  @Test
  void aBodyOverTheBufferLimitGets413() throws Exception {
    Stream s = stream(factory("function envoy_on_request(h) h:body() end"));
    s.callbacks().bufferLimit = 4;
    s.filter().decodeHeaders(get("/big"), false);
    s.filter().decodeData(bytes("12345"), false);
    assertThat(s.callbacks().textReplyStatus).isEqualTo(413);
    assertThat(counter("http.ingress.downstream_rq_too_large")).isEqualTo(1);
    Stream declared = stream(factory("function envoy_on_request(h) h:body() end"));
    declared.callbacks().bufferLimit = 4;
    declared.filter().decodeHeaders(get("/big", "content-length", "5"), false);
    assertThat(declared.callbacks().textReplyStatus).isEqualTo(413);
  }

  @Test
  void aRuntimeErrorIsCountedAndTheRequestGoesOnAsTheScriptLeftIt() throws Exception {
    Stream s = stream(factory("""
        function envoy_on_request(h)
          h:headers():add("x-before", "1")
          local t = nil
          t.field = 1
        end
        """));
    RequestHeaders req = get("/e");
    assertThat(s.filter().decodeHeaders(req, true)).as("Envoy's Lua filter fails open")
        .isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(req.headers().get("x-before")).isEqualTo("1");
    assertThat(s.callbacks().reply).isNull();
    assertThat(counter("http.ingress.lua.errors")).isEqualTo(1);
    assertThat(counter("http.ingress.lua.executions")).isEqualTo(1);
  }

  @Test
  void theInstructionBudgetStopsAnEndlessLoop() throws Exception {
    Stream s = stream(factory("function envoy_on_request(h) while true do end end"));
    assertThat(s.filter().decodeHeaders(get("/loop"), true)).isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(counter("http.ingress.lua.errors")).isEqualTo(1);
    Stream again = stream(factory("""
        function envoy_on_request(h)
          while true do pcall(function() while true do end end) end
        end
        """));
    again.filter().decodeHeaders(get("/loop"), true);
    assertThat(counter("http.ingress.lua.errors")).as("pcall cannot swallow the budget").isEqualTo(2);
  }

  @Test
  void theSandboxHasNoIoOsExecuteOrLuajavaAndItsLoadersSayWhyTheyFail() throws Exception {
    Stream s = stream(factory("""
        function envoy_on_request(h)
          local hs = h:headers()
          hs:add("x-io", type(io))
          hs:add("x-os-execute", type(os.execute))
          hs:add("x-os-time", type(os.time))
          hs:add("x-require", type(require))
          hs:add("x-luajava", type(luajava))
          hs:add("x-debug", type(debug))
          hs:add("x-load", type(load) .. type(loadstring))
          local ok, why = pcall(require, "lib.mylibrary")
          hs:add("x-require-call", tostring(ok) .. ": " .. why)
          hs:add("x-string", string.upper("ok"))
          hs:add("x-meta", tostring(getmetatable(hs)))
        end
        """));
    RequestHeaders req = get("/s");
    s.filter().decodeHeaders(req, true);
    HttpHeaders h = req.headers();
    assertThat(h.get("x-io")).isEqualTo("nil");
    assertThat(h.get("x-os-execute")).isEqualTo("nil");
    assertThat(h.get("x-os-time")).isEqualTo("function");
    assertThat(h.get("x-require")).as("a function that refuses, with a reason").isEqualTo("function");
    assertThat(h.get("x-require-call")).isEqualTo("false: require is not available: the Lua filter's sandbox loads"
        + " no modules and no files; put what the script needs into its source");
    assertThat(h.get("x-luajava")).isEqualTo("nil");
    assertThat(h.get("x-debug")).isEqualTo("nil");
    assertThat(h.get("x-load")).isEqualTo("nilnil");
    assertThat(h.get("x-string")).isEqualTo("OK");
    assertThat(h.get("x-meta")).isEqualTo("locked");
  }

  @Test
  void aHeaderValueThatWouldSplitTheMessageIsAScriptError() throws Exception {
    Stream s = stream(factory("function envoy_on_request(h) h:headers():add('x-evil', 'a\\r\\nx-injected: 1') end"));
    RequestHeaders req = get("/i");
    s.filter().decodeHeaders(req, true);
    assertThat(req.headers().contains("x-evil")).isFalse();
    assertThat(counter("http.ingress.lua.errors")).isEqualTo(1);
  }

  @Test
  void httpCallFailsWithAMessageThatSaysWhy() throws Exception {
    Stream s = stream(factory("""
        function envoy_on_request(h)
          local ok, err = pcall(function() return h:httpCall("c", {}, "", 100) end)
          h:headers():add("x-err", err)
        end
        """));
    RequestHeaders req = get("/c");
    s.filter().decodeHeaders(req, true);
    assertThat(req.headers().get("x-err")).contains("httpCall() is not supported");
  }

  @Test
  void metadataStreamInfoAndConnectionOnPlaintext() throws Exception {
    Stream s = stream(factory("""
        function envoy_on_request(h)
          local hs = h:headers()
          hs:add("x-meta", h:metadata():get("greeting"))
          hs:add("x-proto", h:streamInfo():protocol())
          hs:add("x-route", h:streamInfo():routeName())
          hs:add("x-ssl", tostring(h:connection():ssl()))
        end
        """), route(Map.of(NAME + ".greeting", "hello", "other.greeting", "no"), Map.of()));
    RequestHeaders req = get("/m");
    s.filter().decodeHeaders(req, true);
    assertThat(req.headers().get("x-meta")).isEqualTo("hello");
    assertThat(req.headers().get("x-proto")).isEqualTo("HTTP/1.1");
    assertThat(req.headers().get("x-route")).isEqualTo("the-route");
    assertThat(req.headers().get("x-ssl")).isEqualTo("nil");
  }

  @Test
  void aRouteMayPickANamedScriptOrItsOwnAndFunctionsAbsentAreNotCalled() throws Exception {
    LuaFilterFactory f = factory(new LuaConfig(Optional.of(script("function envoy_on_request(h) h:headers():add('x', 'default') end")),
        Map.of("named", script("function envoy_on_request(h) h:headers():add('x', 'named') end")), "", false));
    Object named = LuaFilterFactory.routeConfig(new LuaConfig.PerRoute(Optional.of("named"), Optional.empty()), 1);
    Object own = LuaFilterFactory.routeConfig(new LuaConfig.PerRoute(Optional.empty(),
        Optional.of(script("function envoy_on_response(h) end"))), 1);
    Object missing = LuaFilterFactory.routeConfig(new LuaConfig.PerRoute(Optional.of("nope"), Optional.empty()), 1);
    RequestHeaders a = get("/a");
    stream(f).filter().decodeHeaders(a, true);
    RequestHeaders b = get("/b");
    stream(f, route(Map.of(), Map.of(NAME, named))).filter().decodeHeaders(b, true);
    RequestHeaders c = get("/c");
    stream(f, route(Map.of(), Map.of(NAME, own))).filter().decodeHeaders(c, true);
    RequestHeaders d = get("/d");
    stream(f, route(Map.of(), Map.of(NAME, missing))).filter().decodeHeaders(d, true);
    assertThat(a.headers().get("x")).isEqualTo("default");
    assertThat(b.headers().get("x")).isEqualTo("named");
    assertThat(c.headers().contains("x")).as("the route's script has no envoy_on_request").isFalse();
    assertThat(d.headers().contains("x")).as("no script of that name: nothing runs, as in Envoy").isFalse();
    assertThat(counter("http.ingress.lua.executions")).isEqualTo(2);
  }

  @Test
  void aHandleKeptInAGlobalFailsOnTheNextRequestInsteadOfReachingTheOldStream() throws Exception {
    LuaFilterFactory f = factory("""
        function envoy_on_request(h)
          if kept ~= nil then
            local ok = pcall(function() kept:headers():add("x-leak", "1") end)
            h:headers():add("x-old-handle-failed", tostring(not ok))
          end
          kept = h
        end
        """);
    RequestHeaders first = get("/1");
    stream(f).filter().decodeHeaders(first, true);
    RequestHeaders second = get("/2");
    stream(f).filter().decodeHeaders(second, true);
    assertThat(first.headers().contains("x-leak")).isFalse();
    assertThat(second.headers().get("x-old-handle-failed")).isEqualTo("true");
  }

  @Test
  void statPrefixAndClearRouteCacheOff() throws Exception {
    LuaFilterFactory f = factory(new LuaConfig(Optional.of(script(
        "function envoy_on_request(h) h:headers():add('x', '1') end")), Map.of(), "mine", false));
    Stream s = stream(f);
    s.filter().decodeHeaders(get("/"), true);
    assertThat(counter("http.ingress.lua.mine.executions")).isEqualTo(1);
    assertThat(s.callbacks().routeRematches).isZero();
  }
}
