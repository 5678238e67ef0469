package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.H2cClient;
import io.spillway.testkit.HeaderField;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RecordedRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * envoy.filters.http.header_to_metadata in a real edge in front of a real origin on 127.0.0.1,
 * over HTTP/1.1 and h2c: request headers become dynamic metadata that the file access log prints
 * ({@code %DYNAMIC_METADATA%}) and a route's {@code request_headers_to_add} reads; a header with
 * {@code remove: true} never reaches the origin; a response rule writes metadata from the origin's
 * header and removes it before the client.
 */
class HeaderToMetadataIT {

  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.header_to_metadata.v3.Config";

  @TempDir
  Path dir;
  private Path accessLog;
  private OriginServer origin;
  private EdgeHarness edge;

  @BeforeEach
  void start() throws Exception {
    origin = OriginServer.builder().name("origin").responseHeader("x-upstream-tier", "gold").start();
    accessLog = dir.resolve("access.log");
    String hcm = """
        access_log:
        - name: envoy.access_loggers.file
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog
            path: LOGFILE
            log_format:
              text_format_source:
                inline_string: "%REQ(:PATH)% %PROTOCOL% tenant=%DYNAMIC_METADATA(acme:tenant)% weight=%DYNAMIC_METADATA(acme:weight)% tier=%DYNAMIC_METADATA(acme:tier)% all=%DYNAMIC_METADATA(acme)%\\n"
        """.replace("LOGFILE", accessLog.toString());
    String routes = """
        - match: { prefix: "/" }
          route: { cluster: origin, timeout: 10s }
          request_headers_to_add:
          - header: { key: x-tenant-seen, value: "%DYNAMIC_METADATA(acme:tenant)%" }
        """;
    String filter = """
        - name: envoy.filters.http.header_to_metadata
          typed_config:
            "@type": %s
            request_rules:
            - header: x-tenant
              on_header_present: { metadata_namespace: acme, key: tenant }
              on_header_missing: { metadata_namespace: acme, key: tenant, value: none }
              remove: true
            - header: x-weight
              on_header_present: { metadata_namespace: acme, key: weight, type: NUMBER }
            response_rules:
            - header: x-upstream-tier
              on_header_present: { metadata_namespace: acme, key: tier }
              remove: true
        """.formatted(TYPE);
    edge = EdgeHarness.start(EdgeHarness.withHttpFilterBeforeRouter(
        EdgeHarness.bootstrap(hcm, routes, cluster("origin", "", origin.port())), filter));
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    origin.close();
  }

  @Test
  void headersBecomeMetadataInTheAccessLogAndRemovedOnesNeverReachTheOrigin() throws Exception {
    HttpResponse<String> h1 = edge.get("/h1", "x-tenant", "t1", "x-weight", "3");
    assertThat(h1.statusCode()).isEqualTo(200);
    assertThat(h1.headers().firstValue("x-upstream-tier")).as("removed by the response rule").isEmpty();
    RecordedRequest seen = origin.lastRequest();
    assertThat(seen.headers("x-tenant")).as("remove: true").isEmpty();
    assertThat(seen.header("x-weight")).as("kept without remove").isEqualTo("3");
    assertThat(seen.header("x-tenant-seen")).as("request_headers_to_add reads the metadata").isEqualTo("t1");

    try (H2cClient client = H2cClient.connect(edge.port())) {
      H2cClient.Response h2 = H2cClient.await(client.send("GET", "/h2",
          List.of(new HeaderField("x-tenant", "t2")), new byte[0]));
      assertThat(h2.status()).isEqualTo(200);
      assertThat(h2.header("x-upstream-tier")).isNull();
    }
    RecordedRequest seenH2 = origin.lastRequest();
    assertThat(seenH2.isHttp2()).isFalse(); // the cluster speaks HTTP/1.1 to the origin
    assertThat(seenH2.headers("x-tenant")).isEmpty();
    assertThat(seenH2.header("x-tenant-seen")).isEqualTo("t2");

    HttpResponse<String> missing = edge.get("/missing");
    assertThat(missing.statusCode()).isEqualTo(200);
    assertThat(origin.lastRequest().header("x-tenant-seen")).isEqualTo("none");

    assertThat(awaitLogLines(3)).containsExactlyInAnyOrder(
        "/h1 HTTP/1.1 tenant=t1 weight=3 tier=gold all={\"tenant\":\"t1\",\"tier\":\"gold\",\"weight\":3}",
        "/h2 HTTP/2 tenant=t2 weight=- tier=gold all={\"tenant\":\"t2\",\"tier\":\"gold\"}",
        "/missing HTTP/1.1 tenant=none weight=- tier=gold all={\"tenant\":\"none\",\"tier\":\"gold\"}");
  }

  /** The access log's lines once it holds {@code count} (written every flush interval, Envoy's 10 s). */
  private List<String> awaitLogLines(int count) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(25);
    List<String> lines = new ArrayList<>();
    while (System.nanoTime() < deadline) {
      lines = Files.exists(accessLog) ? Files.readAllLines(accessLog) : List.of();
      if (lines.size() >= count) {
        return lines;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("expected " + count + " access log lines, got " + lines);
  }
}
