package io.spillway.edge.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.OriginServer;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.csrf in a real edge in front of a real origin on 127.0.0.1: a cross-origin
 * POST refused with Envoy's 403 before it reaches the origin, a same-origin POST and a GET
 * forwarded, a route in shadow mode forwarding the cross-origin POST and counting it, and the
 * stats under the connection manager's prefix.
 */
class CsrfIT {

  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.csrf.v3.CsrfPolicy";

  private OriginServer upstream;
  private EdgeHarness edge;

  @BeforeEach
  void start() throws Exception {
    upstream = OriginServer.start("upstream");
    String routes = """
        - match: { prefix: "/shadow" }
          route: { cluster: upstream, timeout: 10s }
          typed_per_filter_config:
            envoy.filters.http.csrf:
              "@type": %s
              filter_enabled: { default_value: { numerator: 0 } }
              shadow_enabled: { default_value: { numerator: 100 } }
        - match: { prefix: "/" }
          route: { cluster: upstream, timeout: 10s }
        """.formatted(TYPE);
    edge = EdgeHarness.startWithFilter(routes, EdgeHarness.cluster("upstream", "", upstream.port()),
        "envoy.filters.http.csrf", TYPE, """
        filter_enabled: { default_value: { numerator: 100 } }
        additional_origins: [{ exact: "partner.example" }]
        """);
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
        // No body: a refused request is then whole, and the edge keeps its connection open.
        .method(method, HttpRequest.BodyPublishers.noBody());
    if (headers.length > 0) {
      b.headers(headers);
    }
    return edge.http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aCrossOriginPostIsRefusedAndASameOriginOneForwarded() throws Exception {
    HttpResponse<String> refused = send("POST", "/form", "Origin", "https://evil.example");
    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(refused.body()).isEqualTo("Invalid origin");
    assertThat(upstream.requestCount()).isZero();
    assertThat(edge.stat("http.ingress.csrf.request_invalid")).isEqualTo(1);

    String self = "http://127.0.0.1:" + edge.uri("/").getPort();
    HttpResponse<String> same = send("POST", "/form", "Origin", self);
    assertThat(same.statusCode()).isEqualTo(200);
    assertThat(same.body()).isEqualTo("upstream POST /form\n");
    HttpResponse<String> byReferer = send("PUT", "/form", "Referer", self + "/page.html");
    assertThat(byReferer.statusCode()).isEqualTo(200);
    HttpResponse<String> partner = send("DELETE", "/form", "Origin", "https://partner.example");
    assertThat(partner.statusCode()).isEqualTo(200);
    assertThat(edge.stat("http.ingress.csrf.request_valid")).isEqualTo(3);

    HttpResponse<String> noSource = send("POST", "/form");
    assertThat(noSource.statusCode()).isEqualTo(403);
    assertThat(edge.stat("http.ingress.csrf.missing_source_origin")).isEqualTo(1);
    assertThat(edge.stat("http.ingress.csrf.request_invalid")).isEqualTo(2);

    HttpResponse<String> get = send("GET", "/form", "Origin", "https://evil.example");
    assertThat(get.statusCode()).isEqualTo(200);
    assertThat(upstream.requestCount()).isEqualTo(4);
  }

  @Test
  void shadowModeForwardsTheCrossOriginPostAndCountsIt() throws Exception {
    HttpResponse<String> shadow = send("POST", "/shadow/form", "Origin", "https://evil.example");
    assertThat(shadow.statusCode()).isEqualTo(200);
    assertThat(shadow.body()).isEqualTo("upstream POST /shadow/form\n");
    assertThat(upstream.lastRequest().header("origin")).isEqualTo("https://evil.example");
    assertThat(edge.stat("http.ingress.csrf.request_invalid")).isEqualTo(1);
    assertThat(edge.stat("http.ingress.csrf.request_valid")).isZero();
  }
}
