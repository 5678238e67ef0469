package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.ClusterConfig.DiscoveryType;
import io.spillway.edge.config.ClusterConfig.Endpoint;
import io.spillway.edge.config.ClusterConfig.LbPolicy;
import io.spillway.edge.config.ClusterConfig.Thresholds;
import io.spillway.edge.config.ClusterConfig.UpstreamProtocol;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterTranslationTest {
  private static final ClusterConfig.Locality ZONE_A = new ClusterConfig.Locality("", "a", "");


  private static ClusterConfig cluster(String yaml) throws ConfigException {
    return BootstrapYaml.minimal().clusters(yaml).translate().clusters().get("backend");
  }

  @Test
  void translatesAStrictDnsClusterWithEverySetting() throws ConfigException {
    ClusterConfig c = cluster("""
        - name: backend
          type: STRICT_DNS
          lb_policy: LEAST_REQUEST
          least_request_lb_config: {choice_count: 3}
          connect_timeout: 0.25s
          dns_refresh_rate: 30s
          dns_lookup_family: V4_ONLY
          per_connection_buffer_limit_bytes: 65536
          circuit_breakers:
            thresholds:
            - priority: DEFAULT
              max_connections: 100
              max_pending_requests: 50
              max_requests: 200
              max_retries: 5
              track_remaining: true
          typed_extension_protocol_options:
            envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
              "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
              common_http_protocol_options: {idle_timeout: 60s, max_requests_per_connection: 1000}
              explicit_http_config:
                http2_protocol_options: {}
          load_assignment:
            cluster_name: backend
            endpoints:
            - locality: {zone: a}
              lb_endpoints:
              - endpoint: {address: {socket_address: {address: app-1.internal, port_value: 8080}}}
                load_balancing_weight: 3
              - endpoint: {address: {socket_address: {address: 10.0.0.2, port_value: 8080}}}
            - lb_endpoints:
              - endpoint: {address: {socket_address: {address: "2001:db8::1", port_value: 80}}}
        """);

    assertThat(c).isEqualTo(new ClusterConfig("backend", DiscoveryType.STRICT_DNS, LbPolicy.LEAST_REQUEST, 3,
        Duration.ofMillis(250), Duration.ofSeconds(30),
        List.of(new Endpoint(new SocketAddress("app-1.internal", 8080), 3, "", 0, ZONE_A, 0),
            new Endpoint(new SocketAddress("10.0.0.2", 8080), 1, "", 0, ZONE_A, 0),
            new Endpoint(new SocketAddress("2001:db8::1", 80), 1)),
        new Thresholds(100, 50, 200, 5), UpstreamProtocol.HTTP2, 65536, 1000, Duration.ofSeconds(60),
        ClusterConfig.DnsLookupFamily.V4_ONLY));
  }

  @Test
  void choosesHttp11ExplicitlyThroughTheTypedOptions() throws ConfigException {
    ClusterConfig c = cluster("""
        - name: backend
          lb_policy: RANDOM
          typed_extension_protocol_options:
            envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
              "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
              explicit_http_config: {http_protocol_options: {}}
        """);

    assertThat(c.protocol()).isEqualTo(UpstreamProtocol.HTTP1);
    assertThat(c.lbPolicy()).isEqualTo(LbPolicy.RANDOM);
    assertThat(c.endpoints()).isEmpty();
  }

  @Test
  void acceptsTheDeprecatedClusterProtocolFields() throws ConfigException {
    ClusterConfig c = cluster("""
        - name: backend
          http2_protocol_options: {}
          max_requests_per_connection: 10
          common_http_protocol_options: {idle_timeout: 5s}
        """);

    assertThat(c.protocol()).isEqualTo(UpstreamProtocol.HTTP2);
    assertThat(c.maxRequestsPerConnection()).isEqualTo(10);
    assertThat(c.idleTimeout()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void upstreamIdleTimeoutIsSixtySecondsUnlessSetAndZeroMeansNone() throws ConfigException {
    String typed = """
        - name: backend
          typed_extension_protocol_options:
            envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
              "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
              explicit_http_config: {http_protocol_options: {}}
        %s""";

    assertThat(cluster(typed.formatted("")).idleTimeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(cluster(typed.formatted("      common_http_protocol_options: {max_requests_per_connection: 5}"))
        .idleTimeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(cluster(typed.formatted("      common_http_protocol_options: {idle_timeout: 0s}")).idleTimeout())
        .isEqualTo(Duration.ZERO);
    assertThat(cluster(typed.formatted("      common_http_protocol_options: {idle_timeout: 3600s}")).idleTimeout())
        .isEqualTo(Duration.ofHours(1));
    assertThat(cluster("""
        - name: backend
          common_http_protocol_options: {max_requests_per_connection: 5}
        """).idleTimeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(cluster("- name: backend\n").idleTimeout()).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void clampsHugeCircuitBreakerLimits() throws ConfigException {
    ClusterConfig c = cluster("""
        - name: backend
          circuit_breakers:
            thresholds: [{max_requests: 4294967295}]
        """);

    assertThat(c.thresholds()).isEqualTo(new Thresholds(1024, 1024, Integer.MAX_VALUE, 3));
  }

  @Test
  void keepsClustersInBootstrapOrder() throws ConfigException {
    EdgeConfig config = BootstrapYaml.minimal()
        .clusters("""
            - name: zeta
            - name: backend
            - name: alpha
            """)
        .translate();

    assertThat(config.clusters().keySet()).containsExactly("zeta", "backend", "alpha");
  }
}
