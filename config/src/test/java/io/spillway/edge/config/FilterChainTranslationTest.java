package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spillway.testkit.TestPem;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Filter chains with filter_chain_match, tcp_proxy, the TLS inspector and downstream TLS options: accepted and refused. */
class FilterChainTranslationTest {

  private static final String L = "static_resources.listeners[0]";

  private static final String TLS = """
      transport_socket:
        name: envoy.transport_sockets.tls
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext
          %s
          common_tls_context:
            tls_certificates:
            - certificate_chain: {filename: "CERT"}
              private_key: {filename: "KEY"}
            %s
      """.replace("CERT", TestPem.certificate("server").toString()).replace("KEY", TestPem.key("server").toString());

  private static String tcpProxy(String extra) {
    return """
        filters:
        - name: envoy.filters.network.tcp_proxy
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy
            %s
        """.formatted(extra.indent(4).strip());
  }

  private static final String HCM = """
      filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: ingress_http
          http_filters: [{name: envoy.filters.http.router}]
          route_config: {virtual_hosts: [{name: a, domains: ["*"], routes: [{match: {prefix: "/"}, route: {cluster: backend}}]}]}
      """;

  /** A bootstrap with one listener: {@code listenerExtra} (listener fields) and the chains (list items). */
  private static String bootstrap(String listenerExtra, String... chains) {
    StringBuilder items = new StringBuilder();
    for (String c : chains) {
      String[] lines = c.strip().split("\n");
      items.append("- ").append(lines[0]).append('\n');
      for (int i = 1; i < lines.length; i++) {
        items.append("  ").append(lines[i]).append('\n');
      }
    }
    return """
        static_resources:
          listeners:
          - name: l
            address: {socket_address: {address: 127.0.0.1, port_value: 10000}}
        %s
            filter_chains:
        %s
          clusters:
          - name: backend
            connect_timeout: 1s
            load_assignment: {cluster_name: backend, endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 8080}}}}]}]}
        """.formatted(listenerExtra.indent(4).stripTrailing(), items.toString().indent(4).stripTrailing());
  }

  private static EdgeConfig translate(String yaml) throws ConfigException {
    return ConfigTranslator.translate(BootstrapLoader.parse(yaml, BootstrapLoader.Format.YAML));
  }

  private static void rejects(String yaml, String message) {
    assertThatThrownBy(() -> translate(yaml)).isInstanceOf(ConfigException.class).hasMessage(message);
  }

  @Test
  void translatesATcpProxyWithItsDefaults() throws ConfigException {
    ListenerConfig l = translate(bootstrap("", tcpProxy("stat_prefix: db\ncluster: backend"))).listeners().get(0);

    assertThat(l.hasHttp()).isFalse();
    TcpProxyConfig tcp = l.filterChains().get(0).tcpProxy().orElseThrow();
    assertThat(tcp.statPrefix()).isEqualTo("db");
    assertThat(tcp.clusters()).containsExactly(new TcpProxyConfig.WeightedCluster("backend", 1));
    assertThat(tcp.idleTimeout()).isEqualTo(Duration.ofHours(1));
    assertThat(tcp.maxConnectAttempts()).isEqualTo(1);
    assertThat(tcp.maxDownstreamConnectionDuration()).isEmpty();
  }

  @Test
  void translatesWeightedClustersAndTimeouts() throws ConfigException {
    TcpProxyConfig tcp = translate(bootstrap("", tcpProxy("""
        stat_prefix: db
        weighted_clusters: {clusters: [{name: a, weight: 1}, {name: b, weight: 3}]}
        idle_timeout: 0.5s
        max_connect_attempts: 3
        max_downstream_connection_duration: 60s"""))).listeners().get(0).filterChains().get(0).tcpProxy().orElseThrow();

    assertThat(tcp.clusters()).containsExactly(new TcpProxyConfig.WeightedCluster("a", 1),
        new TcpProxyConfig.WeightedCluster("b", 3));
    assertThat(tcp.totalWeight()).isEqualTo(4);
    assertThat(tcp.idleTimeout()).isEqualTo(Duration.ofMillis(500));
    assertThat(tcp.maxConnectAttempts()).isEqualTo(3);
    assertThat(tcp.maxDownstreamConnectionDuration()).contains(Duration.ofSeconds(60));
  }

