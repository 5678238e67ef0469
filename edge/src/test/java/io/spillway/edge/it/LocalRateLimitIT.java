package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.stats.PrometheusStatsFormat;
import io.spillway.edge.stats.StatFilter;
import io.spillway.testkit.H2cClient;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RecordedRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.local_ratelimit in a real edge started from an Envoy bootstrap, on 127.0.0.1:
 * exact 200/429 counts of a burst against the listener's bucket, per-route buckets, the refill
 * after fill_interval, shadow mode counting without refusing, descriptors from a request header,
 * the refusal's headers and body, and the stats in Envoy's names.
 */
class LocalRateLimitIT {

  private static final String TYPE =
      "type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit";
  private static final String ALL = "{default_value: {numerator: 100, denominator: HUNDRED}}";

  private OriginServer upstream;
  private EdgeHarness edge;

  @BeforeEach
  void origin() {
    upstream = OriginServer.start("upstream");
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    upstream.close();
  }

  /** A route with its own LocalRateLimit (fields at column 0) under typed_per_filter_config. */
  private static String route(String prefix, String ownConfig) {
    String route = """
        - match: { prefix: "%s" }
          route: { cluster: upstream, timeout: 10s }
        """.formatted(prefix);
    if (ownConfig.isEmpty()) {
      return route;
    }
    return route + """
          typed_per_filter_config:
            envoy.filters.http.local_ratelimit:
              "@type": %s
        %s""".formatted(TYPE, ownConfig.stripIndent().indent(6).stripTrailing()) + "\n";
  }

  private void start(String routes, String filterFields) throws Exception {
    edge = EdgeHarness.startWithFilter(routes, cluster("upstream", "", upstream.port()),
        "envoy.filters.http.local_ratelimit", TYPE, filterFields);
  }


