package io.spillway.central;

/** Pieces of edge bootstraps the end-to-end tests share. */
public final class EdgeBootstraps {

  private EdgeBootstraps() {}

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
