package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.H2cClient;
import io.spillway.testkit.HeaderField;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RawHttp;
import io.spillway.testkit.RecordedRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The request's fields as they cross between the protocols (RFC 9113 §8.2 and §8.3): what an
 * HTTP/1.1 origin sees of an HTTP/2 request, and what an HTTP/2 origin sees of an HTTP/1.1 one.
 */
class HeaderTranslationIT {

  private static final String H2_UPSTREAM = """
      typed_extension_protocol_options:
        envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
          "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
          explicit_http_config:
            http2_protocol_options: {}
      """;

  private OriginServer origin;
  private EdgeHarness edge;

  @BeforeEach
  void origin() {
    origin = OriginServer.start("origin");
  }

  @AfterEach
  void close() throws Exception {
    if (edge != null) {
      edge.close();
    }
    origin.close();
  }

  private EdgeHarness start(String clusterExtra) throws Exception {
    edge = EdgeHarness.start(bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", clusterExtra, origin.port())));
    return edge;
  }

  @Test
  void anHttp2RequestReachesAnHttp1OriginWithHostCookiesAndTeAsRfc9113Says() throws Exception {
    start("");
    try (H2cClient h2 = H2cClient.connect(edge.port())) {
      H2cClient.Response r = H2cClient.await(h2.send("POST", "/h2-to-h1", List.of(
          new HeaderField("cookie", "a=1"), new HeaderField("cookie", "b=2"),
          new HeaderField("te", "trailers"), new HeaderField("x-app", "v")),
          "hello".getBytes(StandardCharsets.US_ASCII)));
      assertThat(r.status()).isEqualTo(200);
    }
    RecordedRequest seen = origin.lastRequest();
    assertThat(seen.protocol()).isEqualTo("HTTP/1.1");
    // :authority becomes Host (RFC 9113 §8.3.1); cookie crumbs are joined with "; " (§8.2.3).
    assertThat(seen.authority()).isEqualTo("127.0.0.1:" + edge.port());
    assertThat(seen.headers("host")).hasSize(1);
    assertThat(seen.headers("cookie")).containsExactly("a=1; b=2");
    assertThat(seen.header("te")).isEqualTo("trailers");
    assertThat(seen.header("x-app")).isEqualTo("v");
    assertThat(seen.body()).isEqualTo("hello");
    assertThat(seen.headers()).noneMatch(f -> f.name().startsWith(":"));
  }

  @Test
  void anHttp1RequestReachesAnHttp2OriginWithoutConnectionSpecificFields() throws Exception {
    start(H2_UPSTREAM);
    String raw = "POST /h1-to-h2 HTTP/1.1\r\nHost: example.test\r\nConnection: keep-alive, x-hop\r\n"
        + "X-Hop: 1\r\nKeep-Alive: timeout=5\r\nTE: gzip\r\nUpgrade: websocket-not-really\r\n"
        + "Transfer-Encoding: chunked\r\nX-Mixed-Case: kept\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
    // Connection does not list "upgrade": Upgrade is just another hop-by-hop field (RFC 9110 §7.8).
    RawHttp.Response r = RawHttp.exchange(edge.port(), raw, Duration.ofSeconds(10));
    assertThat(r.status()).isEqualTo(200);
    RecordedRequest seen = origin.lastRequest();
    assertThat(seen.protocol()).isEqualTo("HTTP/2");
    // Host becomes :authority; connection-specific fields never reach an HTTP/2 peer (§8.2.2).
    assertThat(seen.authority()).isEqualTo("example.test");
    for (String name : List.of("connection", "x-hop", "keep-alive", "te", "transfer-encoding", "upgrade", "host")) {
      assertThat(seen.header(name)).as(name).isNull();
    }
    assertThat(seen.header("x-mixed-case")).isEqualTo("kept");
    assertThat(seen.headers()).allMatch(f -> f.name().equals(f.name().toLowerCase(java.util.Locale.ROOT)));
    assertThat(seen.body()).isEqualTo("hello");
  }
}
