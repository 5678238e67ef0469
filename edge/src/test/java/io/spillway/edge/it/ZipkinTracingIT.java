package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RecordedRequest;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Zipkin tracing with the real edge, a real backend and a Zipkin collector stub (a JDK HttpServer
 * on 127.0.0.1 that records the JSON POSTed to /api/v2/spans and answers 202): the context the
 * backend receives, the spans the collector receives, and that 0 % sampling sends nothing.
 */
class ZipkinTracingIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  private OriginServer backend;
  private HttpServer collector;
  private final BlockingQueue<CollectorPost> posts = new LinkedBlockingQueue<>();
  private EdgeHarness edge;

  /** One POST the collector received. */
  record CollectorPost(String path, String host, String contentType, JsonNode spans) {}

  @BeforeEach
  void start() throws Exception {
    backend = OriginServer.start("backend");
    collector = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    collector.createContext("/api/v2/spans", exchange -> {
      byte[] body = exchange.getRequestBody().readAllBytes();
      posts.add(new CollectorPost(exchange.getRequestURI().getPath(), exchange.getRequestHeaders().getFirst("Host"),
          exchange.getRequestHeaders().getFirst("Content-Type"), JSON.readTree(new String(body, StandardCharsets.UTF_8))));
      exchange.sendResponseHeaders(202, -1);
      exchange.close();
    });
    collector.start();
  }

  @AfterEach
  void stop() {
    if (edge != null) {
      edge.close();
    }
    collector.stop(0);
    backend.close();
  }

  private EdgeHarness startEdge(String tracingFields) throws Exception {
    String yaml = """
        node: { id: edge-it, cluster: front-proxy, locality: { zone: zone-1 } }
        layered_runtime:
          layers:
          - name: static
            static_layer: { tracing.zipkin.flush_interval_ms: 50 }
        """ + bootstrap("""
        tracing:
        %s
          provider:
            name: envoy.tracers.zipkin
            typed_config:
              "@type": type.googleapis.com/envoy.config.trace.v3.ZipkinConfig
              collector_cluster: zipkin
              collector_endpoint: /api/v2/spans
              collector_endpoint_version: HTTP_JSON
              collector_hostname: zipkin.local
        """.formatted(tracingFields.stripIndent().indent(2).stripTrailing()), """
        - match: { prefix: "/" }
          route: { cluster: backend, timeout: 10s }
          decorator: { operation: checkout }
        """, cluster("backend", "", backend.port()) + "\n"
        + cluster("zipkin", "", collector.getAddress().getPort()));
    edge = EdgeHarness.start(yaml);
    return edge;
  }

  /** Spans the collector received until {@code count} arrived or 10 s passed. */
  private List<JsonNode> spans(int count) throws InterruptedException {
    List<JsonNode> spans = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (spans.size() < count && System.nanoTime() < deadline) {
      CollectorPost post = posts.poll(100, TimeUnit.MILLISECONDS);
      if (post != null) {
        assertThat(post.path()).isEqualTo("/api/v2/spans");
        assertThat(post.host()).isEqualTo("zipkin.local");
        assertThat(post.contentType()).isEqualTo("application/json");
        post.spans().forEach(spans::add);
      }
    }
    return spans;
  }

  private static JsonNode ofKind(List<JsonNode> spans, String kind) {
    return spans.stream().filter(s -> s.get("kind").asText().equals(kind)).findFirst().orElseThrow();
  }

  @Test
  void anIncomingB3TraceIsContinuedUpstreamAndReported() throws Exception {
    startEdge("spawn_upstream_span: true");
    HttpResponse<String> r = edge.get("/cart?item=7", "x-b3-traceid", "463ac35c9f6413ad",
        "x-b3-spanid", "a2fb4a1d1a96d312", "x-b3-sampled", "1", "user-agent", "it-client");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("x-envoy-decorator-operation")).hasValue("checkout");

    RecordedRequest upstream = backend.lastRequest();
    assertThat(upstream.header("x-b3-traceid")).isEqualTo("463ac35c9f6413ad");
    assertThat(upstream.header("x-b3-sampled")).isEqualTo("1");
    // The try's CLIENT span is new; its parent is the SERVER span, which shares the caller's id.
    String tryId = upstream.header("x-b3-spanid");
    assertThat(tryId).hasSize(16).isNotEqualTo("a2fb4a1d1a96d312");
    assertThat(upstream.header("x-b3-parentspanid")).isEqualTo("a2fb4a1d1a96d312");

    List<JsonNode> spans = spans(2);
    assertThat(spans).hasSize(2);
    JsonNode server = ofKind(spans, "SERVER");
    assertThat(server.get("name").asText()).isEqualTo("checkout");
    assertThat(server.get("traceId").asText()).isEqualTo("463ac35c9f6413ad");
    assertThat(server.get("id").asText()).isEqualTo("a2fb4a1d1a96d312");
    assertThat(server.get("shared").asBoolean()).isTrue();
    assertThat(server.get("localEndpoint").get("serviceName").asText()).isEqualTo("front-proxy");
    JsonNode tags = server.get("tags");
    assertThat(tags.get("http.method").asText()).isEqualTo("GET");
    assertThat(tags.get("http.url").asText()).isEqualTo("http://127.0.0.1:" + edge.port() + "/cart?item=7");
    assertThat(tags.get("http.status_code").asText()).isEqualTo("200");
    assertThat(tags.get("http.protocol").asText()).isEqualTo("HTTP/1.1");
    assertThat(tags.get("upstream_cluster").asText()).isEqualTo("backend");
    assertThat(tags.get("response_flags").asText()).isEqualTo("-");
    assertThat(tags.get("component").asText()).isEqualTo("proxy");
    assertThat(tags.get("node_id").asText()).isEqualTo("edge-it");
    assertThat(tags.get("zone").asText()).isEqualTo("zone-1");
    assertThat(tags.get("guid:x-request-id").asText()).isEqualTo(upstream.header("x-request-id"));
    assertThat(tags.get("user_agent").asText()).isEqualTo("it-client");
    assertThat(tags.get("peer.address").asText()).isEqualTo("127.0.0.1");
    assertThat(tags.get("downstream_cluster").asText()).isEqualTo("-");
    assertThat(tags.has("request_size")).isTrue();
    assertThat(tags.has("response_size")).isTrue();
    assertThat(tags.has("error")).isFalse();

    JsonNode client = ofKind(spans, "CLIENT");
    assertThat(client.get("name").asText()).isEqualTo("router backend egress");
    assertThat(client.get("id").asText()).isEqualTo(tryId);
    assertThat(client.get("parentId").asText()).isEqualTo("a2fb4a1d1a96d312");
    assertThat(client.get("tags").get("upstream_address").asText()).isEqualTo("127.0.0.1:" + backend.port());

    assertThat(edge.awaitStat("tracing.zipkin.spans_sent", 2)).isEqualTo(2);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (edge.stat("tracing.zipkin.reports_sent") == 0 && System.nanoTime() < deadline) {
      Thread.sleep(5); // the reporter counts the 202 after the collector has read the spans
    }
    assertThat(edge.stat("tracing.zipkin.reports_sent")).isPositive();
    assertThat(edge.stat("tracing.zipkin.reports_failed")).isZero();
  }

  @Test
  void aRequestWithoutContextStartsATrace() throws Exception {
    startEdge("");
    assertThat(edge.get("/new").statusCode()).isEqualTo(200);
    RecordedRequest upstream = backend.lastRequest();
    String traceId = upstream.header("x-b3-traceid");
    assertThat(traceId).hasSize(16);
    assertThat(upstream.header("x-b3-spanid")).isEqualTo(traceId); // a root span: its id is the trace's
    assertThat(upstream.header("x-b3-parentspanid")).isNull();
    assertThat(upstream.header("x-b3-sampled")).isEqualTo("1");
    assertThat(upstream.header("x-request-id").charAt(14)).as("Envoy's sampled mark").isEqualTo('9');
    List<JsonNode> spans = spans(1);
    assertThat(spans).hasSize(1);
    assertThat(spans.get(0).get("traceId").asText()).isEqualTo(traceId);
    assertThat(spans.get(0).has("parentId")).isFalse();
    assertThat(edge.awaitStat("http.ingress.tracing.random_sampling", 1)).isEqualTo(1);
  }

  @Test
  void zeroPercentSamplingSendsNothing() throws Exception {
    startEdge("random_sampling: { value: 0 }");
    for (int i = 0; i < 3; i++) {
      assertThat(edge.get("/quiet").statusCode()).isEqualTo(200);
    }
    assertThat(backend.lastRequest().header("x-b3-sampled")).isEqualTo("0");
    // The reporter's timer has run several times since: had anything been queued, it was sent.
    long flushed = edge.stat("tracing.zipkin.timer_flushed");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (edge.stat("tracing.zipkin.timer_flushed") < flushed + 3 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(edge.stat("tracing.zipkin.timer_flushed")).isGreaterThanOrEqualTo(flushed + 3);
    assertThat(posts).isEmpty();
    assertThat(edge.stat("tracing.zipkin.spans_sent")).isZero();
    assertThat(edge.stat("http.ingress.tracing.not_traceable")).isEqualTo(3);
  }
}
