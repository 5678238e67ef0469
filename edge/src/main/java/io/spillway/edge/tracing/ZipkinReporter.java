package io.spillway.edge.tracing;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.spillway.edge.config.TracingConfig;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Supplier;

/**
 * Sends finished spans to a Zipkin collector (Envoy's Zipkin {@code ReporterImpl}) from a thread
 * of its own ({@link BatchingReporter}: a bounded queue, {@code spans_dropped} when full, the edge's
 * own counter; {@code tracing.zipkin.min_flush_spans} and {@code tracing.zipkin.flush_interval_ms}),
 * each report one Zipkin API v2 JSON array, POSTed to
 * {@code collector_endpoint} with {@code Host: collector_hostname}, to the collector cluster's
 * hosts in turn, with {@code tracing.zipkin.request_timeout} (default 5000 ms). Stats are Envoy's
 * {@code tracing.zipkin.*}: {@code spans_sent}, {@code timer_flushed}, {@code reports_sent} (the
 * collector answered 202), {@code reports_dropped} (any other status), {@code reports_failed}
 * (no answer), {@code reports_skipped_no_cluster} (the cluster had no host).
 *
 * <p>The JSON is written by hand with Jackson's streaming generator, and the request with a plain
 * HTTP/1.1 exchange on a socket: there is no Zipkin reporter library in the build
 * ({@code io.zipkin.reporter2} is neither a dependency nor available here), its senders are built
 * on OkHttp or URLConnection, which the edge does not want, and the JDK HttpClient refuses to set
 * {@code Host}, which {@code collector_hostname} needs. Everything here runs on the reporter's
 * thread; blocking there is harmless.
 */
public final class ZipkinReporter extends BatchingReporter {

  /** Envoy's {@code tracing.zipkin.*} counters, shared by every reporter, and the edge's drop count. */
  public record Stats(Counter spansSent, Counter timerFlushed, Counter reportsSkippedNoCluster, Counter reportsSent,
      Counter reportsDropped, Counter reportsFailed, Counter spansDropped) {
    public static Stats of(Scope root) {
      Scope z = root.scope("tracing").scope("zipkin");
      return new Stats(z.counter("spans_sent"), z.counter("timer_flushed"), z.counter("reports_skipped_no_cluster"),
          z.counter("reports_sent"), z.counter("reports_dropped"), z.counter("reports_failed"),
          z.counter("spans_dropped"));
    }
  }

  private static final JsonFactory JSON = new JsonFactory();

  private final TracingConfig.Zipkin config;
  private final String serviceName;
  private final Supplier<List<InetSocketAddress>> hosts;
  private final Stats stats;
  private int nextHost; // reporter thread only

  /**
   * Starts the reporter's thread.
   *
   * @param serviceName the spans' {@code localEndpoint.serviceName} (Envoy: the node's cluster)
   * @param hosts the collector cluster's host addresses as they are now
   */
  public ZipkinReporter(TracingConfig.Zipkin config, String serviceName, Supplier<List<InetSocketAddress>> hosts,
      Supplier<RuntimeSnapshot> runtime, Stats stats, int capacity) {
    super("spillway-zipkin:" + config.collectorCluster(), "tracing.zipkin", runtime, stats.timerFlushed(),
        stats.spansDropped(), capacity);
    this.config = config;
    this.serviceName = serviceName;
    this.hosts = hosts;
    this.stats = stats;
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
    InetSocketAddress target = targets.get(Math.floorMod(nextHost++, targets.size()));
    byte[] body;
    try {
      body = json(spans, serviceName);
    } catch (IOException e) {
      stats.reportsFailed().inc();
      return;
    }
    int timeoutMillis = (int) Math.max(1, runtime().getInteger("tracing.zipkin.request_timeout", 5000));
    try {
      int status = post(target, body, timeoutMillis);
      (status == 202 ? stats.reportsSent() : stats.reportsDropped()).inc();
    } catch (IOException e) {
      stats.reportsFailed().inc();
    }
  }

  /** One HTTP/1.1 POST, the connection closed after it; returns the response status. */
  private int post(InetSocketAddress target, byte[] body, int timeoutMillis) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(target, timeoutMillis);
      socket.setSoTimeout(timeoutMillis);
      String head = "POST " + config.collectorEndpoint() + " HTTP/1.1\r\n"
          + "Host: " + config.collectorHostname() + "\r\n"
          + "Content-Type: application/json\r\n"
          + "Content-Length: " + body.length + "\r\n"
          + "Connection: close\r\n\r\n";
      OutputStream out = socket.getOutputStream();
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.flush();
      return statusOf(socket.getInputStream());
    }
  }

  /** The status code of the response's status line ({@code HTTP/1.1 202 Accepted}). */
  static int statusOf(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) != -1 && c != '\n' && line.length() < 256) {
      line.append((char) c);
    }
    String[] parts = line.toString().trim().split(" ");
    if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
      throw new IOException("not an HTTP response: " + line);
    }
    try {
      return Integer.parseInt(parts[1]);
    } catch (NumberFormatException e) {
      throw new IOException("bad status line: " + line, e);
    }
  }

  /** Spans as a Zipkin API v2 JSON array. */
  static byte[] json(List<RequestSpan> spans, String serviceName) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(512 * spans.size());
    try (JsonGenerator g = JSON.createGenerator(bytes)) {
      g.writeStartArray();
      for (RequestSpan s : spans) {
        g.writeStartObject();
        g.writeStringField("traceId", s.traceIdHex());
        if (s.parentId() != 0) {
          g.writeStringField("parentId", TraceContext.hex16(s.parentId()));
        }
        g.writeStringField("id", TraceContext.hex16(s.id()));
        g.writeStringField("kind", s.kind().name());
        g.writeStringField("name", s.name());
        g.writeNumberField("timestamp", s.startEpochMicros());
        g.writeNumberField("duration", s.durationMicros());
        g.writeObjectFieldStart("localEndpoint");
        g.writeStringField("serviceName", serviceName);
        g.writeEndObject();
        if (s.shared()) {
          g.writeBooleanField("shared", true);
        }
        g.writeObjectFieldStart("tags");
        List<String> tags = s.tagList();
        for (int i = 0; i < tags.size(); i += 2) {
          g.writeStringField(tags.get(i), tags.get(i + 1));
        }
        g.writeEndObject();
        g.writeEndObject();
      }
      g.writeEndArray();
    }
    return bytes.toByteArray();
  }
}
