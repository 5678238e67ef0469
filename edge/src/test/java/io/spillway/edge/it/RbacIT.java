package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.H2cClient;
import io.spillway.testkit.HeaderField;
import io.spillway.testkit.OriginServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.rbac in a real edge from an Envoy bootstrap, on 127.0.0.1, over HTTP/1.1 and
 * h2c: what the policies allow reaches the origin, what they deny gets Envoy's 403 and never
 * reaches it, a route's RBACPerRoute replaces the rules or turns them off, the shadow rules only
 * count, and the counters show on the admin {@code /stats}.
 */
class RbacIT {

  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC";
  private static final String PER_ROUTE = "type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBACPerRoute";

  private static final String ROUTES = """
      - match: { prefix: "/open" }
        route: { cluster: upstream, timeout: 10s }
        typed_per_filter_config:
          envoy.filters.http.rbac:
            "@type": %s
      - match: { prefix: "/admin" }
        route: { cluster: upstream, timeout: 10s }
        typed_per_filter_config:
          envoy.filters.http.rbac:
            "@type": %s
            rbac:
              rules:
                action: ALLOW
                policies:
                  admins:
                    permissions: [ { any: true } ]
                    principals: [ { header: { name: x-role, string_match: { exact: admin } } } ]
      - match: { prefix: "/" }
        route: { cluster: upstream, timeout: 10s }
      """.formatted(PER_ROUTE, PER_ROUTE);

  /** Reads of /api from loopback are allowed; the shadow rules would deny requests marked x-trial. */
  private static final String FILTER = """
      rules:
        action: ALLOW
        policies:
          api-readers:
            permissions:
            - and_rules:
                rules:
                - header: { name: ":method", string_match: { exact: GET } }
                - url_path: { path: { prefix: /api } }
            principals:
            - direct_remote_ip: { address_prefix: 127.0.0.0, prefix_len: 8 }
      shadow_rules:
        action: DENY
        policies:
          trial:
            permissions: [ { header: { name: x-trial, present_match: true } } ]
            principals: [ { any: true } ]
      """;

  private OriginServer upstream;
  private EdgeHarness edge;

  @BeforeEach
  void start() throws Exception {
    upstream = OriginServer.start("upstream");
    edge = EdgeHarness.startWithFilter(ROUTES, cluster("upstream", "", upstream.port()), "envoy.filters.http.rbac",
        TYPE, FILTER);
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    upstream.close();
  }

