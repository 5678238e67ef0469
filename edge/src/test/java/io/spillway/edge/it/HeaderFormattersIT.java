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
}
