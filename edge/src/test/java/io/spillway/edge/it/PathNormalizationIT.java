package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.H2cClient;
import io.spillway.testkit.HeaderField;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RawHttp;
import io.spillway.testkit.RecordedRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The connection manager's path normalization and header-name handling, as Envoy's edge guide
 * configures them, in a real edge in front of a real origin on 127.0.0.1, over HTTP/1.1 and h2c:
 * the origin receives the normalized path and never an underscored header under DROP_HEADER;
 * escaped slashes get a 307 under UNESCAPE_AND_REDIRECT and a 400 under REJECT_REQUEST; an
 * underscored header name gets a 400 (HTTP/1) or a reset (HTTP/2) under REJECT_REQUEST; every
 * outcome counted in Envoy's stats.
 */
class PathNormalizationIT {

  private static final Duration WAIT = Duration.ofSeconds(10);
  private static OriginServer origin;
  /** normalize_path, merge_slashes, UNESCAPE_AND_REDIRECT, DROP_HEADER. */
  private static EdgeHarness lenient;
  /** normalize_path, REJECT_REQUEST for escaped slashes and for underscores. */
  private static EdgeHarness strict;

  @BeforeAll
  static void start() throws Exception {
    origin = OriginServer.start("origin");
    lenient = EdgeHarness.start(edgeYaml("""
        normalize_path: true
        merge_slashes: true
        path_with_escaped_slashes_action: UNESCAPE_AND_REDIRECT
        common_http_protocol_options:
          headers_with_underscores_action: DROP_HEADER
        """));
    strict = EdgeHarness.start(edgeYaml("""
        normalize_path: true
        path_with_escaped_slashes_action: REJECT_REQUEST
        common_http_protocol_options:
          headers_with_underscores_action: REJECT_REQUEST
        """));
  }

  @AfterAll
  static void stop() {
    if (lenient != null) {
      lenient.close();
    }
    if (strict != null) {
      strict.close();
    }
    origin.close();
  }

  @BeforeEach
  void forget() {
    origin.clearRequests();
  }

  private static String edgeYaml(String hcmExtra) {
    return bootstrap(hcmExtra, """
        - match: { prefix: "/a/c" }
          route: { cluster: origin, timeout: 30s }
        - match: { prefix: "/" }
          direct_response: { status: 404, body: { inline_string: "no route" } }
        """, cluster("origin", "", origin.port()));
  }

  private static RawHttp.Response http1(EdgeHarness edge, String target, String... headerLines) {
    StringBuilder raw = new StringBuilder("GET " + target + " HTTP/1.1\r\nHost: edge.test\r\n");
    for (String line : headerLines) {
      raw.append(line).append("\r\n");
    }
    return RawHttp.exchange(edge.port(), raw.append("\r\n").toString(), WAIT);
  }

  private static H2cClient.Response h2c(EdgeHarness edge, String path, HeaderField... headers) {
    try (H2cClient client = H2cClient.connect(edge.port())) {
      return H2cClient.await(client.send("GET", path, List.of(headers), new byte[0]));
    }
  }

  @Test
  void theOriginReceivesTheNormalizedPathAndTheRouteMatchesIt() throws Exception {
    RawHttp.Response r = http1(lenient, "/x/../a/./c//d%7E/%2e%2e/e?q=/../%2F//", "x_foo: 1", "x-bar: 2");
    assertThat(r.status()).isEqualTo(200);
    RecordedRequest seen = origin.lastRequest();
    assertThat(seen.path()).isEqualTo("/a/c/e?q=/../%2F//");
    assertThat(seen.header("x_foo")).isNull();
    assertThat(seen.header("x-bar")).isEqualTo("2");
    assertThat(seen.header("x-envoy-original-path")).isNull(); // Envoy keeps none for normalization
    assertThat(lenient.awaitStat("http1.dropped_headers_with_underscores", 1)).isEqualTo(1);

    H2cClient.Response h2 = h2c(lenient, "/a//c\\d/..%7Ex?y", new HeaderField("x_foo", "1"),
        new HeaderField("x_baz", "2"), new HeaderField("x-bar", "3"));
    assertThat(h2.status()).isEqualTo(200);
    RecordedRequest seen2 = origin.lastRequest();
    assertThat(seen2.path()).isEqualTo("/a/c/d/..~x?y"); // "..~x" is no dot segment
    assertThat(seen2.header("x_foo")).isNull();
    assertThat(seen2.header("x_baz")).isNull();
    assertThat(seen2.header("x-bar")).isEqualTo("3");
    assertThat(lenient.awaitStat("http2.dropped_headers_with_underscores", 2)).isEqualTo(2);
    assertThat(origin.requestCount()).isEqualTo(2);
  }

