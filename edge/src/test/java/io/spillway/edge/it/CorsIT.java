package io.spillway.edge.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.stats.PrometheusStatsFormat;
import io.spillway.edge.stats.StatFilter;
import io.spillway.testkit.H2cClient;
import io.spillway.testkit.HeaderField;
import io.spillway.testkit.OriginServer;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.cors in a real edge started from an Envoy bootstrap, in front of a real
 * origin on 127.0.0.1: preflights answered by the edge (HTTP/1.1 and h2c) and never forwarded,
 * a preflight from another origin forwarded or answered as the policy says, actual requests
 * getting the allowed origin's headers over the origin's own, the older virtual host
 * {@code cors} field next to a route's typed_per_filter_config, and the stats in Envoy's names.
 */
class CorsIT {

  private static final String POLICY = "type.googleapis.com/envoy.extensions.filters.http.cors.v3.CorsPolicy";
  private static final String APP = "https://app.example";

  private OriginServer upstream;
  private EdgeHarness edge;

  @BeforeEach
  void start() throws Exception {
    upstream = OriginServer.builder().name("upstream").responseHeader("access-control-allow-origin", "*").start();
    String routes = """
        - match: { prefix: "/api" }
          route: { cluster: upstream, timeout: 10s }
          typed_per_filter_config:
            envoy.filters.http.cors:
              "@type": %s
              allow_origin_string_match: [{ exact: "%s" }, { suffix: ".trusted.example" }]
              allow_methods: "GET, PUT"
              allow_headers: "content-type, x-token"
              expose_headers: "x-total"
              max_age: "600"
              allow_credentials: true
        - match: { prefix: "/strict" }
          route: { cluster: upstream, timeout: 10s }
          typed_per_filter_config:
            envoy.filters.http.cors:
              "@type": %s
              allow_origin_string_match: [{ exact: "%s" }]
              forward_not_matching_preflights: false
        - match: { prefix: "/" }
          route: { cluster: upstream, timeout: 10s }
        """.formatted(POLICY, APP, POLICY, APP);
    String yaml = EdgeHarness.withHttpFilterBeforeRouter(
        EdgeHarness.bootstrap(routes, EdgeHarness.cluster("upstream", "", upstream.port())), """
        - name: envoy.filters.http.cors
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.http.cors.v3.Cors
        """);
    // The older field on the virtual host: used by the routes without a typed_per_filter_config policy.
    Matcher domains = Pattern.compile("(?m)^( *)domains: \\[\"\\*\"]$").matcher(yaml);
    assertThat(domains.find()).isTrue();
    String pad = domains.group(1);
    yaml = yaml.substring(0, domains.end()) + "\n" + pad + "cors:\n"
        + pad + "  allow_origin_string_match: [{ safe_regex: { regex: 'https://[a-z]+\\.legacy\\.example' } }]\n"
        + pad + "  allow_methods: \"*\"" + yaml.substring(domains.end());
    edge = EdgeHarness.start(yaml);
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    upstream.close();
  }