  @Test
  void refusesTcpProxyFieldsItCannotHonour() {
    String at = L + ".filter_chains[0].filters[0].typed_config";
    rejects(bootstrap("", tcpProxy("cluster: backend")), at + ".stat_prefix: stat_prefix is required");
    rejects(bootstrap("", tcpProxy("stat_prefix: db")), at + ".cluster: cluster or weighted_clusters is required");
    rejects(bootstrap("", tcpProxy("stat_prefix: db\ncluster: backend\ntunneling_config: {hostname: h}")),
        at + ".tunneling_config: tunneling_config is not supported");
    rejects(bootstrap("", tcpProxy("stat_prefix: db\ncluster: backend\naccess_log: [{name: envoy.access_loggers.stdout}]")),
        at + ".access_log: access_log is not supported");
    rejects(bootstrap("", tcpProxy("stat_prefix: db\ncluster: backend\nhash_policy: [{source_ip: {}}]")),
        at + ".hash_policy: hash_policy is not supported");
    rejects(bootstrap("", tcpProxy("stat_prefix: db\ncluster: backend\nmax_connect_attempts: 0")),
        at + ".max_connect_attempts: must be at least 1");
    rejects(bootstrap("", tcpProxy("stat_prefix: db\nweighted_clusters: {clusters: [{name: a, weight: 0}]}")),
        at + ".weighted_clusters.clusters[0].weight: must be at least 1");
  }

  @Test
  void translatesFilterChainMatchesAndTheDefaultChain() throws ConfigException {
    String yaml = bootstrap("""
        listener_filters: [{name: envoy.filters.listener.tls_inspector}]
        listener_filters_timeout: 2s
        continue_on_listener_filters_timeout: true
        default_filter_chain:
          filters:
          - name: envoy.filters.network.tcp_proxy
            typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy, stat_prefix: rest, cluster: backend}""",
        """
        filter_chain_match:
          server_names: [Api.Example.com, "*.example.com"]
          transport_protocol: tls
          application_protocols: [h2]
          destination_port: 10000
          prefix_ranges: [{address_prefix: 127.0.0.0, prefix_len: 8}]
          source_prefix_ranges: [{address_prefix: "::1"}]
          source_ports: [5000]
        """ + TLS.formatted("", "") + HCM,
        "filter_chain_match: {server_names: [db.example.com]}\n" + tcpProxy("stat_prefix: db\ncluster: backend"));
    ListenerConfig l = translate(yaml).listeners().get(0);

    assertThat(l.inspection()).isEqualTo(new ListenerConfig.Inspection(true, Duration.ofSeconds(2), true));
    FilterChainMatch m = l.filterChains().get(0).match();
    assertThat(m.serverNames()).containsExactly("api.example.com", "*.example.com");
    assertThat(m.transportProtocol()).isEqualTo("tls");
    assertThat(m.applicationProtocols()).containsExactly("h2");
    assertThat(m.destinationPort()).isEqualTo(10000);
    assertThat(m.prefixRanges()).containsExactly(new FilterChainMatch.CidrRange("127.0.0.0", 8));
    assertThat(m.sourcePrefixRanges()).containsExactly(new FilterChainMatch.CidrRange("::1", 128));
    assertThat(m.sourcePorts()).containsExactly(5000);
    assertThat(l.filterChains().get(0).isHttp()).isTrue();
    assertThat(l.hasHttp()).isTrue();
    assertThat(l.tls()).isPresent();
    assertThat(l.filterChains().get(1).tcpProxy().orElseThrow().statPrefix()).isEqualTo("db");
    assertThat(l.defaultFilterChain().orElseThrow().tcpProxy().orElseThrow().statPrefix()).isEqualTo("rest");
  }

  @Test
  void refusesMatchesItCannotHonour() {
    String at = L + ".filter_chains[0].filter_chain_match";
    String tcp = tcpProxy("stat_prefix: db\ncluster: backend");
    rejects(bootstrap("", "filter_chain_match: {source_type: EXTERNAL}\n" + tcp),
        at + ".source_type: EXTERNAL is not supported (ANY)");
    rejects(bootstrap("", "filter_chain_match: {direct_source_prefix_ranges: [{address_prefix: 10.0.0.0}]}\n" + tcp),
        at + ".direct_source_prefix_ranges: direct_source_prefix_ranges is not supported");
    rejects(bootstrap("", "filter_chain_match: {server_names: [\"a.*.com\"]}\n" + tcp),
        at + ".server_names[0]: \"a.*.com\" is not a host name or a leading \"*.\" wildcard");
    rejects(bootstrap("", "filter_chain_match: {prefix_ranges: [{address_prefix: example.com}]}\n" + tcp),
        at + ".prefix_ranges[0].address_prefix: \"example.com\" is not an IP address");
    rejects(bootstrap("", "filter_chain_match: {prefix_ranges: [{address_prefix: 10.0.0.0, prefix_len: 33}]}\n" + tcp),
        at + ".prefix_ranges[0].prefix_len: must be at most 32 for 10.0.0.0");
    rejects(bootstrap("", "filter_chain_match: {server_names: [a.com]}\n" + tcp,
            "filter_chain_match: {server_names: [a.com]}\n" + tcpProxy("stat_prefix: other\ncluster: backend")),
        L + ".filter_chains[1].filter_chain_match: the same matching rules as " + L
            + ".filter_chains[0] (each filter chain's match must differ)");
    rejects(bootstrap("default_filter_chain: {filter_chain_match: {server_names: [a.com]}}", tcp),
        L + ".default_filter_chain.filter_chain_match: the default filter chain takes every connection no other"
            + " chain matches; it has no match");
    rejects(bootstrap("listener_filters: [{name: envoy.filters.listener.tls_inspector, typed_config: {\"@type\":"
            + " type.googleapis.com/envoy.extensions.filters.listener.tls_inspector.v3.TlsInspector,"
            + " enable_ja3_fingerprinting: true}}]", tcp),
        L + ".listener_filters[0].typed_config.enable_ja3_fingerprinting: enable_ja3_fingerprinting is not supported");
  }

