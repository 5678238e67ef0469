package io.spillway.edge.tracing;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import io.spillway.edge.config.Route;
import io.spillway.edge.config.TracingConfig;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * One connection manager's tracer (Envoy's {@code Tracing::HttpTracerImpl} with the Zipkin or the
 * OpenTelemetry driver): shared by the connection manager's streams on every worker, immutable. For each request
 * it decides whether to trace, continues or starts the trace, names the span and, when the stream
 * ends, writes Envoy's tags and hands the span to the reporter. Nothing here blocks or locks.
 *
 * <p>The decision is Envoy's, taken with its UUID request id extension: a request whose
 * {@code x-request-id} already says it is traced (the UUID's 15th character {@code 9} sampled,
 * {@code a} forced, {@code b} client) stays so; otherwise {@code x-client-trace-id} with
 * {@code client_sampling}, {@code x-envoy-force-trace} from an internal client (the edge counts the
 * client as internal when {@code use_remote_address} is false), or {@code random_sampling} against
 * the request id's first 8 hex digits mod 10000 traces it; {@code overall_sampling} then applies
 * to all. The reason is written back into x-request-id, as Envoy does, so the next Envoy agrees.
 * The runtime keys {@code tracing.client_enabled}, {@code tracing.random_sampling} and
 * {@code tracing.global_enabled} override the percentages. A request without a UUID request id is
 * traced only when its caller's sampled flag says so. A B3 or W3C sampled flag from the caller
 * wins over the local decision, as in Envoy's Zipkin tracer.
 *
 * <p>The downstream span of an ingress connection manager is a SERVER span named {@code ingress}
 * (Envoy's ingress operation name), or the route's decorator operation, or the request's
 * {@code x-envoy-decorator-operation} (which is then removed); a decorator that propagates names
 * the operation in the response's {@code x-envoy-decorator-operation}. With
 * {@code shared_span_context} (the default) a continued span keeps the caller's span id and
 * parent, Zipkin's shared span model; otherwise it is the caller's child.
 *
 * <p>That of an egress one (its listener's {@code traffic_direction} is {@code OUTBOUND}) is, as
 * in Envoy, a CLIENT span named {@code egress <host>} (the request's :authority), or the route's
 * decorator operation, and always the caller's child (never shared); a decorator that propagates
 * sends its operation upstream in {@code x-envoy-decorator-operation}, and the response's
 * {@code x-envoy-decorator-operation} renames the span and is removed. The tags are the same.
 *
 * <p>With OpenTelemetry, as Envoy's OpenTelemetry tracer: only W3C {@code traceparent} is read
 * and written (a malformed one starts a new trace), trace ids are 128 bits, spans never share ids.
 */
public final class Tracer {

  private static final AsciiString X_REQUEST_ID = AsciiString.cached("x-request-id");
  private static final AsciiString X_CLIENT_TRACE_ID = AsciiString.cached("x-client-trace-id");
  private static final AsciiString X_ENVOY_FORCE_TRACE = AsciiString.cached("x-envoy-force-trace");
  static final AsciiString X_ENVOY_DECORATOR_OPERATION = AsciiString.cached("x-envoy-decorator-operation");
  private static final AsciiString X_ENVOY_DOWNSTREAM_SERVICE_CLUSTER =
      AsciiString.cached("x-envoy-downstream-service-cluster");
  private static final AsciiString X_FORWARDED_PROTO = AsciiString.cached("x-forwarded-proto");
  private static final AsciiString USER_AGENT = AsciiString.cached("user-agent");

  /** The UUID character that carries the trace reason, and its values (Envoy's UUID request id extension). */
  private static final int TRACE_BYTE_POSITION = 14;
  private static final char TRACE_SAMPLED = '9';
  private static final char TRACE_FORCED = 'a';
  private static final char TRACE_CLIENT = 'b';
  private static final char NO_TRACE = '4';

  /** The connection manager's {@code tracing.*} decision counters, as Envoy names them. */
  record Stats(Counter randomSampling, Counter serviceForced, Counter clientEnabled, Counter notTraceable) {
    static Stats of(Scope hcmScope) {
      Scope s = hcmScope.scope("tracing");
      return new Stats(s.counter("random_sampling"), s.counter("service_forced"), s.counter("client_enabled"),
          s.counter("not_traceable"));
    }
  }

  private final TracingConfig config;
  /** OpenTelemetry: W3C Trace Context only, 128-bit trace ids, never a shared span. */
  private final boolean w3cOnly;
  private final boolean sharedSpanContext;
  private final boolean traceId128Bit;
  /** The listener is OUTBOUND: CLIENT spans named {@code egress <host>}. */
  private final boolean egress;
  private final String nodeId;
  private final String zone;
  private final SpanReporter reporter;
  private final Stats stats;
  private final Supplier<RuntimeSnapshot> runtime;
  private final boolean internalClients;
  /** The custom tags with their environment variables read once: tag, source, key or value, default. */
  private final List<TracingConfig.CustomTag> customTags;

  /**
   * @param useRemoteAddress the connection manager's {@code use_remote_address}: its clients are
   *     external, so their {@code x-envoy-force-trace} is not honoured
   * @param environment reads an environment variable (null when unset), for {@code environment} custom tags
   */
  public Tracer(TracingConfig config, String nodeId, String zone, SpanReporter reporter, Scope hcmScope,
      Supplier<RuntimeSnapshot> runtime, boolean useRemoteAddress, Function<String, String> environment) {
    this.config = config;
    switch (config.provider()) {
      case TracingConfig.Zipkin z -> {
        this.w3cOnly = false;
        this.sharedSpanContext = z.sharedSpanContext();
        this.traceId128Bit = z.traceId128Bit();
      }
      case TracingConfig.OpenTelemetry o -> {
        this.w3cOnly = true;
        this.sharedSpanContext = false;
        this.traceId128Bit = true;
      }
    }
    this.egress = config.operationName() == TracingConfig.OperationName.EGRESS;
    this.nodeId = nodeId;
    this.zone = zone;
    this.reporter = reporter;
    this.stats = Stats.of(hcmScope);
    this.runtime = runtime;
    this.internalClients = !useRemoteAddress;
    this.customTags = config.customTags().stream().map(t -> {
      if (t.source() != TracingConfig.CustomTag.Source.ENVIRONMENT) {
        return t;
      }
      String v = environment.apply(t.name());
      return new TracingConfig.CustomTag(t.tag(), TracingConfig.CustomTag.Source.LITERAL,
          v == null ? t.defaultValue() : v, "");
    }).toList();
  }

  /** Whether spans go on in {@code traceparent} only (OpenTelemetry), not in B3. */
  boolean w3cOnly() {
    return w3cOnly;
  }

  boolean spawnsUpstreamSpans() {
    return config.spawnUpstreamSpan();
  }

  void report(RequestSpan span) {
    reporter.report(span);
  }

  static long newId(RandomGenerator random) {
    long id;
    do {
      id = random.nextLong();
    } while (id == 0);
    return id;
  }

  // ---- the request ---------------------------------------------------------------------------------

  /**
   * The downstream span of a request whose route is known (the connection manager's changes to
   * the headers made), or null when the request carries a context that cannot be parsed.
   *
   * @param decorator the route's decorator, or null
   */
  public RequestSpan startDownstream(RequestHeaders request, StreamInfo info, Route.Decorator decorator,
      RandomGenerator random) {
    HttpHeaders h = request.headers();
    boolean traced = decide(h, random);
    TraceContext incoming = w3cOnly ? TraceContext.extractW3c(h) : TraceContext.extract(h);
    if (incoming == TraceContext.INVALID) {
      if (!w3cOnly) {
        return null; // Envoy's Zipkin tracer answers a bad context with a null span
      }
      incoming = TraceContext.NONE; // its OpenTelemetry tracer starts a new trace
    }
    boolean sampled = incoming.sampled() != null ? incoming.sampled() : traced;
    long now = System.nanoTime();
    long startEpochMicros = (info.startEpochNanos() + (now - info.startNanos())) / 1000;
    RequestSpan.Kind kind = egress ? RequestSpan.Kind.CLIENT : RequestSpan.Kind.SERVER;
    String name = egress ? "egress " + request.authority() : "ingress";
    RequestSpan span;
    if (incoming.hasSpan()) {
      boolean shared = sharedSpanContext && !egress; // Envoy's Zipkin tracer: an egress span is a child
      span = new RequestSpan(this, random, kind, false, incoming.traceIdHigh(), incoming.traceIdLow(),
          shared ? incoming.spanId() : newId(random), shared ? incoming.parentId() : incoming.spanId(), sampled,
          shared, incoming.w3c(), name, now, startEpochMicros);
    } else {
      long id = newId(random);
      span = new RequestSpan(this, random, kind, false, traceId128Bit ? newId(random) : 0, id, id,
          0, sampled, false, w3cOnly, name, now, startEpochMicros);
    }
    span.tag("node_id", nodeId);
    span.tag("zone", zone);
    if (decorator != null) {
      span.setName(decorator.operation());
    }
    if (egress) {
      // The receiving service names its server span after the decorator's operation.
      if (decorator != null && decorator.propagate()) {
        h.set(X_ENVOY_DECORATOR_OPERATION, decorator.operation());
      }
    } else {
      if (decorator != null && decorator.propagate()) {
        span.propagateOperation(decorator.operation());
      }
      String override = h.get(X_ENVOY_DECORATOR_OPERATION);
      if (override != null) {
        if (!override.isEmpty()) {
          span.setName(override);
          span.propagateOperation(null); // the caller named it: nothing goes back
        }
        h.remove(X_ENVOY_DECORATOR_OPERATION);
      }
    }
    span.tag("http.url", url(request));
    return span;
  }

  /** Envoy's buildUrl: x-forwarded-proto, :authority and the path (query included), cut at max_path_tag_length. */
  private String url(RequestHeaders request) {
    String path = request.pathAndQuery();
    if (path.length() > config.maxPathTagLength()) {
      path = path.substring(0, config.maxPathTagLength());
    }
    String proto = request.headers().get(X_FORWARDED_PROTO);
    return (proto == null ? "" : proto) + "://" + request.authority() + path;
  }

  /**
   * Envoy's mutateTracingRequestHeader and isTracing: the trace reason from x-request-id, set
   * there when the request was not traced yet, and counted.
   */
  private boolean decide(HttpHeaders h, RandomGenerator random) {
    String rid = h.get(X_REQUEST_ID);
    if (rid == null || rid.length() != 36 || !hex8(rid)) {
      stats.notTraceable.inc();
      return false;
    }
    long result = Long.parseLong(rid, 0, 8, 16) % 10_000;
    RuntimeSnapshot rt = runtime.get();
    char reason = reason(rid.charAt(TRACE_BYTE_POSITION));
    if (reason == NO_TRACE) {
      if (h.contains(X_CLIENT_TRACE_ID)
          && rt.featureEnabled("tracing.client_enabled", config.clientSampling(), TracingConfig.ALL,
              random.nextLong() & Long.MAX_VALUE)) {
        reason = TRACE_CLIENT;
      } else if (internalClients && h.contains(X_ENVOY_FORCE_TRACE)) {
        reason = TRACE_FORCED;
      } else if (rt.featureEnabled("tracing.random_sampling", config.randomSampling(), TracingConfig.ALL, result)) {
        reason = TRACE_SAMPLED;
      }
    }
    if (!rt.featureEnabled("tracing.global_enabled", config.overallSampling(), TracingConfig.ALL, result)) {
      reason = NO_TRACE;
    }
    if (reason != reason(rid.charAt(TRACE_BYTE_POSITION))) {
      char[] c = rid.toCharArray();
      c[TRACE_BYTE_POSITION] = reason;
      h.set(X_REQUEST_ID, new String(c));
    }
    switch (reason) {
      case TRACE_SAMPLED -> stats.randomSampling.inc();
      case TRACE_FORCED -> stats.serviceForced.inc();
      case TRACE_CLIENT -> stats.clientEnabled.inc();
      default -> stats.notTraceable.inc();
    }
    return reason != NO_TRACE;
  }

  private static char reason(char c) {
    return c == TRACE_SAMPLED || c == TRACE_FORCED || c == TRACE_CLIENT ? c : NO_TRACE;
  }

  private static boolean hex8(String s) {
    for (int i = 0; i < 8; i++) {
      if (Character.digit(s.charAt(i), 16) < 0) {
        return false;
      }
    }
    return true;
  }

  // ---- the response and the end --------------------------------------------------------------------

  /**
   * Ingress: the span's decorated operation goes back to the caller in
   * {@code x-envoy-decorator-operation}. Egress: the upstream's {@code x-envoy-decorator-operation}
   * names the span and is removed, as in Envoy.
   */
  public void onResponseHeaders(RequestSpan span, HttpHeaders responseHeaders) {
    if (egress) {
      String operation = responseHeaders.get(X_ENVOY_DECORATOR_OPERATION);
      if (operation != null) {
        if (!operation.isEmpty()) {
          span.setName(operation);
        }
        responseHeaders.remove(X_ENVOY_DECORATOR_OPERATION);
      }
      return;
    }
    if (span.propagatedOperation() != null) {
      responseHeaders.set(X_ENVOY_DECORATOR_OPERATION, span.propagatedOperation());
    }
  }

  /**
   * Envoy's finalizeDownstreamSpan: the request's tags, the custom tags, sizes, the common tags
   * (component, upstream cluster, status, response flags, error on 5xx or no response), then the
   * span ends and, when sampled, goes to the reporter.
   */
  public void finishDownstream(RequestSpan span, RequestHeaders request, StreamInfo info, long nowNanos) {
    if (span.finished()) {
      return;
    }
    HttpHeaders h = request.headers();
    String rid = h.get(X_REQUEST_ID);
    if (rid != null) {
      span.tag("guid:x-request-id", rid);
    }
    span.tag("http.method", request.method());
    span.tag("downstream_cluster", orDash(h.get(X_ENVOY_DOWNSTREAM_SERVICE_CLUSTER)));
    span.tag("user_agent", orDash(h.get(USER_AGENT)));
    span.tag("http.protocol", info.isHttp2() ? "HTTP/2" : "HTTP/1.1");
    InetSocketAddress peer = info.downstreamRemote();
    span.tag("peer.address", peer != null && peer.getAddress() != null
        ? io.netty.util.NetUtil.toAddressString(peer.getAddress()) : info.downstreamAddress());
    String clientTraceId = h.get(X_CLIENT_TRACE_ID);
    if (clientTraceId != null) {
      span.tag("guid:x-client-trace-id", clientTraceId);
    }
    for (TracingConfig.CustomTag t : customTags) {
      String v = switch (t.source()) {
        case LITERAL, ENVIRONMENT -> t.name();
        case REQUEST_HEADER -> {
          String header = h.get(t.name());
          yield header == null ? t.defaultValue() : header;
        }
      };
      if (!v.isEmpty()) {
        span.tag(t.tag(), v);
      }
    }
    span.tag("request_size", Long.toString(info.bytesReceived()));
    span.tag("response_size", Long.toString(info.bytesSent()));
    span.tag("component", "proxy");
    if (info.upstreamHost() != null) {
      span.tag("upstream_cluster", info.upstreamHost().clusterName());
      span.tag("upstream_cluster.name", info.upstreamHost().clusterName());
    }
    int code = info.responseCode();
    span.tag("http.status_code", Integer.toString(code));
    span.tag("response_flags", ResponseFlag.format(info.responseFlags()));
    if (code == 0 || code >= 500) {
      span.tag("error", "true");
    }
    span.finish(nowNanos);
  }

  private static String orDash(String v) {
    return v == null ? "-" : v;
  }
}
