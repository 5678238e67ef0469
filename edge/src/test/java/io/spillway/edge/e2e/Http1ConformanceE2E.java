package io.spillway.edge.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.EdgeProcess;
import io.spillway.testkit.FreePorts;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RawHttp;
import io.spillway.testkit.RecordedRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The HTTP/1.1 conformance corpus against the packaged edge, over raw sockets: every request that
 * RFC 9112 or RFC 9110 says a server must refuse gets its status, the connection closes, the
 * refusal counts in {@code downstream_cx_protocol_error} and its status class, and the origin never
 * receives the request (a well-formed barrier request afterwards must be the only one it recorded).
 * Valid but unusual requests must still reach the origin as they should. docs/http-conformance.md
 * lists the same cases with what nginx answers.
 *
 * <p>Two listeners: {@code strict} (the defaults: HTTP/1.0 refused, bodies streamed) and
 * {@code legacy} ({@code accept_http_10}), for the HTTP/1.0 framing cases.
 */
class Http1ConformanceE2E {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final String BIG = "a".repeat(70 * 1024);
  private static final String MARK = "/h1c/";

  @TempDir
  static Path dir;

  private static OriginServer origin;
  private static EdgeProcess edge;
  private static AdminClient admin;
  private static int strictPort;
  private static int legacyPort;
  private static final AtomicInteger barriers = new AtomicInteger();

  @BeforeAll
  static void start() {
    origin = OriginServer.start("conformance-origin");
    int[] ports = FreePorts.pick(3);
    strictPort = ports[0];
    legacyPort = ports[1];
    String routes = """
        - match: { prefix: "/" }
          route: { cluster: backend }
        """;
    Path bootstrap = BootstrapYaml.withAdmin(ports[2])
        .listener(BootstrapYaml.Listener.named("strict", strictPort).routes(routes))
        .listener(BootstrapYaml.Listener.named("legacy", legacyPort).routes(routes)
            .hcmOptions("http_protocol_options: { accept_http_10: true }"))
        .staticCluster("backend", "", origin.port())
        .writeTo(dir, "conformance.yaml");
    edge = EdgeProcess.start(bootstrap, ports[2], "--concurrency", "2");
    admin = new AdminClient(edge);
  }

  @AfterAll
  static void stop() {
    if (edge != null) {
      edge.close();
    }
    if (origin != null) {
      origin.close();
    }
  }

  // ---- the hostile corpus: {P} is the case's marked path ---------------------------------------

