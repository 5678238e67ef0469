package io.spillway.edge.admin;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UInt32Value;
import com.google.protobuf.util.JsonFormat;
import io.envoyproxy.envoy.admin.v3.ClusterStatus;
import io.envoyproxy.envoy.admin.v3.Clusters;
import io.envoyproxy.envoy.admin.v3.HostHealthStatus;
import io.envoyproxy.envoy.admin.v3.HostStatus;
import io.envoyproxy.envoy.admin.v3.SimpleMetric;
import io.envoyproxy.envoy.config.cluster.v3.CircuitBreakers;
import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import io.envoyproxy.envoy.config.core.v3.RoutingPriority;
import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.upstream.Cluster;
import io.spillway.edge.upstream.ClusterManager;
import io.spillway.edge.upstream.Host;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * {@code /clusters}: every cluster's circuit-breaker thresholds and every host's counters, in
 * Envoy's text form ({@code <cluster>::<ip:port>::<stat>::<value>} lines) or, with
 * {@code ?format=json}, as Envoy's {@code envoy.admin.v3.Clusters}.
 *
 * <p>Each host's {@code health_flags} are Envoy's: {@code healthy}, or the set flags, each after a
 * slash ({@code /failed_active_hc/failed_outlier_check/pending_active_hc}...), and its success
 * rates as the outlier detector last computed them ({@code -1} when not computed). Each host shows
 * its endpoint's {@code priority} and locality ({@code region}, {@code zone}, {@code sub_zone}), as
 * Envoy's do; only the default routing priority's circuit-breaker thresholds are configurable.
 */
final class ClustersEndpoint implements AdminEndpoint {
  private static final JsonFormat.Printer PRINTER = JsonFormat.printer()
      .preservingProtoFieldNames()
      // A stat reads {"name":"rq_total","value":"0","type":"COUNTER"} even when zero.
      .includingDefaultValueFields(Set.of(
          SimpleMetric.getDescriptor().findFieldByName("value"),
          SimpleMetric.getDescriptor().findFieldByName("type")));

  private final Supplier<ClusterManager> clusters;

  /** @param clusters the cluster manager, read on every request */
  ClustersEndpoint(Supplier<ClusterManager> clusters) {
    this.clusters = clusters;
  }

  @Override
  public String help() {
    return "upstream cluster status; ?format=json";
  }

  @Override
  public boolean mutating() {
    return false;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    String format = request.param("format");
    if (format == null || format.isEmpty() || format.equals("text")) {
      return AdminResponse.text(200, text());
    }
    if (format.equals("json")) {
      return AdminResponse.json(200, json());
    }
    return AdminResponse.badRequest("invalid format '" + format + "': use text or json");
  }

  private List<Cluster> all() {
    ClusterManager manager = clusters.get();
    return manager == null ? List.of() : List.copyOf(manager.all().values());
  }

