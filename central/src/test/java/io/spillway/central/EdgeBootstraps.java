package io.spillway.central;

/** Pieces of edge bootstraps the end-to-end tests share. */
public final class EdgeBootstraps {

  private EdgeBootstraps() {}

  /**
   * The edge's admin listener on 127.0.0.1:{@code adminPort}, its node id and its ADS stream
   * (State of the World) to central's xDS port on 127.0.0.1 with its credential; clusters and
   * listeners come from central too (initial fetch timeout 5 s).
   */
  public static String adsClient(int adminPort, String edgeId, int xdsPort, String credential) {
    return """
        admin:
          address: {socket_address: {address: 127.0.0.1, port_value: %d}}
        node: {id: %s, cluster: edges}
        dynamic_resources:
          ads_config:
            api_type: GRPC
            transport_api_version: V3
            grpc_services:
            - google_grpc: {target_uri: "127.0.0.1:%d", stat_prefix: central}
              initial_metadata: [{key: authorization, value: "Bearer %s"}]
          cds_config: {ads: {}, resource_api_version: V3, initial_fetch_timeout: 5s}
          lds_config: {ads: {}, resource_api_version: V3, initial_fetch_timeout: 5s}
        """.formatted(adminPort, edgeId, xdsPort, credential);
  }

  /**
   * A {@code static_resources} block: listener {@code main} on {@code listenerPort} routing every
   * request through the router to cluster {@code backend}, one STATIC host on {@code originPort}.
   */
  public static String staticProxy(int listenerPort, int originPort) {
    return """
        static_resources:
          listeners:
          - name: main
            address: {socket_address: {address: 127.0.0.1, port_value: %d}}
            filter_chains:
            - filters:
              - name: envoy.filters.network.http_connection_manager
                typed_config:
                  "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                  stat_prefix: main
                  route_config:
                    name: local
                    virtual_hosts:
                    - name: all
                      domains: ["*"]
                      routes:
                      - match: {prefix: "/"}
                        route: {cluster: backend}
                  http_filters:
                  - name: envoy.filters.http.router
                    typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}
          clusters:
          - name: backend
            type: STATIC
            load_assignment:
              cluster_name: backend
              endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: %d}}}}]}]
        """.formatted(listenerPort, originPort);
  }
}