  @Test
  void escapedSlashesAreRedirectedToTheUnescapedPath() throws Exception {
    long before = lenient.stat("http.ingress.downstream_rq_redirected_with_normalized_path");
    RawHttp.Response r = http1(lenient, "/a/c%2Fd%5c..%2f?x=%2F");
    assertThat(r.status()).isEqualTo(307);
    assertThat(r.header("location")).isEqualTo("/a/c/?x=%2F"); // unescaped, then normalized
    assertThat(r.closed()).isFalse();

    H2cClient.Response h2 = h2c(lenient, "/a%2Fc");
    assertThat(h2.status()).isEqualTo(307);
    assertThat(h2.header("location")).isEqualTo("/a/c");
    assertThat(origin.requestCount()).isZero();
    assertThat(lenient.awaitStat("http.ingress.downstream_rq_redirected_with_normalized_path", before + 2))
        .isEqualTo(before + 2);
  }

  @Test
  void aPathThatCannotBeNormalizedGets400() throws Exception {
    long before = lenient.stat("http.ingress.downstream_rq_failed_path_normalization");
    RawHttp.Response r = http1(lenient, "/a/c/%00");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.header("connection")).isEqualTo("close");
    H2cClient.Response h2 = h2c(lenient, "/a/c/%00");
    assertThat(h2.status()).isEqualTo(400);
    assertThat(origin.requestCount()).isZero();
    assertThat(lenient.awaitStat("http.ingress.downstream_rq_failed_path_normalization", before + 2))
        .isEqualTo(before + 2);
  }

  @Test
  void aFragmentInAnHttp2PathGets400WhateverTheSettings() throws Exception {
    try (EdgeHarness plain = EdgeHarness.start(edgeYaml(""))) {
      H2cClient.Response h2 = h2c(plain, "/a/c#top");
      assertThat(h2.status()).isEqualTo(400);
      assertThat(h2c(lenient, "/a/c?q=1#top").status()).isEqualTo(400);
      assertThat(origin.requestCount()).isZero();
      assertThat(plain.awaitStat("http.ingress.downstream_rq_failed_path_normalization", 1)).isEqualTo(1);
    }
  }

  @Test
  void rejectRequestRefusesEscapedSlashes() throws Exception {
    long before = strict.stat("http.ingress.downstream_rq_failed_path_normalization");
    assertThat(http1(strict, "/a/c%2fd").status()).isEqualTo(400);
    assertThat(h2c(strict, "/a/c%5Cd").status()).isEqualTo(400);
    assertThat(h2c(strict, "/a/c?d=%2F").status()).isEqualTo(200); // the query is not the path
    assertThat(origin.requestCount()).isEqualTo(1);
    assertThat(strict.awaitStat("http.ingress.downstream_rq_failed_path_normalization", before + 2))
        .isEqualTo(before + 2);
  }

  @Test
  void rejectRequestRefusesUnderscoredHeaderNames() throws Exception {
    RawHttp.Response r = http1(strict, "/a/c", "x_foo: 1");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.bodyText()).isEqualTo("Bad Request");
    assertThat(r.header("connection")).isEqualTo("close");

    H2cClient.Response h2 = h2c(strict, "/a/c", new HeaderField("x_foo", "1"));
    assertThat(h2.reset()).isTrue();

    assertThat(http1(strict, "/a/c", "x-foo: 1").status()).isEqualTo(200);
    assertThat(origin.requestCount()).isEqualTo(1);
    assertThat(strict.awaitStat("http1.requests_rejected_with_underscores_in_headers", 1)).isEqualTo(1);
    assertThat(strict.awaitStat("http2.requests_rejected_with_underscores_in_headers", 1)).isEqualTo(1);
  }
}
