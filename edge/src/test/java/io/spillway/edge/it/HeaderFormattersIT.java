package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RecordedRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Command operators in route-level header values, expanded per request as Envoy does. */
class HeaderFormattersIT {
  private OriginServer origin;
  private EdgeHarness edge;

  @BeforeEach
  void start() throws Exception {
    origin = OriginServer.start("origin");
    edge = EdgeHarness.start(bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: origin }
          request_headers_to_add:
          - header: { key: x-client-ip, value: "%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%" }
          - header: { key: x-echo, value: "%REQ(x-in)%-seen" }
          - header: { key: x-missing, value: "%REQ(x-absent)%" }
          - header: { key: x-kept, value: "%REQ(x-absent)%" }
            keep_empty_value: true
          - header: { key: x-share, value: "100%%" }
          response_headers_to_add:
          - header: { key: x-upstream, value: "%UPSTREAM_HOST%" }
          - header: { key: x-via, value: "edge %PROTOCOL% %RESP(x-origin)%" }
        """, cluster("origin", "", origin.port())));
  }

  @AfterEach
  void close() {
    edge.close();
    origin.close();
  }

  @Test
  void requestAndResponseValuesAreFormattedFromTheStream() throws Exception {
    HttpResponse<String> r = edge.get("/formatted", "x-in", "abc");

    assertThat(r.statusCode()).isEqualTo(200);
    RecordedRequest seen = origin.lastRequest();
    assertThat(seen.header("x-client-ip")).isEqualTo("127.0.0.1");
    assertThat(seen.header("x-echo")).isEqualTo("abc-seen");
    // An operator without a value gives "", and an empty value is dropped unless keep_empty_value.
    assertThat(seen.headers("x-missing")).isEmpty();
    assertThat(seen.headers("x-kept")).containsExactly("");
    assertThat(seen.header("x-share")).isEqualTo("100%");
    assertThat(r.headers().firstValue("x-upstream")).hasValue("127.0.0.1:" + origin.port());
    assertThat(r.headers().firstValue("x-via")).hasValue("edge HTTP/1.1 origin");
  }

  @Test
  void behindOneTrustedProxyTheClientIsTheAddressItForwarded() throws Exception {
    try (EdgeHarness behindProxy = EdgeHarness.start(bootstrap("use_remote_address: true\nxff_num_trusted_hops: 1", """
        - match: { prefix: "/" }
          route: { cluster: origin }
          request_headers_to_add:
          - header: { key: x-client-ip, value: "%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%" }
          - header: { key: x-peer-ip, value: "%DOWNSTREAM_DIRECT_REMOTE_ADDRESS_WITHOUT_PORT%" }
        """, cluster("origin", "", origin.port())))) {
      assertThat(behindProxy.get("/", "x-forwarded-for", "203.0.113.9, 198.51.100.7", "x-forwarded-proto", "https")
          .statusCode()).isEqualTo(200);
      RecordedRequest seen = origin.lastRequest();
      assertThat(seen.header("x-client-ip")).isEqualTo("198.51.100.7");
      assertThat(seen.header("x-peer-ip")).isEqualTo("127.0.0.1");
      assertThat(seen.header("x-forwarded-for")).isEqualTo("203.0.113.9, 198.51.100.7,127.0.0.1");
      assertThat(seen.header("x-forwarded-proto")).as("set by the trusted proxy").isEqualTo("https");

      // Without x-forwarded-for the trusted proxy said nothing: the peer is the client.
      assertThat(behindProxy.get("/").statusCode()).isEqualTo(200);
      assertThat(origin.lastRequest().header("x-client-ip")).isEqualTo("127.0.0.1");
      assertThat(origin.lastRequest().header("x-forwarded-proto")).isEqualTo("http");
    }
  }
}
