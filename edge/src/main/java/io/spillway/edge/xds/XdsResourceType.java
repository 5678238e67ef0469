package io.spillway.edge.xds;

/** The resource types an edge subscribes to on its ADS stream, in subscription order. */
public enum XdsResourceType {
  CLUSTER("type.googleapis.com/envoy.config.cluster.v3.Cluster", "cds"),
  ENDPOINT("type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment", "eds"),
  LISTENER("type.googleapis.com/envoy.config.listener.v3.Listener", "lds"),
  ROUTE("type.googleapis.com/envoy.config.route.v3.RouteConfiguration", "rds"),
  OVERLOAD_POLICY("type.googleapis.com/spillway.policy.v1.OverloadPolicy", "policy");

  private final String typeUrl;
  private final String shortName;

  XdsResourceType(String typeUrl, String shortName) {
    this.typeUrl = typeUrl;
    this.shortName = shortName;
  }

  public String typeUrl() {
    return typeUrl;
  }

  /** The short name used in stats and logs (cds, eds, lds, rds, policy). */
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
