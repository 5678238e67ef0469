package io.spillway.edge.tracing;

import com.google.protobuf.ByteString;
import io.grpc.Channel;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import io.opentelemetry.sdk.resources.Resource;
import io.spillway.edge.config.TracingConfig;
import io.spillway.edge.runtime.RuntimeSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Sends finished spans to an OpenTelemetry collector over OTLP/gRPC
 * ({@code opentelemetry.proto.collector.trace.v1.TraceService/Export}) on the edge's shared gRPC
 * channel to the {@code grpc_service}'s {@code envoy_grpc} cluster, which carries its
 * {@code initial_metadata}; each call has the service's {@code timeout} as its deadline (unset or
 * zero: none). The calls are made from the reporter's thread ({@link BatchingReporter}; runtime
 * {@code tracing.opentelemetry.min_flush_spans} and {@code tracing.opentelemetry.flush_interval_ms}),
 * never a worker's.
 *
 * <p>The messages are the OTLP protos of {@code opentelemetry-proto}, built from the edge's
 * {@link RequestSpan}s as {@link OtlpReporter.Data} maps them for the SDK's HTTP exporter: the
 * same names, kinds, ids, string attributes, ERROR status for {@code error: true}, and the
 * SDK's default resource with {@code service.name}. (The SDK's own OTLP/gRPC exporter takes a
 * channel only through its {@code grpc-managed-channel} sender, which the build does not have.)
 * Stats: the {@code tracing.opentelemetry.*} counters of {@link OtlpReporter.Stats}.
 */
public final class OtlpGrpcReporter extends BatchingReporter {

  private static final InstrumentationScope SCOPE = InstrumentationScope.newBuilder().setName("spillway").build();

  private final TraceServiceGrpc.TraceServiceBlockingStub stub;
  private final Optional<Duration> timeout;
  private final OtlpReporter.Stats stats;
  private final io.opentelemetry.proto.resource.v1.Resource resource;

  /** @param channel the edge's channel to the service's cluster, with its initial metadata */
  public OtlpGrpcReporter(TracingConfig.OtlpGrpc export, String serviceName, Channel channel,
      Supplier<RuntimeSnapshot> runtime, OtlpReporter.Stats stats, int capacity) {
    super("spillway-otlp-grpc:" + export.service().cluster(), "tracing.opentelemetry", runtime, stats.timerFlushed(),
        stats.spansDropped(), capacity);
    this.stub = TraceServiceGrpc.newBlockingStub(channel);
    this.timeout = export.service().timeout().filter(t -> !t.isZero());
    this.stats = stats;
    this.resource = resource(Resource.getDefault().merge(Resource.create(
        Attributes.of(AttributeKey.stringKey("service.name"), serviceName))));
    start();
  }

  @Override
  void send(List<RequestSpan> spans) {
    stats.spansSent().add(spans.size());
    ScopeSpans.Builder scope = ScopeSpans.newBuilder().setScope(SCOPE);
    for (RequestSpan s : spans) {
      scope.addSpans(span(s));
    }
    ExportTraceServiceRequest request = ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(ResourceSpans.newBuilder().setResource(resource).addScopeSpans(scope))
        .build();
    TraceServiceGrpc.TraceServiceBlockingStub call = timeout
        .map(t -> stub.withDeadlineAfter(t.toNanos(), TimeUnit.NANOSECONDS))
        .orElse(stub);
    try {
      call.export(request); // a partial success is a success, as for the SDK's exporters
    } catch (RuntimeException e) {
      // A gRPC status (unavailable, deadline exceeded, …) or the channels closing: the report is lost.
      stats.reportsFailed().inc();
    }
  }

  /** One span as OTLP has it. */
  static Span span(RequestSpan s) {
    Span.Builder b = Span.newBuilder()
        .setTraceId(ByteString.fromHex(traceIdHex(s)))
        .setSpanId(ByteString.fromHex(TraceContext.hex16(s.id())))
        .setName(s.name())
        .setKind(s.kind() == RequestSpan.Kind.SERVER ? Span.SpanKind.SPAN_KIND_SERVER : Span.SpanKind.SPAN_KIND_CLIENT)
        .setStartTimeUnixNano(s.startEpochMicros() * 1000)
        .setEndTimeUnixNano((s.startEpochMicros() + s.durationMicros()) * 1000);
    if (s.parentId() != 0) {
      b.setParentSpanId(ByteString.fromHex(TraceContext.hex16(s.parentId())));
    }
    List<String> tags = s.tagList();
    for (int i = 0; i < tags.size(); i += 2) {
      b.addAttributes(attribute(tags.get(i), tags.get(i + 1)));
    }
    if ("true".equals(s.tag("error"))) {
      b.setStatus(Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_ERROR));
    }
    return b.build();
  }

  private static String traceIdHex(RequestSpan s) {
    String t = s.traceIdHex();
    return t.length() == 32 ? t : "0000000000000000" + t;
  }

  private static KeyValue attribute(String key, String value) {
    return KeyValue.newBuilder().setKey(key).setValue(AnyValue.newBuilder().setStringValue(value)).build();
  }

  /** The SDK's resource as an OTLP message (its attributes are strings: service.name, telemetry.sdk.*). */
  private static io.opentelemetry.proto.resource.v1.Resource resource(Resource sdk) {
    var b = io.opentelemetry.proto.resource.v1.Resource.newBuilder();
    sdk.getAttributes().forEach((key, value) -> b.addAttributes(attribute(key.getKey(), String.valueOf(value))));
    return b.build();
  }
}
