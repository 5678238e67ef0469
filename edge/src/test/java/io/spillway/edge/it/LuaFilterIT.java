package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.H2cClient;
import io.spillway.testkit.HeaderField;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RecordedRequest;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.lua in a real edge from an Envoy bootstrap, with a real origin on 127.0.0.1,
 * over HTTP/1.1 and h2c: a request header the origin sees, a response header the client sees, a
 * respond() that never reaches the origin, a route that turns the filter off, a route with its own
 * script, a request body the script rewrites, and Envoy's stats.
 */
class LuaFilterIT {
  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.lua.v3.Lua";
  private static final String PER_ROUTE = "type.googleapis.com/envoy.extensions.filters.http.lua.v3.LuaPerRoute";

  private OriginServer upstream;
  private EdgeHarness edge;

  @BeforeEach
  void start() throws Exception {
    upstream = OriginServer.start("upstream");
    edge = EdgeHarness.startWithFilter("""
        - match: { prefix: "/plain" }
          route: { cluster: upstream, timeout: 10s }
          typed_per_filter_config:
            envoy.filters.http.lua:
              "@type": %s
              disabled: true
        - match: { prefix: "/own" }
          route: { cluster: upstream, timeout: 10s }
          typed_per_filter_config:
            envoy.filters.http.lua:
              "@type": %s
              source_code:
                inline_string: |
                  function envoy_on_request(h) h:headers():add("x-own-script", "yes") end
        - match: { prefix: "/" }
          route: { cluster: upstream, timeout: 10s }
        """.formatted(PER_ROUTE, PER_ROUTE), cluster("upstream", "", upstream.port()), "envoy.filters.http.lua", TYPE,
        """
        default_source_code:
          inline_string: |
            function envoy_on_request(h)
              local headers = h:headers()
              if headers:get(":path") == "/deny" then
                h:respond({[":status"] = "403", ["x-denied-by"] = "lua"}, "denied by lua")
              end
              headers:add("x-lua-request", h:streamInfo():protocol())
              if headers:get(":method") == "POST" then
                local body = h:body()
                body:setBytes(string.upper(body:getBytes(0, body:length())))
              end
            end
            function envoy_on_response(h)
              h:headers():add("x-lua-response", "seen " .. h:headers():get(":status"))
            end
        """);
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    upstream.close();
  }

  @Test
  void overHttp11TheOriginSeesTheRequestHeaderAndTheClientTheResponseHeader() throws Exception {
    HttpResponse<String> r = edge.get("/hello");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("x-lua-response")).contains("seen 200");
    assertThat(upstream.lastRequest().header("x-lua-request")).isEqualTo("HTTP/1.1");
    assertThat(edge.awaitStat("http.ingress.lua.executions", 2)).isEqualTo(2);
    assertThat(edge.stat("http.ingress.lua.errors")).isZero();
  }

  @Test
  void respondShortCircuitsAndNeverReachesTheOrigin() throws Exception {
    HttpResponse<String> r = edge.get("/deny");
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(r.body()).isEqualTo("denied by lua");
    assertThat(r.headers().firstValue("x-denied-by")).contains("lua");
    assertThat(upstream.requestCount()).isZero();
  }

  @Test
  void aRouteTurnsTheFilterOffOrRunsItsOwnScript() throws Exception {
    HttpResponse<String> plain = edge.get("/plain");
    assertThat(plain.statusCode()).isEqualTo(200);
    assertThat(plain.headers().firstValue("x-lua-response")).isEmpty();
    assertThat(upstream.lastRequest().header("x-lua-request")).isNull();
    HttpResponse<String> own = edge.get("/own");
    assertThat(own.statusCode()).isEqualTo(200);
    RecordedRequest seen = upstream.lastRequest();
    assertThat(seen.header("x-own-script")).isEqualTo("yes");
    assertThat(seen.header("x-lua-request")).as("the route's script replaces the default").isNull();
  }

  @Test
  void aRequestBodyTheScriptReadsIsBufferedAndSentAsTheScriptLeftIt() throws Exception {
    HttpRequest post = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.port() + "/echo"))
        .timeout(Duration.ofSeconds(20)).POST(HttpRequest.BodyPublishers.ofString("make me loud")).build();
    HttpResponse<String> r = edge.http.send(post, HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    RecordedRequest seen = upstream.lastRequest();
    assertThat(seen.body()).isEqualTo("MAKE ME LOUD");
    assertThat(seen.header("content-length")).isEqualTo("12");
  }

  @Test
  void overH2cTheSameScriptRunsAndRespondWorks() throws Exception {
    try (H2cClient client = H2cClient.connect(edge.port())) {
      H2cClient.Response r = H2cClient.await(client.send("GET", "/h2", List.of(), new byte[0]));
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.header("x-lua-response")).isEqualTo("seen 200");
      assertThat(upstream.lastRequest().header("x-lua-request")).isEqualTo("HTTP/2");

      H2cClient.Response denied = H2cClient.await(client.send("GET", "/deny", List.of(), new byte[0]));
      assertThat(denied.status()).isEqualTo(403);
      assertThat(denied.bodyText()).isEqualTo("denied by lua");
      assertThat(denied.header("x-denied-by")).isEqualTo("lua");

      H2cClient.Response plain = H2cClient.await(client.send("GET", "/plain", List.of(
          new HeaderField("x-test", "1")), new byte[0]));
      assertThat(plain.status()).isEqualTo(200);
      assertThat(plain.header("x-lua-response")).isNull();
    }
    assertThat(upstream.requestCount()).isEqualTo(2);
  }

  @Test
  void twoLuaFiltersUnderNamesOfTheirOwnBothRunAndARouteTurnsOneOffByItsName() throws Exception {
    edge.close();
    String filter = """
        - name: %s
          typed_config:
            "@type": %s
            default_source_code:
              inline_string: |
                function envoy_on_request(h) h:headers():add("x-%s", "ran") end
        """;
    edge = EdgeHarness.start(EdgeHarness.withHttpFilterBeforeRouter(EdgeHarness.bootstrap("""
        - match: { prefix: "/second-off" }
          route: { cluster: upstream, timeout: 10s }
          typed_per_filter_config:
            lua_filter_with_custom_name_1:
              "@type": %s
              disabled: true
        - match: { prefix: "/" }
          route: { cluster: upstream, timeout: 10s }
        """.formatted(PER_ROUTE), cluster("upstream", "", upstream.port())),
        filter.formatted("lua_filter_with_custom_name_0", TYPE, "first")
            + filter.formatted("lua_filter_with_custom_name_1", TYPE, "second")));
    assertThat(edge.get("/both").statusCode()).isEqualTo(200);
    assertThat(upstream.lastRequest().header("x-first")).isEqualTo("ran");
    assertThat(upstream.lastRequest().header("x-second")).isEqualTo("ran");
    assertThat(edge.get("/second-off").statusCode()).isEqualTo(200);
    assertThat(upstream.lastRequest().header("x-first")).isEqualTo("ran");
    assertThat(upstream.lastRequest().header("x-second")).as("disabled on this route by its name").isNull();
  }
}
