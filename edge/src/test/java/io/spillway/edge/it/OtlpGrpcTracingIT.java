package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RecordedRequest;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * envoy.tracers.opentelemetry over OTLP/gRPC with the real edge, a backend and a real grpc-java
 * collector stub on 127.0.0.1 ({@code opentelemetry.proto.collector.trace.v1.TraceService/Export},
 * recording each request and its call's metadata) reached through an {@code envoy_grpc} cluster
 * with HTTP/2, in the form of Envoy's examples: the downstream SERVER span and the upstream CLIENT
 * span of {@code spawn_upstream_span}, the resource's service.name, the {@code initial_metadata};
 * and an OUTBOUND listener's downstream span, which arrives as a CLIENT span named
 * {@code egress <host>}.
 */
class OtlpGrpcTracingIT {

  private OriginServer backend;
  private Collector collector;
  private EdgeHarness edge;

  /** The OTLP/gRPC collector stub. */
  private static final class Collector extends TraceServiceGrpc.TraceServiceImplBase implements AutoCloseable {
    final ConcurrentLinkedQueue<ExportTraceServiceRequest> exports = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Metadata> metadata = new ConcurrentLinkedQueue<>();
    final Server server;

    Collector() throws Exception {
      ServerInterceptor recordMetadata = new ServerInterceptor() {
        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
            ServerCallHandler<Q, R> next) {
          metadata.add(headers);
          return next.startCall(call, headers);
        }
      };
      server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
          .addService(ServerInterceptors.intercept(this, recordMetadata))
          .build()
          .start();
    }

    int port() {
      return server.getPort();
    }

    @Override
    public void export(ExportTraceServiceRequest request, StreamObserver<ExportTraceServiceResponse> answer) {
      exports.add(request);
      answer.onNext(ExportTraceServiceResponse.getDefaultInstance());
      answer.onCompleted();
    }

    /** The resource spans received, once at least {@code spans} spans have come or 10 s have passed. */
    List<ResourceSpans> await(int spans) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (count() < spans && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      return exports.stream().flatMap(r -> r.getResourceSpansList().stream()).toList();
    }

    private int count() {
      return exports.stream().flatMap(r -> r.getResourceSpansList().stream())
          .flatMap(r -> r.getScopeSpansList().stream()).mapToInt(ScopeSpans::getSpansCount).sum();
    }

    @Override
    public void close() throws InterruptedException {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @BeforeEach
  void start() throws Exception {
    backend = OriginServer.start("backend");
    collector = new Collector();
  }

  @AfterEach
  void stop() throws Exception {
    if (edge != null) {
      edge.close();
    }
    collector.close();
    backend.close();
  }

  private String config(String direction) {
    String yaml = """
        layered_runtime:
          layers:
          - name: static
            static_layer: { tracing.opentelemetry.flush_interval_ms: 50 }
        """ + bootstrap("""
        tracing:
          spawn_upstream_span: true
          provider:
            name: envoy.tracers.opentelemetry
            typed_config:
              "@type": type.googleapis.com/envoy.config.trace.v3.OpenTelemetryConfig
              service_name: edge-it
              grpc_service:
                envoy_grpc: { cluster_name: opentelemetry_collector }
                timeout: 5s
                initial_metadata: [{ key: x-tenant, value: edge-it }]
        """, """
        - match: { prefix: "/" }
          route: { cluster: backend, timeout: 10s }
        """, cluster("backend", "", backend.port()) + "\n" + cluster("opentelemetry_collector", """
        typed_extension_protocol_options:
          envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
            "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
            explicit_http_config:
              http2_protocol_options: {}
        """, collector.port()));
    return direction.isEmpty() ? yaml
        : yaml.replace("  - name: main\n", "  - name: main\n    traffic_direction: " + direction + "\n");
  }

  @Test
  void theDownstreamAndUpstreamSpansAreExportedOverOtlpGrpc() throws Exception {
    edge = EdgeHarness.start(config(""));
    assertThat(edge.get("/pay", "traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        .statusCode()).isEqualTo(200);
    RecordedRequest upstream = backend.lastRequest();
    String traceparent = upstream.header("traceparent");
    assertThat(traceparent).startsWith("00-0af7651916cd43dd8448eb211c80319c-").endsWith("-01");
    String upstreamSpanId = traceparent.substring(36, 52);

    List<ResourceSpans> received = collector.await(2);
    assertThat(received).isNotEmpty();
    assertThat(attributes(received.get(0).getResource().getAttributesList())).containsEntry("service.name", "edge-it");
    List<Span> spans = new ArrayList<>();
    received.forEach(r -> r.getScopeSpansList().forEach(s -> spans.addAll(s.getSpansList())));
    assertThat(spans).hasSize(2);
    Span server = spans.stream().filter(s -> s.getKind() == Span.SpanKind.SPAN_KIND_SERVER).findFirst().orElseThrow();
    Span client = spans.stream().filter(s -> s.getKind() == Span.SpanKind.SPAN_KIND_CLIENT).findFirst().orElseThrow();

    assertThat(server.getName()).isEqualTo("ingress");
    assertThat(hex(server.getTraceId().toByteArray())).isEqualTo("0af7651916cd43dd8448eb211c80319c");
    assertThat(hex(server.getParentSpanId().toByteArray())).isEqualTo("b7ad6b7169203331");
    assertThat(server.getEndTimeUnixNano()).isGreaterThan(server.getStartTimeUnixNano());
    assertThat(attributes(server.getAttributesList())).containsEntry("http.method", "GET")
        .containsEntry("http.status_code", "200").containsEntry("upstream_cluster", "backend")
        .containsEntry("component", "proxy");

    assertThat(client.getName()).isEqualTo("router backend egress");
    assertThat(hex(client.getSpanId().toByteArray())).isEqualTo(upstreamSpanId);
    assertThat(client.getParentSpanId()).isEqualTo(server.getSpanId());
    assertThat(client.getTraceId()).isEqualTo(server.getTraceId());
    assertThat(attributes(client.getAttributesList())).containsEntry("upstream_cluster", "backend")
        .containsEntry("http.status_code", "200");

    assertThat(collector.metadata).isNotEmpty().allSatisfy(m ->
        assertThat(m.get(Metadata.Key.of("x-tenant", Metadata.ASCII_STRING_MARSHALLER))).isEqualTo("edge-it"));
    assertThat(edge.awaitStat("tracing.opentelemetry.spans_sent", 2)).isEqualTo(2);
    assertThat(edge.stat("tracing.opentelemetry.reports_failed")).isZero();
  }

  @Test
  void anOutboundListenersSpanArrivesAsAClientSpan() throws Exception {
    edge = EdgeHarness.start(config("OUTBOUND"));
    assertThat(edge.get("/out", "traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        .statusCode()).isEqualTo(200);

    List<Span> spans = new ArrayList<>();
    collector.await(2).forEach(r -> r.getScopeSpansList().forEach(s -> spans.addAll(s.getSpansList())));
    assertThat(spans).hasSize(2);
    Span downstream = spans.stream().filter(s -> s.getName().startsWith("egress ")).findFirst().orElseThrow();
    assertThat(downstream.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_CLIENT);
    assertThat(downstream.getName()).isEqualTo("egress 127.0.0.1:" + edge.port());
    assertThat(hex(downstream.getParentSpanId().toByteArray())).isEqualTo("b7ad6b7169203331");
    assertThat(attributes(downstream.getAttributesList())).containsEntry("upstream_cluster", "backend")
        .containsEntry("component", "proxy").containsEntry("http.status_code", "200");
    assertThat(spans).noneMatch(s -> s.getKind() == Span.SpanKind.SPAN_KIND_SERVER);
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  private static Map<String, String> attributes(List<KeyValue> kvs) {
    return kvs.stream().collect(Collectors.toMap(KeyValue::getKey, kv -> kv.getValue().getStringValue(), (a, b) -> b));
  }
}
