package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static io.spillway.edge.it.EdgeHarness.withHttpFilterBeforeRouter;
import static io.spillway.edge.it.CompressedBodies.gunzip;
import static io.spillway.edge.it.CompressedBodies.pattern;
import static io.spillway.edge.it.CompressedBodies.unbrotli;
import static org.assertj.core.api.Assertions.assertThat;

import com.aayushatharva.brotli4j.Brotli4jLoader;
import io.spillway.testkit.H2cClient;
import io.spillway.testkit.HeaderField;
import io.spillway.testkit.OriginServer;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.compressor with Envoy's Brotli library in a real edge started from an Envoy
 * bootstrap, a real origin and real clients on 127.0.0.1, over HTTP/1.1 and h2c: {@code br} for a
 * client that asks for it, a body that decodes to the origin's (streamed and large), and gzip
 * chosen over brotli when the client's q-values prefer it.
 */
class BrotliCompressorIT {

  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.compressor.v3.Compressor";
  private static final String BR = "http.ingress.compressor.text.br.";
  private static final String GZIP = "http.ingress.compressor.text.gzip.";

  private OriginServer upstream;
  private EdgeHarness edge;

  @BeforeAll
  static void decoderIsAvailable() {
    Brotli4jLoader.ensureAvailability();
  }

  @BeforeEach
  void start() throws Exception {
    upstream = OriginServer.start("upstream");
    String routes = """
        - match: { prefix: "/" }
          route: { cluster: upstream, timeout: 10s }
        """;
    String filters = """
        - name: gzip
          typed_config:
            "@type": %s
            response_direction_config:
              common_config:
                content_type: [text/plain, application/json, application/octet-stream]
            compressor_library:
              name: text
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.compression.gzip.compressor.v3.Gzip
        - name: brotli
          typed_config:
            "@type": %s
            response_direction_config:
              common_config:
                content_type: [text/plain, application/json, application/octet-stream]
            compressor_library:
              name: text
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.compression.brotli.compressor.v3.Brotli
                quality: 5
                encoder_mode: TEXT
                window_bits: 20
                chunk_size: 8192
        """.formatted(TYPE, TYPE);
    edge = EdgeHarness.start(withHttpFilterBeforeRouter(bootstrap(routes, cluster("upstream", "", upstream.port())),
        filters));
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    upstream.close();
  }

  private HttpResponse<byte[]> get(String path, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(edge.uri(path)).timeout(Duration.ofSeconds(20));
    if (headers.length > 0) {
      b.headers(headers);
    }
    return edge.http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }




  @Test
  void http1ClientsThatAcceptBrGetBrotli() throws Exception {
    HttpResponse<byte[]> r = get("/headers", "Accept-Encoding", "br");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-encoding")).hasValue("br");
    assertThat(r.headers().firstValue("content-length")).isEmpty();
    assertThat(r.headers().firstValue("vary")).hasValue("Accept-Encoding");
    String json = unbrotli(r.body());
    assertThat(json).contains("\"accept-encoding\":[\"br\"]").contains("\"path\":\"/headers\"");
    assertThat(edge.awaitStat(BR + "response.compressed", 1)).isEqualTo(1);
    assertThat(edge.awaitStat(BR + "header_compressor_used", 1)).isEqualTo(1);
    assertThat(edge.awaitStat(BR + "response.total_uncompressed_bytes", json.length())).isEqualTo(json.length());
    assertThat(edge.awaitStat(BR + "response.total_compressed_bytes", r.body().length)).isEqualTo(r.body().length);
    assertThat(edge.awaitStat(GZIP + "header_compressor_overshadowed", 1)).isEqualTo(1);

    HttpResponse<byte[]> streamed = get("/chunked?parts=4&delay=20", "Accept-Encoding", "br");
    assertThat(streamed.headers().firstValue("content-encoding")).hasValue("br");
    assertThat(unbrotli(streamed.body())).isEqualTo("part 1 of 4\npart 2 of 4\npart 3 of 4\npart 4 of 4\n");

    int size = 2 * 1024 * 1024 + 5;
    HttpResponse<byte[]> large = get("/bytes/" + size, "Accept-Encoding", "br");
    assertThat(large.headers().firstValue("content-encoding")).hasValue("br");
    assertThat(large.body().length).isLessThan(size / 10);
    assertThat(unbrotli(large.body())).isEqualTo(pattern(size));
  }

  @Test
  void http1ClientsThatPreferGzipGetGzip() throws Exception {
    HttpResponse<byte[]> r = get("/chunked?parts=3", "Accept-Encoding", "gzip;q=1, br;q=0.5");
    assertThat(r.headers().firstValue("content-encoding")).hasValue("gzip");
    assertThat(gunzip(r.body())).isEqualTo("part 1 of 3\npart 2 of 3\npart 3 of 3\n");
    assertThat(edge.awaitStat(GZIP + "response.compressed", 1)).isEqualTo(1);
    assertThat(edge.awaitStat(BR + "header_compressor_overshadowed", 1)).isEqualTo(1);
  }

  @Test
  void h2cClientsGetBrotliOrGzipByTheirPreference() throws Exception {
    try (H2cClient client = H2cClient.connect(edge.port())) {
      H2cClient.Response br = H2cClient.await(client.send("GET", "/chunked?parts=3",
          List.of(new HeaderField("accept-encoding", "br")), null));
      assertThat(br.status()).isEqualTo(200);
      assertThat(br.header("content-encoding")).isEqualTo("br");
      assertThat(br.header("content-length")).isNull();
      assertThat(unbrotli(br.body())).isEqualTo("part 1 of 3\npart 2 of 3\npart 3 of 3\n");

      H2cClient.Response large = H2cClient.await(client.send("GET", "/bytes/300000",
          List.of(new HeaderField("accept-encoding", "gzip;q=0.4, br")), null));
      assertThat(large.header("content-encoding")).isEqualTo("br");
      assertThat(unbrotli(large.body())).isEqualTo(pattern(300000));

      H2cClient.Response gz = H2cClient.await(client.send("GET", "/bytes/100000",
          List.of(new HeaderField("accept-encoding", "gzip;q=1, br;q=0.5")), null));
      assertThat(gz.header("content-encoding")).isEqualTo("gzip");
      assertThat(gunzip(gz.body())).isEqualTo(pattern(100000));
    }
    assertThat(edge.awaitStat(BR + "response.compressed", 2)).isEqualTo(2);
    assertThat(edge.awaitStat(GZIP + "response.compressed", 1)).isEqualTo(1);
  }
}
