package io.spillway.central.xds;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.function.IntSupplier;

/** The xDS server's metrics, in central's registry (shown on {@code /metrics}). */
public final class XdsMetrics {

  /** Why a stream was refused. */
  enum AuthFailure {
    MISSING_CREDENTIAL("missing_credential"),
    UNKNOWN_NODE("unknown_node"),
    BAD_CREDENTIAL("bad_credential");

    final String label;

    AuthFailure(String label) {
      this.label = label;
    }
  }

  private final Counter pushes;
  private final Histogram pushLatency;
  private final Counter acks;
  private final Counter nacks;
  private final Counter streamErrors;
  private final Counter authFailures;

  /**
   * Registers the metrics.
   *
   * @param registry central's registry
   * @param connectedEdges how many edges have a stream open on this replica now
   */
  public XdsMetrics(PrometheusRegistry registry, IntSupplier connectedEdges) {
    GaugeWithCallback.builder()
        .name("central_xds_connected_edges")
        .help("Edges with an authenticated ADS stream open on this central")
        .callback(callback -> callback.call(connectedEdges.getAsInt()))
        .register(registry);
    pushes = Counter.builder()
        .name("central_xds_pushes_total")
        .help("Discovery responses written to ADS streams, by type (cds, eds, lds, rds, policy, rtds)")
        .labelNames("type")
        .register(registry);
    pushLatency = Histogram.builder()
        .name("central_xds_push_latency_seconds")
        .help("From a committed change being published to its discovery response being written to a stream")
        .classicUpperBounds(0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5)
        .register(registry);
    acks = Counter.builder()
        .name("central_xds_acks_total")
        .help("Discovery responses ACKed by edges, by type")
        .labelNames("type")
        .register(registry);
    nacks = Counter.builder()
        .name("central_xds_nacks_total")
        .help("Discovery responses NACKed (refused) by edges, by type")
        .labelNames("type")
        .register(registry);
    streamErrors = Counter.builder()
        .name("central_xds_stream_errors_total")
        .help("ADS streams that ended with an error (cancelled by the edge, broken connection)")
        .register(registry);
    authFailures = Counter.builder()
        .name("central_xds_auth_failures_total")
        .help("ADS and report streams, and rate limit calls, refused: missing_credential, unknown_node, bad_credential")
        .labelNames("reason")
        .register(registry);
  }

  void pushed(XdsType type) {
    pushes.labelValues(type.shortName()).inc();
  }

  void pushLatency(long nanos) {
    pushLatency.observe(nanos / 1e9);
  }

  void acked(XdsType type) {
    acks.labelValues(type.shortName()).inc();
  }

  void nacked(XdsType type) {
    nacks.labelValues(type.shortName()).inc();
  }

  void streamError() {
    streamErrors.inc();
  }

  void authFailure(AuthFailure reason) {
    authFailures.labelValues(reason.label).inc();
  }
}