  @Test
  void refusesASecondDifferentConnectionManager() {
    rejects(bootstrap("", "filter_chain_match: {server_names: [a.com]}\n" + HCM,
            "filter_chain_match: {server_names: [b.com]}\n" + HCM.replace("ingress_http", "other")),
        L + ".filter_chains[1].filters[0].typed_config: a listener has one HTTP connection manager: this one differs"
            + " from " + L + ".filter_chains[0].filters[0].typed_config (several HTTP connection managers per"
            + " listener are not supported yet)");
  }

  @Test
  void translatesClientCertificatesVersionsAndCiphers() throws ConfigException {
    String tls = TLS.formatted("require_client_certificate: true", """
        validation_context: {trusted_ca: {filename: "CA"}}
        tls_params:
          tls_minimum_protocol_version: TLSv1_2
          tls_maximum_protocol_version: TLSv1_2
          cipher_suites: ["[ECDHE-ECDSA-AES128-GCM-SHA256|ECDHE-ECDSA-CHACHA20-POLY1305]", ECDHE-RSA-AES256-GCM-SHA384]
        alpn_protocols: [h2]""".replace("CA", TestPem.certificate("client").toString()).indent(6).strip());
    ListenerConfig.TlsContext ctx = translate(bootstrap("", tls + HCM)).listeners().get(0).tls().orElseThrow();

    assertThat(ctx.requireClientCertificate()).isTrue();
    assertThat(ctx.trustedCa()).isPresent();
    assertThat(ctx.protocols()).containsExactly("TLSv1.2");
    assertThat(ctx.cipherSuites()).containsExactly("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384");
    assertThat(ctx.alpnProtocols()).containsExactly("h2");

    String withTls13 = TLS.formatted("", "tls_params: {cipher_suites: [AES128-GCM-SHA256]}");
    assertThat(translate(bootstrap("", withTls13 + HCM)).listeners().get(0).tls().orElseThrow().cipherSuites())
        .as("TLS 1.3 stays possible").isEqualTo(List.of("TLS_RSA_WITH_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256",
            "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"));
  }

  @Test
  void refusesTlsOptionsItCannotHonour() {
    String at = L + ".filter_chains[0].transport_socket.typed_config";
    rejects(bootstrap("", TLS.formatted("", "tls_params: {cipher_suites: [ECDHE-FOO]}") + HCM),
        at + ".common_tls_context.tls_params.cipher_suites[0]: unknown cipher suite \"ECDHE-FOO\" (supported: "
            + "[AES128-GCM-SHA256, AES128-SHA, AES256-GCM-SHA384, AES256-SHA, ECDHE-ECDSA-AES128-GCM-SHA256,"
            + " ECDHE-ECDSA-AES128-SHA, ECDHE-ECDSA-AES256-GCM-SHA384, ECDHE-ECDSA-AES256-SHA,"
            + " ECDHE-ECDSA-CHACHA20-POLY1305, ECDHE-RSA-AES128-GCM-SHA256, ECDHE-RSA-AES128-SHA,"
            + " ECDHE-RSA-AES256-GCM-SHA384, ECDHE-RSA-AES256-SHA, ECDHE-RSA-CHACHA20-POLY1305])");
    rejects(bootstrap("", TLS.formatted("", "tls_params: {tls_minimum_protocol_version: TLSv1_0}") + HCM),
        at + ".common_tls_context.tls_params.tls_minimum_protocol_version: TLSv1_0 is not supported (TLSv1_2,"
            + " TLSv1_3; the JDK disables older versions)");
    rejects(bootstrap("", TLS.formatted("", "validation_context: {trusted_ca: {filename: \"" + TestPem.certificate("client")
            + "\"}, allow_expired_certificate: true}") + HCM),
        at + ".common_tls_context.validation_context.allow_expired_certificate: allow_expired_certificate"
            + " is not supported");
    rejects(bootstrap("", TLS.formatted("require_client_certificate: true", "") + HCM),
        at + ".common_tls_context.validation_context.trusted_ca: is required with require_client_certificate: true"
            + " (a client certificate is verified against it)");
  }
}
