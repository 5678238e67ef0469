package io.spillway.edge.it;

import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.spillway.edge.config.BootstrapLoader;
import io.spillway.edge.config.ConfigTranslator;
import io.spillway.edge.config.EdgeConfig;
import io.spillway.edge.config.XdsClientConfig;
import io.spillway.edge.listener.Listener;
import io.spillway.edge.server.EdgeServer;
import io.spillway.edge.server.ServerOptions;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Gauge;
import io.spillway.edge.stats.Stat;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.upstream.ClusterManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;

/**
 * An edge started in-process from bootstrap YAML, listeners and admin on port 0 of 127.0.0.1,
 * two workers and a fixed seed; plus an HTTP/1.1 client pointed at its first listener.
 */
final class EdgeHarness implements AutoCloseable {
  private final EdgeServer server;
  private final StatsStore stats;
  final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5))
      .build();

  private EdgeHarness(String yaml, String policyJson) throws Exception {
    this(yaml, policyJson, null, true, ClusterManager.Resolver.SYSTEM);
  }

  private EdgeHarness(String yaml, String policyJson, java.nio.file.Path xdsStateDir, boolean xdsPolicyType,
      ClusterManager.Resolver resolver) throws Exception {
    Bootstrap bootstrap = BootstrapLoader.parse(yaml, BootstrapLoader.Format.YAML);
    EdgeConfig config = ConfigTranslator.translate(bootstrap);
    stats = new StatsStore(io.spillway.edge.server.EdgeMain.statsOptions(config.statsConfig()));
    if (!xdsPolicyType) {
      config = config.withXds(config.xds().map(io.spillway.edge.config.XdsClientConfig::withoutOverloadPolicy));
    }
    io.spillway.policy.DeploymentDefaults defaults = io.spillway.policy.DeploymentDefaults.builtIn();
    io.spillway.policy.OverloadPolicy policy = null;
    if (policyJson != null) {
      io.spillway.policy.ParseResult parsed = io.spillway.policy.PolicyJson.parse(policyJson, defaults);
      if (!parsed.valid()) {
        throw new IllegalArgumentException(parsed.problems().toString());
      }
      policy = parsed.policy();
    }
    server = new EdgeServer(config, bootstrap,
        new ServerOptions(2, Duration.ofSeconds(5), "auto", 42L, null, null,
            io.spillway.policy.EffectivePolicy.resolve(policy, defaults), defaults,
            java.util.Optional.ofNullable(xdsStateDir)),
        stats, Clock.systemUTC(), resolver);
    server.start();
  }

  static EdgeHarness start(String yaml) throws Exception {
    return new EdgeHarness(yaml, null);
  }

  /** An edge whose overload policy is the given OverloadPolicy JSON (over built-in defaults). */
  static EdgeHarness start(String yaml, String policyJson) throws Exception {
    return new EdgeHarness(yaml, policyJson);
  }

  /**
   * An edge for an xDS server that knows only Envoy's types (no OverloadPolicy subscription),
   * keeping its last-known-good state in {@code xdsStateDir} when that is not null.
   */
  static EdgeHarness startForEnvoyXds(String yaml, java.nio.file.Path xdsStateDir) throws Exception {
    return new EdgeHarness(yaml, null, xdsStateDir, false, ClusterManager.Resolver.SYSTEM);
  }

  /** An edge whose STRICT_DNS and LOGICAL_DNS names are resolved by {@code resolver}. */
  static EdgeHarness start(String yaml, ClusterManager.Resolver resolver) throws Exception {
    return new EdgeHarness(yaml, null, null, true, resolver);
  }

  EdgeServer server() {
    return server;
  }

  int port() {
    return server.listeners().get(0).localAddress().getPort();
  }

  int port(String listener) {
    for (Listener l : server.listeners()) {
      if (l.config().name().equals(listener)) {
        return l.localAddress().getPort();
      }
    }
    throw new IllegalArgumentException("no listener " + listener);
  }

  int adminPort() {
    return server.adminAddress().getPort();
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port() + path);
  }

  HttpResponse<String> get(String path, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(20));
    if (headers.length > 0) {
      b.headers(headers);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A counter's or gauge's value by Envoy name, 0 when it does not exist. */
  long stat(String name) {
    Stat s = stats.find(name).orElse(null);
    if (s instanceof Counter c) {
      return c.value();
    }
    if (s instanceof Gauge g) {
      return g.value();
    }
    return 0;
  }

  /**
   * Waits (up to 5 s) for a stat to reach a value: a request's accounting may finish a moment
   * after its last byte reached the client.
   */
  long awaitStat(String name, long expected) throws InterruptedException {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
    long v = stat(name);
    while (v != expected && System.nanoTime() < deadline) {
      Thread.sleep(5);
      v = stat(name);
    }
    return v;
  }

  StatsStore stats() {
    return stats;
  }

  @Override
  public void close() {
    server.shutdown(Duration.ZERO);
  }

  /**
   * A bootstrap with admin on port 0 and one listener on port 0 whose virtual host "*" has the
   * given routes (YAML list items indented by 14 spaces) and the given clusters (indented by 2).
   */
  static String bootstrap(String routes, String clusters) {
    return bootstrap("", routes, clusters);
  }

  static String bootstrap(String hcmExtra, String routes, String clusters) {
    return """
        admin:
          address: { socket_address: { address: 127.0.0.1, port_value: 0 } }
        static_resources:
          listeners:
          - name: main
            address: { socket_address: { address: 127.0.0.1, port_value: 0 } }
            filter_chains:
            - filters:
              - name: envoy.filters.network.http_connection_manager
                typed_config:
                  "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                  stat_prefix: ingress
                  codec_type: AUTO
        %s
                  route_config:
                    name: local
                    virtual_hosts:
                    - name: all
                      domains: ["*"]
                      routes:
        %s
                  http_filters:
                  - name: envoy.filters.http.router
                    typed_config:
                      "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
          clusters:
        %s
        """.formatted(indent(hcmExtra, 10), indent(routes, 14), indent(clusters, 2));
  }

  /** A STATIC cluster of the given ports on 127.0.0.1, with extra cluster fields (YAML at cluster level). */
  static String cluster(String name, String extra, int... ports) {
    StringBuilder endpoints = new StringBuilder();
    for (int p : ports) {
      endpoints.append("      - endpoint: { address: { socket_address: { address: 127.0.0.1, port_value: ")
          .append(p).append(" } } }\n");
    }
    return """
        - name: %s
          type: STATIC
          connect_timeout: 1s
          lb_policy: ROUND_ROBIN
        %s
          load_assignment:
            cluster_name: %s
            endpoints:
            - lb_endpoints:
        %s""".formatted(name, indent(extra, 2), name, endpoints.toString().stripTrailing())
        .replace("- lb_endpoints:\n", endpoints.isEmpty() ? "- lb_endpoints: []\n" : "- lb_endpoints:\n");
  }

  /** Inserts HTTP filters (YAML list items) before the router, at the router's indentation. */
  static String withHttpFilterBeforeRouter(String yaml, String filters) {
    int at = yaml.indexOf("- name: envoy.filters.http.router");
    int lineStart = yaml.lastIndexOf('\n', at) + 1;
    return yaml.substring(0, lineStart) + indent(filters, at - lineStart) + "\n" + yaml.substring(lineStart);
  }

  /**
   * Starts an edge whose chain holds one HTTP filter before the router: {@code name} with a
   * {@code typed_config} of {@code typeUrl} and these fields (YAML, column 0).
   */
  static EdgeHarness startWithFilter(String routes, String clusters, String name, String typeUrl, String fields)
      throws Exception {
    return start(withHttpFilterBeforeRouter(bootstrap(routes, clusters), """
        - name: %s
          typed_config:
            "@type": %s
        %s""".formatted(name, typeUrl, fields.stripIndent().indent(4).stripTrailing())));
  }

  static String indent(String text, int spaces) {
    if (text == null || text.isBlank()) {
      return "";
    }
    String pad = " ".repeat(spaces);
    return text.stripIndent().lines().map(l -> l.isBlank() ? l : pad + l).reduce((a, b) -> a + "\n" + b).orElse("");
  }
}
