package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;

/**
 * A minimal valid bootstrap in YAML (one listener with an HTTP connection manager routing "/" to
 * one STATIC cluster "backend"), with slots for the pieces a test varies. Each slot takes YAML
 * written at column 0; it is indented into place.
 */
final class BootstrapYaml {

  /** The path of the connection manager's typed_config in the minimal bootstrap. */
  static final String HCM = "static_resources.listeners[0].filter_chains[0].filters[0].typed_config";
  /** The path of the first virtual host. */
  static final String VHOST = HCM + ".route_config.virtual_hosts[0]";
  /** The path of the first route. */
  static final String ROUTE = VHOST + ".routes[0]";

  private String top = "";
  private String listener = "";
  private String chain = "";
  private String hcm = "";
  private String httpFilters = """
      - name: envoy.filters.http.router
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
      """;
  private String virtualHosts = """
      - name: local
        domains: ["*"]
        routes:
        - match: {prefix: "/"}
          route: {cluster: backend}
      """;
  private String clusters = """
      - name: backend
        connect_timeout: 1s
        load_assignment:
          cluster_name: backend
          endpoints:
          - lb_endpoints:
            - endpoint:
                address:
                  socket_address: {address: 127.0.0.1, port_value: 8080}
      """;

  static BootstrapYaml minimal() {
    return new BootstrapYaml();
  }

  /** Extra top-level Bootstrap fields. */
  BootstrapYaml top(String yaml) {
    top = yaml;
    return this;
  }

  /** Extra fields of the listener. */
  BootstrapYaml listener(String yaml) {
    listener = yaml;
    return this;
  }

  /** Extra fields of the filter chain. */
  BootstrapYaml chain(String yaml) {
    chain = yaml;
    return this;
  }

  /** Extra fields of the HttpConnectionManager. */
  BootstrapYaml hcm(String yaml) {
    hcm = yaml;
    return this;
  }

  /** The http_filters list items. */
  BootstrapYaml httpFilters(String yaml) {
    httpFilters = yaml;
    return this;
  }

  /** The virtual_hosts list items. */
  BootstrapYaml virtualHosts(String yaml) {
    virtualHosts = yaml;
    return this;
  }

  /** A single virtual host "local" for "*" with these routes list items. */
  BootstrapYaml routes(String yaml) {
    virtualHosts = "- name: local\n  domains: [\"*\"]\n  routes:\n" + yaml.indent(2);
    return this;
  }

  /** The clusters list items. */
  BootstrapYaml clusters(String yaml) {
    clusters = yaml;
    return this;
  }

  String yaml() {
    return top + """
        static_resources:
          listeners:
          - name: listener_0
            address:
              socket_address: {address: 0.0.0.0, port_value: 10000}
        %s    filter_chains:
            - filters:
              - name: envoy.filters.network.http_connection_manager
                typed_config:
                  "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                  stat_prefix: ingress_http
        %s          http_filters:
        %s          route_config:
                    name: local_route
                    virtual_hosts:
        %s%s  clusters:
        %s"""
        .formatted(listener.indent(4), hcm.indent(10), httpFilters.indent(10), virtualHosts.indent(12),
            chain.indent(6), clusters.indent(2));
  }

  Bootstrap parse() throws ConfigException {
    return BootstrapLoader.parse(yaml(), BootstrapLoader.Format.YAML);
  }

  EdgeConfig translate() throws ConfigException {
    return ConfigTranslator.translate(parse());
  }

  /** Asserts that loading and translating succeed. */
  void translateOk() {
    try {
      translate();
    } catch (ConfigException e) {
      throw new AssertionError("expected the configuration to be accepted: " + e.getMessage(), e);
    }
  }

  /** Asserts that loading or translating fails with exactly {@code message}. */
  void rejects(String message) {
    assertThatThrownBy(this::translate).isInstanceOf(ConfigException.class).hasMessage(message);
  }
}
