package io.spillway.edge.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.common.InstrumentationLibraryInfo;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.data.StatusData;
import io.spillway.edge.config.TracingConfig;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Sends finished spans to an OpenTelemetry collector over OTLP/HTTP (protobuf), with the
 * OpenTelemetry Java SDK's {@link OtlpHttpSpanExporter} and its JDK HttpClient sender, from the
 * reporter's thread ({@link BatchingReporter}; runtime {@code tracing.opentelemetry.min_flush_spans}
 * and {@code tracing.opentelemetry.flush_interval_ms}). The exporter is built for the collector
 * cluster's first host and rebuilt when that host changes.
 *
 * <p>The SDK is used for export only. Its own spans ({@code SdkSpan}) take an internal lock on
 * every change (attributes, name, end), and its {@code BatchSpanProcessor} is fed by them: on a
 * worker that is a lock per request, which the hot path does not allow. So the spans are the
 * edge's plain {@link RequestSpan}s, collected without locks, and become {@link SpanData} only
 * here, off the workers. ({@link OtlpGrpcReporter} is the {@code grpc_service} form.) Stats under
 * {@code tracing.opentelemetry.}, shared by both forms: Envoy's {@code spans_sent},
 * {@code timer_flushed} and {@code spans_dropped} (queue full), and the edge's
 * {@code reports_failed} (the export did not succeed) and {@code reports_skipped_no_cluster}.
 */
public final class OtlpReporter extends BatchingReporter {

  /** The {@code tracing.opentelemetry.*} counters, shared by every OTLP reporter. */
  public record Stats(Counter spansSent, Counter timerFlushed, Counter spansDropped, Counter reportsFailed,
      Counter reportsSkippedNoCluster) {
    public static Stats of(Scope root) {
      Scope o = root.scope("tracing").scope("opentelemetry");
      return new Stats(o.counter("spans_sent"), o.counter("timer_flushed"), o.counter("spans_dropped"),
          o.counter("reports_failed"), o.counter("reports_skipped_no_cluster"));
    }
  }

  private static final InstrumentationScopeInfo SCOPE = InstrumentationScopeInfo.create("spillway");

  private final TracingConfig.OtlpHttp config;
  private final Supplier<List<InetSocketAddress>> hosts;
  private final Stats stats;
  private final Resource resource;
  private InetSocketAddress exporterHost; // reporter thread only
  private OtlpHttpSpanExporter exporter; // reporter thread only

  /** @param serviceName the resource's {@code service.name} */
  public OtlpReporter(TracingConfig.OtlpHttp config, String serviceName, Supplier<List<InetSocketAddress>> hosts,
      Supplier<RuntimeSnapshot> runtime, Stats stats, int capacity) {
    super("spillway-otlp:" + config.cluster(), "tracing.opentelemetry", runtime, stats.timerFlushed(),
        stats.spansDropped(), capacity);
    this.config = config;
    this.hosts = hosts;
    this.stats = stats;
    this.resource = Resource.getDefault().merge(Resource.create(
        Attributes.of(AttributeKey.stringKey("service.name"), serviceName)));
    start();
  }

  @Override
  void send(List<RequestSpan> spans) {
    stats.spansSent().add(spans.size());
    List<InetSocketAddress> targets = hosts.get();
    if (targets.isEmpty()) {
      stats.reportsSkippedNoCluster().inc();
      return;
    }
    InetSocketAddress host = targets.get(0);
    if (!host.equals(exporterHost)) {
      if (exporter != null) {
        exporter.shutdown();
      }
      exporterHost = host;
      exporter = OtlpHttpSpanExporter.builder()
          .setEndpoint("http://" + io.spillway.edge.upstream.Host.envoyAddress(host) + config.path())
          .setTimeout(config.timeout())
          .build();
    }
    List<SpanData> data = new ArrayList<>(spans.size());
    for (RequestSpan s : spans) {
      data.add(new Data(s, resource));
    }
    CompletableResultCode result = exporter.export(data).join(config.timeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
    if (!result.isSuccess()) {
      stats.reportsFailed().inc();
    }
  }

  @Override
  public void close() {
    super.close();
    if (exporter != null) {
      exporter.shutdown().join(5, TimeUnit.SECONDS);
    }
  }

  /** A finished {@link RequestSpan} as the SDK's exporter reads it: the tags become string attributes. */
  static final class Data implements SpanData {
    private final RequestSpan span;
    private final Resource resource;
    private final Attributes attributes;

    Data(RequestSpan span, Resource resource) {
      this.span = span;
      this.resource = resource;
      AttributesBuilder b = Attributes.builder();
      List<String> tags = span.tagList();
      for (int i = 0; i < tags.size(); i += 2) {
        b.put(tags.get(i), tags.get(i + 1));
      }
      this.attributes = b.build();
    }

    private static String traceId(RequestSpan s) {
      String t = s.traceIdHex();
      return t.length() == 32 ? t : "0000000000000000" + t;
    }

    @Override
    public String getName() {
      return span.name();
    }

    @Override
    public SpanKind getKind() {
      return span.kind() == RequestSpan.Kind.SERVER ? SpanKind.SERVER : SpanKind.CLIENT;
    }

    @Override
    public SpanContext getSpanContext() {
      return SpanContext.create(traceId(span), TraceContext.hex16(span.id()), TraceFlags.getSampled(),
          TraceState.getDefault());
    }

    @Override
    public SpanContext getParentSpanContext() {
      return span.parentId() == 0 ? SpanContext.getInvalid()
          : SpanContext.createFromRemoteParent(traceId(span), TraceContext.hex16(span.parentId()),
              TraceFlags.getSampled(), TraceState.getDefault());
    }

    @Override
    public StatusData getStatus() {
      return "true".equals(span.tag("error")) ? StatusData.error() : StatusData.unset();
    }

    @Override
    public long getStartEpochNanos() {
      return span.startEpochMicros() * 1000;
    }

    @Override
    public Attributes getAttributes() {
      return attributes;
    }

    @Override
    public List<EventData> getEvents() {
      return List.of();
    }

    @Override
    public List<LinkData> getLinks() {
      return List.of();
    }

    @Override
    public long getEndEpochNanos() {
      return (span.startEpochMicros() + span.durationMicros()) * 1000;
    }

    @Override
    public boolean hasEnded() {
      return true;
    }

    @Override
    public int getTotalRecordedEvents() {
      return 0;
    }

    @Override
    public int getTotalRecordedLinks() {
      return 0;
    }

    @Override
    public int getTotalAttributeCount() {
      return attributes.size();
    }

    @Override
    @SuppressWarnings("deprecation")
    public InstrumentationLibraryInfo getInstrumentationLibraryInfo() {
      return InstrumentationLibraryInfo.create(SCOPE.getName(), null);
    }

    @Override
    public InstrumentationScopeInfo getInstrumentationScopeInfo() {
      return SCOPE;
    }

    @Override
    public Resource getResource() {
      return resource;
    }
  }
}
