package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.ClusterConfig.DiscoveryType;
import io.spillway.edge.config.ClusterConfig.LbPolicy;
import io.spillway.edge.config.ClusterConfig.Thresholds;
import io.spillway.edge.config.ClusterConfig.UpstreamProtocol;
import io.spillway.edge.config.HttpConnectionManagerConfig.CodecType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo bootstrap, and every default the translator fills in. */
class ConfigTranslatorTest {

  @Test
  void translatesTheEnvoyDemoBootstrap(@TempDir Path dir) throws Exception {
    Path demo = Files.write(dir.resolve("envoy-demo.yaml"), BootstrapLoaderTest.envoyDemo());

    EdgeConfig config = ConfigTranslator.translate(BootstrapLoader.load(demo));

    assertThat(config.admin()).contains(new EdgeConfig.AdminConfig(new SocketAddress("127.0.0.1", 9901)));
    assertThat(config.listeners()).hasSize(1);
    ListenerConfig listener = config.listeners().get(0);
    assertThat(listener.name()).isEqualTo("listener_0");
    assertThat(listener.address()).isEqualTo(new SocketAddress("0.0.0.0", 10000));
    assertThat(listener.tls()).isEmpty();
    HttpConnectionManagerConfig hcm = listener.hcm();
    assertThat(hcm.statPrefix()).isEqualTo("ingress_http");
    assertThat(hcm.filterNames()).containsExactly("envoy.filters.http.router");
    RouteConfig.VirtualHost vhost = hcm.routeConfig().virtualHosts().get(0);
    assertThat(hcm.routeConfig().name()).isEqualTo("local_route");
    assertThat(vhost.domains()).containsExactly("*");
    Route route = vhost.routes().get(0);
    assertThat(route.match().path()).isEqualTo(new Route.PathMatch.Prefix("/"));
    assertThat(((Route.RouteAction) route.action()).clusters())
        .containsExactly(new Route.WeightedCluster("service_local", 1));
    ClusterConfig cluster = config.clusters().get("service_local");
    assertThat(cluster.discoveryType()).isEqualTo(DiscoveryType.STRICT_DNS);
    assertThat(cluster.endpoints())
        .containsExactly(new ClusterConfig.Endpoint(new SocketAddress("127.0.0.1", 8080), 1));
  }