  static Stream<Arguments> hostile() {
    return Stream.of(
        // field lines: RFC 9112 §5.1, §5.2, §2.2; RFC 9110 §5.5
        refused("obs-fold-sp", 400, "GET {P} HTTP/1.1\r\nHost: a\r\nX-A: one\r\n two\r\n\r\n"),
        refused("obs-fold-htab", 400, "GET {P} HTTP/1.1\r\nHost: a\r\nX-A: one\r\n\ttwo\r\n\r\n"),
        refused("obs-fold-hides-te", 400,
            "POST {P} HTTP/1.1\r\nHost: a\r\nX-A: one\r\n\tTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        refused("obs-fold-te-value", 400, "POST {P} HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n"),
        refused("ws-after-start-line", 400, "GET {P} HTTP/1.1\r\n X-A: one\r\nHost: a\r\n\r\n"),
        refused("ws-before-request-line", 400, " GET {P} HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("ws-before-colon", 400, "GET {P} HTTP/1.1\r\nHost: a\r\nX-A : one\r\n\r\n"),
        refused("htab-before-colon", 400, "GET {P} HTTP/1.1\r\nHost: a\r\nX-A\t: one\r\n\r\n"),
        refused("te-ws-before-colon", 400, "POST {P} HTTP/1.1\r\nHost: a\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n"),
        refused("name-invalid-char", 400, "GET {P} HTTP/1.1\r\nHost: a\r\nX(A): one\r\n\r\n"),
        refused("name-empty", 400, "GET {P} HTTP/1.1\r\nHost: a\r\n: one\r\n\r\n"),
        refused("no-colon", 400, "GET {P} HTTP/1.1\r\nHost: a\r\nX-A one\r\n\r\n"),
        refused("value-bare-cr", 400, "GET {P} HTTP/1.1\r\nHost: a\r\nX-A: one\rtwo\r\n\r\n"),
        refused("value-nul", 400, "GET {P} HTTP/1.1\r\nHost: a\r\nX-A: one\0two\r\n\r\n"),
        refused("value-ctl", 400, "GET {P} HTTP/1.1\r\nHost: a\r\nX-A: one\u0001two\r\n\r\n"),
        refused("value-del", 400, "GET {P} HTTP/1.1\r\nHost: a\r\nX-A: one\u007ftwo\r\n\r\n"),
        refused("line-bare-lf", 400, "GET {P} HTTP/1.1\nHost: a\n\n"),
        refused("header-bare-lf", 400, "GET {P} HTTP/1.1\r\nHost: a\nX-A: one\r\n\r\n"),
        refused("request-line-bare-cr", 400, "GET {P}\rHTTP/1.1\r\nHost: a\r\n\r\n"),
        // Host: RFC 9112 §3.2, RFC 9110 §7.2
        refused("host-missing", 400, "GET {P} HTTP/1.1\r\nX-A: one\r\n\r\n"),
        refused("host-twice-same", 400, "GET {P} HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n"),
        refused("host-twice-differ", 400, "GET {P} HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
        refused("host-list", 400, "GET {P} HTTP/1.1\r\nHost: a, b\r\n\r\n"),
        refused("host-space", 400, "GET {P} HTTP/1.1\r\nHost: a b\r\n\r\n"),
        refused("host-slash", 400, "GET {P} HTTP/1.1\r\nHost: a/b\r\n\r\n"),
        refused("host-userinfo", 400, "GET {P} HTTP/1.1\r\nHost: user@a\r\n\r\n"),
        refused("host-bad-port", 400, "GET {P} HTTP/1.1\r\nHost: a:8x\r\n\r\n"),
        refused("host-two-ports", 400, "GET {P} HTTP/1.1\r\nHost: a:80:81\r\n\r\n"),
        refused("host-open-bracket", 400, "GET {P} HTTP/1.1\r\nHost: [::1\r\n\r\n"),
        refused("host-bad-pct", 400, "GET {P} HTTP/1.1\r\nHost: a%zz\r\n\r\n"),
        refused("host-empty", 400, "GET {P} HTTP/1.1\r\nHost: \r\n\r\n"),
        refused("absolute-no-host", 400, "GET http://a{P} HTTP/1.1\r\n\r\n"),
        refused("absolute-userinfo", 400, "GET http://u@a{P} HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("absolute-empty-authority", 400, "GET http://{P} HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("absolute-bad-host", 400, "GET http://a%zz{P} HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("absolute-bad-scheme", 400, "GET ftp://a{P} HTTP/1.1\r\nHost: a\r\n\r\n"),
        // versions: RFC 9112 §2.3, RFC 9110 §2.5, §15.6.6
        refused("version-2.0", 505, "GET {P} HTTP/2.0\r\nHost: a\r\n\r\n"),
        refused("version-9.9", 505, "GET {P} HTTP/9.9\r\nHost: a\r\n\r\n"),
        refused("version-0.9", 505, "GET {P} HTTP/0.9\r\nHost: a\r\n\r\n"),
        refused("version-1.x", 400, "GET {P} HTTP/1.x\r\nHost: a\r\n\r\n"),
        refused("version-lowercase", 400, "GET {P} http/1.1\r\nHost: a\r\n\r\n"),
        refused("version-two-digits", 400, "GET {P} HTTP/1.10\r\nHost: a\r\n\r\n"),
        refused("version-leading-zero", 400, "GET {P} HTTP/01.1\r\nHost: a\r\n\r\n"),
        refused("version-missing", 400, "GET {P}\r\nHost: a\r\n\r\n"),
        refused("version-trailing-sp", 400, "GET {P} HTTP/1.1 \r\nHost: a\r\n\r\n"),
        // framing: RFC 9112 §6.1, §6.3, §7.1
        refused("cl-and-te", 400,
            "POST {P} HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        refused("te-gzip", 400, "POST {P} HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n"),
        refused("te-identity", 400, "POST {P} HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\n\r\n"),
        refused("te-chunked-gzip", 400, "POST {P} HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n"),
        refused("te-gzip-chunked", 501, "POST {P} HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
        refused("te-chunked-chunked", 400,
            "POST {P} HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n"),
        refused("te-two-fields", 400,
            "POST {P} HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        refused("te-xchunked", 400, "POST {P} HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n"),
        refused("te-vtab", 400, "POST {P} HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\u000b\r\n\r\n0\r\n\r\n"),
        refused("te-empty", 400, "POST {P} HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: \r\n\r\n"),
        refused("te-param", 400, "POST {P} HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked;q=1\r\n\r\n0\r\n\r\n"),
        refused("te-http10", 400, "POST {P} HTTP/1.0\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        refused("cl-twice-same", 400, "POST {P} HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello"),
        refused("cl-twice-differ", 400, "POST {P} HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"),
        refused("cl-twice-http10", 400, "POST {P} HTTP/1.0\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"),
        refused("cl-plus", 400, "POST {P} HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\nhello"),
        refused("cl-negative", 400, "POST {P} HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n"),
        refused("cl-hex", 400, "POST {P} HTTP/1.1\r\nHost: a\r\nContent-Length: 0x10\r\n\r\n0123456789abcdef"),
        refused("cl-list", 400, "POST {P} HTTP/1.1\r\nHost: a\r\nContent-Length: 5,6\r\n\r\nhello!"),
        refused("cl-list-same", 400, "POST {P} HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\nhello"),
        refused("cl-overflow", 400, "POST {P} HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n"),
        refused("cl-empty", 400, "POST {P} HTTP/1.1\r\nHost: a\r\nContent-Length: \r\n\r\n"),
        refused("chunk-size-overflow", 400, chunked("ffffffffffffffff1\r\nhello\r\n0\r\n\r\n")),
        refused("chunk-ext-bare-lf", 400, chunked("5;a=b\nhello\r\n0\r\n\r\n")),
        refused("chunk-size-bare-lf", 400, chunked("5\nhello\r\n0\r\n\r\n")),
        refused("chunk-size-invalid", 400, chunked("zz\r\nhello\r\n0\r\n\r\n")),
        refused("chunk-size-0x", 400, chunked("0x5\r\nhello\r\n0\r\n\r\n")),
        refused("chunk-size-negative", 400, chunked("-5\r\nhello\r\n0\r\n\r\n")),
        refused("chunk-no-crlf", 400, chunked("5\r\nhelloX0\r\n\r\n")),
        refused("chunk-data-bare-lf", 400, chunked("5\r\nhello\n0\r\n\r\n")),
        refused("chunk-ext-ctl", 400, chunked("5;a\u0001b\r\nhello\r\n0\r\n\r\n")),
        refused("chunk-line-too-long", 400, chunked("5;a=" + BIG + "\r\nhello\r\n0\r\n\r\n")),
        // request-target: RFC 9112 §3.2
        refused("asterisk-not-options", 400, "GET * HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("authority-not-connect", 400, "GET a:80 HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("connect-origin-form", 400, "CONNECT {P} HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("target-fragment", 400, "GET {P}#frag HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("target-nul", 400, "GET {P}\0x HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("target-ctl", 400, "GET {P}\u0001x HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("target-del", 400, "GET {P}\u007fx HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("target-space", 400, "GET {P} x HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("target-htab", 400, "GET {P}\tx HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("target-non-ascii", 400, "GET {P}\u00c3\u00a9 HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("target-relative", 400, "GET h1c HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("method-invalid", 400, "G@T {P} HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("method-htab-sep", 400, "GET\t{P} HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("double-sp-sep", 400, "GET  {P} HTTP/1.1\r\nHost: a\r\n\r\n"),
        // limits: as in Envoy, the request line counts against max_request_headers_kb (60 KiB)
        refused("request-line-too-long", 431, "GET {P}/" + BIG + " HTTP/1.1\r\nHost: a\r\n\r\n"),
        refused("header-too-long", 431, "GET {P} HTTP/1.1\r\nHost: a\r\nX-Big: " + BIG + "\r\n\r\n"));
  }

  private static Arguments refused(String id, int status, String raw) {
    return Arguments.of(id, status, raw.replace("{P}", MARK + id));
  }

  private static String chunked(String body) {
    return "POST {P} HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" + body;
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("hostile")
  void refusedAndNeverForwarded(String id, int status, String raw) {
    boolean http10 = raw.contains(" HTTP/1.0\r\n");
    int port = http10 ? legacyPort : strictPort;
    String prefix = http10 ? "http.legacy." : "http.strict.";
    long protocolErrors = admin.stat(prefix + "downstream_cx_protocol_error");
    long statusClass = admin.stat(prefix + "downstream_rq_" + status / 100 + "xx");
    int before = origin.requestCount();

    RawHttp.Response response;
    boolean closed;
    try (RawHttp.Connection connection = RawHttp.connect(port, TIMEOUT)) {
      response = connection.exchange(raw, TIMEOUT);
      closed = response.closed() || connection.awaitClose(Duration.ofSeconds(5));
    }

    assertThat(response.status()).as(id + ": " + response + " " + response.bodyText()).isEqualTo(status);
    assertThat(response.header("connection")).isEqualToIgnoringCase("close");
    assertThat(closed).as("the edge closed the connection after " + response).isTrue();
    assertThat(admin.stat(prefix + "downstream_cx_protocol_error") - protocolErrors).isEqualTo(1);
    assertThat(admin.stat(prefix + "downstream_rq_" + status / 100 + "xx") - statusClass).isEqualTo(1);
    assertOriginUntouched(before, MARK + id);
  }

  // ---- valid but unusual: they must still pass -------------------------------------------------

  static Stream<Arguments> unusual() {
    return Stream.of(
        passes("ok-absolute-matching-host", "GET http://a{P} HTTP/1.1\r\nHost: a\r\n\r\n",
            r -> assertThat(r.authority()).isEqualTo("a")),
        // RFC 9112 §3.2.2: the target's authority wins and replaces Host (nginx does the same).
        passes("ok-absolute-conflicting-host", "GET http://a{P} HTTP/1.1\r\nHost: b\r\n\r\n",
            r -> assertThat(r.headers("host")).containsExactly("a")),
        passes("ok-absolute-host-case", "GET http://A{P} HTTP/1.1\r\nHost: a\r\n\r\n",
            r -> assertThat(r.headers("host")).containsExactly("A")),
        passes("ok-absolute-query-only", "GET http://a.example?m={P} HTTP/1.1\r\nHost: a.example\r\n\r\n",
            r -> assertThat(r.path()).isEqualTo("/?m=" + MARK + "ok-absolute-query-only")),
        passes("ok-chunked", "POST {P} HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n",
            r -> assertThat(r.body()).isEqualTo("hello world")),
        passes("ok-chunked-case-ows", "POST {P} HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\tChunked \r\n\r\n"
            + "5\r\nhello\r\n0\r\n\r\n", r -> assertThat(r.body()).isEqualTo("hello")),
        passes("ok-version-1.2", "GET {P} HTTP/1.2\r\nHost: a\r\n\r\n",
            r -> assertThat(r.protocol()).isEqualTo("HTTP/1.1")),
        passes("ok-host-port", "GET {P} HTTP/1.1\r\nHost: a.example:8080\r\n\r\n",
            r -> assertThat(r.authority()).isEqualTo("a.example:8080")),
        passes("ok-host-ipv6", "GET {P} HTTP/1.1\r\nHost: [::1]:80\r\n\r\n",
            r -> assertThat(r.authority()).isEqualTo("[::1]:80")),
        passes("ok-host-empty-port", "GET {P} HTTP/1.1\r\nHost: a:\r\n\r\n",
            r -> assertThat(r.authority()).isEqualTo("a:")),
        passes("ok-leading-crlf", "\r\nGET {P} HTTP/1.1\r\nHost: a\r\n\r\n", r -> { }),
        passes("ok-obs-text-value", "GET {P} HTTP/1.1\r\nHost: a\r\nX-A: caf\u00e9\r\n\r\n",
            r -> assertThat(r.header("x-a")).isNotNull()),
        passes("ok-query", "GET {P}?a=/b?c&d=%20&e=|{} HTTP/1.1\r\nHost: a\r\n\r\n",
            r -> assertThat(r.path()).endsWith("?a=/b?c&d=%20&e=|{}")),
        passes("ok-cl-zero", "GET {P} HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", r -> { }),
        passes("ok-http10", "GET {P} HTTP/1.0\r\nHost: a\r\n\r\n",
            r -> assertThat(r.authority()).isEqualTo("a")),
        passes("ok-http10-absolute", "GET http://a{P} HTTP/1.0\r\n\r\n",
            r -> assertThat(r.authority()).isEqualTo("a")));
  }

  private static Arguments passes(String id, String raw, Consumer<RecordedRequest> check) {
    return Arguments.of(id, raw.replace("{P}", MARK + id), check);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("unusual")
  void servedAsUsual(String id, String raw, Consumer<RecordedRequest> check) {
    boolean http10 = raw.contains(" HTTP/1.0\r\n");
    int before = origin.requestCount();

    RawHttp.Response response = RawHttp.exchange(http10 ? legacyPort : strictPort, raw, TIMEOUT);

    assertThat(response.status()).as(id + ": " + response + " " + response.bodyText()).isEqualTo(200);
    assertThat(response.header("x-origin")).isEqualTo("conformance-origin");
    if (!http10) {
      assertThat(response.closed()).as("keep-alive").isFalse();
    }
    assertThat(origin.requestCount() - before).isEqualTo(1);
    RecordedRequest recorded = origin.lastRequest();
    assertThat(recorded.path()).contains(MARK + id);
    check.accept(recorded);
  }

  @Test
  void optionsAsteriskPassesTheHttp1Checks() {
    // asterisk-form is valid with OPTIONS (RFC 9112 §3.2.4): whatever the request path answers,
    // it is not a protocol error.
    long protocolErrors = admin.stat("http.strict.downstream_cx_protocol_error");

    RawHttp.Response response = RawHttp.exchange(strictPort, "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", TIMEOUT);

    assertThat(response.answered()).isTrue();
    assertThat(admin.stat("http.strict.downstream_cx_protocol_error")).isEqualTo(protocolErrors);
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /**
   * Sends a well-formed request through the edge and asserts that it is the only request the
   * origin recorded since {@code before}, and that no recorded request carries {@code marker}.
   */
  private static void assertOriginUntouched(int before, String marker) {
    String barrier = "/barrier/" + barriers.incrementAndGet();
    RawHttp.Response response = RawHttp.exchange(strictPort, "GET " + barrier + " HTTP/1.1\r\nHost: a\r\n\r\n", TIMEOUT);
    assertThat(response.status()).as("the edge still serves: " + response).isEqualTo(200);
    List<RecordedRequest> recorded = origin.requests();
    assertThat(recorded).extracting(RecordedRequest::path).noneMatch(p -> p.contains(marker));
    assertThat(origin.requestCount() - before).as("requests the origin recorded: " + recorded.stream()
        .skip(Math.max(0, recorded.size() - 5)).map(RecordedRequest::path).toList()).isEqualTo(1);
    assertThat(origin.lastRequest().path()).isEqualTo(barrier);
  }
}
