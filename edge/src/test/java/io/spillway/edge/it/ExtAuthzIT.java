package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static io.spillway.edge.it.EdgeHarness.withHttpFilterBeforeRouter;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.stats.PrometheusStatsFormat;
import io.spillway.edge.stats.StatFilter;
import io.spillway.testkit.H2cClient;
import io.spillway.testkit.HeaderField;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RawHttp;
import io.spillway.testkit.RecordedRequest;
import java.net.ServerSocket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ext_authz with a real authorization service on 127.0.0.1 (an origin that answers by path): the
 * check request, allow / deny / error verdicts, failure_mode_allow, and the auth calls passing the
 * outbound guard of the {@code auth} peer — refusals, and in-flight back to 0 on every path,
 * including the client leaving mid-check.
 */
class ExtAuthzIT {

  private OriginServer upstream;
  private OriginServer auth;
  private EdgeHarness edge;

  @BeforeEach
  void origins() {
    upstream = OriginServer.start("upstream");
    auth = OriginServer.start("auth");
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    upstream.close();
    auth.close();
  }

  /** An edge routing everything to "upstream", with ext_authz (these ExtAuthz fields) calling cluster "auth". */
  private static String yaml(int upstreamPort, int authPort, String extAuthzFields) {
    String base = bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: upstream, timeout: 10s }
        """, cluster("upstream", "", upstreamPort) + "\n" + cluster("auth", "", authPort));
    return withHttpFilterBeforeRouter(base, """
        - name: envoy.filters.http.ext_authz
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz
        %s""".formatted(extAuthzFields.stripIndent().indent(4).stripTrailing()));
  }

  private String yaml(String extAuthzFields) {
    return yaml(upstream.port(), auth.port(), extAuthzFields);
  }

  private static final String CHECKED = """
      http_service:
        server_uri: { uri: "http://auth", cluster: auth, timeout: 0.5s }
        path_prefix: /authz
        authorization_request:
          headers_to_add: [{ key: x-edge, value: spillway }]
        authorization_response:
          allowed_upstream_headers: { patterns: [{ exact: x-origin }] }
          allowed_client_headers_on_success: { patterns: [{ prefix: x-orig }] }
      allowed_headers: { patterns: [{ exact: x-tenant }] }
      """;

  @Test
  void allowedRequestReachesTheUpstreamWithTheAllowedHeaders() throws Exception {
    edge = EdgeHarness.start(yaml(CHECKED));
    HttpResponse<String> r = edge.get("/headers?q=1", "Authorization", "Bearer t", "X-Tenant", "acme",
        "Cookie", "secret=1");
    assertThat(r.statusCode()).isEqualTo(200);

    RecordedRequest check = auth.lastRequest();
    assertThat(check.method()).isEqualTo("GET");
    assertThat(check.path()).isEqualTo("/authz/headers?q=1");
    assertThat(check.header("authorization")).isEqualTo("Bearer t");
    assertThat(check.header("x-tenant")).isEqualTo("acme");
    assertThat(check.header("x-edge")).isEqualTo("spillway");
    assertThat(check.header("content-length")).isEqualTo("0");
    assertThat(check.header("host")).startsWith("127.0.0.1:");
    assertThat(check.header("cookie")).isNull();

    RecordedRequest forwarded = upstream.lastRequest();
    assertThat(forwarded.path()).isEqualTo("/headers?q=1");
    assertThat(forwarded.header("x-origin")).isEqualTo("auth"); // allowed_upstream_headers, from the OK answer
    assertThat(forwarded.header("cookie")).isEqualTo("secret=1");
    assertThat(r.headers().allValues("x-origin")).contains("upstream", "auth"); // allowed_client_headers_on_success
    assertThat(edge.awaitStat("http.ingress.ext_authz.ok", 1)).isEqualTo(1);
    assertThat(edge.stat("http.ingress.ext_authz.denied")).isZero();
  }

  @Test
  void aBodyArrivingDuringTheCheckIsKeptAndForwardedAfterIt() throws Exception {
    edge = EdgeHarness.start(yaml(upstream.port(), auth.port(), """
        http_service:
          server_uri: { uri: "http://auth", cluster: auth, timeout: 5s }
          path_prefix: /delay/300
        """));
    // Chunked (no content-length), and whole before the verdict: it must be re-framed for the upstream.
    String body = "0123456789".repeat(30_000); // 300 KB: more than the listener's buffer limit
    HttpResponse<String> r = edge.http.send(HttpRequest.newBuilder(edge.uri("/drain"))
        .POST(HttpRequest.BodyPublishers.ofInputStream(
            () -> new java.io.ByteArrayInputStream(body.getBytes(java.nio.charset.StandardCharsets.US_ASCII))))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("x-received-bytes")).hasValue(Integer.toString(body.length()));
    assertThat(auth.lastRequest().header("content-length")).isEqualTo("0");
    assertThat(edge.awaitStat("http.ingress.ext_authz.ok", 1)).isEqualTo(1);
  }

  @Test
  void aRouteWhoseTypedPerFilterConfigDisablesTheFilterIsNotChecked() throws Exception {
    String base = bootstrap("""
        - match: { prefix: "/open" }
          route: { cluster: upstream, timeout: 10s }
          typed_per_filter_config:
            envoy.filters.http.ext_authz:
              "@type": type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthzPerRoute
              disabled: true
        - match: { prefix: "/" }
          route: { cluster: upstream, timeout: 10s }
        """, cluster("upstream", "", upstream.port()) + "\n" + cluster("auth", "", auth.port()));
    edge = EdgeHarness.start(withHttpFilterBeforeRouter(base, """
        - name: envoy.filters.http.ext_authz
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz
        %s""".formatted(CHECKED.stripIndent().indent(4).stripTrailing())));
    HttpResponse<String> open = edge.get("/open/status/401");
    assertThat(open.statusCode()).isEqualTo(401);
    assertThat(open.headers().firstValue("x-origin")).as("the upstream's own answer").hasValue("upstream");
    assertThat(auth.requestCount()).isZero();
    HttpResponse<String> checked = edge.get("/status/401");
    assertThat(checked.headers().firstValue("x-origin")).as("the auth service's denial").hasValue("auth");
    assertThat(auth.requestCount()).isEqualTo(1);
    assertThat(upstream.requestCount()).isEqualTo(1);
  }

  @Test
  void deniedRequestGetsTheAuthServicesAnswerAndNeverReachesTheUpstream() throws Exception {
    edge = EdgeHarness.start(yaml(CHECKED));
    HttpResponse<String> unauthorized = edge.get("/status/401");
    assertThat(unauthorized.statusCode()).isEqualTo(401);
    assertThat(unauthorized.body()).contains("auth"); // the auth service's own body
    assertThat(unauthorized.headers().firstValue("x-origin")).hasValue("auth"); // all its headers but host
    HttpResponse<String> forbidden = edge.get("/status/403", "Authorization", "Bearer bad");
    assertThat(forbidden.statusCode()).isEqualTo(403);
    assertThat(forbidden.body()).contains("auth");
    HttpResponse<String> post = edge.http.send(HttpRequest.newBuilder(edge.uri("/status/401"))
        .POST(HttpRequest.BodyPublishers.ofString("x".repeat(20_000))).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(401);
    assertThat(auth.lastRequest().header("content-length")).isEqualTo("0"); // the body is not sent to auth
    assertThat(upstream.requestCount()).isZero();
    assertThat(edge.awaitStat("http.ingress.ext_authz.denied", 3)).isEqualTo(3);
    assertThat(edge.stat("http.ingress.ext_authz.ok")).isZero();
  }

  @Test
  void http2RequestsAreCheckedTheSameWay() throws Exception {
    edge = EdgeHarness.start(yaml(CHECKED));
    try (H2cClient h2 = H2cClient.connect(edge.port())) {
      H2cClient.Response allowed = H2cClient.await(h2.send("POST", "/drain",
          List.of(new HeaderField("x-tenant", "acme")), "x".repeat(100_000).getBytes(StandardCharsets.US_ASCII)));
      assertThat(allowed.status()).isEqualTo(200);
      assertThat(allowed.header("x-received-bytes")).isEqualTo("100000");
      assertThat(auth.lastRequest().method()).isEqualTo("POST");
      assertThat(auth.lastRequest().header("x-tenant")).isEqualTo("acme");
      assertThat(upstream.lastRequest().header("x-origin")).isEqualTo("auth");
      H2cClient.Response denied = H2cClient.await(h2.send("GET", "/status/403", List.of(), null));
      assertThat(denied.status()).isEqualTo(403);
      assertThat(denied.bodyText()).contains("auth");
    }
    assertThat(upstream.requestCount()).isEqualTo(1);
    assertThat(edge.awaitStat("http.ingress.ext_authz.denied", 1)).isEqualTo(1);
  }

  @Test
  void authErrorsAnswerStatusOnError() throws Exception {
    edge = EdgeHarness.start(yaml(CHECKED));
    HttpResponse<String> fiveHundred = edge.get("/status/500");
    assertThat(fiveHundred.statusCode()).isEqualTo(403);
    assertThat(fiveHundred.body()).isEmpty();
    long start = System.nanoTime();
    HttpResponse<String> timedOut = edge.get("/delay/5000");
    assertThat(timedOut.statusCode()).isEqualTo(403);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
    assertThat(upstream.requestCount()).isZero();
    assertThat(edge.awaitStat("http.ingress.ext_authz.error", 2)).isEqualTo(2);
    assertThat(edge.stat("http.ingress.ext_authz.failure_mode_allowed")).isZero();
    assertThat(edge.awaitStat("cluster.auth.upstream_rq_active", 0)).isZero();
  }

  @Test
  void authDownAnswersTheConfiguredStatusOnError() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    edge = EdgeHarness.start(yaml(upstream.port(), closedPort, """
        http_service:
          server_uri: { uri: "http://auth", cluster: auth, timeout: 1s }
        status_on_error: { code: ServiceUnavailable }
        """));
    HttpResponse<String> r = edge.get("/anything");
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(upstream.requestCount()).isZero();
    assertThat(edge.awaitStat("http.ingress.ext_authz.error", 1)).isEqualTo(1);
  }

  @Test
  void failureModeAllowLetsRequestsThroughWhenAuthFails() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    String fields = """
        http_service:
          server_uri: { uri: "http://auth", cluster: auth, timeout: 0.3s }
        failure_mode_allow: true
        failure_mode_allow_header_add: true
        """;
    edge = EdgeHarness.start(yaml(fields));
    auth.failNext(1, 503);
    assertThat(edge.get("/headers").statusCode()).isEqualTo(200);
    assertThat(upstream.lastRequest().header("x-envoy-auth-failure-mode-allowed")).isEqualTo("true");
    assertThat(edge.get("/status/401").statusCode()).isEqualTo(401); // a denial is still a denial
    assertThat(edge.awaitStat("http.ingress.ext_authz.failure_mode_allowed", 1)).isEqualTo(1);
    edge.close();

    edge = EdgeHarness.start(yaml(upstream.port(), closedPort, fields));
    assertThat(edge.get("/ok").statusCode()).isEqualTo(200);
    assertThat(edge.awaitStat("http.ingress.ext_authz.error", 1)).isEqualTo(1);
    assertThat(edge.awaitStat("http.ingress.ext_authz.failure_mode_allowed", 1)).isEqualTo(1);
  }

  private static final String SLOW_AUTH = """
      http_service:
        server_uri: { uri: "http://auth", cluster: auth, timeout: 5s }
        path_prefix: /delay/800
      """;

  /**
   * Three requests 150 ms apart against a slow auth service behind a guard of one slot and a queue
   * of one: the first holds auth's slot, the second queues for it, the third finds the queue full.
   */
  private List<HttpResponse<String>> threeStaggeredCalls() throws Exception {
    List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      calls.add(edge.http.sendAsync(HttpRequest.newBuilder(edge.uri("/ok/" + i)).build(),
          HttpResponse.BodyHandlers.ofString()));
      Thread.sleep(150);
    }
    List<HttpResponse<String>> responses = new ArrayList<>();
    for (var c : calls) {
      responses.add(c.get());
    }
    return responses;
  }

  @Test
  void theGuardRefusesExcessAuthCallsInEnforce() throws Exception {
    edge = EdgeHarness.start(yaml(SLOW_AUTH), """
        {"outbound": {"mode": "enforce", "maxConcurrent": 1, "maxQueue": 1, "queueTimeoutMillis": 5000}}
        """);
    List<HttpResponse<String>> rs = threeStaggeredCalls();
    assertThat(rs.get(0).statusCode()).isEqualTo(200);
    assertThat(rs.get(1).statusCode()).isEqualTo(200);
    assertThat(rs.get(2).statusCode()).isEqualTo(503);
    assertThat(rs.get(2).body()).isEqualTo("upstream guard refused the auth call: queue_full");
    assertThat(auth.requestCount()).isEqualTo(2); // the refused call was never made
    assertThat(upstream.requestCount()).isEqualTo(2);
    assertThat(edge.awaitStat("http.ingress.ext_authz.error", 1)).isEqualTo(1);
    assertThat(guardMetric("http_client_guard_rejected_total", "mode=\"enforce\"", "reason=\"queue_full\""))
        .isEqualTo(1);
    assertThat(awaitGuardInFlight(0)).isZero();
  }

  @Test
  void shadowCountsTheWouldBeRefusalAndMakesTheCall() throws Exception {
    edge = EdgeHarness.start(yaml(SLOW_AUTH), """
        {"outbound": {"mode": "shadow", "maxConcurrent": 1, "maxQueue": 1, "queueTimeoutMillis": 5000}}
        """);
    assertThat(threeStaggeredCalls()).extracting(HttpResponse::statusCode).containsOnly(200);
    assertThat(auth.requestCount()).isEqualTo(3);
    assertThat(guardMetric("http_client_guard_rejected_total", "mode=\"shadow\"", "reason=\"queue_full\""))
        .isEqualTo(1);
    assertThat(awaitGuardInFlight(0)).isZero();
  }

  @Test
  void aGuardRefusalWithFailureModeAllowContinuesToTheUpstream() throws Exception {
    edge = EdgeHarness.start(yaml(SLOW_AUTH + "failure_mode_allow: true\n"), """
        {"outbound": {"mode": "enforce", "maxConcurrent": 1, "maxQueue": 1, "queueTimeoutMillis": 5000}}
        """);
    assertThat(threeStaggeredCalls()).extracting(HttpResponse::statusCode).containsOnly(200);
    assertThat(auth.requestCount()).isEqualTo(2);
    assertThat(upstream.requestCount()).isEqualTo(3);
    assertThat(edge.awaitStat("http.ingress.ext_authz.failure_mode_allowed", 1)).isEqualTo(1);
    assertThat(awaitGuardInFlight(0)).isZero();
  }

  @Test
  void clientLeavingMidCheckReleasesTheAuthCallOnce() throws Exception {
    edge = EdgeHarness.start(yaml("""
        http_service:
          server_uri: { uri: "http://auth", cluster: auth, timeout: 30s }
          path_prefix: /hang
        """), """
        {"outbound": {"mode": "enforce", "maxConcurrent": 1, "maxQueue": 1, "queueTimeoutMillis": 30000}}
        """);
    RawHttp.Connection running = RawHttp.connect(edge.port(), Duration.ofSeconds(5));
    running.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
    auth.awaitRequestCount(1, Duration.ofSeconds(5));
    assertThat(awaitGuardInFlight(1)).isEqualTo(1);
    RawHttp.Connection queued = RawHttp.connect(edge.port(), Duration.ofSeconds(5));
    queued.send("GET /b HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(awaitGuardGauge("http_client_guard_waiting", 1)).isEqualTo(1);

    queued.close(); // leaves while its auth call waits in the guard's queue
    assertThat(awaitGuardGauge("http_client_guard_waiting", 0)).isZero();
    assertThat(guardInFlight()).isEqualTo(1);
    running.close(); // leaves while its auth call is running
    assertThat(awaitGuardInFlight(0)).isZero();
    assertThat(edge.awaitStat("cluster.auth.upstream_rq_active", 0)).isZero();
    assertThat(auth.requestCount()).isEqualTo(1); // the withdrawn call was never made

    // The slot is free again: a new check goes out at once (and hangs, until the client leaves too).
    RawHttp.Connection next = RawHttp.connect(edge.port(), Duration.ofSeconds(5));
    next.send("GET /c HTTP/1.1\r\nHost: x\r\n\r\n");
    auth.awaitRequestCount(2, Duration.ofSeconds(5));
    next.close();
    assertThat(awaitGuardInFlight(0)).isZero();
    assertThat(upstream.requestCount()).isZero();
    assertThat(edge.stat("http.ingress.ext_authz.error") + edge.stat("http.ingress.ext_authz.ok")).isZero();
  }

  // ---- the auth peer's guard metrics ------------------------------------------------------------

  private long guardInFlight() {
    return guardMetric("http_client_guard_in_flight");
  }

  private long awaitGuardInFlight(long expected) throws InterruptedException {
    return awaitGuardGauge("http_client_guard_in_flight", expected);
  }

  private long awaitGuardGauge(String metric, long expected) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    long v = guardMetric(metric);
    while (v != expected && System.nanoTime() < deadline) {
      Thread.sleep(5);
      v = guardMetric(metric);
    }
    return v;
  }

  /** The value of a guard metric of peer "auth" with the given labels, -1 when absent. */
  private long guardMetric(String metric, String... labels) {
    String text = PrometheusStatsFormat.render(edge.stats(), StatFilter.ALL);
    Matcher m = Pattern.compile("(?m)^" + metric + "\\{([^}]*)\\} (\\d+)").matcher(text);
    while (m.find()) {
      String found = m.group(1);
      boolean all = found.contains("peer=\"auth\"");
      for (String label : labels) {
        all &= found.contains(label);
      }
      if (all) {
        return Long.parseLong(m.group(2));
      }
    }
    return -1;
  }
}
