package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.H2cClient;
import io.spillway.testkit.HeaderField;
import io.spillway.testkit.OriginServer;
import java.net.ServerSocket;
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
 * {@code local_reply_config} in a real edge on 127.0.0.1 with a real origin, over HTTP/1.1 and
 * h2c: the no-route 404, the router's 503 for a cluster nobody listens on, and the RBAC filter's
 * 403 are rewritten by their mappers and the body format; the origin's own responses are not; the
 * access log and the stats see the mapped status; a gRPC call gets the rewritten reply as a
 * trailers-only answer.
 */
class LocalReplyIT {

  private static final String RBAC = "type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC";

  @TempDir
  Path dir;
  private Path accessLog;
  private OriginServer origin;
  private EdgeHarness edge;

  @BeforeEach
  void start() throws Exception {
    origin = OriginServer.start("origin");
    int deadPort;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      deadPort = s.getLocalPort(); // closed again before the edge starts: connections are refused
    }
    accessLog = dir.resolve("access.log");
    String hcm = """
        access_log:
        - name: envoy.access_loggers.file
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog
            path: %s
            log_format:
              text_format_source: {inline_string: "%%REQ(:PATH)%% %%RESPONSE_CODE%% %%RESPONSE_FLAGS%%\\n"}
        local_reply_config:
          mappers:
          - filter: {status_code_filter: {comparison: {op: EQ, value: {default_value: 404}}}}
            headers_to_add:
            - header: {key: x-original-status, value: "%%RESPONSE_CODE%%"}
            body: {inline_string: "nothing here"}
            body_format_override:
              json_format: {code: "%%RESPONSE_CODE%%", message: "%%LOCAL_REPLY_BODY%%", path: "%%REQ(:PATH)%%"}
          - filter: {response_flag_filter: {flags: [UF]}}
            status_code: 502
            body: {inline_string: "backend unreachable"}
          - filter: {status_code_filter: {comparison: {op: EQ, value: {default_value: 403}}}}
            headers_to_add:
            - header: {key: x-denied-by, value: rbac}
          body_format:
            text_format_source: {inline_string: "[%%RESPONSE_CODE%%] %%LOCAL_REPLY_BODY%%"}
        """.formatted(accessLog);
    String routes = """
        - match: { prefix: "/api" }
          route: { cluster: origin, timeout: 10s }
        - match: { prefix: "/down" }
          route: { cluster: dead, timeout: 10s }
        - match: { prefix: "/private" }
          route: { cluster: origin, timeout: 10s }
        """;
    String rbac = """
        - name: envoy.filters.http.rbac
          typed_config:
            "@type": %s
            rules:
              action: DENY
              policies:
                private:
                  permissions: [ { url_path: { path: { prefix: /private } } } ]
                  principals: [ { any: true } ]
        """.formatted(RBAC);
    edge = EdgeHarness.start(EdgeHarness.withHttpFilterBeforeRouter(EdgeHarness.bootstrap(hcm, routes,
        cluster("origin", "", origin.port()) + "\n" + cluster("dead", "", deadPort)), rbac));
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    origin.close();
  }

  @Test
  void overHttp1TheEdgesOwnRepliesAreRewrittenAndTheOriginsAreNot() throws Exception {
    HttpResponse<String> noRoute = edge.get("/nope?x=1");
    assertThat(noRoute.statusCode()).isEqualTo(404);
    assertThat(noRoute.headers().firstValue("content-type")).contains("application/json");
    assertThat(noRoute.headers().firstValue("x-original-status")).contains("404");
    assertThat(noRoute.body()).isEqualTo("{\"code\":404,\"message\":\"nothing here\",\"path\":\"/nope?x=1\"}\n");

    HttpResponse<String> down = edge.get("/down");
    assertThat(down.statusCode()).isEqualTo(502);
    assertThat(down.headers().firstValue("content-type")).contains("text/plain");
    assertThat(down.body()).isEqualTo("[502] backend unreachable");

    HttpResponse<String> denied = edge.get("/private/x");
    assertThat(denied.statusCode()).isEqualTo(403);
    assertThat(denied.headers().firstValue("x-denied-by")).contains("rbac");
    assertThat(denied.body()).isEqualTo("[403] RBAC: access denied");

    HttpResponse<String> fromOrigin = edge.get("/api/items");
    assertThat(fromOrigin.statusCode()).isEqualTo(200);
    assertThat(fromOrigin.body()).isEqualTo("origin GET /api/items\n");
    assertThat(origin.requestCount()).isEqualTo(1);

    // The mapped status is what was sent, counted and logged, as in Envoy.
    assertThat(edge.awaitStat("http.ingress.downstream_rq_5xx", 1)).isEqualTo(1);
    assertThat(edge.stat("http.ingress.downstream_rq_4xx")).isEqualTo(2);
    assertThat(awaitLogLines(4)).contains("/nope?x=1 404 NR", "/down 502 UF", "/private/x 403 -", "/api/items 200 -");
  }

  @Test
  void overH2cTheSameRepliesAreRewrittenAndAGrpcCallGetsThemTrailersOnly() throws Exception {
    try (H2cClient client = H2cClient.connect(edge.port())) {
      H2cClient.Response noRoute = client.get("/nope");
      assertThat(noRoute.status()).isEqualTo(404);
      assertThat(noRoute.header("content-type")).isEqualTo("application/json");
      assertThat(noRoute.bodyText()).isEqualTo("{\"code\":404,\"message\":\"nothing here\",\"path\":\"/nope\"}\n");

      H2cClient.Response down = client.get("/down");
      assertThat(down.status()).isEqualTo(502);
      assertThat(down.bodyText()).isEqualTo("[502] backend unreachable");

      H2cClient.Response denied = client.get("/private/y");
      assertThat(denied.status()).isEqualTo(403);
      assertThat(denied.header("x-denied-by")).isEqualTo("rbac");
      assertThat(denied.bodyText()).isEqualTo("[403] RBAC: access denied");

      List<HeaderField> grpc = List.of(new HeaderField("content-type", "application/grpc"),
          new HeaderField("te", "trailers"));
      H2cClient.Response grpcDown = H2cClient.await(client.send("POST", "/down/pkg.Svc/Call", grpc, new byte[5]));
      assertThat(grpcDown.status()).isEqualTo(200);
      assertThat(grpcDown.header("content-type")).isEqualTo("application/grpc");
      assertThat(grpcDown.header("grpc-status")).as("502 maps to UNAVAILABLE").isEqualTo("14");
      assertThat(grpcDown.header("grpc-message")).isEqualTo("[502] backend unreachable");
      assertThat(grpcDown.body()).isEmpty();

      H2cClient.Response grpcNoRoute = H2cClient.await(client.send("POST", "/nope/pkg.Svc/Call", grpc, new byte[5]));
      assertThat(grpcNoRoute.header("grpc-status")).as("404 maps to UNIMPLEMENTED").isEqualTo("12");
      assertThat(grpcNoRoute.header("grpc-message"))
          .isEqualTo("{\"code\":404,\"message\":\"nothing here\",\"path\":\"/nope/pkg.Svc/Call\"}");

      H2cClient.Response fromOrigin = client.get("/api/h2");
      assertThat(fromOrigin.status()).isEqualTo(200);
      assertThat(fromOrigin.bodyText()).isEqualTo("origin GET /api/h2\n");
    }
    assertThat(origin.requestCount()).isEqualTo(1);
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