  private List<Integer> statuses(String path, int n, String... headers) throws Exception {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(edge.get(path, headers).statusCode());
    }
    return out;
  }

  private static long count(List<Integer> statuses, int status) {
    return statuses.stream().filter(s -> s == status).count();
  }

  @Test
  void aBurstGetsExactlyMaxTokensThroughAndTheRestIs429WithEnvoysHeaders() throws Exception {
    start(route("/", ""), """
        stat_prefix: listener_rl
        token_bucket: { max_tokens: 5, tokens_per_fill: 5, fill_interval: 1000s }
        filter_enabled: %s
        filter_enforced: %s
        enable_x_ratelimit_headers: DRAFT_VERSION_03
        response_headers_to_add:
        - header: { key: x-local-rate-limit, value: "true" }
          append_action: OVERWRITE_IF_EXISTS_OR_ADD
        """.formatted(ALL, ALL));
    List<Integer> burst = statuses("/a", 8);
    assertThat(burst).containsExactly(200, 200, 200, 200, 200, 429, 429, 429);
    assertThat(upstream.requestCount()).isEqualTo(5);

    HttpResponse<String> refused = edge.get("/a");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.body()).isEqualTo("local_rate_limited");
    assertThat(refused.headers().firstValue("x-envoy-ratelimited")).contains("true");
    assertThat(refused.headers().firstValue("x-local-rate-limit")).contains("true");
    assertThat(refused.headers().firstValue("x-ratelimit-limit")).contains("5");
    assertThat(refused.headers().firstValue("x-ratelimit-remaining")).contains("0");
    assertThat(Long.parseLong(refused.headers().firstValue("x-ratelimit-reset").orElseThrow())).isBetween(1L, 1000L);

    assertThat(edge.awaitStat("listener_rl.http_local_rate_limit.enabled", 9)).isEqualTo(9);
    assertThat(edge.stat("listener_rl.http_local_rate_limit.ok")).isEqualTo(5);
    assertThat(edge.stat("listener_rl.http_local_rate_limit.rate_limited")).isEqualTo(4);
    assertThat(edge.stat("listener_rl.http_local_rate_limit.enforced")).isEqualTo(4);
    assertThat(edge.awaitStat("http.ingress.downstream_rq_4xx", 4)).isEqualTo(4);
    assertThat(PrometheusStatsFormat.render(edge.stats(), StatFilter.ALL))
        .contains("envoy_http_local_rate_limit_enforced{envoy_local_http_ratelimit_prefix=\"listener_rl\"} 4");
  }

  @Test
  void routesWithTheirOwnConfigHaveTheirOwnBucketsAndTheRestShareTheListeners() throws Exception {
    String enforcedBucket = """
        stat_prefix: %s
        token_bucket: { max_tokens: %d, tokens_per_fill: 1, fill_interval: 1000s }
        filter_enabled: %s
        filter_enforced: %s
        """;
    start(route("/two", enforcedBucket.formatted("two", 2, ALL, ALL))
        + route("/three", enforcedBucket.formatted("three", 3, ALL, ALL))
        + route("/", ""), """
        stat_prefix: listener_rl
        token_bucket: { max_tokens: 1, tokens_per_fill: 1, fill_interval: 1000s }
        filter_enabled: %s
        filter_enforced: %s
        """.formatted(ALL, ALL));
    assertThat(statuses("/two", 4)).containsExactly(200, 200, 429, 429);
    assertThat(statuses("/three", 5)).containsExactly(200, 200, 200, 429, 429);
    assertThat(statuses("/other", 3)).containsExactly(200, 429, 429);
    assertThat(edge.stat("two.http_local_rate_limit.enforced")).isEqualTo(2);
    assertThat(edge.stat("three.http_local_rate_limit.enforced")).isEqualTo(2);
    assertThat(edge.stat("listener_rl.http_local_rate_limit.enforced")).isEqualTo(2);
  }

  @Test
  void anEmptiedBucketServesAgainAfterTheFillInterval() throws Exception {
    start(route("/", ""), """
        stat_prefix: refill
        token_bucket: { max_tokens: 2, tokens_per_fill: 2, fill_interval: 0.3s }
        filter_enabled: %s
        filter_enforced: %s
        """.formatted(ALL, ALL));
    // Empty the bucket (bounded: a fill may come between two requests of a slow machine).
    int sent = 0;
    int status = 200;
    while (status == 200 && sent < 50) {
      status = edge.get("/").statusCode();
      sent++;
    }
    assertThat(status).isEqualTo(429);
    Thread.sleep(350); // past at least one fill interval: the bucket has gained its tokens_per_fill
    assertThat(edge.get("/").statusCode()).isEqualTo(200);
  }

  @Test
  void shadowModeCountsWhatItWouldRefuseAndMarksTheRequestUpstream() throws Exception {
    start(route("/", ""), """
        stat_prefix: shadow
        token_bucket: { max_tokens: 2, tokens_per_fill: 1, fill_interval: 1000s }
        filter_enabled: %s
        request_headers_to_add_when_not_enforced:
        - header: { key: x-rate-limited-shadow, value: "true" }
        """.formatted(ALL));
    List<Integer> burst = statuses("/", 5);
    assertThat(count(burst, 200)).isEqualTo(5);
    assertThat(edge.stat("shadow.http_local_rate_limit.ok")).isEqualTo(2);
    assertThat(edge.stat("shadow.http_local_rate_limit.rate_limited")).isEqualTo(3);
    assertThat(edge.stat("shadow.http_local_rate_limit.enforced")).isZero();
    List<RecordedRequest> seen = upstream.requests();
    assertThat(seen).hasSize(5);
    assertThat(seen.stream().filter(r -> "true".equals(r.header("x-rate-limited-shadow"))).count()).isEqualTo(3);
    assertThat(seen.get(0).header("x-rate-limited-shadow")).isNull();
  }

  @Test
  void aDescriptorFromARequestHeaderLimitsEachKeyOnItsOwn() throws Exception {
    start(route("/", ""), """
        stat_prefix: keys
        token_bucket: { max_tokens: 100, tokens_per_fill: 1, fill_interval: 1000s }
        filter_enabled: %s
        filter_enforced: %s
        always_consume_default_token_bucket: false
        descriptors:
        - entries: [{ key: api_key, value: small }]
          token_bucket: { max_tokens: 1, tokens_per_fill: 1, fill_interval: 1000s }
        - entries: [{ key: api_key, value: large }]
          token_bucket: { max_tokens: 3, tokens_per_fill: 1, fill_interval: 1000s }
        rate_limits:
        - actions: [{ request_headers: { header_name: x-api-key, descriptor_key: api_key } }]
        """.formatted(ALL, ALL));
    assertThat(statuses("/", 3, "x-api-key", "small")).containsExactly(200, 429, 429);
    assertThat(statuses("/", 4, "x-api-key", "large")).containsExactly(200, 200, 200, 429);
    assertThat(count(statuses("/", 5, "x-api-key", "other"), 200)).isEqualTo(5);
    assertThat(count(statuses("/", 5), 200)).isEqualTo(5);
  }

  @Test
  void perDownstreamConnectionBucketsAreEachHttp2ConnectionsOwn() throws Exception {
    start(route("/", ""), """
        stat_prefix: per_connection
        token_bucket: { max_tokens: 2, tokens_per_fill: 1, fill_interval: 1000s }
        filter_enabled: %s
        filter_enforced: %s
        local_rate_limit_per_downstream_connection: true
        """.formatted(ALL, ALL));
    try (H2cClient first = H2cClient.connect(edge.port()); H2cClient second = H2cClient.connect(edge.port())) {
      List<Integer> a = new ArrayList<>();
      List<Integer> b = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        a.add(first.get("/").status());
      }
      H2cClient.Response refused = null;
      for (int i = 0; i < 3; i++) {
        H2cClient.Response r = second.get("/");
        b.add(r.status());
        refused = r;
      }
      assertThat(a).containsExactly(200, 200, 429);
      assertThat(b).containsExactly(200, 200, 429);
      assertThat(refused.header("x-envoy-ratelimited")).isEqualTo("true");
      assertThat(refused.bodyText()).isEqualTo("local_rate_limited");
    }
    assertThat(edge.stat("per_connection.http_local_rate_limit.enforced")).isEqualTo(2);
  }
}
