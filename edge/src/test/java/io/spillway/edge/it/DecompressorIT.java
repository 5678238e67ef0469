package io.spillway.edge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.spillway.testkit.OriginServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.decompressor in a real edge on 127.0.0.1: a gzip request body reaching a real
 * origin decoded (and Accept-Encoding advertised by both entries), a brotli one by the chain's second entry, gzip responses from a second origin decoded for
 * the client, {@code Cache-Control: no-transform} left alone, and decompression bombs both ways
 * stopped at max_inflate_ratio (400 for a request, a reset for a response) with the stats.
 */
class DecompressorIT {

  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.decompressor.v3.Decompressor";
  private static final String PREFIX = "http.ingress.decompressor.basic.gzip.";
  /** Numbered lines: about 5:1 in gzip, well within Envoy's default ratio of 100. */
  private static final String TEXT = text();

  private OriginServer upstream;
  private HttpServer gzipOrigin;
  private EdgeHarness edge;

  @BeforeEach
  void start() throws Exception {
    upstream = OriginServer.start("upstream");
    gzipOrigin = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    byte[] text = gzip(TEXT.getBytes(StandardCharsets.UTF_8));
    byte[] bomb = gzip(new byte[16 << 20]);
    gzipOrigin.createContext("/gz/text", ex -> respond(ex, text, null));
    gzipOrigin.createContext("/gz/no-transform", ex -> respond(ex, text, "no-transform"));
    gzipOrigin.createContext("/gz/bomb", ex -> respond(ex, bomb, null));
    gzipOrigin.start();
    String routes = """
        - match: { prefix: "/gz" }
          route: { cluster: gzip_origin, timeout: 10s }
        - match: { prefix: "/" }
          route: { cluster: upstream, timeout: 10s }
        """;
    String clusters = EdgeHarness.cluster("upstream", "", upstream.port()) + "\n"
        + EdgeHarness.cluster("gzip_origin", "", gzipOrigin.getAddress().getPort());
    edge = EdgeHarness.start(EdgeHarness.withHttpFilterBeforeRouter(EdgeHarness.bootstrap(routes, clusters), """
        - name: envoy.filters.http.decompressor
          typed_config:
            "@type": %s
            decompressor_library:
              name: basic
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.compression.gzip.decompressor.v3.Gzip
        - name: brotli_decompressor
          typed_config:
            "@type": %s
            decompressor_library:
              name: br_lib
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.compression.brotli.decompressor.v3.Brotli
        """.formatted(TYPE, TYPE)));
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    gzipOrigin.stop(0);
    upstream.close();
  }

