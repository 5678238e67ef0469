package io.spillway.edge.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.EdgeProcess;
import io.spillway.testkit.FreePorts;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RecordedRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged edge with real clients: the JDK HttpClient (HTTP/1.1 in clear, HTTP/2 and HTTP/1.1
 * over TLS with ALPN), curl (HTTP/1.1, h2c prior knowledge, h2 over TLS) and h2load. One edge with
 * a cleartext listener (codec AUTO) and a TLS listener in front of one origin.
 */
class ProtocolsE2E {

  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  @TempDir
  static Path dir;

  private static OriginServer origin;
  private static EdgeProcess edge;
  private static int plainPort;
  private static int tlsPort;
  private static TestTls tls;

  @BeforeAll
  static void start() throws Exception {
    tls = TestTls.selfSigned(dir);

    origin = OriginServer.start("protocols-origin");
    int[] ports = FreePorts.pick(3);
    plainPort = ports[0];
    tlsPort = ports[1];
    String routes = """
        - match: { prefix: "/" }
          route: { cluster: backend }
        """;
    Path bootstrap = BootstrapYaml.withAdmin(ports[2])
        .listener(BootstrapYaml.Listener.named("plain", plainPort).routes(routes))
        .listener(BootstrapYaml.Listener.named("tls", tlsPort).routes(routes).transportSocket(tls.transportSocket()))
        .staticCluster("backend", "", origin.port())
        .writeTo(dir, "protocols.yaml");
    edge = EdgeProcess.start(bootstrap, ports[2], "--concurrency", "2");
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

  @Test
  void jdkClientGetOverHttp11() throws Exception {
    try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      HttpResponse<String> response = client.send(HttpRequest.newBuilder(plain("/jdk/get?x=1")).timeout(TIMEOUT)
          .header("x-test", "jdk-get").build(), HttpResponse.BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
      assertThat(response.body()).isEqualTo("protocols-origin GET /jdk/get?x=1\n");
      assertThat(response.headers().firstValue("x-origin")).hasValue("protocols-origin");
      RecordedRequest seen = lastRequestWithHeader("x-test", "jdk-get");
      assertThat(seen.method()).isEqualTo("GET");
      assertThat(seen.path()).isEqualTo("/jdk/get?x=1");
      assertThat(seen.header("x-forwarded-proto")).isEqualTo("http");
    }
  }

  @Test
  void jdkClientPostOverHttp11() throws Exception {
    byte[] body = new byte[200 * 1024];
    for (int i = 0; i < body.length; i++) {
      body[i] = (byte) ('A' + i % 23);
    }
    try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(plain("/jdk/echo")).timeout(TIMEOUT)
          .header("x-test", "jdk-post").POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
          HttpResponse.BodyHandlers.ofByteArray());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(Arrays.equals(response.body(), body)).as("echoed body equals the 200 KiB sent").isTrue();
      RecordedRequest seen = lastRequestWithHeader("x-test", "jdk-post");
      assertThat(seen.method()).isEqualTo("POST");
      assertThat(seen.bodyLength()).isEqualTo(body.length);
    }
  }

  @Test
  void curlOverHttp11() {
    CommandLineTool curl = CommandLineTool.require("curl", "curl");
    CommandLineTool.Result result = curl.run(TIMEOUT, "-sS", "--http1.1", "-H", "x-test: curl-h1",
        "-w", "\n%{http_code} %{http_version}", "http://127.0.0.1:" + plainPort + "/curl/h1");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.stdout()).isEqualTo("protocols-origin GET /curl/h1\n\n200 1.1");
    assertThat(lastRequestWithHeader("x-test", "curl-h1").path()).isEqualTo("/curl/h1");
  }

  @Test
  void curlOverH2cWithPriorKnowledge() {
    CommandLineTool curl = CommandLineTool.require("curl", "curl");
    CommandLineTool.Result result = curl.run(TIMEOUT, "-sS", "--http2-prior-knowledge", "-H", "x-test: curl-h2c",
        "-w", "\n%{http_code} %{http_version}", "http://127.0.0.1:" + plainPort + "/curl/h2c");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.stdout()).isEqualTo("protocols-origin GET /curl/h2c\n\n200 2");
    assertThat(lastRequestWithHeader("x-test", "curl-h2c").path()).isEqualTo("/curl/h2c");
  }

  @Test
  void h2loadBoundedRunAllSucceed() {
    CommandLineTool h2load = CommandLineTool.require("h2load", "nghttp2-client");
    int before = origin.requestCount();

    CommandLineTool.Result result = h2load.run(Duration.ofSeconds(120), "-n", "2000", "-c", "4", "-m", "10",
        "http://127.0.0.1:" + plainPort + "/h2load");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    Matcher requests = Pattern.compile("requests: (\\d+) total, (\\d+) started, (\\d+) done, (\\d+) succeeded, "
        + "(\\d+) failed, (\\d+) errored, (\\d+) timeout").matcher(result.stdout());
    assertThat(requests.find()).as("h2load summary line in:\n" + result.stdout()).isTrue();
    assertThat(requests.group(1)).isEqualTo("2000");
    assertThat(requests.group(4)).as("succeeded").isEqualTo("2000");
    assertThat(requests.group(5)).as("failed").isEqualTo("0");
    assertThat(requests.group(6)).as("errored").isEqualTo("0");
    assertThat(requests.group(7)).as("timeout").isEqualTo("0");
    assertThat(result.stdout()).contains("status codes: 2000 2xx, 0 3xx, 0 4xx, 0 5xx");
    assertThat(origin.requestCount() - before).isEqualTo(2000);
  }

  @Test
  void tlsNegotiatesHttp2WithAlpn() throws Exception {
    try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
        .sslContext(tls.trustingClient()).build()) {
      HttpResponse<String> response = client.send(HttpRequest.newBuilder(tls("/tls/h2")).timeout(TIMEOUT)
          .header("x-test", "tls-h2").build(), HttpResponse.BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
      assertThat(response.body()).isEqualTo("protocols-origin GET /tls/h2\n");
      assertThat(lastRequestWithHeader("x-test", "tls-h2").header("x-forwarded-proto")).isEqualTo("https");
    }
  }

  @Test
  void tlsServesHttp11WhenTheClientAsksForIt() throws Exception {
    try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .sslContext(tls.trustingClient()).build()) {
      HttpResponse<String> response = client.send(HttpRequest.newBuilder(tls("/tls/h1")).timeout(TIMEOUT)
          .header("x-test", "tls-h1").build(), HttpResponse.BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
      assertThat(response.body()).isEqualTo("protocols-origin GET /tls/h1\n");
      assertThat(lastRequestWithHeader("x-test", "tls-h1").header("x-forwarded-proto")).isEqualTo("https");
    }
  }

  @Test
  void curlOverTlsNegotiatesHttp2() {
    CommandLineTool curl = CommandLineTool.require("curl", "curl");
    CommandLineTool.Result result = curl.run(TIMEOUT, "-sS", "--http2", "--cacert", tls.certificate().toString(),
        "-H", "x-test: curl-tls", "-w", "\n%{http_code} %{http_version}", "https://127.0.0.1:" + tlsPort + "/curl/tls");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.stdout()).isEqualTo("protocols-origin GET /curl/tls\n\n200 2");
    assertThat(lastRequestWithHeader("x-test", "curl-tls").header("x-forwarded-proto")).isEqualTo("https");
  }

  private static URI plain(String path) {
    return URI.create("http://127.0.0.1:" + plainPort + path);
  }

  private static URI tls(String path) {
    return URI.create("https://127.0.0.1:" + tlsPort + path);
  }

  /** The most recent request the origin recorded with this header value (tests share the origin). */
  private static RecordedRequest lastRequestWithHeader(String name, String value) {
    var requests = origin.requests();
    for (int i = requests.size() - 1; i >= 0; i--) {
      if (value.equals(requests.get(i).header(name))) {
        return requests.get(i);
      }
    }
    throw new AssertionError("the origin recorded no request with " + name + ": " + value);
  }
}
