package io.spillway.edge.tracing;

import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.ActiveSpan;
import io.spillway.edge.http.filter.ResponseFlag;
import java.util.random.RandomGenerator;

/**
 * One span (Zipkin's v2 model, which OTLP export maps 1:1), collected on the stream's worker as a plain object: ids,
 * kind, name, start (wall clock, µs) and duration, tags. Once finished it is handed to the
 * reporter's queue and only read from then on, by the reporter's thread.
 */
public final class RequestSpan implements ActiveSpan {

  /** Zipkin's span kinds the edge makes. */
  public enum Kind { SERVER, CLIENT }

  private final Tracer tracer;
  private final RandomGenerator random;
  private final Kind kind;
  /** An upstream try's span (spawn_upstream_span), not the request's downstream span (which may be CLIENT too: egress). */
  private final boolean upstream;
  private final long traceIdHigh;
  private final long traceIdLow;
  private final long id;
  private final long parentId;
  private final boolean sampled;
  private final boolean shared;
  private final boolean w3c;
  private final long startNanos;
  private final long startEpochMicros;
  private String name;
  private long durationMicros;
  private String[] tags = new String[40];
  private int tagSlots;
  private String upstreamCluster;
  /** The decorator's operation to send back in {@code x-envoy-decorator-operation}, or null. */
  private String propagatedOperation;
  private boolean finished;

  RequestSpan(Tracer tracer, RandomGenerator random, Kind kind, boolean upstream, long traceIdHigh, long traceIdLow, long id,
      long parentId, boolean sampled, boolean shared, boolean w3c, String name, long startNanos,
      long startEpochMicros) {
    this.tracer = tracer;
    this.random = random;
    this.kind = kind;
    this.upstream = upstream;
    this.traceIdHigh = traceIdHigh;
    this.traceIdLow = traceIdLow;
    this.id = id;
    this.parentId = parentId;
    this.sampled = sampled;
    this.shared = shared;
    this.w3c = w3c;
    this.name = name;
    this.startNanos = startNanos;
    this.startEpochMicros = startEpochMicros;
  }

  // ---- ActiveSpan --------------------------------------------------------------------------------

  /**
   * The B3 headers of this span ({@code x-b3-traceid}, {@code x-b3-spanid},
   * {@code x-b3-parentspanid} when it has a parent, {@code x-b3-sampled}) replace whatever the
   * request carried, the single {@code b3} header included; a trace that came in
   * {@code traceparent} also goes on in {@code traceparent} ({@code tracestate} passes unchanged).
   */
  @Override
  public void injectContext(HttpHeaders headers) {
    if (tracer.w3cOnly()) {
      headers.set(TraceContext.TRACEPARENT, traceparent());
      return;
    }
    headers.remove(TraceContext.B3);
    headers.set(TraceContext.X_B3_TRACE_ID, TraceContext.traceIdHex(traceIdHigh, traceIdLow));
    headers.set(TraceContext.X_B3_SPAN_ID, TraceContext.hex16(id));
    if (parentId != 0) {
      headers.set(TraceContext.X_B3_PARENT_SPAN_ID, TraceContext.hex16(parentId));
    } else {
      headers.remove(TraceContext.X_B3_PARENT_SPAN_ID);
    }
    headers.set(TraceContext.X_B3_SAMPLED, sampled ? "1" : "0");
    if (w3c) {
      headers.set(TraceContext.TRACEPARENT, traceparent());
    }
  }

  /** {@code 00-<trace id, 32 hex>-<span id>-<flags>}. */
  private String traceparent() {
    char[] tp = new char[55];
    "00-".getChars(0, 3, tp, 0);
    TraceContext.hex16(traceIdHigh, tp, 3);
    TraceContext.hex16(traceIdLow, tp, 19);
    tp[35] = '-';
    TraceContext.hex16(id, tp, 36);
    tp[52] = '-';
    tp[53] = '0';
    tp[54] = sampled ? '1' : '0';
    return new String(tp);
  }

  @Override
  public ActiveSpan spawnUpstream(String cluster) {
    if (upstream || !tracer.spawnsUpstreamSpans()) {
      return this;
    }
    long now = System.nanoTime();
    RequestSpan child = new RequestSpan(tracer, random, Kind.CLIENT, true, traceIdHigh, traceIdLow, Tracer.newId(random),
        id, sampled, false, w3c, "router " + cluster + " egress", now,
        startEpochMicros + (now - startNanos) / 1000);
    child.upstreamCluster = cluster;
    return child;
  }

  @Override
  public void finishUpstream(String upstreamAddress, String protocol, int status, int responseFlags) {
    if (!upstream || finished) {
      return;
    }
    tag("http.protocol", protocol);
    if (upstreamAddress != null) {
      tag("upstream_address", upstreamAddress);
    }
    tag("component", "proxy");
    tag("upstream_cluster", upstreamCluster);
    tag("upstream_cluster.name", upstreamCluster);
    tag("http.status_code", Integer.toString(status));
    tag("response_flags", ResponseFlag.format(responseFlags));
    if (status == 0 || status >= 500) {
      tag("error", "true");
    }
    finish(System.nanoTime());
  }

  // ---- for the tracer ------------------------------------------------------------------------------

  void setName(String name) {
    this.name = name;
  }

  void propagateOperation(String operation) {
    this.propagatedOperation = operation;
  }

  String propagatedOperation() {
    return propagatedOperation;
  }

  /** Sets a tag, replacing an earlier value of the same name. */
  void tag(String key, String value) {
    for (int i = 0; i < tagSlots; i += 2) {
      if (tags[i].equals(key)) {
        tags[i + 1] = value;
        return;
      }
    }
    if (tagSlots == tags.length) {
      tags = java.util.Arrays.copyOf(tags, tagSlots * 2);
    }
    tags[tagSlots++] = key;
    tags[tagSlots++] = value;
  }

  /** Ends the span now and hands it to the reporter when sampled; only the first call counts. */
  void finish(long nowNanos) {
    if (finished) {
      return;
    }
    finished = true;
    durationMicros = Math.max(1, (nowNanos - startNanos) / 1000);
    if (sampled) {
      tracer.report(this);
    }
  }

  // ---- read by the reporter ------------------------------------------------------------------------

  public Kind kind() {
    return kind;
  }

  public String traceIdHex() {
    return TraceContext.traceIdHex(traceIdHigh, traceIdLow);
  }

  public long traceIdHigh() {
    return traceIdHigh;
  }

  public long traceIdLow() {
    return traceIdLow;
  }

  public long id() {
    return id;
  }

  /** 0 when the span is a root. */
  public long parentId() {
    return parentId;
  }

  public boolean sampled() {
    return sampled;
  }

  /** Whether the span shares its id with the caller's client span (Zipkin's {@code shared}). */
  public boolean shared() {
    return shared;
  }

  public String name() {
    return name;
  }

  public long startEpochMicros() {
    return startEpochMicros;
  }

  public long durationMicros() {
    return durationMicros;
  }

  public boolean finished() {
    return finished;
  }

  /** The tag's value, or null. */
  public String tag(String key) {
    for (int i = 0; i < tagSlots; i += 2) {
      if (tags[i].equals(key)) {
        return tags[i + 1];
      }
    }
    return null;
  }

  /** The tags in the order they were first set, as name, value, name, value… */
  public java.util.List<String> tagList() {
    return java.util.List.of(java.util.Arrays.copyOf(tags, tagSlots));
  }
}