  private static String text() {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 5000; i++) {
      b.append("line ").append(i * 7919 % 10007).append('\n');
    }
    return b.toString();
  }

  private static void respond(com.sun.net.httpserver.HttpExchange ex, byte[] body, String cacheControl)
      throws IOException {
    ex.getRequestBody().readAllBytes();
    ex.getResponseHeaders().set("content-encoding", "gzip");
    ex.getResponseHeaders().set("content-type", "text/plain");
    if (cacheControl != null) {
      ex.getResponseHeaders().set("cache-control", cacheControl);
    }
    ex.sendResponseHeaders(200, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  private static byte[] gzip(byte[] data) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(data);
    }
    return out.toByteArray();
  }

  private HttpResponse<byte[]> post(String path, byte[] body) throws Exception {
    return edge.http.send(HttpRequest.newBuilder(edge.uri(path)).timeout(Duration.ofSeconds(20))
        .header("content-encoding", "gzip").POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  private HttpResponse<byte[]> get(String path) throws Exception {
    return edge.http.send(HttpRequest.newBuilder(edge.uri(path)).timeout(Duration.ofSeconds(20)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  @Test
  void aGzipRequestBodyReachesTheOriginDecoded() throws Exception {
    byte[] body = gzip(TEXT.getBytes(StandardCharsets.UTF_8));
    HttpResponse<byte[]> response = post("/upload", body);
    assertThat(response.statusCode()).isEqualTo(200);
    var seen = upstream.lastRequest();
    assertThat(seen.body()).isEqualTo(TEXT);
    assertThat(seen.header("content-encoding")).isNull();
    assertThat(seen.header("content-length")).isNull();
    assertThat(seen.header("accept-encoding")).isEqualTo("gzip,br");
    assertThat(edge.stat(PREFIX + "request.decompressed")).isEqualTo(1);
    assertThat(edge.stat(PREFIX + "request.total_compressed_bytes")).isEqualTo(body.length);
    assertThat(edge.stat(PREFIX + "request.total_uncompressed_bytes")).isEqualTo(TEXT.length());
  }

  @Test
  void aBrotliRequestBodyIsDecodedByItsOwnEntry() throws Exception {
    byte[] body = com.aayushatharva.brotli4j.encoder.Encoder.compress(TEXT.getBytes(StandardCharsets.UTF_8));
    HttpResponse<byte[]> response = edge.http.send(HttpRequest.newBuilder(edge.uri("/upload"))
        .timeout(Duration.ofSeconds(20)).header("content-encoding", "br")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(upstream.lastRequest().body()).isEqualTo(TEXT);
    assertThat(upstream.lastRequest().header("content-encoding")).isNull();
    assertThat(edge.stat("http.ingress.decompressor.br_lib.br.request.decompressed")).isEqualTo(1);
    assertThat(edge.stat(PREFIX + "request.not_decompressed")).isEqualTo(1);
  }

  @Test
  void aGzipResponseIsDecodedForTheClientUnlessNoTransform() throws Exception {
    HttpResponse<byte[]> decoded = get("/gz/text");
    assertThat(decoded.statusCode()).isEqualTo(200);
    assertThat(new String(decoded.body(), StandardCharsets.UTF_8)).isEqualTo(TEXT);
    assertThat(decoded.headers().firstValue("content-encoding")).isEmpty();
    assertThat(edge.awaitStat(PREFIX + "response.decompressed", 1)).isEqualTo(1);

    HttpResponse<byte[]> untouched = get("/gz/no-transform");
    assertThat(untouched.headers().firstValue("content-encoding")).contains("gzip");
    assertThat(untouched.body()).isEqualTo(gzip(TEXT.getBytes(StandardCharsets.UTF_8)));
    assertThat(edge.awaitStat(PREFIX + "response.not_decompressed", 1)).isEqualTo(1);
  }

  @Test
  void bombsAreStoppedAtTheInflateRatio() throws Exception {
    byte[] bomb = gzip(new byte[16 << 20]);
    HttpResponse<byte[]> refused = post("/upload", bomb);
    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(new String(refused.body(), StandardCharsets.UTF_8)).isEqualTo("request body could not be decompressed");
    assertThat(edge.stat(PREFIX + "decompressor_library.zlib_data_error")).isEqualTo(1);

    // A new connection: the edge closes the one whose request it refused before reading all of it.
    // POST: the JDK client may retry a GET whose connection was reset, which would count twice.
    java.net.http.HttpClient fresh = java.net.http.HttpClient.newBuilder()
        .version(java.net.http.HttpClient.Version.HTTP_1_1).build();
    assertThatThrownBy(() -> fresh.send(HttpRequest.newBuilder(edge.uri("/gz/bomb"))
        .timeout(Duration.ofSeconds(20)).POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofByteArray())).isInstanceOf(IOException.class);
    assertThat(edge.awaitStat(PREFIX + "decompressor_library.zlib_data_error", 2)).isEqualTo(2);
    // The edge goes on serving.
    assertThat(fresh.send(HttpRequest.newBuilder(edge.uri("/gz/text")).timeout(Duration.ofSeconds(20)).build(),
        HttpResponse.BodyHandlers.ofByteArray()).statusCode()).isEqualTo(200);
  }
}