  private HttpResponse<String> send(String method, String path, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(edge.uri(path)).timeout(Duration.ofSeconds(20))
        .method(method, HttpRequest.BodyPublishers.noBody());
    if (headers.length > 0) {
      b.headers(headers);
    }
    return edge.http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String header(HttpResponse<?> response, String name) {
    return response.headers().firstValue(name).orElse(null);
  }

  @Test
  void anAllowedPreflightIsAnsweredByTheEdgeAndTheActualRequestGetsTheOrigin() throws Exception {
    HttpResponse<String> preflight = send("OPTIONS", "/api/items", "Origin", APP,
        "Access-Control-Request-Method", "PUT", "Access-Control-Request-Headers", "content-type");
    assertThat(preflight.statusCode()).isEqualTo(200);
    assertThat(preflight.body()).isEmpty();
    assertThat(header(preflight, "access-control-allow-origin")).isEqualTo(APP);
    assertThat(header(preflight, "access-control-allow-methods")).isEqualTo("GET, PUT");
    assertThat(header(preflight, "access-control-allow-headers")).isEqualTo("content-type, x-token");
    assertThat(header(preflight, "access-control-max-age")).isEqualTo("600");
    assertThat(header(preflight, "access-control-allow-credentials")).isEqualTo("true");
    assertThat(header(preflight, "access-control-expose-headers")).isEqualTo("x-total");
    assertThat(header(preflight, "x-origin")).isNull(); // not from the upstream
    assertThat(upstream.requestCount()).isZero();

    HttpResponse<String> actual = send("PUT", "/api/items", "Origin", "https://shop.trusted.example");
    assertThat(actual.statusCode()).isEqualTo(200);
    assertThat(actual.body()).isEqualTo("upstream PUT /api/items\n");
    assertThat(actual.headers().allValues("access-control-allow-origin")).containsExactly("https://shop.trusted.example");
    assertThat(header(actual, "access-control-allow-credentials")).isEqualTo("true");
    assertThat(header(actual, "access-control-expose-headers")).isEqualTo("x-total");
    assertThat(header(actual, "access-control-allow-methods")).isNull();
    assertThat(upstream.requestCount()).isEqualTo(1);
    assertThat(upstream.lastRequest().header("origin")).isEqualTo("https://shop.trusted.example");

    assertThat(edge.awaitStat("http.ingress.cors.origin_valid", 2)).isEqualTo(2);
    assertThat(edge.stat("http.ingress.cors.origin_invalid")).isZero();
    assertThat(edge.awaitStat("http.ingress.downstream_rq_2xx", 2)).isEqualTo(2);
    assertThat(PrometheusStatsFormat.render(edge.stats(), StatFilter.ALL))
        .contains("envoy_http_cors_origin_valid{envoy_http_conn_manager_prefix=\"ingress\"} 2");
  }

  @Test
  void aPreflightFromAnotherOriginIsForwardedOrAnsweredAsThePolicySays() throws Exception {
    HttpResponse<String> forwarded = send("OPTIONS", "/api/items", "Origin", "https://evil.example",
        "Access-Control-Request-Method", "PUT");
    assertThat(forwarded.statusCode()).isEqualTo(200);
    assertThat(forwarded.body()).isEqualTo("upstream OPTIONS /api/items\n");
    assertThat(header(forwarded, "access-control-allow-origin")).isEqualTo("*"); // the upstream's, untouched
    assertThat(header(forwarded, "access-control-allow-credentials")).isNull();
    assertThat(upstream.requestCount()).isEqualTo(1);

    HttpResponse<String> answered = send("OPTIONS", "/strict", "Origin", "https://evil.example",
        "Access-Control-Request-Method", "PUT");
    assertThat(answered.statusCode()).isEqualTo(200);
    assertThat(answered.body()).isEmpty();
    assertThat(header(answered, "access-control-allow-origin")).isNull();
    assertThat(upstream.requestCount()).isEqualTo(1);

    HttpResponse<String> actual = send("GET", "/api/items", "Origin", "https://evil.example");
    assertThat(header(actual, "access-control-allow-origin")).isEqualTo("*");
    assertThat(header(actual, "access-control-expose-headers")).isNull();

    assertThat(edge.awaitStat("http.ingress.cors.origin_invalid", 3)).isEqualTo(3);
    assertThat(edge.stat("http.ingress.cors.origin_valid")).isZero();
  }

  @Test
  void routesWithoutAPerFilterPolicyUseTheVirtualHostsCorsField() throws Exception {
    HttpResponse<String> preflight = send("OPTIONS", "/other", "Origin", "https://app.legacy.example",
        "Access-Control-Request-Method", "DELETE");
    assertThat(preflight.statusCode()).isEqualTo(200);
    assertThat(header(preflight, "access-control-allow-origin")).isEqualTo("https://app.legacy.example");
    assertThat(header(preflight, "access-control-allow-methods")).isEqualTo("DELETE"); // "*" echoes the request's
    assertThat(header(preflight, "access-control-allow-credentials")).isNull();
    assertThat(upstream.requestCount()).isZero();
    // The route's own policy replaces the older field entirely: the legacy origin is not one of its.
    HttpResponse<String> api = send("GET", "/api", "Origin", "https://app.legacy.example");
    assertThat(header(api, "access-control-allow-origin")).isEqualTo("*");
    HttpResponse<String> noOrigin = send("GET", "/other");
    assertThat(header(noOrigin, "access-control-allow-origin")).isEqualTo("*");
    assertThat(edge.awaitStat("http.ingress.cors.origin_valid", 1)).isEqualTo(1);
    assertThat(edge.awaitStat("http.ingress.cors.origin_invalid", 1)).isEqualTo(1);
  }

  @Test
  void aPreflightOverH2cIsAnsweredToo() throws Exception {
    try (H2cClient client = H2cClient.connect(edge.port())) {
      H2cClient.Response r = H2cClient.await(client.send("OPTIONS", "/api", List.of(
          new HeaderField("origin", APP), new HeaderField("access-control-request-method", "GET")), new byte[0]));
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.reset()).isFalse();
      assertThat(r.body()).isEmpty();
      assertThat(r.header("access-control-allow-origin")).isEqualTo(APP);
      assertThat(r.header("access-control-allow-methods")).isEqualTo("GET, PUT");
    }
    assertThat(upstream.requestCount()).isZero();
  }
}