  private HttpResponse<String> post(String path) throws Exception {
    return edge.http.send(HttpRequest.newBuilder(edge.uri(path)).timeout(Duration.ofSeconds(20))
        .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void overHttp1AnAllowedRequestReachesTheOriginAndADeniedOneGets403AndNeverDoes() throws Exception {
    HttpResponse<String> allowed = edge.get("/api/items");
    assertThat(allowed.statusCode()).isEqualTo(200);
    assertThat(upstream.requestCount()).isEqualTo(1);

    HttpResponse<String> wrongMethod = post("/api/items");
    assertThat(wrongMethod.statusCode()).isEqualTo(403);
    assertThat(wrongMethod.body()).isEqualTo("RBAC: access denied");
    HttpResponse<String> wrongPath = edge.get("/private");
    assertThat(wrongPath.statusCode()).isEqualTo(403);
    assertThat(upstream.requestCount()).isEqualTo(1);

    assertThat(edge.awaitStat("http.ingress.rbac.denied", 2)).isEqualTo(2);
    assertThat(edge.stat("http.ingress.rbac.allowed")).isEqualTo(1);
    assertThat(edge.stat("http.ingress.rbac.shadow_allowed")).isEqualTo(3);
    assertThat(edge.stat("http.ingress.rbac.shadow_denied")).isZero();
  }

  @Test
  void overH2cTheSameRulesApply() throws Exception {
    try (H2cClient client = H2cClient.connect(edge.port())) {
      H2cClient.Response allowed = client.get("/api/h2");
      assertThat(allowed.status()).isEqualTo(200);
      H2cClient.Response denied = H2cClient.await(client.send("DELETE", "/api/h2", List.of(), null));
      assertThat(denied.status()).isEqualTo(403);
      assertThat(denied.reset()).isFalse();
      assertThat(denied.bodyText()).isEqualTo("RBAC: access denied");
      H2cClient.Response marked = H2cClient.await(client.send("GET", "/api/trial",
          List.of(new HeaderField("x-trial", "1")), null));
      assertThat(marked.status()).as("the shadow rules never deny").isEqualTo(200);
    }
    assertThat(upstream.requestCount()).isEqualTo(2);
    assertThat(edge.awaitStat("http.ingress.rbac.shadow_denied", 1)).isEqualTo(1);
    assertThat(edge.stat("http.ingress.rbac.allowed")).isEqualTo(2);
    assertThat(edge.stat("http.ingress.rbac.denied")).isEqualTo(1);
  }

  @Test
  void aRouteReplacesTheRulesOrTurnsThemOff() throws Exception {
    assertThat(post("/open/anything").statusCode()).as("RBACPerRoute without rbac").isEqualTo(200);
    assertThat(edge.get("/admin/panel").statusCode()).isEqualTo(403);
    assertThat(edge.get("/admin/panel", "x-role", "admin").statusCode()).isEqualTo(200);
    assertThat(post("/admin/panel").statusCode()).isEqualTo(403);
    assertThat(upstream.requestCount()).isEqualTo(2);
    assertThat(edge.awaitStat("http.ingress.rbac.denied", 2)).isEqualTo(2);
    assertThat(edge.stat("http.ingress.rbac.allowed")).isEqualTo(1);
    assertThat(edge.stat("http.ingress.rbac.shadow_allowed")).as("the route's rules have no shadow rules").isZero();
  }

  @Test
  void remoteIpIsTheClientBehindTheTrustedHopAndDirectRemoteIpThePeer() throws Exception {
    edge.close();
    String yaml = EdgeHarness.bootstrap("""
        use_remote_address: true
        xff_num_trusted_hops: 1
        """, "- match: { prefix: \"/\" }\n  route: { cluster: upstream, timeout: 10s }\n",
        cluster("upstream", "", upstream.port()));
    edge = EdgeHarness.start(EdgeHarness.withHttpFilterBeforeRouter(yaml, """
        - name: envoy.filters.http.rbac
          typed_config:
            "@type": %s
            rules:
              action: ALLOW
              policies:
                partners:
                  permissions: [ { any: true } ]
                  principals: [ { remote_ip: { address_prefix: 203.0.113.0, prefix_len: 24 } } ]
                loopback-admin:
                  permissions: [ { url_path: { path: { prefix: /admin } } } ]
                  principals: [ { direct_remote_ip: { address_prefix: 127.0.0.1, prefix_len: 32 } } ]
        """.formatted(TYPE)));
    assertThat(edge.get("/a", "x-forwarded-for", "203.0.113.7").statusCode()).isEqualTo(200);
    assertThat(edge.get("/a", "x-forwarded-for", "198.51.100.7").statusCode()).isEqualTo(403);
    assertThat(edge.get("/a").statusCode()).as("no header: the peer, 127.0.0.1").isEqualTo(403);
    assertThat(edge.get("/admin", "x-forwarded-for", "198.51.100.7").statusCode())
        .as("direct_remote_ip ignores the header").isEqualTo(200);
    assertThat(upstream.requestCount()).isEqualTo(2);
  }

  @Test
  void theCountersShowOnTheAdminStats() throws Exception {
    assertThat(edge.get("/api/a").statusCode()).isEqualTo(200);
    assertThat(edge.get("/nope").statusCode()).isEqualTo(403);
    assertThat(edge.awaitStat("http.ingress.rbac.denied", 1)).isEqualTo(1);
    String flat = edge.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.adminPort() + "/stats"))
        .build(), HttpResponse.BodyHandlers.ofString()).body();
    assertThat(flat).contains("http.ingress.rbac.allowed: 1", "http.ingress.rbac.denied: 1",
        "http.ingress.rbac.shadow_allowed: 2", "http.ingress.rbac.shadow_denied: 0");
    String prometheus = edge.http.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + edge.adminPort() + "/stats/prometheus")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    assertThat(prometheus).contains("envoy_http_rbac_denied{envoy_http_conn_manager_prefix=\"ingress\"} 1");
  }
}
