package io.spillway.central.resources;

/** Envoy resources in YAML, as operators write them; shared by the resource tests. */
public final class Fixtures {

  private Fixtures() {}

  /** A STATIC cluster with one endpoint. */
  public static String cluster(String name) {
    return """
        name: %s
        connect_timeout: 1s
        load_assignment:
          cluster_name: %s
          endpoints:
          - lb_endpoints:
            - endpoint:
                address:
                  socket_address: {address: 127.0.0.1, port_value: 8080}
        """.formatted(name, name);
  }

  /** An EDS cluster (endpoints over ADS). */
  public static String edsCluster(String name) {
    return """
        name: %s
        type: EDS
        connect_timeout: 1s
        eds_cluster_config:
          eds_config: {ads: {}}
        """.formatted(name);
  }

  /** A ClusterLoadAssignment with one endpoint. */
  public static String endpoints(String cluster, String address, int port) {
    return """
        cluster_name: %s
        endpoints:
        - lb_endpoints:
          - endpoint:
              address:
                socket_address: {address: %s, port_value: %d}
        """.formatted(cluster, address, port);
  }

  /** A listener on a port whose inline route sends "/" to a cluster. */
  public static String listener(String name, int port, String cluster) {
    return """
        name: %s
        address:
          socket_address: {address: 0.0.0.0, port_value: %d}
        filter_chains:
        - filters:
          - name: envoy.filters.network.http_connection_manager
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
              stat_prefix: ingress
              route_config:
                name: local
                virtual_hosts:
                - name: all
                  domains: ["*"]
                  routes:
                  - match: {prefix: "/"}
                    route: {cluster: %s}
              http_filters:
              - name: envoy.filters.http.router
                typed_config:
                  "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
        """.formatted(name, port, cluster);
  }

  /** A route configuration sending "/" to a cluster, checking clusters when asked. */
  public static String routes(String name, String cluster, boolean validateClusters) {
    return """
        name: %s
        validate_clusters: %s
        virtual_hosts:
        - name: all
          domains: ["*"]
          routes:
          - match: {prefix: "/"}
            route: {cluster: %s}
        """.formatted(name, validateClusters, cluster);
  }

  /** A runtime layer (RTDS) whose {@code layer} is the given YAML flow mapping, e.g. {@code {a: 1}}. */
  public static String runtime(String name, String layer) {
    return """
        name: %s
        layer: %s
        """.formatted(name, layer);
  }
}
