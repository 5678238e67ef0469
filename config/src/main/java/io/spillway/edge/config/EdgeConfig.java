package io.spillway.edge.config;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The whole validated configuration of one edge: what the bootstrap's static resources describe,
 * translated from Envoy's protos, and how to reach the xDS servers for the rest. Immutable; the data plane reads it through published snapshots.
 *
 * @param node identity reported in /server_info and, later, on the xDS stream
 * @param admin the admin listener, absent when the bootstrap has no {@code admin.address}
 * @param listeners listeners in bootstrap order, names unique
 * @param clusters clusters by name, in bootstrap order
 * @param overload the overload manager ({@link OverloadConfig#disabled()} when not configured)
 * @param xds the ADS client's settings from {@code dynamic_resources}, absent for a static edge
 * @param runtime {@code layered_runtime} ({@link RuntimeConfig#NONE} when not configured)
 * @param watchdogs {@code watchdogs} / {@code watchdog} (Envoy's defaults when not configured)
 * @param statsConfig {@code stats_config}: tags and which stats exist
 * @param statsFlush {@code stats_sinks} and when they are flushed ({@link StatsFlushConfig#NONE} without sinks)
 */
public record EdgeConfig(
    NodeInfo node,
    Optional<AdminConfig> admin,
    List<ListenerConfig> listeners,
    Map<String, ClusterConfig> clusters,
    OverloadConfig overload,
    Optional<io.spillway.edge.config.XdsClientConfig> xds,
    RuntimeConfig runtime,
    WatchdogConfig.Watchdogs watchdogs,
    StatsFlushConfig statsFlush,
    StatsConfig statsConfig) {

  public EdgeConfig {
    java.util.Objects.requireNonNull(statsConfig, "statsConfig");
    java.util.Objects.requireNonNull(runtime, "runtime");
    java.util.Objects.requireNonNull(watchdogs, "watchdogs");
    java.util.Objects.requireNonNull(statsFlush, "statsFlush");
    listeners = List.copyOf(listeners);
    clusters = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(clusters));
  }

  /** A static edge: no xDS. */
  public EdgeConfig(NodeInfo node, Optional<AdminConfig> admin, List<ListenerConfig> listeners,
      Map<String, ClusterConfig> clusters, OverloadConfig overload) {
    this(node, admin, listeners, clusters, overload, Optional.empty(), RuntimeConfig.NONE,
        WatchdogConfig.Watchdogs.DEFAULTS, StatsFlushConfig.NONE, StatsConfig.DEFAULTS);
  }

  /** The same configuration with another xDS client config. */
  public EdgeConfig withXds(Optional<io.spillway.edge.config.XdsClientConfig> otherXds) {
    return new EdgeConfig(node, admin, listeners, clusters, overload, otherXds, runtime, watchdogs, statsFlush,
        statsConfig);
  }

  /** The node identity: {@code node.id}, {@code node.cluster}, string metadata and {@code node.locality.zone}. */
  public record NodeInfo(String id, String cluster, Map<String, String> metadata, String zone) {
    public NodeInfo {
      metadata = Map.copyOf(metadata);
      java.util.Objects.requireNonNull(zone, "zone");
    }

    /** Without a zone. */
    public NodeInfo(String id, String cluster, Map<String, String> metadata) {
      this(id, cluster, metadata, "");
    }
  }

  /**
   * The admin listener.
   *
   * @param address its bind address
   * @param accessLogs {@code admin.access_log} and {@code access_log_path}: one line per admin request
   */
  public record AdminConfig(SocketAddress address, List<AccessLogConfig> accessLogs) {
    public AdminConfig {
      accessLogs = List.copyOf(accessLogs);
    }

    /** Without access logs. */
    public AdminConfig(SocketAddress address) {
      this(address, List.of());
    }
  }
}
