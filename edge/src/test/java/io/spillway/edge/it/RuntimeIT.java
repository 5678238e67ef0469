package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RawHttp;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The layered runtime: its connection-limit keys on real sockets, /runtime, /runtime_modify and disk layers. */
class RuntimeIT {
  private static final String LISTENER_LIMIT = "envoy.resource_limits.listener.main.connection_limit";

  @TempDir
  Path dir;

  private OriginServer origin;
  private EdgeHarness edge;

  @BeforeEach
  void origin() {
    origin = OriginServer.start("origin");
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    origin.close();
  }

  private EdgeHarness start(String runtimeLayers) throws Exception {
    edge = EdgeHarness.start(bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", "", origin.port())) + "layered_runtime:\n  layers:\n" + runtimeLayers.indent(2));
    return edge;
  }

  private HttpResponse<String> admin(String method, String path) throws Exception {
    return edge.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.adminPort() + path))
        .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static int get(RawHttp.Connection c) throws Exception {
    return c.exchange("GET /a HTTP/1.1\r\nHost: x\r\n\r\n", Duration.ofSeconds(5)).status();
  }

  @Test
  void theListenersConnectionLimitComesFromTheRuntimeAndTheAdminLayerRaisesIt() throws Exception {
    start("""
        - name: static_layer_0
          static_layer:
            envoy: { resource_limits: { listener: { main: { connection_limit: 1 } } } }
        - name: admin_layer_0
          admin_layer: {}
        """);
    try (RawHttp.Connection a = RawHttp.connect(edge.port(), Duration.ofSeconds(5))) {
      assertThat(get(a)).isEqualTo(200);
      try (RawHttp.Connection b = RawHttp.connect(edge.port(), Duration.ofSeconds(5))) {
        assertThat(b.awaitClose(Duration.ofSeconds(5))).isTrue();
      }
      assertThat(edge.awaitStat("listener.127.0.0.1_0.downstream_cx_overflow", 1)).isEqualTo(1);

      HttpResponse<String> modified = admin("POST", "/runtime_modify?" + LISTENER_LIMIT + "=2");
      assertThat(modified.statusCode()).isEqualTo(200);
      try (RawHttp.Connection c = RawHttp.connect(edge.port(), Duration.ofSeconds(5))) {
        assertThat(get(c)).isEqualTo(200);
      }
    }
    HttpResponse<String> listing = admin("GET", "/runtime");
    assertThat(listing.body()).contains("\"static_layer_0\"", "\"admin_layer_0\"")
        .containsPattern("\"final_value\"\\s*:\\s*\"2\"");
    assertThat(edge.stat("runtime.admin_overrides_active")).isEqualTo(1);
    assertThat(edge.stat("listener.127.0.0.1_0.downstream_cx_overflow")).isEqualTo(1);
  }

  @Test
  void theDeprecatedGlobalKeyLimitsEveryListenerWhenNoMonitorIsConfigured() throws Exception {
    start("""
        - name: static_layer_0
          static_layer:
            overload: { global_downstream_max_connections: 1 }
        """);
    try (RawHttp.Connection a = RawHttp.connect(edge.port(), Duration.ofSeconds(5))) {
      assertThat(get(a)).isEqualTo(200);
      try (RawHttp.Connection b = RawHttp.connect(edge.port(), Duration.ofSeconds(5))) {
        assertThat(b.awaitClose(Duration.ofSeconds(5))).isTrue();
      }
      assertThat(edge.awaitStat("listener.127.0.0.1_0.downstream_global_cx_overflow", 1)).isEqualTo(1);
      // No admin layer: /runtime_modify has nowhere to write.
      assertThat(admin("POST", "/runtime_modify?a=b").statusCode()).isEqualTo(503);
    }
  }

  @Test
  void aDiskLayerIsReadAgainWhenItsLinkIsSwapped() throws Exception {
    Path v1 = Files.createDirectories(dir.resolve("v1/envoy/envoy/resource_limits/listener/main"));
    Files.writeString(v1.resolve("connection_limit"), "1\n");
    Path v2 = Files.createDirectories(dir.resolve("v2/envoy/envoy/resource_limits/listener/main"));
    Files.writeString(v2.resolve("connection_limit"), "# raised\n5\n");
    Path link = dir.resolve("current");
    Files.createSymbolicLink(link, dir.resolve("v1"));
    start("""
        - name: disk_layer_0
          disk_layer: { symlink_root: "%s", subdirectory: envoy }
        """.formatted(link));
    assertThat(edge.server().runtime().snapshot().getInteger(LISTENER_LIMIT, 0)).isEqualTo(1);

    Path next = dir.resolve("next");
    Files.createSymbolicLink(next, dir.resolve("v2"));
    Files.move(next, link, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);

    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (edge.server().runtime().snapshot().getInteger(LISTENER_LIMIT, 0) != 5 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(edge.server().runtime().snapshot().getInteger(LISTENER_LIMIT, 0)).isEqualTo(5);
    try (RawHttp.Connection a = RawHttp.connect(edge.port(), Duration.ofSeconds(5));
        RawHttp.Connection b = RawHttp.connect(edge.port(), Duration.ofSeconds(5))) {
      assertThat(get(a)).isEqualTo(200);
      assertThat(get(b)).isEqualTo(200);
    }
  }
}
