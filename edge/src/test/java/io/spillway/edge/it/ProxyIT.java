package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.H2cClient;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RawHttp;
import io.spillway.testkit.RecordedRequest;
import java.net.ServerSocket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The edge in-process in front of real origin servers on 127.0.0.1: proxying behaviour end to end. */
class ProxyIT {

  private OriginServer origin;
  private OriginServer other;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeEach
  void origins() {
    origin = OriginServer.start("origin-a");
    other = OriginServer.start("origin-b");
  }

  @AfterEach
  void cleanup() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    origin.close();
    other.close();
  }

  private EdgeHarness edge(String yaml) throws Exception {
    EdgeHarness h = EdgeHarness.start(yaml);
    closeables.add(h);
    return h;
  }

  private EdgeHarness simpleEdge(String routeExtra, String clusterExtra) throws Exception {
    return edge(bootstrap("""
        - match: { prefix: "/" }
          route:
            cluster: origin
        %s
        """.formatted(EdgeHarness.indent(routeExtra, 4)), cluster("origin", clusterExtra, origin.port())));
  }

  @Test
  void http1RequestIsProxiedWithForwardingHeaders() throws Exception {
    EdgeHarness edge = edge(bootstrap("use_remote_address: true", """
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", "", origin.port())));
    HttpResponse<String> r = edge.get("/hello?x=1", "x-request-id", "client-chosen", "x-forwarded-for", "10.9.8.7");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("origin-a");
    assertThat(r.headers().firstValue("x-envoy-upstream-service-time")).isPresent();
    assertThat(r.headers().firstValue("server")).hasValue("spillway");
    RecordedRequest seen = origin.lastRequest();
    assertThat(seen.path()).isEqualTo("/hello?x=1");
    assertThat(seen.authority()).isEqualTo("127.0.0.1:" + edge.port());
    assertThat(seen.header("x-forwarded-for")).isEqualTo("10.9.8.7,127.0.0.1");
    assertThat(seen.header("x-forwarded-proto")).isEqualTo("http");
    // With use_remote_address the client is external: its request id is replaced.
    assertThat(seen.header("x-request-id")).isNotEqualTo("client-chosen").matches("[0-9a-f-]{36}");
    assertThat(edge.awaitStat("cluster.origin.upstream_rq_total", 1)).isEqualTo(1);
    assertThat(edge.awaitStat("http.ingress.downstream_rq_2xx", 1)).isEqualTo(1);
  }

  @Test
  void internalClientsKeepTheirForwardingHeadersByDefault() throws Exception {
    EdgeHarness edge = simpleEdge("", "");
    assertThat(edge.get("/x", "x-request-id", "kept-id", "x-forwarded-for", "10.1.1.1").statusCode()).isEqualTo(200);
    RecordedRequest seen = origin.lastRequest();
    // Envoy's default (use_remote_address: false): the peer is trusted, nothing is appended.
    assertThat(seen.header("x-forwarded-for")).isEqualTo("10.1.1.1");
    assertThat(seen.header("x-request-id")).isEqualTo("kept-id");
    assertThat(seen.header("x-forwarded-proto")).isEqualTo("http");
  }

  @Test
  void hopByHopHeadersDoNotCrossTheProxy() throws Exception {
    EdgeHarness edge = simpleEdge("", "");
    String raw = "GET /headers HTTP/1.1\r\nHost: example.test\r\nConnection: keep-alive, x-secret-hop\r\n"
        + "X-Secret-Hop: 1\r\nKeep-Alive: timeout=5\r\nProxy-Connection: keep-alive\r\nTE: gzip\r\nX-Kept: yes\r\n\r\n";
    RawHttp.Response r = RawHttp.exchange(edge.port(), raw, Duration.ofSeconds(10));
    assertThat(r.status()).isEqualTo(200);
    RecordedRequest seen = origin.lastRequest();
    assertThat(seen.header("x-secret-hop")).isNull();
    assertThat(seen.header("keep-alive")).isNull();
    assertThat(seen.header("proxy-connection")).isNull();
    assertThat(seen.header("te")).isNull();
    assertThat(seen.header("x-kept")).isEqualTo("yes");
    assertThat(seen.authority()).isEqualTo("example.test");
  }

  @Test
  void h2cClientReachesHttp1Origin() throws Exception {
    EdgeHarness edge = simpleEdge("", "");
    try (H2cClient h2 = H2cClient.connect(edge.port())) {
      H2cClient.Response r = h2.get("/via-h2");
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.bodyText()).contains("origin-a");
    }
    RecordedRequest seen = origin.lastRequest();
    assertThat(seen.protocol()).isEqualTo("HTTP/1.1");
    assertThat(seen.authority()).isEqualTo("127.0.0.1:" + edge.port());
    assertThat(edge.awaitStat("http.ingress.downstream_rq_http2_total", 1)).isEqualTo(1);
  }

  @Test
  void http1ClientReachesHttp2Origin() throws Exception {
    EdgeHarness edge = simpleEdge("", """
        typed_extension_protocol_options:
          envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
            "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
            explicit_http_config:
              http2_protocol_options: {}
        """);
    for (int i = 0; i < 5; i++) {
      HttpResponse<String> r = edge.get("/h2-upstream/" + i);
      assertThat(r.statusCode()).isEqualTo(200);
    }
    assertThat(origin.lastRequest().protocol()).isEqualTo("HTTP/2");
    assertThat(origin.lastRequest().authority()).isEqualTo("127.0.0.1:" + edge.port());
    // Five requests, one multiplexed connection.
    assertThat(origin.connectionCount()).isEqualTo(1);
    assertThat(edge.awaitStat("cluster.origin.upstream_cx_http2_total", 1)).isEqualTo(1);
  }

  @Test
  void http2ClusterOpensAnotherConnectionPastItsMaxConcurrentStreams() throws Exception {
    EdgeHarness edge = simpleEdge("", """
        typed_extension_protocol_options:
          envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
            "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
            explicit_http_config:
              http2_protocol_options: { max_concurrent_streams: 1 }
        """);
    List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      inFlight.add(edge.http.sendAsync(HttpRequest.newBuilder(edge.uri("/delay/300")).timeout(Duration.ofSeconds(20))
          .build(), HttpResponse.BodyHandlers.ofString()));
    }
    for (CompletableFuture<HttpResponse<String>> r : inFlight) {
      assertThat(r.get().statusCode()).isEqualTo(200);
    }

    assertThat(origin.connectionCount()).as("one stream per connection").isEqualTo(2);
    // The stream closes on the upstream loop a moment after its last frame reaches the client.
    assertThat(edge.awaitStat("cluster.origin.http2.streams_active", 0)).isZero();
  }

  @Test
  void http2ClusterServesWaitingRequestsAsStreamsEndWhenNoConnectionMayOpen() throws Exception {
    EdgeHarness edge = edge(bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: origin, timeout: 5s }
        """, cluster("origin", """
        circuit_breakers: { thresholds: [ { max_connections: 1 } ] }
        typed_extension_protocol_options:
          envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
            "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
            explicit_http_config:
              http2_protocol_options: { max_concurrent_streams: 1 }
        """, origin.port())));
    try (H2cClient h2 = H2cClient.connect(edge.port())) {
      List<CompletableFuture<H2cClient.Response>> inFlight = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        inFlight.add(h2.send("GET", "/delay/100", List.of(), null));
      }
      for (CompletableFuture<H2cClient.Response> r : inFlight) {
        assertThat(H2cClient.await(r).status()).isEqualTo(200);
      }
    }
    assertThat(origin.connectionCount()).as("one connection, one stream at a time").isEqualTo(1);
  }

  @Test
  void largeBodiesStreamThroughInBothDirections() throws Exception {
    EdgeHarness edge = simpleEdge("", "");
    long size = 64L * 1024 * 1024;
    HttpRequest upload = HttpRequest.newBuilder(edge.uri("/drain"))
        .POST(HttpRequest.BodyPublishers.fromPublisher(
            HttpRequest.BodyPublishers.ofInputStream(() -> new PatternStream(size)), size))
        .timeout(Duration.ofSeconds(60))
        .build();
    HttpResponse<String> up = edge.http.send(upload, HttpResponse.BodyHandlers.ofString());
    assertThat(up.statusCode()).isEqualTo(200);
    assertThat(up.headers().firstValue("x-received-bytes")).hasValue(Long.toString(size));
    HttpResponse<java.io.InputStream> down = edge.http.send(
        HttpRequest.newBuilder(edge.uri("/bytes/" + size)).timeout(Duration.ofSeconds(60)).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    assertThat(down.statusCode()).isEqualTo(200);
    long received;
    try (var in = down.body()) {
      received = in.transferTo(java.io.OutputStream.nullOutputStream());
    }
    assertThat(received).isEqualTo(size);
  }

  @Test
  void largeBodiesStreamOverHttp2() throws Exception {
    EdgeHarness edge = simpleEdge("", "");
    long size = 32L * 1024 * 1024;
    try (H2cClient h2 = H2cClient.connect(edge.port())) {
      H2cClient.Response up = H2cClient.await(h2.upload("POST", "/drain", List.of(), size));
      assertThat(up.status()).isEqualTo(200);
      assertThat(up.header("x-received-bytes")).isEqualTo(Long.toString(size));
      H2cClient.Response down = h2.get("/bytes/" + size);
      assertThat(down.status()).isEqualTo(200);
      assertThat(down.bodyLength()).isEqualTo(size);
    }
  }

  @Test
  void keepAliveReusesUpstreamConnections() throws Exception {
    EdgeHarness edge = simpleEdge("", "");
    for (int i = 0; i < 20; i++) {
      assertThat(edge.get("/k/" + i).statusCode()).isEqualTo(200);
    }
    // One client connection lands on one worker, which keeps one upstream connection.
    assertThat(origin.connectionCount()).isEqualTo(1);
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrder() throws Exception {
    EdgeHarness edge = simpleEdge("", "");
    try (RawHttp.Connection c = RawHttp.connect(edge.port(), Duration.ofSeconds(5))) {
      c.send("GET /delay/200?n=1 HTTP/1.1\r\nHost: a\r\n\r\nGET /second HTTP/1.1\r\nHost: a\r\n\r\n");
      RawHttp.Response first = c.readResponse(Duration.ofSeconds(10));
      RawHttp.Response second = c.readResponse(Duration.ofSeconds(10));
      assertThat(first.status()).isEqualTo(200);
      assertThat(first.bodyText()).contains("/delay/200");
      assertThat(second.status()).isEqualTo(200);
      assertThat(second.bodyText()).contains("/second");
    }
  }

  @Test
  void noRouteIs404AndDirectResponseAndRedirectAreLocal() throws Exception {
    EdgeHarness edge = edge(bootstrap("""
        - match: { path: "/direct" }
          direct_response: { status: 418, body: { inline_string: "short and stout" } }
          response_headers_to_add: [{ header: { key: x-direct, value: "yes" } }]
        - match: { prefix: "/old/" }
          redirect: { prefix_rewrite: "/new/", response_code: PERMANENT_REDIRECT }
        - match: { prefix: "/secure" }
          redirect: { https_redirect: true }
        - match: { prefix: "/api" }
          route: { cluster: origin }
        """, cluster("origin", "", origin.port())));
    HttpResponse<String> missing = edge.get("/nothing-here");
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(edge.awaitStat("http.ingress.no_route", 1)).isEqualTo(1);
    HttpResponse<String> direct = edge.get("/direct");
    assertThat(direct.statusCode()).isEqualTo(418);
    assertThat(direct.body()).isEqualTo("short and stout");
    assertThat(direct.headers().firstValue("x-direct")).hasValue("yes");
    HttpResponse<String> moved = edge.get("/old/page?q=1");
    assertThat(moved.statusCode()).isEqualTo(308);
    assertThat(moved.headers().firstValue("location")).hasValue("http://127.0.0.1:" + edge.port() + "/new/page?q=1");
    HttpResponse<String> secure = edge.get("/secure/x");
    assertThat(secure.statusCode()).isEqualTo(301);
    assertThat(secure.headers().firstValue("location")).hasValue("https://127.0.0.1:" + edge.port() + "/secure/x");
    assertThat(origin.requestCount()).isZero();
  }

  @Test
  void rewritesAndHeaderMutations() throws Exception {
    EdgeHarness edge = edge(bootstrap("""
        - match: { prefix: "/public/" }
          route: { cluster: origin, prefix_rewrite: "/internal/", host_rewrite_literal: "backend.internal" }
          request_headers_to_add:
          - header: { key: x-added, value: "route" }
          - header: { key: x-replaced, value: "new" }
            append_action: OVERWRITE_IF_EXISTS_OR_ADD
          request_headers_to_remove: [x-remove-me]
          response_headers_to_add:
          - header: { key: x-response-added, value: "1" }
          response_headers_to_remove: [x-origin]
        """, cluster("origin", "", origin.port())));
    HttpResponse<String> r = edge.get("/public/thing?z=9", "x-replaced", "old", "x-remove-me", "1");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("x-response-added")).hasValue("1");
    assertThat(r.headers().firstValue("x-origin")).isEmpty();
    RecordedRequest seen = origin.lastRequest();
    assertThat(seen.path()).isEqualTo("/internal/thing?z=9");
    assertThat(seen.authority()).isEqualTo("backend.internal");
    assertThat(seen.header("x-added")).isEqualTo("route");
    assertThat(seen.headers("x-replaced")).containsExactly("new");
    assertThat(seen.header("x-remove-me")).isNull();
  }

  @Test
  void clusterHeaderAndWeightedClusters() throws Exception {
    EdgeHarness edge = edge(bootstrap("""
        - match: { prefix: "/pick" }
          route: { cluster_header: x-cluster }
        - match: { prefix: "/split" }
          route:
            weighted_clusters:
              clusters:
              - { name: origin, weight: 1 }
              - { name: other, weight: 1 }
        """, cluster("origin", "", origin.port()) + "\n" + cluster("other", "", other.port())));
    assertThat(edge.get("/pick", "x-cluster", "other").body()).contains("origin-b");
    assertThat(edge.get("/pick", "x-cluster", "origin").body()).contains("origin-a");
    assertThat(edge.get("/pick", "x-cluster", "nope").statusCode()).isEqualTo(503);
    assertThat(edge.awaitStat("http.ingress.no_cluster", 1)).isEqualTo(1);
    for (int i = 0; i < 40; i++) {
      assertThat(edge.get("/split/" + i).statusCode()).isEqualTo(200);
    }
    assertThat(origin.requestCount()).isPositive();
    assertThat(other.requestCount()).isGreaterThan(1);
  }

  @Test
  void roundRobinSpreadsOverHosts() throws Exception {
    EdgeHarness edge = edge(bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: both }
        """, cluster("both", "", origin.port(), other.port())));
    for (int i = 0; i < 10; i++) {
      assertThat(edge.get("/rr").statusCode()).isEqualTo(200);
    }
    assertThat(origin.requestCount()).isEqualTo(5);
    assertThat(other.requestCount()).isEqualTo(5);
  }

  @Test
  void strictDnsClusterResolvesNamesWithTheRequestedFamily() throws Exception {
    EdgeHarness edge = edge(bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: by-name, auto_host_rewrite: true }
        """, """
        - name: by-name
          type: STRICT_DNS
          dns_lookup_family: V4_ONLY
          dns_refresh_rate: 1s
          connect_timeout: 1s
          load_assignment:
            cluster_name: by-name
            endpoints:
            - lb_endpoints:
              - endpoint: { address: { socket_address: { address: localhost, port_value: %d } } }
        """.formatted(origin.port())));
    HttpResponse<String> r = edge.get("/dns");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("origin-a");
    // auto_host_rewrite: the upstream sees the host's DNS name.
    assertThat(origin.lastRequest().authority()).isEqualTo("localhost");
    assertThat(edge.awaitStat("cluster.by-name.membership_total", 1)).isEqualTo(1);
  }

  @Test
  void connectFailureIs503AndIsRetriedToAnotherHost() throws Exception {
    int closed = closedPort();
    EdgeHarness edge = edge(bootstrap("""
        - match: { prefix: "/noretry" }
          route: { cluster: dead }
        - match: { prefix: "/" }
          route:
            cluster: mixed
            retry_policy: { retry_on: connect-failure, num_retries: 2 }
        """, cluster("dead", "", closed) + "\n" + cluster("mixed", "", closed, origin.port())));
    HttpResponse<String> r = edge.get("/noretry");
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(r.body()).contains("connection failure");
    assertThat(edge.awaitStat("cluster.dead.upstream_cx_connect_fail", 1)).isEqualTo(1);
    for (int i = 0; i < 6; i++) {
      assertThat(edge.get("/retry/" + i).statusCode()).isEqualTo(200);
    }
    assertThat(edge.stat("cluster.mixed.upstream_rq_retry")).isPositive();
  }

  @Test
  void retriesOn5xxAndRetriableStatusCodes() throws Exception {
    EdgeHarness edge = simpleEdge("""
        retry_policy:
          retry_on: "5xx,retriable-status-codes"
          retriable_status_codes: [409]
          num_retries: 2
          retry_back_off: { base_interval: 0.001s, max_interval: 0.005s }
        """, "");
    origin.failNext(2, 503);
    HttpResponse<String> r = edge.get("/flaky");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(origin.requestCount()).isEqualTo(3);
    assertThat(edge.awaitStat("cluster.origin.upstream_rq_retry", 2)).isEqualTo(2);
    assertThat(edge.awaitStat("cluster.origin.upstream_rq_retry_success", 1)).isEqualTo(1);
    origin.failNext(1, 409);
    assertThat(edge.get("/conflict-once").statusCode()).isEqualTo(200);
    origin.failNext(5, 500);
    HttpResponse<String> exhausted = edge.get("/always-failing");
    assertThat(exhausted.statusCode()).isEqualTo(500);
  }

  @Test
  void postBodiesAreReplayedOnRetry() throws Exception {
    EdgeHarness edge = simpleEdge("""
        retry_policy: { retry_on: "5xx", num_retries: 1, retry_back_off: { base_interval: 0.001s } }
        """, "");
    origin.failNext(1, 502);
    HttpResponse<String> r = edge.http.send(HttpRequest.newBuilder(edge.uri("/drain"))
        .POST(HttpRequest.BodyPublishers.ofString("x".repeat(10_000))).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("x-received-bytes")).hasValue("10000");
  }

  @Test
  void routeTimeoutIs504() throws Exception {
    EdgeHarness edge = simpleEdge("timeout: 0.2s", "");
    HttpResponse<String> r = edge.get("/delay/3000");
    assertThat(r.statusCode()).isEqualTo(504);
    assertThat(r.body()).isEqualTo("upstream request timeout");
    assertThat(edge.awaitStat("cluster.origin.upstream_rq_timeout", 1)).isEqualTo(1);
  }

  @Test
  void perTryTimeoutRetriesThenSucceeds() throws Exception {
    EdgeHarness edge = edge(bootstrap("""
        - match: { prefix: "/" }
          route:
            cluster: origin
            timeout: 5s
            retry_policy: { retry_on: "5xx", num_retries: 3, per_try_timeout: 0.2s, retry_back_off: { base_interval: 0.001s } }
        """, cluster("origin", "", origin.port())));
    // The origin hangs on /hang; every try times out, then the retries are spent: 504.
    HttpResponse<String> r = edge.get("/hang");
    assertThat(r.statusCode()).isEqualTo(504);
    assertThat(edge.awaitStat("cluster.origin.upstream_rq_per_try_timeout", 4)).isEqualTo(4);
    assertThat(edge.awaitStat("cluster.origin.upstream_rq_retry", 3)).isEqualTo(3);
  }

  @Test
  void upstreamResetBeforeHeadersIs503() throws Exception {
    EdgeHarness edge = simpleEdge("", "");
    HttpResponse<String> r = edge.get("/reset");
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(r.body()).contains("reset before headers");
  }

  @Test
  void noHealthyUpstreamIs503() throws Exception {
    EdgeHarness edge = edge(bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: empty }
        """, cluster("empty", "")));
    HttpResponse<String> r = edge.get("/x");
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(r.body()).isEqualTo("no healthy upstream");
  }

  @Test
  void circuitBreakerOverflowIs503() throws Exception {
    EdgeHarness edge = simpleEdge("", """
        circuit_breakers:
          thresholds:
          - { max_requests: 1, max_pending_requests: 1, max_connections: 1 }
        """);
    List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      inFlight.add(edge.http.sendAsync(HttpRequest.newBuilder(edge.uri("/delay/500")).build(),
          HttpResponse.BodyHandlers.ofString()));
    }
    int ok = 0;
    int overflow = 0;
    for (var f : inFlight) {
      HttpResponse<String> r = f.get();
      if (r.statusCode() == 200) {
        ok++;
      } else if (r.statusCode() == 503) {
        overflow++;
      }
    }
    assertThat(ok).isGreaterThanOrEqualTo(1);
    assertThat(overflow).isGreaterThanOrEqualTo(1);
    assertThat(ok + overflow).isEqualTo(4);
    assertThat(edge.awaitStat("cluster.origin.upstream_rq_pending_overflow", overflow)).isEqualTo(overflow);
  }

  @Test
  void bufferFilterRejectsLargeBodiesWith413() throws Exception {
    EdgeHarness edge = edge(EdgeHarness.withHttpFilterBeforeRouter(bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", "", origin.port())), """
        - name: envoy.filters.http.buffer
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.http.buffer.v3.Buffer
            max_request_bytes: 1024
        """));
    HttpResponse<String> big = edge.http.send(HttpRequest.newBuilder(edge.uri("/drain"))
        .POST(HttpRequest.BodyPublishers.ofString("y".repeat(5000))).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(big.statusCode()).isEqualTo(413);
    HttpResponse<String> small = edge.http.send(HttpRequest.newBuilder(edge.uri("/drain"))
        .POST(HttpRequest.BodyPublishers.ofString("y".repeat(500))).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(small.statusCode()).isEqualTo(200);
    assertThat(origin.requestCount()).isEqualTo(1);
  }

  @Test
  void clientDisconnectReleasesTheUpstreamRequest() throws Exception {
    EdgeHarness edge = simpleEdge("", "");
    try (RawHttp.Connection c = RawHttp.connect(edge.port(), Duration.ofSeconds(5))) {
      c.send("GET /hang HTTP/1.1\r\nHost: a\r\n\r\n");
      origin.awaitRequestCount(1, Duration.ofSeconds(5));
    }
    // The edge notices the close asynchronously: wait (bounded) for its accounting.
    assertThat(edge.awaitStat("cluster.origin.upstream_rq_active", 0)).isZero();
    assertThat(edge.awaitStat("http.ingress.downstream_rq_active", 0)).isZero();
    assertThat(edge.awaitStat("http.ingress.downstream_rq_rx_reset", 1)).isEqualTo(1);
  }

  private static int closedPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** A repeating byte pattern of a given length, generated lazily. */
  static final class PatternStream extends java.io.InputStream {
    private long left;

    PatternStream(long length) {
      this.left = length;
    }

    @Override
    public int read() {
      return left-- > 0 ? (int) (left & 0x7f) : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (left <= 0) {
        return -1;
      }
      int n = (int) Math.min(len, left);
      for (int i = 0; i < n; i++) {
        b[off + i] = (byte) ((left - i) & 0x7f);
      }
      left -= n;
      return n;
    }
  }
}