  @Test
  void fillsInEnvoysDefaults() throws ConfigException {
    EdgeConfig config = BootstrapYaml.minimal()
        .routes("""
            - match: {prefix: /}
              route: {cluster: backend, retry_policy: {retry_on: 5xx}}
            """)
        .clusters("""
            - name: backend
              load_assignment:
                endpoints:
                - lb_endpoints:
                  - endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 8080}}}
            """)
        .translate();

    assertThat(config.node()).isEqualTo(new EdgeConfig.NodeInfo("", "", Map.of()));
    assertThat(config.admin()).isEmpty();

    ListenerConfig listener = config.listeners().get(0);
    assertThat(listener.perConnectionBufferLimitBytes()).isEqualTo(1024 * 1024);
    assertThat(listener.ignoreGlobalConnLimit()).isFalse();

    HttpConnectionManagerConfig hcm = listener.hcm();
    assertThat(hcm.codecType()).isEqualTo(CodecType.AUTO);
    assertThat(hcm.idleTimeout()).isEqualTo(Duration.ofHours(1));
    assertThat(hcm.streamIdleTimeout()).isEqualTo(Duration.ofMinutes(5));
    assertThat(hcm.requestTimeout()).isZero();
    assertThat(hcm.requestHeadersTimeout()).isZero();
    assertThat(hcm.maxConnectionDuration()).isZero();
    assertThat(hcm.drainTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(hcm.maxRequestHeadersBytes()).isEqualTo(60 * 1024);
    assertThat(hcm.maxRequestHeadersCount()).isEqualTo(100);
    assertThat(hcm.filter("envoy.filters.http.buffer")).isEmpty();
    assertThat(hcm.useRemoteAddress()).isFalse(); // Envoy's default
    assertThat(hcm.xffNumTrustedHops()).isZero();
    assertThat(hcm.generateRequestId()).isTrue();
    assertThat(hcm.preserveExternalRequestId()).isFalse();
    assertThat(hcm.appendLocalOverload()).isFalse();
    assertThat(hcm.serverName()).isEqualTo("spillway");
    assertThat(hcm.routeConfig().requestHeaders()).isEqualTo(HeaderMutations.NONE);

    RouteConfig.VirtualHost vhost = hcm.routeConfig().virtualHosts().get(0);
    assertThat(vhost.retryPolicy()).isEqualTo(RetryPolicy.NONE);
    Route route = vhost.routes().get(0);
    assertThat(route.name()).isEmpty();
    assertThat(route.match().caseSensitive()).isTrue();
    assertThat(route.requestHeaders()).isEqualTo(HeaderMutations.NONE);
    assertThat(route.metadata()).isEmpty();
    Route.RouteAction action = (Route.RouteAction) route.action();
    assertThat(action.timeout()).isEqualTo(Duration.ofSeconds(15));
    assertThat(action.idleTimeout()).isEmpty();
    assertThat(action.clusterHeader()).isEmpty();
    assertThat(action.prefixRewrite()).isEmpty();
    assertThat(action.hostRewriteLiteral()).isEmpty();
    assertThat(action.autoHostRewrite()).isFalse();
    RetryPolicy retry = action.retryPolicy();
    assertThat(retry.retryOn()).containsExactly(RetryPolicy.RetryOn.FIVE_XX);
    assertThat(retry.numRetries()).isEqualTo(1);
    assertThat(retry.perTryTimeout()).isZero();
    assertThat(retry.retriableStatusCodes()).isEmpty();
    assertThat(retry.backoffBase()).isEqualTo(Duration.ofMillis(25));
    assertThat(retry.backoffMax()).isEqualTo(Duration.ofMillis(250));

    ClusterConfig cluster = config.clusters().get("backend");
    assertThat(cluster.discoveryType()).isEqualTo(DiscoveryType.STATIC);
    assertThat(cluster.lbPolicy()).isEqualTo(LbPolicy.ROUND_ROBIN);
    assertThat(cluster.leastRequestChoiceCount()).isEqualTo(2);
    assertThat(cluster.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(cluster.dnsRefreshRate()).isEqualTo(Duration.ofSeconds(5));
    assertThat(cluster.thresholds()).isEqualTo(Thresholds.DEFAULTS);
    assertThat(cluster.thresholds()).isEqualTo(new Thresholds(1024, 1024, 1024, 3));
    assertThat(cluster.protocol()).isEqualTo(UpstreamProtocol.HTTP1);
    assertThat(cluster.perConnectionBufferLimitBytes()).isEqualTo(1024 * 1024);
    assertThat(cluster.maxRequestsPerConnection()).isZero();
    assertThat(cluster.idleTimeout()).isEqualTo(Duration.ofSeconds(60)); // ours; Envoy's is 1 h
    assertThat(cluster.endpoints()).extracting(ClusterConfig.Endpoint::weight).containsExactly(1);
  }

  @Test
  void translatesEveryConnectionManagerSetting() throws ConfigException {
    HttpConnectionManagerConfig hcm = BootstrapYaml.minimal()
        .hcm("""
            codec_type: HTTP2
            common_http_protocol_options:
              idle_timeout: 30s
              max_connection_duration: 600s
              max_headers_count: 50
              headers_with_underscores_action: ALLOW
            stream_idle_timeout: 10s
            request_timeout: 20s
            request_headers_timeout: 2s
            drain_timeout: 1s
            max_request_headers_kb: 16
            use_remote_address: true
            xff_num_trusted_hops: 0
            generate_request_id: false
            preserve_external_request_id: true
            append_local_overload: true
            server_name: edge
            normalize_path: false
            merge_slashes: false
            access_log:
            - name: envoy.access_loggers.file
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog
                path: /dev/stdout
            """)
        .httpFilters("""
            - name: envoy.filters.http.buffer
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.filters.http.buffer.v3.Buffer
                max_request_bytes: 65536
            - name: envoy.filters.http.router
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
                dynamic_stats: false
            """)
        .translate().listeners().get(0).hcm();

    assertThat(hcm).usingRecursiveComparison().ignoringFields("accessLogs").isEqualTo(new HttpConnectionManagerConfig(
        "ingress_http", CodecType.HTTP2, hcm.routeConfig(),
        Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(20), Duration.ofSeconds(2),
        Duration.ofMinutes(10), Duration.ofSeconds(1), 16 * 1024, 50, true, 0, false, true,
        true, "edge", List.of(new HttpFilterConfig("envoy.filters.http.buffer", "envoy.filters.http.buffer",
            new HttpFilterConfig.Buffer(65536)), HttpFilterConfig.router()), Optional.empty(),
        HttpConnectionManagerConfig.Http1Options.ENVOY_DEFAULTS, Http2Options.DOWNSTREAM_DEFAULTS, List.of(),
        java.util.Map.of(), new HttpConnectionManagerConfig.PathNormalization(Optional.of(false), false,
            HttpConnectionManagerConfig.EscapedSlashesAction.IMPLEMENTATION_SPECIFIC_DEFAULT),
        HttpConnectionManagerConfig.HeadersWithUnderscoresAction.ALLOW));
    assertThat(hcm.accessLogs()).singleElement().satisfies(log -> {
      assertThat(log.sink()).isEqualTo(AccessLogConfig.Sink.FILE);
      assertThat(log.path()).isEqualTo("/dev/stdout");
      assertThat(log.filter()).isEmpty();
    });
  }

  @Test
  void translatesThePathAndHeaderNameSettingsOfEnvoysEdgeGuide() throws ConfigException {
    HttpConnectionManagerConfig hcm = BootstrapYaml.minimal()
        .hcm("""
            normalize_path: true
            merge_slashes: true
            path_with_escaped_slashes_action: UNESCAPE_AND_REDIRECT
            common_http_protocol_options:
              headers_with_underscores_action: REJECT_REQUEST
            """)
        .translate().listeners().get(0).hcm();

    assertThat(hcm.pathNormalization()).isEqualTo(new HttpConnectionManagerConfig.PathNormalization(
        Optional.of(true), true, HttpConnectionManagerConfig.EscapedSlashesAction.UNESCAPE_AND_REDIRECT));
    assertThat(hcm.headersWithUnderscores())
        .isEqualTo(HttpConnectionManagerConfig.HeadersWithUnderscoresAction.REJECT_REQUEST);
  }

  @Test
  void translatesEveryEscapedSlashesAndUnderscoresAction() throws ConfigException {
    for (var action : HttpConnectionManagerConfig.EscapedSlashesAction.values()) {
      HttpConnectionManagerConfig hcm = BootstrapYaml.minimal()
          .hcm("path_with_escaped_slashes_action: " + action.name())
          .translate().listeners().get(0).hcm();
      assertThat(hcm.pathNormalization().escapedSlashes()).isEqualTo(action);
    }
    for (var action : HttpConnectionManagerConfig.HeadersWithUnderscoresAction.values()) {
      HttpConnectionManagerConfig hcm = BootstrapYaml.minimal()
          .hcm("common_http_protocol_options: {headers_with_underscores_action: " + action.name() + "}")
          .translate().listeners().get(0).hcm();
      assertThat(hcm.headersWithUnderscores()).isEqualTo(action);
    }
    HttpConnectionManagerConfig unset = BootstrapYaml.minimal().translate().listeners().get(0).hcm();
    assertThat(unset.pathNormalization()).isEqualTo(HttpConnectionManagerConfig.PathNormalization.ENVOY_DEFAULTS);
    assertThat(unset.pathNormalization().normalizePath()).isEmpty(); // the runtime decides
  }

  @Test
  void usesTheRecordsDefaultsAndLetsEveryOneBeOverridden() throws ConfigException {
    HttpConnectionManagerConfig hcm = BootstrapYaml.minimal()
        .hcm("use_remote_address: false")
        .translate().listeners().get(0).hcm();

    assertThat(hcm.useRemoteAddress()).isFalse();
    assertThat(hcm).isEqualTo(new HttpConnectionManagerConfig(hcm.statPrefix(), hcm.codecType(), hcm.routeConfig(),
        hcm.idleTimeout(), hcm.streamIdleTimeout(), hcm.requestTimeout(), hcm.requestHeadersTimeout(),
        hcm.maxConnectionDuration(), hcm.drainTimeout(), hcm.maxRequestHeadersBytes(), hcm.maxRequestHeadersCount(),
        false, hcm.xffNumTrustedHops(), hcm.generateRequestId(),
        hcm.preserveExternalRequestId(), hcm.appendLocalOverload(), hcm.serverName(), hcm.httpFilters(),
        Optional.empty(), HttpConnectionManagerConfig.Http1Options.ENVOY_DEFAULTS,
        Http2Options.DOWNSTREAM_DEFAULTS, List.of(), java.util.Map.of(),
        HttpConnectionManagerConfig.PathNormalization.ENVOY_DEFAULTS,
        HttpConnectionManagerConfig.HeadersWithUnderscoresAction.ALLOW));
    HttpConnectionManagerConfig defaults =
        HttpConnectionManagerConfig.defaults("ingress_http", CodecType.AUTO, hcm.routeConfig());
    assertThat(BootstrapYaml.minimal().translate().listeners().get(0).hcm()).isEqualTo(defaults);
  }

  @Test
  void acceptsARouterFilterWithoutTypedConfig() throws ConfigException {
    HttpConnectionManagerConfig hcm = BootstrapYaml.minimal()
        .httpFilters("- name: envoy.filters.http.router\n")
        .translate().listeners().get(0).hcm();

    assertThat(hcm.filterNames()).containsExactly("envoy.filters.http.router");
  }

  @Test
  void theTypedConfigDecidesTheFilterNotItsName() throws ConfigException {
    HttpConnectionManagerConfig hcm = BootstrapYaml.minimal()
        .httpFilters("""
            - name: my-router
              typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}
            """)
        .translate().listeners().get(0).hcm();

    assertThat(hcm.filterNames()).containsExactly("envoy.filters.http.router");
  }

  @Test
  void translatesNodeAndAdmin() throws ConfigException {
    EdgeConfig config = BootstrapYaml.minimal()
        .top("""
            node:
              id: edge-7
              cluster: eu-west
              metadata: {zone: a, weight: 3, tags: {x: y}}
              locality: {region: eu}
            admin:
              access_log_path: /dev/null
              access_log:
              - name: envoy.access_loggers.stdout
                typed_config: {"@type": type.googleapis.com/envoy.extensions.access_loggers.stream.v3.StdoutAccessLog}
              address: {socket_address: {address: "::1", port_value: 9901}}
            overload_manager: {}
            layered_runtime: {}
            """)
        .translate();

    assertThat(config.node()).isEqualTo(new EdgeConfig.NodeInfo("edge-7", "eu-west", Map.of("zone", "a")));
    assertThat(config.admin().orElseThrow().address()).isEqualTo(new SocketAddress("::1", 9901));
    assertThat(config.admin().orElseThrow().address()).hasToString("[::1]:9901");
    // access_log_path /dev/null is Envoy's "no admin log"; the stdout logger stays.
    assertThat(config.admin().orElseThrow().accessLogs()).singleElement()
        .extracting(AccessLogConfig::sink).isEqualTo(AccessLogConfig.Sink.STDOUT);
  }

  @Test
  void namesAnUnnamedListenerAfterItsAddress() throws ConfigException {
    String yaml = BootstrapYaml.minimal().yaml().replace("- name: listener_0\n    address:", "- address:");

    EdgeConfig config = ConfigTranslator.translate(BootstrapLoader.parse(yaml, BootstrapLoader.Format.YAML));

    assertThat(config.listeners().get(0).name()).isEqualTo("0.0.0.0:10000");
  }
}
