package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RecordedRequest;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * envoy.tracers.opentelemetry over OTLP/HTTP with the real edge, a backend and an OTLP collector
 * stub (a JDK HttpServer on 127.0.0.1 that decodes the protobuf POSTed to /v1/traces): W3C
 * traceparent continued upstream, the SERVER span with the decorator's name and Envoy's tags, and
 * the resource's service.name.
 */
class OtlpTracingIT {

  private OriginServer backend;
  private HttpServer collector;
  private final BlockingQueue<ExportTraceServiceRequest> exports = new LinkedBlockingQueue<>();
  private EdgeHarness edge;

  @BeforeEach
  void start() throws Exception {
    backend = OriginServer.start("backend");
    collector = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    collector.createContext("/v1/traces", exchange -> {
      exports.add(ExportTraceServiceRequest.parseFrom(exchange.getRequestBody().readAllBytes()));
      byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
      exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
      exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
      if (answer.length > 0) {
        exchange.getResponseBody().write(answer);
      }
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

  @Test
  void aTraceparentIsContinuedAndTheSpanExportedOverOtlpHttp() throws Exception {
    edge = EdgeHarness.start("""
        layered_runtime:
          layers:
          - name: static
            static_layer: { tracing.opentelemetry.flush_interval_ms: 50 }
        """ + bootstrap("""
        tracing:
          provider:
            name: envoy.tracers.opentelemetry
            typed_config:
              "@type": type.googleapis.com/envoy.config.trace.v3.OpenTelemetryConfig
              service_name: edge-it
              http_service:
                http_uri: { uri: "http://otel/v1/traces", cluster: otel, timeout: 2s }
        """, """
        - match: { prefix: "/" }
          route: { cluster: backend, timeout: 10s }
          decorator: { operation: checkout }
        """, cluster("backend", "", backend.port()) + "\n" + cluster("otel", "", collector.getAddress().getPort())));
    assertThat(edge.get("/pay", "traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        .statusCode()).isEqualTo(200);
    RecordedRequest upstream = backend.lastRequest();
    String traceparent = upstream.header("traceparent");
    assertThat(traceparent).startsWith("00-0af7651916cd43dd8448eb211c80319c-").endsWith("-01");
    String spanId = traceparent.substring(36, 52);
    assertThat(spanId).isNotEqualTo("b7ad6b7169203331");
    assertThat(upstream.header("x-b3-traceid")).isNull();

    List<ResourceSpans> received = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (received.isEmpty() && System.nanoTime() < deadline) {
      ExportTraceServiceRequest r = exports.poll(100, TimeUnit.MILLISECONDS);
      if (r != null) {
        received.addAll(r.getResourceSpansList());
      }
    }
    assertThat(received).isNotEmpty();
    Map<String, String> resource = attributes(received.get(0).getResource().getAttributesList());
    assertThat(resource).containsEntry("service.name", "edge-it");
    Span span = received.get(0).getScopeSpans(0).getSpans(0);
    assertThat(span.getName()).isEqualTo("checkout");
    assertThat(span.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_SERVER);
    assertThat(HexFormat.of().formatHex(span.getTraceId().toByteArray())).isEqualTo("0af7651916cd43dd8448eb211c80319c");
    assertThat(HexFormat.of().formatHex(span.getSpanId().toByteArray())).isEqualTo(spanId);
    assertThat(HexFormat.of().formatHex(span.getParentSpanId().toByteArray())).isEqualTo("b7ad6b7169203331");
    assertThat(span.getEndTimeUnixNano()).isGreaterThan(span.getStartTimeUnixNano());
    Map<String, String> tags = attributes(span.getAttributesList());
    assertThat(tags).containsEntry("http.method", "GET").containsEntry("http.status_code", "200")
        .containsEntry("upstream_cluster", "backend").containsEntry("component", "proxy");
    assertThat(edge.awaitStat("tracing.opentelemetry.spans_sent", 1)).isEqualTo(1);
    assertThat(edge.stat("tracing.opentelemetry.reports_failed")).isZero();
  }

  private static Map<String, String> attributes(List<KeyValue> kvs) {
    return kvs.stream().collect(Collectors.toMap(KeyValue::getKey, kv -> kv.getValue().getStringValue(), (a, b) -> b));
  }
}
