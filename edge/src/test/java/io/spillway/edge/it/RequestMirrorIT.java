package io.spillway.edge.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.FreePorts;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RecordedRequest;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A route's request_mirror_policies in a real edge on 127.0.0.1: the origin behind the mirror
 * cluster gets a copy of each request, body included, with Envoy's {@code -shadow} authority; the
 * mirror's response is dropped and counted under its cluster; a mirror that is down, or one that
 * accepts and never answers, changes nothing for the request it copies, and the silent one's copy
 * ends at the route timeout.
 */
class RequestMirrorIT {

  private OriginServer upstream;
  private OriginServer mirror;
  /** Accepts connections (the kernel's backlog) and never reads or answers. */
  private ServerSocket silent;
  private EdgeHarness edge;

  @BeforeEach
  void start() throws Exception {
    upstream = OriginServer.start("upstream");
    mirror = OriginServer.start("mirror");
    silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    int down = FreePorts.pick();
    String routes = """
        - match: { prefix: "/mirrored" }
          route:
            cluster: upstream
            timeout: 10s
            request_mirror_policies:
            - cluster: mirror
        - match: { prefix: "/by-header" }
          route:
            cluster: upstream
            timeout: 10s
            request_mirror_policies:
            - cluster_header: x-mirror-cluster
              disable_shadow_host_suffix_append: true
        - match: { prefix: "/down" }
          route:
            cluster: upstream
            timeout: 10s
            request_mirror_policies: [{ cluster: down }]
        - match: { prefix: "/silent" }
          route:
            cluster: upstream
            timeout: 2s
            request_mirror_policies: [{ cluster: silent }]
        """;
    String clusters = EdgeHarness.cluster("upstream", "", upstream.port()) + "\n"
        + EdgeHarness.cluster("mirror", "", mirror.port()) + "\n"
        + EdgeHarness.cluster("down", "", down) + "\n"
        + EdgeHarness.cluster("silent", "", silent.getLocalPort());
    edge = EdgeHarness.start(EdgeHarness.bootstrap(routes, clusters));
  }

  @AfterEach
  void close() throws Exception {
    if (edge != null) {
      edge.close();
    }
    silent.close();
    mirror.close();
    upstream.close();
  }

  private HttpResponse<String> post(String path, String body, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(edge.uri(path)).timeout(Duration.ofSeconds(20))
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (headers.length > 0) {
      b.headers(headers);
    }
    return edge.http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theMirrorGetsACopyWithTheShadowAuthority() throws Exception {
    String body = "x".repeat(100_000);
    HttpResponse<String> response = post("/mirrored/items?q=1", body, "x-custom", "kept");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("x-origin")).contains("upstream");

    mirror.awaitRequestCount(1, Duration.ofSeconds(5));
    RecordedRequest copy = mirror.lastRequest();
    assertThat(copy.method()).isEqualTo("POST");
    assertThat(copy.path()).isEqualTo("/mirrored/items?q=1");
    assertThat(copy.authority()).isEqualTo("127.0.0.1-shadow:" + edge.uri("/").getPort());
    assertThat(copy.header("x-custom")).isEqualTo("kept");
    assertThat(copy.bodyLength()).isEqualTo(body.length());
    assertThat(upstream.lastRequest().authority()).isEqualTo("127.0.0.1:" + edge.uri("/").getPort());
    assertThat(edge.awaitStat("cluster.mirror.upstream_rq_2xx", 1)).isEqualTo(1);
    assertThat(edge.stat("cluster.mirror.upstream_rq_total")).isEqualTo(1);
    assertThat(edge.stat("cluster.upstream.upstream_rq_total")).isEqualTo(1);
  }

  @Test
  void theClusterHeaderChoosesTheMirror() throws Exception {
    assertThat(post("/by-header", "a", "x-mirror-cluster", "mirror").statusCode()).isEqualTo(200);
    mirror.awaitRequestCount(1, Duration.ofSeconds(5));
    assertThat(mirror.lastRequest().authority()).isEqualTo("127.0.0.1:" + edge.uri("/").getPort());
    // No header, or a cluster the edge does not have: no copy.
    assertThat(post("/by-header", "b").statusCode()).isEqualTo(200);
    assertThat(post("/by-header", "c", "x-mirror-cluster", "nowhere").statusCode()).isEqualTo(200);
    assertThat(edge.stat("cluster.mirror.upstream_rq_total")).isEqualTo(1);
  }

  @Test
  void aMirrorThatIsDownOrSilentChangesNothingForTheRequest() throws Exception {
    HttpResponse<String> down = post("/down", "payload");
    assertThat(down.statusCode()).isEqualTo(200);
    assertThat(down.body()).isEqualTo("upstream POST /down\n");
    assertThat(edge.awaitStat("cluster.down.upstream_cx_connect_fail", 1)).isEqualTo(1);

    long started = System.nanoTime();
    HttpResponse<String> silentOne = post("/silent", "y".repeat(300_000));
    assertThat(silentOne.statusCode()).isEqualTo(200);
    assertThat(silentOne.body()).isEqualTo("upstream POST /silent\n");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
    // The copy ends at the route timeout; the edge goes on.
    assertThat(edge.awaitStat("cluster.silent.upstream_rq_timeout", 1)).isEqualTo(1);
    assertThat(post("/silent", "again").statusCode()).isEqualTo(200);
    assertThat(upstream.requestCount()).isEqualTo(3);
  }

  @Test
  void aCopyThatFallsBehindByMoreThanTheBufferLimitIsAbandoned() throws Exception {
    String routes = """
        - match: { prefix: "/" }
          route:
            cluster: upstream
            timeout: 30s
            request_mirror_policies: [{ cluster: silent }]
        """;
    String yaml = EdgeHarness.bootstrap(routes, EdgeHarness.cluster("upstream", "", upstream.port()) + "\n"
        + EdgeHarness.cluster("silent", "", silent.getLocalPort()));
    // The listener's own field, at the indentation of its address (the line after its name).
    int addressLine = yaml.indexOf('\n', yaml.indexOf("- name: main")) + 1;
    int addressEnd = yaml.indexOf('\n', addressLine) + 1;
    String pad = yaml.substring(addressLine, yaml.indexOf("address:", addressLine));
    yaml = yaml.substring(0, addressEnd) + pad + "per_connection_buffer_limit_bytes: 65536\n" + yaml.substring(addressEnd);
    try (EdgeHarness small = EdgeHarness.start(yaml)) {
      // Far more than the kernel's socket buffers and the mirror connection's write buffer take in.
      byte[] body = new byte[48 << 20];
      HttpResponse<String> response = small.http.send(HttpRequest.newBuilder(small.uri("/big"))
          .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(upstream.lastRequest().bodyLength()).isEqualTo(body.length);
      // The copy was made and abandoned (before or after its connection was up), long before the
      // route timeout would have ended it.
      assertThat(small.stat("cluster.silent.upstream_rq_total")).isEqualTo(1);
      assertThat(small.awaitStat("cluster.silent.upstream_rq_active", 0)).isZero();
      assertThat(small.stat("cluster.silent.upstream_rq_completed")).isEqualTo(1);
      assertThat(small.stat("cluster.silent.upstream_rq_timeout")).isZero();
    }
  }
}
