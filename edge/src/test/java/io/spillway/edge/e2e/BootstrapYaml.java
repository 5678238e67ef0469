package io.spillway.edge.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Envoy v3 bootstrap YAML for the E2E tests: an admin listener on its own port, HTTP listeners on
 * 127.0.0.1 (each with one HTTP connection manager and a catch-all virtual host) and STATIC clusters.
 * Nested parts are given as YAML fragments at indent 0 and placed where they belong.
 */
final class BootstrapYaml {

  private final int adminPort;
  private final List<String> listeners = new ArrayList<>();
  private final List<String> clusters = new ArrayList<>();
  private String adminOptions = "";

  private BootstrapYaml(int adminPort) {
    this.adminPort = adminPort;
  }

  /** A bootstrap whose admin listener is 127.0.0.1:{@code adminPort}. */
  static BootstrapYaml withAdmin(int adminPort) {
    return new BootstrapYaml(adminPort);
  }

  BootstrapYaml listener(Listener listener) {
    listeners.add(listener.render());
    return this;
  }

  /** Extra fields of the admin listener, YAML at indent 0 (e.g. {@code access_log: [...]}). */
  BootstrapYaml adminOptions(String yaml) {
    adminOptions = yaml;
    return this;
  }

  /** A cluster given as a YAML list item ({@code - name: ...}) at indent 0. */
  BootstrapYaml cluster(String yaml) {
    clusters.add(yaml);
    return this;
  }

  /** A STATIC round-robin cluster of 127.0.0.1 endpoints, with extra cluster-level YAML lines. */
  BootstrapYaml staticCluster(String name, String extra, int... ports) {
    StringBuilder endpoints = new StringBuilder();
    for (int port : ports) {
      endpoints.append("\n      - endpoint: { address: { socket_address: { address: 127.0.0.1, port_value: ")
          .append(port).append(" } } }");
    }
    String lbEndpoints = ports.length == 0 ? " []" : endpoints.toString();
    return cluster("""
        - name: %s
          type: STATIC
          connect_timeout: 1s
          lb_policy: ROUND_ROBIN
        %s
          load_assignment:
            cluster_name: %s
            endpoints:
            - lb_endpoints:%s
        """.formatted(name, indent(extra, 2), name, lbEndpoints));
  }

  String render() {
    return """
        admin:
          address: { socket_address: { address: 127.0.0.1, port_value: %d } }
        %s
        static_resources:
          listeners:
        %s
          clusters:
        %s
        """.formatted(adminPort, indent(adminOptions, 2), indent(String.join("\n", listeners), 2), indent(String.join("\n", clusters), 2));
  }

  /** Writes the bootstrap to {@code dir/fileName} and returns the file. */
  Path writeTo(Path dir, String fileName) {
    Path file = dir.resolve(fileName);
    try {
      Files.writeString(file, render());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
    return file;
  }

  /**
   * The start of an {@code overload_manager} (YAML at indent 0, ending with a newline) refreshed
   * every 50 ms, with one monitor: envoy.resource_monitors.injected_resource reading
   * {@code pressureFile}. The caller appends its {@code actions} / {@code loadshed_points}.
   */
  static String injectedOverloadManager(java.nio.file.Path pressureFile) {
    return """
        overload_manager:
          refresh_interval: { seconds: 0, nanos: 50000000 }
          resource_monitors:
          - name: envoy.resource_monitors.injected_resource
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.resource_monitors.injected_resource.v3.InjectedResourceConfig
              filename: %s
        """.formatted(pressureFile);
  }

  /** Indents every non-blank line of {@code yaml} by {@code spaces}; blank lines are dropped. */
  static String indent(String yaml, int spaces) {
    String pad = " ".repeat(spaces);
    return yaml.lines().filter(l -> !l.isBlank()).map(l -> pad + l).collect(Collectors.joining("\n"));
  }

  /** One listener on 127.0.0.1 with an HTTP connection manager (codec AUTO) in its only filter chain. */
  static final class Listener {
    private final String name;
    private final int port;
    private String statPrefix;
    private String hcmOptions = "";
    private String routes = "";
    private String httpFilters = "";
    private String transportSocket = "";
    private String chainOptions = "";
    private String listenerOptions = "";

    private Listener(String name, int port) {
      this.name = name;
      this.port = port;
      this.statPrefix = name;
    }

    /** A listener named {@code name} on 127.0.0.1:{@code port}; its stat_prefix is its name unless set. */
    static Listener named(String name, int port) {
      return new Listener(name, port);
    }

    Listener statPrefix(String statPrefix) {
      this.statPrefix = statPrefix;
      return this;
    }

    /** Extra HttpConnectionManager fields, YAML at indent 0 (e.g. {@code request_headers_timeout: 1s}). */
    Listener hcmOptions(String yaml) {
      this.hcmOptions = yaml;
      return this;
    }

    /** The routes of the catch-all virtual host, a YAML list at indent 0. */
    Listener routes(String yaml) {
      this.routes = yaml;
      return this;
    }

    /** HTTP filters placed before the router, a YAML list at indent 0. */
    Listener httpFilters(String yaml) {
      this.httpFilters = yaml;
      return this;
    }

    /** The filter chain's {@code transport_socket} value, YAML at indent 0. */
    Listener transportSocket(String yaml) {
      this.transportSocket = yaml;
      return this;
    }

    /** Extra fields of the filter chain, YAML at indent 0 (e.g. {@code transport_socket_connect_timeout: 1s}). */
    Listener chainOptions(String yaml) {
      this.chainOptions = yaml;
      return this;
    }

    /** Extra fields of the listener, YAML at indent 0 (e.g. {@code access_log: [...]}). */
    Listener listenerOptions(String yaml) {
      this.listenerOptions = yaml;
      return this;
    }

    String render() {
      String tls = (transportSocket.isBlank() ? "" : "  transport_socket:\n" + indent(transportSocket, 4))
          + (chainOptions.isBlank() ? "" : "\n" + indent(chainOptions, 2));
      return """
          - name: %s
            address: { socket_address: { address: 127.0.0.1, port_value: %d } }
          %s
            filter_chains:
            - filters:
              - name: envoy.filters.network.http_connection_manager
                typed_config:
                  "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                  stat_prefix: %s
                  codec_type: AUTO
          %s
                  route_config:
                    name: %s_routes
                    virtual_hosts:
                    - name: all
                      domains: ["*"]
                      routes:
          %s
                  http_filters:
          %s
                  - name: envoy.filters.http.router
                    typed_config:
                      "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
          %s
          """.formatted(name, port, indent(listenerOptions, 2), statPrefix, indent(hcmOptions, 8), name, indent(routes, 14),
          indent(httpFilters, 8), indent(tls, 2));
    }
  }
}
