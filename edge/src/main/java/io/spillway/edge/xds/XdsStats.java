package io.spillway.edge.xds;

import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Gauge;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.stats.Tag;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;

/**
 * The ADS client's stats, named after Envoy's where Envoy has a name: {@code control_plane.connected_state},
 * {@code cluster_manager.cds.*}, {@code listener_manager.lds.*}, per cluster
 * {@code cluster.<name>.update_*} for its endpoints and per route configuration
 * {@code http.<stat_prefix>.rds.<route_config_name>.*}. The edge also counts EDS, RDS and the
 * overload policy per type under {@code xds.eds.*}, {@code xds.rds.*} and {@code xds.policy.*}.
 */
final class XdsStats {

  /** The update stats of one resource type. */
  static final class TypeStats {
    final Counter updateAttempt;
    final Counter updateSuccess;
    final Counter updateRejected;
    final Counter updateFailure;
    final Counter initFetchTimeout;
    final Gauge version;
    final Gauge updateTime;

    TypeStats(Scope scope) {
      updateAttempt = scope.counter("update_attempt");
      updateSuccess = scope.counter("update_success");
      updateRejected = scope.counter("update_rejected");
      updateFailure = scope.counter("update_failure");
      initFetchTimeout = scope.counter("init_fetch_timeout");
      version = scope.gauge("version");
      updateTime = scope.gauge("update_time");
    }
  }

  /**
   * Envoy's stats of one named resource: a cluster's endpoints ({@code cluster.<name>.*}) or a
   * route configuration ({@code http.<stat_prefix>.rds.<route_config_name>.*}).
   */
  static final class ResourceStats {
    final Counter updateAttempt;
    final Counter updateSuccess;
    final Counter updateRejected;
    final Gauge version;

    ResourceStats(Scope scope) {
      updateAttempt = scope.counter("update_attempt");
      updateSuccess = scope.counter("update_success");
      updateRejected = scope.counter("update_rejected");
      version = scope.gauge("version");
    }

    /** Counts one response that carried the resource. */
    void count(boolean accepted, String acceptedVersion) {
      updateAttempt.inc();
      if (accepted) {
        updateSuccess.inc();
        version.set(versionHash(acceptedVersion));
      } else {
        updateRejected.inc();
      }
    }
  }

  /** The tag Envoy gives the route configuration's name in {@code http.<prefix>.rds.<name>.*}. */
  static final String RDS_ROUTE_CONFIG_TAG = "envoy_rds_route_config";

  final Gauge connectedState;
  private final Scope root;
  private final Map<XdsResourceType, TypeStats> types = new EnumMap<>(XdsResourceType.class);

  XdsStats(Scope root) {
    this.root = root;
    connectedState = root.scope("control_plane").gauge("connected_state");
    types.put(XdsResourceType.CLUSTER, new TypeStats(root.scope("cluster_manager").scope("cds")));
    types.put(XdsResourceType.LISTENER, new TypeStats(root.scope("listener_manager").scope("lds")));
    types.put(XdsResourceType.ENDPOINT, new TypeStats(root.scope("xds").scope("eds")));
    types.put(XdsResourceType.ROUTE, new TypeStats(root.scope("xds").scope("rds")));
    types.put(XdsResourceType.OVERLOAD_POLICY, new TypeStats(root.scope("xds").scope("policy")));
    types.put(XdsResourceType.RUNTIME, new TypeStats(root.scope("xds").scope("rtds")));
  }

  TypeStats of(XdsResourceType type) {
    return types.get(type);
  }

  /** The EDS stats of cluster {@code name} (the same {@code cluster.<name>.} scope as its upstream stats). */
  ResourceStats cluster(String name) {
    return new ResourceStats(root.taggedScope("cluster", name, Tag.CLUSTER_NAME));
  }

  /** The stats of route configuration {@code name} as the connection manager with {@code statPrefix} sees it. */
  ResourceStats route(String statPrefix, String name) {
    return new ResourceStats(root.taggedScope("http", statPrefix, Tag.HTTP_CONN_MANAGER_PREFIX)
        .taggedScope("rds", name, RDS_ROUTE_CONFIG_TAG));
  }

  /**
   * The version gauge's value: a 64-bit FNV-1a hash of the version string (Envoy also shows a hash,
   * xxHash64, so only equality of the values means anything).
   */
  static long versionHash(String version) {
    long hash = 0xcbf29ce484222325L;
    for (byte b : version.getBytes(StandardCharsets.UTF_8)) {
      hash ^= b & 0xff;
      hash *= 0x100000001b3L;
    }
    return hash;
  }
}
