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
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hostile and broken input against the packaged edge, over raw sockets (RFC 9112 §2.2, §5, §6.3,
 * §7.1, §11.2; RFC 9113 §6.5.2, §10.5.1). Each case asserts the status, whether the connection
 * closed, and that the origin never received the request: after the hostile exchange a
 * well-formed "barrier" request goes through the edge, and the origin must have recorded exactly
 * that one request since, and nothing whose path carries the hostile request's marker.
 *
 * <p>Three listeners: {@code strict} (request_headers_timeout 1s, bodies streamed), {@code idle}
 * (idle_timeout 1s) and {@code buffered} (buffer filter, max_request_bytes 64 KiB).
 */
class HostileInputE2E {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final int BUFFER_LIMIT = 64 * 1024;

  @TempDir
  static Path dir;

  private static OriginServer origin;
  private static EdgeProcess edge;
  private static AdminClient admin;
  private static int strictPort;
  private static int idlePort;
  private static int bufferedPort;
  private static int legacyPort;
  private static final AtomicInteger barriers = new AtomicInteger();

  @BeforeAll
  static void start() {
    origin = OriginServer.start("hostile-origin");
    int[] ports = FreePorts.pick(5);
    strictPort = ports[0];
    idlePort = ports[1];
    bufferedPort = ports[2];
    legacyPort = ports[4];
    String routes = """
        - match: { prefix: "/" }
          route: { cluster: backend }
        """;
    Path bootstrap = BootstrapYaml.withAdmin(ports[3])
        .listener(BootstrapYaml.Listener.named("strict", strictPort).routes(routes)
            .hcmOptions("request_headers_timeout: 1s"))
        .listener(BootstrapYaml.Listener.named("idle", idlePort).routes(routes)
            .hcmOptions("common_http_protocol_options: { idle_timeout: 1s }"))
        .listener(BootstrapYaml.Listener.named("buffered", bufferedPort).routes(routes).httpFilters("""
            - name: envoy.filters.http.buffer
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.filters.http.buffer.v3.Buffer
                max_request_bytes: %d
            """.formatted(BUFFER_LIMIT)))
        .listener(BootstrapYaml.Listener.named("legacy", legacyPort).routes(routes)
            .hcmOptions("http_protocol_options: { accept_http_10: true, default_host_for_http_10: legacy.example }"))
        .staticCluster("backend", "", origin.port())
        .writeTo(dir, "hostile.yaml");
    edge = EdgeProcess.start(bootstrap, ports[3], "--concurrency", "2");
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

  // ---- malformed HTTP/1 → 400 and close -------------------------------------------------------

  @Test
  void malformedRequestLine() {
    long protocolErrors = admin.stat("http.strict.downstream_cx_protocol_error");

    assertRejected(strictPort, "GET /hostile/request-line HTTP/1.1 trailing-garbage\r\nHost: a\r\n\r\n",
        400, "request-line");

    assertThat(admin.stat("http.strict.downstream_cx_protocol_error") - protocolErrors).isEqualTo(1);
  }

  @Test
  void http10IsAnswered426AsInEnvoyUnlessAccepted() {
    long protocolErrors = admin.stat("http.strict.downstream_cx_protocol_error");
    RawHttp.Response refused = assertRejected(strictPort, "GET /hostile/http10 HTTP/1.0\r\nHost: a\r\n\r\n", 426, "http10");
    assertThat(refused.bodyText()).isEqualTo("Upgrade Required");
    assertThat(admin.stat("http.strict.downstream_cx_protocol_error") - protocolErrors).isEqualTo(1);

    // accept_http_10: served, and a request without Host takes default_host_for_http_10.
    RawHttp.Response served = RawHttp.exchange(legacyPort, "GET /legacy/http10 HTTP/1.0\r\n\r\n", TIMEOUT);
    assertThat(served.status()).as(served.toString()).isEqualTo(200);
    assertThat(origin.lastRequest().path()).isEqualTo("/legacy/http10");
    assertThat(origin.lastRequest().header("host")).isEqualTo("legacy.example");
  }

  @Test
  void requestLineWithoutVersion() {
    assertRejected(strictPort, "GET /hostile/no-version\r\nHost: a\r\n\r\n", 400, "no-version");
  }

  @ParameterizedTest
  @ValueSource(strings = {"Bad Name", "Bad(Name)", "Bad\"Name", "Bad/Name", "Bad@Name", "Bäd"})
  void invalidHeaderNameCharacters(String name) {
    assertRejected(strictPort, "GET /hostile/header-name HTTP/1.1\r\nHost: a\r\n" + name + ": x\r\n\r\n",
        400, "header-name");
  }

  @Test
  void headerValueWithBareCarriageReturn() {
    assertRejected(strictPort, "GET /hostile/bare-cr HTTP/1.1\r\nHost: a\r\nX-Value: a\rb\r\n\r\n", 400, "bare-cr");
  }

  @Test
  void headerValueWithNul() {
    assertRejected(strictPort, "GET /hostile/nul HTTP/1.1\r\nHost: a\r\nX-Value: a\0b\r\n\r\n", 400, "nul");
  }

  @Test
  void contentLengthWithTransferEncoding() {
    assertRejected(strictPort, "POST /hostile/cl-te HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
        + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 400, "cl-te");
  }

  @Test
  void twoDifferentContentLengths() {
    assertRejected(strictPort, "POST /hostile/two-cl HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
        + "Content-Length: 6\r\n\r\nhello!", 400, "two-cl");
  }

  @Test
  void invalidChunkSizeIsNeverAnsweredWith2xx() {
    // The head is valid, so a streaming listener may already have forwarded it; the body never
    // completes at the origin, and the downstream connection must end.
    assertRejected(strictPort, "POST /hostile/chunk-size HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "zz\r\nhello\r\n0\r\n\r\n", 400, "chunk-size");
  }

  // ---- limits → 431 / 413 ----------------------------------------------------------------------

  @Test
  void headerOver60KiB() {
    String big = "a".repeat(70 * 1024);
    assertRejected(strictPort, "GET /hostile/big-header HTTP/1.1\r\nHost: a\r\nX-Big: " + big + "\r\n\r\n",
        431, "big-header");
  }

  @Test
  void moreThan100Headers() {
    // Envoy's HTTP/1 codec treats a header count over max_headers_count as a protocol error, as it
    // does an over-size header block: 431, then the connection closes.
    // Host plus 99 more is exactly the limit of 100 and passes.
    RawHttp.Response atLimit = RawHttp.exchange(strictPort,
        "GET /hostile/100-headers HTTP/1.1\r\nHost: a\r\n" + headers(99) + "\r\n", TIMEOUT);
    assertThat(atLimit.status()).as(atLimit.toString()).isEqualTo(200);

    assertRejected(strictPort, "GET /hostile/101-headers HTTP/1.1\r\nHost: a\r\n" + headers(100) + "\r\n",
        431, "101-headers");
  }

  @Test
  void requestLineOver60KiB() {
    // The request line counts against max_request_headers_kb as in Envoy: 431, not 414.
    String path = "/hostile/long-line/" + "p".repeat(70 * 1024);
    assertRejected(strictPort, "GET " + path + " HTTP/1.1\r\nHost: a\r\n\r\n", 431, "long-line");
  }

  @Test
  void declaredBodyOverTheBufferLimitIs413WithoutReadingIt() {
    long tooLarge = admin.stat("http.buffered.downstream_rq_too_large");
    // Only the head is sent: the edge must answer from Content-Length alone.
    assertRejected(bufferedPort, "POST /hostile/declared-too-big HTTP/1.1\r\nHost: a\r\nContent-Length: 1048576\r\n\r\n",
        413, "declared-too-big");
    assertThat(admin.stat("http.buffered.downstream_rq_too_large") - tooLarge).isEqualTo(1);
  }

  @Test
  void chunkedBodyOverTheBufferLimitIs413AndNeverForwarded() {
    StringBuilder request = new StringBuilder("POST /hostile/chunked-too-big HTTP/1.1\r\nHost: a\r\n"
        + "Transfer-Encoding: chunked\r\n\r\n");
    String chunk = "c".repeat(8 * 1024);
    for (int i = 0; i < 10; i++) { // 80 KiB > 64 KiB
      request.append(Integer.toHexString(chunk.length())).append("\r\n").append(chunk).append("\r\n");
    }
    request.append("0\r\n\r\n");
    assertRejected(bufferedPort, request.toString(), 413, "chunked-too-big");
  }

  @Test
  void bodyAtTheBufferLimitIsForwarded() {
    RawHttp.Response response = RawHttp.exchange(bufferedPort, "POST /hostile-ok/drain HTTP/1.1\r\nHost: a\r\n"
        + "Content-Length: " + BUFFER_LIMIT + "\r\n\r\n" + "d".repeat(BUFFER_LIMIT), TIMEOUT);

    assertThat(response.status()).as(response.toString()).isEqualTo(200);
    assertThat(response.header("x-received-bytes")).isEqualTo(Integer.toString(BUFFER_LIMIT));
  }

  // ---- HTTP/2 ----------------------------------------------------------------------------------

  @Test
  void http2HeaderBlockOverTheLimit() throws Exception {
    // RFC 9113 §10.5.1: a 431 response, or a stream (RST_STREAM) or connection (GOAWAY) error.
    int before = origin.requestCount();
    int followUps = 0;
    try (H2Probe probe = H2Probe.connect(strictPort)) {
      CompletableFuture<H2Probe.Exchange> exchange = probe.request("GET", "/hostile/h2-big-header",
          Map.of("x-big", "a".repeat(70 * 1024)));
      H2Probe.Exchange result;
      try {
        result = exchange.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        assertThat(probe.goAway().isDone())
            .as("the stream failed (" + e.getCause() + ") without 431 or RST_STREAM, so the connection must"
                + " have been sent GOAWAY").isTrue();
        result = null;
      }
      if (result != null) {
        assertThat(result.status() == 431 || (result.reset() && result.status() == 0))
            .as("431, or RST_STREAM before any response: " + result).isTrue();
      }
      if (result != null && !probe.goAway().isDone()) {
        // Only the stream failed: the connection still serves.
        H2Probe.Exchange next = probe.request("GET", "/hostile-ok/after-h2-big", Map.of())
            .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(next.status()).isEqualTo(200);
        followUps++;
      }
    }
    assertOriginUntouched(before + followUps, "h2-big-header");
  }

  // ---- timeouts --------------------------------------------------------------------------------

  @Test
  void slowClientIsCutByTheRequestHeadersTimeout() {
    int before = origin.requestCount();
    long headerTimeouts = admin.stat("http.strict.downstream_rq_header_timeout");
    String request = "GET /hostile/slow HTTP/1.1\r\nHost: a\r\n\r\n"; // ~8 s at 1 byte per 200 ms
    try (RawHttp.Connection connection = RawHttp.connect(strictPort, TIMEOUT)) {
      boolean allSent = connection.sendSlowly(request, 1, Duration.ofMillis(200));

      assertThat(allSent).as("the edge closed before the slow request head was complete").isFalse();
      RawHttp.Response response = connection.readResponse(TIMEOUT);
      assertThat(response.status()).as("no response, or 408: " + response).isIn(-1, 408);
      assertThat(response.closed()).isTrue();
    }
    assertThat(admin.stat("http.strict.downstream_rq_header_timeout") - headerTimeouts).isEqualTo(1);
    assertOriginUntouched(before, "slow");
  }

  @Test
  void idleKeepAliveConnectionIsClosedAfterIdleTimeout() {
    long idleTimeouts = admin.stat("http.idle.downstream_cx_idle_timeout");
    try (RawHttp.Connection connection = RawHttp.connect(idlePort, TIMEOUT)) {
      RawHttp.Response first = connection.exchange("GET /hostile-ok/idle-1 HTTP/1.1\r\nHost: a\r\n\r\n", TIMEOUT);
      RawHttp.Response second = connection.exchange("GET /hostile-ok/idle-2 HTTP/1.1\r\nHost: a\r\n\r\n", TIMEOUT);
      assertThat(first.status()).isEqualTo(200);
      assertThat(second.status()).as("the connection is kept alive between requests").isEqualTo(200);
      assertThat(second.closed()).isFalse();

      assertThat(connection.awaitClose(Duration.ofSeconds(10))).as("closed by the 1 s idle timeout").isTrue();
    }
    assertThat(admin.stat("http.idle.downstream_cx_idle_timeout") - idleTimeouts).isEqualTo(1);
  }

  // ---- request smuggling -----------------------------------------------------------------------

  @Test
  void smugglingWithContentLengthAndChunked() {
    String smuggled = "GET /hostile/smuggled-clte HTTP/1.1\r\nHost: a\r\n\r\n";
    String body = "0\r\n\r\n" + smuggled;
    assertRejected(strictPort, "POST /hostile/smuggle-clte HTTP/1.1\r\nHost: a\r\nContent-Length: " + body.length()
        + "\r\nTransfer-Encoding: chunked\r\n\r\n" + body, 400, "smuggle");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity",
      "Transfer-Encoding: chunked, identity",
      "Transfer-Encoding: xchunked",
      "Transfer-Encoding : chunked",
      "Transfer-Encoding:\r\n chunked"})
  void smugglingWithObfuscatedTransferEncoding(String transferEncoding) {
    String smuggled = "GET /hostile/smuggled-te HTTP/1.1\r\nHost: a\r\n\r\n";
    assertRejected(strictPort, "POST /hostile/smuggle-te HTTP/1.1\r\nHost: a\r\n" + transferEncoding + "\r\n\r\n"
        + "0\r\n\r\n" + smuggled, 400, "smuggle");
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /**
   * Sends {@code raw} on a new connection and asserts the edge answered {@code status} and closed
   * the connection, and that the origin never saw the request.
   */
  private static RawHttp.Response assertRejected(int port, String raw, int status, String marker) {
    int before = origin.requestCount();
    RawHttp.Response response;
    boolean closed;
    try (RawHttp.Connection connection = RawHttp.connect(port, TIMEOUT)) {
      response = connection.exchange(raw, TIMEOUT);
      closed = response.closed() || connection.awaitClose(Duration.ofSeconds(5));
    }
    assertThat(response.status()).as(response + " " + response.bodyText()).isEqualTo(status);
    assertThat(closed).as("the edge closed the connection after " + response).isTrue();
    assertOriginUntouched(before, marker);
    return response;
  }

  /**
   * Sends a well-formed request through the edge and asserts that it is the only request the
   * origin recorded since {@code before}, and that no recorded request carries {@code marker}.
   */
  private static void assertOriginUntouched(int before, String marker) {
    String barrier = "/barrier/" + barriers.incrementAndGet();
    RawHttp.Response response = RawHttp.exchange(strictPort, "GET " + barrier + " HTTP/1.1\r\nHost: a\r\n\r\n", TIMEOUT);
    assertThat(response.status()).as("the edge still serves after hostile input: " + response).isEqualTo(200);
    List<RecordedRequest> recorded = origin.requests();
    assertThat(recorded).extracting(RecordedRequest::path).noneMatch(p -> p.contains(marker));
    assertThat(origin.requestCount() - before).as("requests the origin recorded: " + recorded.stream()
        .skip(Math.max(0, recorded.size() - 5)).map(RecordedRequest::path).toList()).isEqualTo(1);
    assertThat(origin.lastRequest().path()).isEqualTo(barrier);
  }

  private static String headers(int count) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < count; i++) {
      out.append("X-H").append(i).append(": v\r\n");
    }
    return out.toString();
  }
}
