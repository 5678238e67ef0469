package io.spillway.edge.it;

import com.google.protobuf.Message;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.spillway.edge.config.BootstrapLoader;
import io.spillway.edge.config.ConfigException;

/** xDS resources for the dynamic-configuration tests, written as an operator would write them (YAML). */
final class XdsResources {
  private XdsResources() {}

  /** An EDS cluster whose endpoints come over ADS. */
  static Cluster edsCluster(String name) throws ConfigException {
    return resource("""
        name: %s
        type: EDS
        connect_timeout: 1s
        eds_cluster_config: {eds_config: {ads: {}, resource_api_version: V3}}
        """.formatted(name), Cluster.getDefaultInstance());
  }

  /** One endpoint, 127.0.0.1:{@code port}, for the cluster {@code name}. */
  static ClusterLoadAssignment endpoints(String name, int port) throws ConfigException {
    return resource("""
        cluster_name: %s
        endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: %d}}}}]}]
        """.formatted(name, port), ClusterLoadAssignment.getDefaultInstance());
  }

  /** A listener on 127.0.0.1:{@code port} whose connection manager takes route configuration {@code routes} from RDS. */
  static Listener rdsListener(String name, int port, String routes) throws ConfigException {
    return resource("""
        name: %s
        address: {socket_address: {address: 127.0.0.1, port_value: %d}}
        filter_chains:
        - filters:
          - name: envoy.filters.network.http_connection_manager
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
              stat_prefix: ingress
              rds: {route_config_name: %s, config_source: {ads: {}, resource_api_version: V3}}
              http_filters: [{name: envoy.filters.http.router}]
        """.formatted(name, port, routes), Listener.getDefaultInstance());
  }

  /** A route configuration sending everything to {@code cluster}. */
  static RouteConfiguration routeTo(String name, String cluster) throws ConfigException {
    return resource("""
        name: %s
        virtual_hosts:
        - name: all
          domains: ["*"]
          routes: [{match: {prefix: /}, route: {cluster: %s}}]
        """.formatted(name, cluster), RouteConfiguration.getDefaultInstance());
  }

  static <T extends Message> T resource(String yaml, T prototype) throws ConfigException {
    return BootstrapLoader.parseResource(yaml, BootstrapLoader.Format.YAML, prototype);
  }

  /**
   * An edge bootstrap with nothing static but the admin listener and the ADS server: cluster
   * {@code xds} (h2c on 127.0.0.1:{@code xdsPort}), CDS and LDS over ADS.
   *
   * @param head extra top-level YAML at indent 0 (e.g. a {@code node}), or ""
   * @param initialFetchTimeout e.g. {@code 1s}
   */
  static String adsBootstrap(String head, int xdsPort, String initialFetchTimeout) {
    return head + """
        admin:
          address: {socket_address: {address: 127.0.0.1, port_value: 0}}
        dynamic_resources:
          ads_config:
            api_type: GRPC
            transport_api_version: V3
            grpc_services: [{envoy_grpc: {cluster_name: xds}}]
          cds_config: {ads: {}, resource_api_version: V3, initial_fetch_timeout: %2$s}
          lds_config: {ads: {}, resource_api_version: V3, initial_fetch_timeout: %2$s}
        static_resources:
          clusters:
          - name: xds
            type: STATIC
            typed_extension_protocol_options:
              envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
                "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
                explicit_http_config: {http2_protocol_options: {}}
            load_assignment:
              cluster_name: xds
              endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: %1$d}}}}]}]
        """.formatted(xdsPort, initialFetchTimeout);
  }
}
