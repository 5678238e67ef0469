package io.spillway.central.xds;

import java.util.List;

/**
 * The resource types served on an edge's ADS stream, in make-before-break order: clusters, then
 * their endpoints, then listeners, then the route configurations they name. The overload policy
 * and the runtime layers (RTDS) travel beside them: they neither wait for those four nor hold them
 * back (Envoy initializes its runtime before clusters and listeners).
 */
public enum XdsType {
  CLUSTER("type.googleapis.com/envoy.config.cluster.v3.Cluster", "cds", false),
  ENDPOINT("type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment", "eds", true),
  LISTENER("type.googleapis.com/envoy.config.listener.v3.Listener", "lds", false),
  ROUTE("type.googleapis.com/envoy.config.route.v3.RouteConfiguration", "rds", true),
  OVERLOAD_POLICY("type.googleapis.com/spillway.policy.v1.OverloadPolicy", "policy", false),
  RUNTIME("type.googleapis.com/envoy.service.runtime.v3.Runtime", "rtds", true);

  /** The four Envoy configuration types that gate one another, in the order one gates the next. */
  public static final List<XdsType> ORDERED = List.of(CLUSTER, ENDPOINT, LISTENER, ROUTE);

  private final String typeUrl;
  private final String shortName;
  private final boolean named;

  XdsType(String typeUrl, String shortName, boolean named) {
    this.typeUrl = typeUrl;
    this.shortName = shortName;
    this.named = named;
  }

  /** The type URL of requests, responses and the resources' {@code Any}. */
  public String typeUrl() {
    return typeUrl;
  }

  /** cds, eds, lds, rds, policy or rtds: metric labels and logs. */
  public String shortName() {
    return shortName;
  }

  /**
   * Whether clients subscribe by name (EDS, RDS, RTDS): a State-of-the-World response carries only the
   * named resources, and one left out is not removed. The others are subscribed as a wildcard and
   * every response carries the full set.
   */
  public boolean named() {
    return named;
  }

  /** The type with that URL, or null. */
  public static XdsType ofUrl(String typeUrl) {
    for (XdsType type : values()) {
      if (type.typeUrl.equals(typeUrl)) {
        return type;
      }
    }
    return null;
  }
}
