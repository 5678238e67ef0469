package io.spillway.edge.xds;

/** The resource types an edge subscribes to on its ADS stream, in subscription order. */
public enum XdsResourceType {
  CLUSTER("type.googleapis.com/envoy.config.cluster.v3.Cluster", "cds", "cluster"),
  ENDPOINT("type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment", "eds", "cluster_load_assignment"),
  LISTENER("type.googleapis.com/envoy.config.listener.v3.Listener", "lds", "listener"),
  ROUTE("type.googleapis.com/envoy.config.route.v3.RouteConfiguration", "rds", "route_configuration"),
  OVERLOAD_POLICY("type.googleapis.com/spillway.policy.v1.OverloadPolicy", "policy", "overload_policy"),
  RUNTIME("type.googleapis.com/envoy.service.runtime.v3.Runtime", "rtds", "runtime");

  private final String typeUrl;
  private final String shortName;
  private final String kind;

  XdsResourceType(String typeUrl, String shortName, String kind) {
    this.typeUrl = typeUrl;
    this.shortName = shortName;
    this.kind = kind;
  }

  /**
   * What one resource of the type is called in error messages, as the translator calls it
   * ({@code listener "ingress".address: ...}): cluster, cluster_load_assignment, listener,
   * route_configuration, overload_policy, runtime.
   */
  public String kind() {
    return kind;
  }

  public String typeUrl() {
    return typeUrl;
  }

  /** The short name used in stats and logs (cds, eds, lds, rds, policy, rtds). */
  public String shortName() {
    return shortName;
  }

  /** The type with that URL, or null. */
  public static XdsResourceType ofUrl(String typeUrl) {
    for (XdsResourceType t : values()) {
      if (t.typeUrl.equals(typeUrl)) {
        return t;
      }
    }
    return null;
  }
}
