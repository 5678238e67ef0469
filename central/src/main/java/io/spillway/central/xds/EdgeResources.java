package io.spillway.central.xds;

import java.util.Objects;

/**
 * What one edge is served of the Envoy types (all but the overload policy, which comes from the
 * policy store); each set carries its own version.
 *
 * @param clusters {@code envoy.config.cluster.v3.Cluster} by name
 * @param endpoints {@code envoy.config.endpoint.v3.ClusterLoadAssignment} by cluster name
 * @param listeners {@code envoy.config.listener.v3.Listener} by name
 * @param routes {@code envoy.config.route.v3.RouteConfiguration} by name
 * @param runtimes {@code envoy.service.runtime.v3.Runtime} (runtime layers) by name
 */
public record EdgeResources(TypeResources clusters, TypeResources endpoints, TypeResources listeners, TypeResources routes,
    TypeResources runtimes) {

  /** Nothing of any type. */
  public static final EdgeResources EMPTY = new EdgeResources(TypeResources.EMPTY, TypeResources.EMPTY,
      TypeResources.EMPTY, TypeResources.EMPTY, TypeResources.EMPTY);

  /** Checks that no set is null. */
  public EdgeResources {
    Objects.requireNonNull(clusters, "clusters");
    Objects.requireNonNull(endpoints, "endpoints");
    Objects.requireNonNull(listeners, "listeners");
    Objects.requireNonNull(routes, "routes");
    Objects.requireNonNull(runtimes, "runtimes");
  }

  /** One type's set (not the policy, which the server takes from the policy store). */
  public TypeResources of(XdsType type) {
    return switch (type) {
      case CLUSTER -> clusters;
      case ENDPOINT -> endpoints;
      case LISTENER -> listeners;
      case ROUTE -> routes;
      case RUNTIME -> runtimes;
      case OVERLOAD_POLICY -> throw new IllegalArgumentException("the overload policy comes from the policy store");
    };
  }
}