  private String text() {
    StringBuilder out = new StringBuilder();
    for (Cluster cluster : all()) {
      String name = cluster.name();
      line(out, name, "observability_name", name);
      ClusterConfig.Thresholds t = cluster.limits().thresholds();
      line(out, name, "default_priority::max_connections", t.maxConnections());
      line(out, name, "default_priority::max_pending_requests", t.maxPendingRequests());
      line(out, name, "default_priority::max_requests", t.maxRequests());
      line(out, name, "default_priority::max_retries", t.maxRetries());
      line(out, name, "added_via_api", false);
      Cluster.PressureSnapshot pressure = cluster.pressureSnapshot();
      if (pressure != null) {
        line(out, name, "pressure_panic", pressure.panic());
      }
      for (Host host : cluster.hosts().hosts()) {
        String prefix = name + "::" + EnvoyAddresses.text(host.address());
        Host.HostCounters c = host.counters();
        // Counters and gauges sorted by name, as Envoy writes them.
        line(out, prefix, "cx_active", c.cxActive());
        line(out, prefix, "cx_connect_fail", c.cxConnectFail());
        line(out, prefix, "cx_total", c.cxTotal());
        line(out, prefix, "rq_active", c.rqActive());
        line(out, prefix, "rq_error", c.rqError());
        line(out, prefix, "rq_success", c.rqSuccess());
        line(out, prefix, "rq_timeout", c.rqTimeout());
        line(out, prefix, "rq_total", c.rqTotal());
        line(out, prefix, "hostname", host.hostname());
        line(out, prefix, "health_flags", healthFlags(host.healthFlags()));
        line(out, prefix, "weight", host.weight());
        line(out, prefix, "region", host.locality().region());
        line(out, prefix, "zone", host.locality().zone());
        line(out, prefix, "sub_zone", host.locality().subZone());
        line(out, prefix, "canary", false);
        line(out, prefix, "priority", host.priority());
        line(out, prefix, "success_rate", rate(host.outlier().successRate()));
        line(out, prefix, "local_origin_success_rate", rate(host.outlier().localOriginSuccessRate()));
        int orcaWeight = cluster.clientSideWeight(host);
        if (orcaWeight >= 0) {
          line(out, prefix, "orca_weight", orcaWeight);
        }
        Cluster.HostPressure p = pressure == null ? null : pressure.of(host);
        if (p != null) {
          line(out, prefix, "pressure_score", Double.isNaN(p.score()) ? "-1" : String.format(java.util.Locale.ROOT, "%.3f", p.score()));
          line(out, prefix, "pressure_weight", String.format(java.util.Locale.ROOT, "%.3f", p.weight()));
          line(out, prefix, "pressure_scored", p.scored());
          line(out, prefix, "pressure_data_age_ms", p.dataAgeNanos() < 0 ? -1 : p.dataAgeNanos() / 1_000_000);
          line(out, prefix, "pressure_ejected", p.ejected());
          line(out, prefix, "pressure_ejections", p.ejections());
        }
      }
    }
    return out.toString();
  }

  /** Each health flag with its name in {@code /clusters}, in the order Envoy prints them. */
  private static final int[] FLAGS = {Host.FAILED_ACTIVE_HC, Host.FAILED_OUTLIER_CHECK, Host.FAILED_EDS_HEALTH,
      Host.DEGRADED_ACTIVE_HC, Host.DEGRADED_EDS_HEALTH, Host.PENDING_ACTIVE_HC, Host.EXCLUDED_VIA_IMMEDIATE_HC_FAIL,
      Host.EDS_STATUS_DRAINING};
  private static final String[] FLAG_NAMES = {"/failed_active_hc", "/failed_outlier_check", "/failed_eds_health",
      "/degraded_active_hc", "/degraded_eds_health", "/pending_active_hc", "/excluded_via_immediate_hc_fail",
      "/eds_status_draining"};

  /** Envoy's rendering of a host's health flags. */
  static String healthFlags(int flags) {
    if (flags == 0) {
      return "healthy";
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < FLAGS.length; i++) {
      if ((flags & FLAGS[i]) != 0) {
        b.append(FLAG_NAMES[i]);
      }
    }
    return b.toString();
  }

  private static Object rate(double rate) {
    return rate < 0 ? (Object) (-1) : (Object) rate;
  }

  private static void line(StringBuilder out, String prefix, String stat, Object value) {
    out.append(prefix).append("::").append(stat).append("::").append(value).append('\n');
  }

