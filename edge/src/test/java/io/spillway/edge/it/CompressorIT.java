package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static io.spillway.edge.it.EdgeHarness.withHttpFilterBeforeRouter;
import static io.spillway.edge.it.CompressedBodies.gunzip;
import static io.spillway.edge.it.CompressedBodies.pattern;
import static io.spillway.edge.it.CompressedBodies.unzstd;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.H2cClient;
import io.spillway.testkit.HeaderField;
import io.spillway.testkit.OriginServer;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.compressor in a real edge started from an Envoy bootstrap, a real origin and
 * real clients on 127.0.0.1, over HTTP/1.1 and h2c: gzip and zstd compressors in one chain chosen
 * by Accept-Encoding, streamed and large bodies decoded by the client, what is left alone (no
 * Accept-Encoding, short bodies, a route that turns compression off), request bodies sent
 * upstream compressed, and the stats in Envoy's names.
 */
class CompressorIT {

  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.compressor.v3.Compressor";
  private static final String GZIP = "http.ingress.compressor.text.gzip.";

  private OriginServer upstream;
  private EdgeHarness edge;

  @BeforeEach
  void start() throws Exception {
    upstream = OriginServer.start("upstream");
    String routes = """
        - match: { prefix: "/plain/" }
          route: { cluster: upstream, timeout: 10s, prefix_rewrite: "/" }
          typed_per_filter_config:
            gzip:
              "@type": type.googleapis.com/envoy.extensions.filters.http.compressor.v3.CompressorPerRoute
              disabled: true
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
            request_direction_config:
              common_config:
                content_type: [application/json]
            compressor_library:
              name: text
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.compression.gzip.compressor.v3.Gzip
                compression_level: BEST_SPEED
        - name: zstd
          typed_config:
            "@type": %s
            compressor_library:
              name: text
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.compression.zstd.compressor.v3.Zstd
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
  void http1ResponsesAreGzippedForAClientThatAcceptsGzip() throws Exception {
    HttpResponse<byte[]> r = get("/headers", "Accept-Encoding", "gzip");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-encoding")).hasValue("gzip");
    assertThat(r.headers().firstValue("content-length")).isEmpty();
    assertThat(r.headers().firstValue("vary")).hasValue("Accept-Encoding");
    String json = gunzip(r.body());
    assertThat(json).contains("\"accept-encoding\":[\"gzip\"]").contains("\"path\":\"/headers\"");
    assertThat(edge.awaitStat(GZIP + "response.compressed", 1)).isEqualTo(1);
    assertThat(edge.awaitStat(GZIP + "header_compressor_used", 1)).isEqualTo(1);
    assertThat(edge.awaitStat(GZIP + "response.total_uncompressed_bytes", json.length())).isEqualTo(json.length());
    assertThat(edge.awaitStat(GZIP + "response.total_compressed_bytes", r.body().length))
        .isEqualTo(r.body().length);
    assertThat(edge.awaitStat("http.ingress.compressor.text.zstd.header_compressor_overshadowed", 1)).isEqualTo(1);
  }

  @Test
  void aStreamedResponseIsCompressedPartByPart() throws Exception {
    HttpResponse<byte[]> r = get("/chunked?parts=4&delay=20", "Accept-Encoding", "gzip");
    assertThat(r.headers().firstValue("content-encoding")).hasValue("gzip");
    assertThat(gunzip(r.body())).isEqualTo("part 1 of 4\npart 2 of 4\npart 3 of 4\npart 4 of 4\n");
  }

  @Test
  void aLargeBodyRoundTrips() throws Exception {
    int size = 3 * 1024 * 1024 + 17;
    HttpResponse<byte[]> r = get("/bytes/" + size, "Accept-Encoding", "deflate, gzip;q=0.8");
    assertThat(r.headers().firstValue("content-encoding")).hasValue("gzip");
    assertThat(r.body().length).isLessThan(size / 10);
    assertThat(gunzip(r.body())).isEqualTo(pattern(size));
    assertThat(edge.awaitStat(GZIP + "response.total_uncompressed_bytes", size)).isEqualTo(size);
  }

  @Test
  void zstdIsChosenWhenTheClientPrefersIt() throws Exception {
    HttpResponse<byte[]> r = get("/chunked?parts=3", "Accept-Encoding", "gzip;q=0.5, zstd");
    assertThat(r.headers().firstValue("content-encoding")).hasValue("zstd");
    assertThat(unzstd(r.body())).isEqualTo("part 1 of 3\npart 2 of 3\npart 3 of 3\n");
    assertThat(edge.awaitStat("http.ingress.compressor.text.zstd.compressed", 1)).isEqualTo(1);
    assertThat(edge.awaitStat(GZIP + "header_compressor_overshadowed", 1)).isEqualTo(1);
  }

  @Test
  void whatIsNotToBeCompressedPassesAsItIs() throws Exception {
    HttpResponse<byte[]> none = get("/chunked?parts=2");
    assertThat(none.headers().firstValue("content-encoding")).isEmpty();
    assertThat(none.headers().firstValue("vary")).hasValue("Accept-Encoding");
    assertThat(new String(none.body(), StandardCharsets.UTF_8)).isEqualTo("part 1 of 2\npart 2 of 2\n");
    assertThat(edge.awaitStat(GZIP + "no_accept_header", 1)).isEqualTo(1);

    HttpResponse<byte[]> shortOne = get("/hello", "Accept-Encoding", "gzip"); // "upstream GET /hello\n"
    assertThat(shortOne.headers().firstValue("content-encoding")).isEmpty();
    assertThat(shortOne.headers().firstValue("content-length")).hasValue("20");
    assertThat(edge.awaitStat(GZIP + "response.content_length_too_small", 1)).isEqualTo(1);

    HttpResponse<byte[]> off = get("/plain/chunked?parts=2", "Accept-Encoding", "gzip");
    assertThat(off.headers().firstValue("content-encoding")).isEmpty();
    assertThat(new String(off.body(), StandardCharsets.UTF_8)).isEqualTo("part 1 of 2\npart 2 of 2\n");
  }

  @Test
  void requestBodiesGoUpstreamCompressed() throws Exception {
    String json = "{\"items\":[" + "{\"name\":\"spillway\",\"kind\":\"edge\"},".repeat(200) + "{}]}";
    HttpRequest request = HttpRequest.newBuilder(edge.uri("/echo")).timeout(Duration.ofSeconds(20))
        .header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json)).build();
    HttpResponse<byte[]> r = edge.http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).isEqualTo(200);
    // The origin echoes what it received: the gzip stream (the client sent no Accept-Encoding, so
    // the response is not compressed a second time).
    assertThat(gunzip(r.body())).isEqualTo(json);
    assertThat(upstream.lastRequest().header("content-encoding")).isEqualTo("gzip");
    assertThat(upstream.lastRequest().header("content-length")).isNull();
    assertThat(edge.awaitStat(GZIP + "request.compressed", 1)).isEqualTo(1);
    assertThat(edge.awaitStat(GZIP + "request.total_uncompressed_bytes", json.length())).isEqualTo(json.length());

    HttpRequest text = HttpRequest.newBuilder(edge.uri("/echo")).timeout(Duration.ofSeconds(20))
        .header("content-type", "text/plain")
        .POST(HttpRequest.BodyPublishers.ofString(json)).build();
    HttpResponse<String> plain = edge.http.send(text, HttpResponse.BodyHandlers.ofString());
    assertThat(plain.body()).as("text/plain is not in the request direction's list").isEqualTo(json);
  }

  @Test
  void h2cResponsesAreCompressedToo() throws Exception {
    try (H2cClient client = H2cClient.connect(edge.port())) {
      H2cClient.Response r = H2cClient.await(client.send("GET", "/chunked?parts=3",
          List.of(new HeaderField("accept-encoding", "gzip")), null));
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.header("content-encoding")).isEqualTo("gzip");
      assertThat(r.header("content-length")).isNull();
      assertThat(r.header("vary")).isEqualTo("Accept-Encoding");
      assertThat(gunzip(r.body())).isEqualTo("part 1 of 3\npart 2 of 3\npart 3 of 3\n");

      H2cClient.Response z = H2cClient.await(client.send("GET", "/bytes/100000",
          List.of(new HeaderField("accept-encoding", "zstd")), null));
      // application/octet-stream is only in the gzip filter's list: zstd does not take it.
      assertThat(z.header("content-encoding")).isNull();
      assertThat(z.bodyLength()).isEqualTo(100000);

      H2cClient.Response g = H2cClient.await(client.send("GET", "/bytes/100000",
          List.of(new HeaderField("accept-encoding", "zstd, gzip;q=0.1")), null));
      assertThat(g.header("content-encoding")).isEqualTo("gzip");
      assertThat(gunzip(g.body())).isEqualTo(pattern(100000));
    }
  }
}
