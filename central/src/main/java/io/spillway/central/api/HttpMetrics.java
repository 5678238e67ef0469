package io.spillway.central.api;

import com.zaxxer.hikari.HikariPoolMXBean;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.Supplier;

/**
 * Central's own Prometheus metrics, in a registry owned by this instance (never the global one):
 * HTTP requests by method, route template and status, request durations, and the database pool.
 */
public final class HttpMetrics {

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Counter requests;
  private final Histogram durations;
  private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

  /**
   * Registers the metrics.
   *
   * @param pool the database pool's live numbers; the supplier may return null while the pool starts
   */
  public HttpMetrics(Supplier<HikariPoolMXBean> pool) {
    requests = Counter.builder()
        .name("central_http_requests_total")
        .help("HTTP requests answered, by method, route template and status")
        .labelNames("method", "route", "status")
        .register(registry);
    durations = Histogram.builder()
        .name("central_http_request_duration_seconds")
        .help("Time to answer an HTTP request, by method and route template")
        .labelNames("method", "route")
        .register(registry);
    GaugeWithCallback.builder()
        .name("central_db_pool_connections")
        .help("Database pool connections by state (active, idle, total, pending = threads waiting)")
        .labelNames("state")
        .callback(callback -> {
          HikariPoolMXBean stats = pool.get();
          if (stats != null) {
            callback.call(stats.getActiveConnections(), "active");
            callback.call(stats.getIdleConnections(), "idle");
            callback.call(stats.getTotalConnections(), "total");
            callback.call(stats.getThreadsAwaitingConnection(), "pending");
          }
        })
        .register(registry);
  }

  /** The registry, for other parts of central (the xDS server) to add their metrics to {@code /metrics}. */
  public PrometheusRegistry registry() {
    return registry;
  }

  /** Counts one answered request. */
  public void record(String method, String route, int status, double seconds) {
    requests.labelValues(method, route, Integer.toString(status)).inc();
    durations.labelValues(method, route).observe(seconds);
  }

  /** The Prometheus text format's content type. */
  public String contentType() {
    return writer.getContentType();
  }

  /** Every metric in the Prometheus text format. */
  public byte[] scrape() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      writer.write(out, registry.scrape());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