  private String json() {
    Clusters.Builder doc = Clusters.newBuilder();
    for (Cluster cluster : all()) {
      ClusterConfig.Thresholds t = cluster.limits().thresholds();
      ClusterStatus.Builder status = ClusterStatus.newBuilder()
          .setName(cluster.name())
          .setObservabilityName(cluster.name())
          .setCircuitBreakers(CircuitBreakers.newBuilder().addThresholds(CircuitBreakers.Thresholds.newBuilder()
              .setPriority(RoutingPriority.DEFAULT)
              .setMaxConnections(UInt32Value.of(t.maxConnections()))
              .setMaxPendingRequests(UInt32Value.of(t.maxPendingRequests()))
              .setMaxRequests(UInt32Value.of(t.maxRequests()))
              .setMaxRetries(UInt32Value.of(t.maxRetries()))));
      Cluster.PressureSnapshot pressure = cluster.pressureSnapshot();
      for (Host host : cluster.hosts().hosts()) {
        Host.HostCounters c = host.counters();
        HostStatus.Builder hs = HostStatus.newBuilder();
        int orcaWeight = cluster.clientSideWeight(host);
        if (orcaWeight >= 0) {
          hs.addStats(gauge("orca_weight", orcaWeight));
        }
        Cluster.HostPressure p = pressure == null ? null : pressure.of(host);
        if (p != null) {
          // Envoy's HostStatus has no fields for these: gauges, the fractions in thousandths.
          hs.addStats(gauge("pressure_score_milli", Double.isNaN(p.score()) ? 0 : Math.round(p.score() * 1000)))
              .addStats(gauge("pressure_weight_milli", Math.round(p.weight() * 1000)))
              .addStats(gauge("pressure_data_age_ms", p.dataAgeNanos() < 0 ? -1 : p.dataAgeNanos() / 1_000_000))
              .addStats(gauge("pressure_scored", p.scored() ? 1 : 0))
              .addStats(gauge("pressure_ejected", p.ejected() ? 1 : 0))
              .addStats(gauge("pressure_ejections", p.ejections()));
        }
        status.addHostStatuses(hs
            .setAddress(EnvoyAddresses.proto(host.address()))
            .addStats(counter("cx_connect_fail", c.cxConnectFail()))
            .addStats(counter("cx_total", c.cxTotal()))
            .addStats(counter("rq_error", c.rqError()))
            .addStats(counter("rq_success", c.rqSuccess()))
            .addStats(counter("rq_timeout", c.rqTimeout()))
            .addStats(counter("rq_total", c.rqTotal()))
            .addStats(gauge("cx_active", c.cxActive()))
            .addStats(gauge("rq_active", c.rqActive()))
            .setHealthStatus(healthStatus(host.healthFlags()))
            .setWeight(host.weight())
            .setPriority(host.priority())
            .setLocality(locality(host.locality()))
            .setHostname(host.hostname()));
      }
      doc.addClusterStatuses(status);
    }
    try {
      return PRINTER.print(doc) + "\n";
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("cannot print clusters: " + e.getMessage(), e);
    }
  }

  private static io.envoyproxy.envoy.config.core.v3.Locality locality(ClusterConfig.Locality l) {
    return io.envoyproxy.envoy.config.core.v3.Locality.newBuilder()
        .setRegion(l.region()).setZone(l.zone()).setSubZone(l.subZone()).build();
  }

  /** Envoy's {@code HostHealthStatus} for a host's flags. */
  static HostHealthStatus healthStatus(int flags) {
    return HostHealthStatus.newBuilder()
        .setEdsHealthStatus(edsHealthStatus(flags))
        .setFailedActiveHealthCheck((flags & Host.FAILED_ACTIVE_HC) != 0)
        .setFailedActiveDegradedCheck((flags & Host.DEGRADED_ACTIVE_HC) != 0)
        .setFailedOutlierCheck((flags & Host.FAILED_OUTLIER_CHECK) != 0)
        .setPendingActiveHc((flags & Host.PENDING_ACTIVE_HC) != 0)
        .setExcludedViaImmediateHcFail((flags & Host.EXCLUDED_VIA_IMMEDIATE_HC_FAIL) != 0)
        .build();
  }

  /** Envoy's {@code eds_health_status}: UNHEALTHY, else DEGRADED, else DRAINING, else HEALTHY, from the EDS flags. */
  private static HealthStatus edsHealthStatus(int flags) {
    if ((flags & Host.FAILED_EDS_HEALTH) != 0) {
      return HealthStatus.UNHEALTHY;
    }
    if ((flags & Host.DEGRADED_EDS_HEALTH) != 0) {
      return HealthStatus.DEGRADED;
    }
    return (flags & Host.EDS_STATUS_DRAINING) != 0 ? HealthStatus.DRAINING : HealthStatus.HEALTHY;
  }

  private static SimpleMetric counter(String name, long value) {
    return SimpleMetric.newBuilder().setName(name).setType(SimpleMetric.Type.COUNTER).setValue(value).build();
  }

  private static SimpleMetric gauge(String name, long value) {
    return SimpleMetric.newBuilder().setName(name).setType(SimpleMetric.Type.GAUGE).setValue(Math.max(0, value))
        .build();
  }
}
