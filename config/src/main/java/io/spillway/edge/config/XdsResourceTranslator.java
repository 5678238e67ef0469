package io.spillway.edge.config;

import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import java.util.List;
import java.util.Set;

/**
 * Translates resources that arrive over xDS with the same rules as the bootstrap's static ones.
 * A rejection names the resource and then the field, e.g.
 * {@code cluster "backend".lb_policy: CLUSTER_PROVIDED is not supported}; that text becomes the NACK's
 * {@code error_detail}.
 */
public final class XdsResourceTranslator {
  private final ExtensionRegistry registry;

  public XdsResourceTranslator(ExtensionRegistry registry) {
    this.registry = registry;
  }

  /** A CDS resource. */
  public ClusterConfig cluster(Cluster cluster) throws ConfigException {
    return new ClusterTranslator(registry, true).cluster(cluster, resource("cluster", cluster.getName()));
  }

  /** An EDS resource: the endpoints of the clusters whose service name it carries. */
  public ClusterConfig.LoadAssignment endpoints(ClusterLoadAssignment assignment) throws ConfigException {
    return ClusterTranslator.edsEndpoints(assignment, resource("cluster_load_assignment", assignment.getClusterName()));
  }

  /**
   * An LDS resource.
   *
   * @param knownClusters the clusters that inline routes may name (static and accepted CDS ones)
   */
  public ListenerConfig listener(Listener listener, Set<String> knownClusters) throws ConfigException {
    RouteTranslator routes = new RouteTranslator(knownClusters, true);
    return new ListenerTranslator(registry, new HttpConnectionManagerTranslator(registry, routes, true))
        .listener(listener, resource("listener", listener.getName()));
  }

  /**
   * An RDS resource. Clusters are checked only when the resource sets {@code validate_clusters},
   * as in Envoy; a route to a cluster that does not exist answers 503.
   */
  public RouteConfig routes(RouteConfiguration routes, Set<String> knownClusters) throws ConfigException {
    return new RouteTranslator(knownClusters, false).translate(routes, resource("route_configuration", routes.getName()));
  }

  /** An RTDS resource: its layer's values under their dotted keys. */
  public java.util.Map<String, String> runtimeLayer(io.envoyproxy.envoy.service.runtime.v3.Runtime runtime)
      throws ConfigException {
    return RuntimeTranslator.flatten(runtime.getLayer(), resource("runtime", runtime.getName()).field("layer"));
  }

  private static FieldPath resource(String kind, String name) {
    return new FieldPath(kind + " \"" + name + "\"");
  }
}
