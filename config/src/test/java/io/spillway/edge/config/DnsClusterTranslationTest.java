package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.ClusterConfig.Backoff;
import io.spillway.edge.config.ClusterConfig.DiscoveryType;
import io.spillway.edge.config.ClusterConfig.DnsLookupFamily;
import io.spillway.edge.config.ClusterConfig.DnsRefresh;
import io.spillway.edge.config.ClusterConfig.Endpoint;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** LOGICAL_DNS clusters and the DNS fields of STRICT_DNS and LOGICAL_DNS clusters. */
class DnsClusterTranslationTest {
  private static final String CLUSTER_0 = "static_resources.clusters[0]";

  private static ClusterConfig cluster(String yaml) throws ConfigException {
    return BootstrapYaml.minimal().clusters(yaml).translate().clusters().get("backend");
  }

  /** A cluster named backend with the given fields (YAML at cluster level, 2 spaces) and one endpoint. */
  private static String dnsCluster(String type, String fields) {
    return """
        - name: backend
          type: %s
        %s
          load_assignment:
            cluster_name: backend
            endpoints:
            - lb_endpoints:
              - endpoint: {address: {socket_address: {address: www.example.com, port_value: 443}}}
        """.formatted(type, fields.indent(2).stripTrailing());
  }

  @Test
  void translatesALogicalDnsClusterAsEnvoysExamplesWriteIt() throws ConfigException {
    ClusterConfig c = cluster("""
        - name: backend
          connect_timeout: 0.25s
          type: LOGICAL_DNS
          dns_lookup_family: V4_ONLY
          lb_policy: ROUND_ROBIN
          load_assignment:
            cluster_name: service1
            endpoints:
            - lb_endpoints:
              - endpoint:
                  address:
                    socket_address: {address: service1, port_value: 8000}
        """);

    assertThat(c.discoveryType()).isEqualTo(DiscoveryType.LOGICAL_DNS);
    assertThat(c.endpoints()).containsExactly(new Endpoint(new SocketAddress("service1", 8000), 1));
    assertThat(c.dnsLookupFamily()).isEqualTo(DnsLookupFamily.V4_ONLY);
    assertThat(c.dnsRefreshRate()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.dnsRefresh()).isEqualTo(DnsRefresh.DEFAULTS);
  }

  @Test
  void acceptsAnIpLiteralInALogicalDnsCluster() throws ConfigException {
    ClusterConfig c = cluster("""
        - name: backend
          type: LOGICAL_DNS
          load_assignment:
            endpoints:
            - lb_endpoints:
              - endpoint: {address: {socket_address: {address: 10.0.0.1, port_value: 80}}}
        """);

    assertThat(c.endpoints()).containsExactly(new Endpoint(new SocketAddress("10.0.0.1", 80), 1));
  }

  @Test
  void translatesEveryRefreshSetting() throws ConfigException {
    for (String type : List.of("LOGICAL_DNS", "STRICT_DNS")) {
      ClusterConfig c = cluster(dnsCluster(type, """
          dns_refresh_rate: 30s
          dns_failure_refresh_rate: {base_interval: 1s, max_interval: 20s}
          dns_jitter: 2s
          respect_dns_ttl: false
          wait_for_warm_on_init: false
          dns_lookup_family: V6_ONLY
          """));

      assertThat(c.dnsRefreshRate()).as(type).isEqualTo(Duration.ofSeconds(30));
      assertThat(c.dnsLookupFamily()).as(type).isEqualTo(DnsLookupFamily.V6_ONLY);
      assertThat(c.dnsRefresh()).as(type).isEqualTo(new DnsRefresh(
          Optional.of(new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(20))), Duration.ofSeconds(2), false));
    }
  }

  @Test
  void theFailureBackOffCapsAtTenTimesItsBaseByDefault() throws ConfigException {
    ClusterConfig c = cluster(dnsCluster("LOGICAL_DNS", "dns_failure_refresh_rate: {base_interval: 0.5s}"));

    assertThat(c.dnsRefresh().failureRefresh())
        .contains(new Backoff(Duration.ofMillis(500), Duration.ofSeconds(5)));
    assertThat(c.dnsRefresh().waitForWarmOnInit()).isTrue();
  }

  @Test
  void acceptsEveryLookupFamily() throws ConfigException {
    for (DnsLookupFamily family : DnsLookupFamily.values()) {
      ClusterConfig c = cluster(dnsCluster("LOGICAL_DNS", "dns_lookup_family: " + family));

      assertThat(c.dnsLookupFamily()).isEqualTo(family);
    }
  }

  @Test
  void rejectsALogicalDnsClusterWithoutExactlyOneEndpoint() {
    String rule = ": LOGICAL_DNS clusters must have a single locality_lb_endpoint and a single lb_endpoint";
    BootstrapYaml.minimal().clusters("- {name: backend, type: LOGICAL_DNS}\n")
        .rejects(CLUSTER_0 + ".load_assignment.endpoints" + rule);
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              type: LOGICAL_DNS
              load_assignment:
                endpoints:
                - lb_endpoints:
                  - endpoint: {address: {socket_address: {address: a.example.com, port_value: 80}}}
                  - endpoint: {address: {socket_address: {address: b.example.com, port_value: 80}}}
            """)
        .rejects(CLUSTER_0 + ".load_assignment.endpoints[0].lb_endpoints" + rule);
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              type: LOGICAL_DNS
              load_assignment:
                endpoints:
                - lb_endpoints:
                  - endpoint: {address: {socket_address: {address: a.example.com, port_value: 80}}}
                - lb_endpoints:
                  - endpoint: {address: {socket_address: {address: b.example.com, port_value: 80}}}
            """)
        .rejects(CLUSTER_0 + ".load_assignment.endpoints" + rule);
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              type: LOGICAL_DNS
              load_assignment:
                endpoints:
                - lb_endpoints: []
            """)
        .rejects(CLUSTER_0 + ".load_assignment.endpoints[0].lb_endpoints" + rule);
  }

  @Test
  void rejectsABadNameInALogicalDnsCluster() {
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              type: LOGICAL_DNS
              load_assignment:
                endpoints:
                - lb_endpoints:
                  - endpoint: {address: {socket_address: {address: "bad host", port_value: 80}}}
            """)
        .rejects(CLUSTER_0 + ".load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address.address:"
            + " \"bad host\" is neither an IP address nor a DNS name");
  }

  @Test
  void rejectsRespectDnsTtl() {
    BootstrapYaml.minimal().clusters(dnsCluster("LOGICAL_DNS", "respect_dns_ttl: true"))
        .rejects(CLUSTER_0 + ".respect_dns_ttl: true is not supported: names are resolved with the JVM's resolver,"
            + " which does not report TTLs (re-resolution follows dns_refresh_rate)");
  }

  @Test
  void rejectsABadFailureRefreshRate() {
    String at = CLUSTER_0 + ".dns_failure_refresh_rate.";
    BootstrapYaml.minimal().clusters(dnsCluster("STRICT_DNS", "dns_failure_refresh_rate: {max_interval: 10s}"))
        .rejects(at + "base_interval: base_interval is required");
    BootstrapYaml.minimal().clusters(dnsCluster("STRICT_DNS", "dns_failure_refresh_rate: {base_interval: 0s}"))
        .rejects(at + "base_interval: must be greater than 0");
    BootstrapYaml.minimal().clusters(dnsCluster("STRICT_DNS", "dns_failure_refresh_rate: {base_interval: 0.0005s}"))
        .rejects(at + "base_interval: must be at least 1ms");
    BootstrapYaml.minimal()
        .clusters(dnsCluster("LOGICAL_DNS", "dns_failure_refresh_rate: {base_interval: 2s, max_interval: 1s}"))
        .rejects(at + "max_interval: must be at least base_interval");
  }

  @Test
  void waitForWarmOnInitIsAcceptedWhereItHasAMeaning() throws ConfigException {
    assertThat(cluster(dnsCluster("STRICT_DNS", "wait_for_warm_on_init: false")).dnsRefresh().waitForWarmOnInit())
        .isFalse();
    assertThat(cluster("- {name: backend, type: STATIC, wait_for_warm_on_init: true}\n").dnsRefresh())
        .isEqualTo(DnsRefresh.DEFAULTS);
    io.envoyproxy.envoy.config.cluster.v3.Cluster eds = io.envoyproxy.envoy.config.cluster.v3.Cluster.newBuilder()
        .setName("backend")
        .setType(io.envoyproxy.envoy.config.cluster.v3.Cluster.DiscoveryType.EDS)
        .setWaitForWarmOnInit(com.google.protobuf.BoolValue.of(false))
        .setEdsClusterConfig(io.envoyproxy.envoy.config.cluster.v3.Cluster.EdsClusterConfig.newBuilder()
            .setEdsConfig(io.envoyproxy.envoy.config.core.v3.ConfigSource.newBuilder()
                .setAds(io.envoyproxy.envoy.config.core.v3.AggregatedConfigSource.getDefaultInstance())))
        .build();
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new XdsResourceTranslator(ExtensionRegistry.standard()).cluster(eds))
        .isInstanceOf(ConfigException.class)
        .hasMessageEndingWith(".wait_for_warm_on_init: false is not supported for EDS clusters"
            + " (a changed EDS cluster always waits for its endpoints)");
  }

  @Test
  void rejectsANegativeJitter() {
    BootstrapYaml.minimal().clusters(dnsCluster("LOGICAL_DNS", "dns_jitter: -1s"))
        .rejects(CLUSTER_0 + ".dns_jitter: must not be negative");
  }

  @Test
  void rejectsResolverSettingsItDoesNotImplement() {
    BootstrapYaml.minimal()
        .clusters(dnsCluster("LOGICAL_DNS",
            "dns_resolvers: [{socket_address: {address: 8.8.8.8, port_value: 53, protocol: UDP}}]"))
        .rejects(CLUSTER_0 + ".dns_resolvers: dns_resolvers is not supported");
    BootstrapYaml.minimal().clusters(dnsCluster("STRICT_DNS", "use_tcp_for_dns_lookups: true"))
        .rejects(CLUSTER_0 + ".use_tcp_for_dns_lookups: use_tcp_for_dns_lookups is not supported");
    BootstrapYaml.minimal()
        .clusters(dnsCluster("LOGICAL_DNS", "dns_resolution_config: {dns_resolver_options: {use_tcp_for_dns_lookups: true}}"))
        .rejects(CLUSTER_0 + ".dns_resolution_config: dns_resolution_config is not supported");
    BootstrapYaml.minimal()
        .clusters(dnsCluster("LOGICAL_DNS", "typed_dns_resolver_config: {name: envoy.network.dns_resolver.cares}"))
        .rejects(CLUSTER_0 + ".typed_dns_resolver_config: typed_dns_resolver_config is not supported");
    BootstrapYaml.minimal()
        .clusters(dnsCluster("LOGICAL_DNS", """
            typed_dns_resolver_config:
              name: envoy.network.dns_resolver.cares
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.network.dns_resolver.cares.v3.CaresDnsResolverConfig
            """))
        .rejects(CLUSTER_0 + ".typed_dns_resolver_config.typed_config: unknown @type"
            + " \"type.googleapis.com/envoy.extensions.network.dns_resolver.cares.v3.CaresDnsResolverConfig\""
            + " (not an extension Spillway supports)");
  }

  /** A cluster named backend whose discovery is {@code cluster_type: envoy.clusters.dns} with these DnsCluster fields. */
  private static String extensionCluster(String dnsFields, String endpoints) {
    return """
        - name: backend
          cluster_type:
            name: envoy.clusters.dns
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.clusters.dns.v3.DnsCluster
        %s
          load_assignment:
            cluster_name: backend
            endpoints:
            - lb_endpoints:
        %s
        """.formatted(dnsFields.indent(6).stripTrailing(), endpoints.indent(6).stripTrailing());
  }

  private static final String ONE_ENDPOINT =
      "- endpoint: {address: {socket_address: {address: www.example.com, port_value: 443}}}";

  @Test
  void theDnsClusterExtensionIsStrictDnsWithEnvoysDefaults() throws ConfigException {
    ClusterConfig c = cluster(extensionCluster("", ONE_ENDPOINT + "\n"
        + "- endpoint: {address: {socket_address: {address: api.example.com, port_value: 443}}}"));

    assertThat(c.discoveryType()).isEqualTo(DiscoveryType.STRICT_DNS);
    assertThat(c.endpoints()).hasSize(2);
    assertThat(c.dnsRefreshRate()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.dnsLookupFamily()).isEqualTo(DnsLookupFamily.AUTO);
    assertThat(c.dnsRefresh()).isEqualTo(DnsRefresh.DEFAULTS);
  }

  @Test
  void allAddressesInOneEndpointIsLogicalDnsAndEveryDnsClusterFieldIsRead() throws ConfigException {
    ClusterConfig c = cluster(extensionCluster("""
        all_addresses_in_single_endpoint: true
        dns_refresh_rate: 30s
        dns_failure_refresh_rate: {base_interval: 1s, max_interval: 20s}
        dns_jitter: 2s
        dns_lookup_family: V4_PREFERRED
        respect_dns_ttl: false
        """, ONE_ENDPOINT));

    assertThat(c.discoveryType()).isEqualTo(DiscoveryType.LOGICAL_DNS);
    assertThat(c.dnsRefreshRate()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.dnsLookupFamily()).isEqualTo(DnsLookupFamily.V4_PREFERRED);
    assertThat(c.dnsRefresh()).isEqualTo(new DnsRefresh(
        Optional.of(new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(20))), Duration.ofSeconds(2), true));
  }

  @Test
  void withTheExtensionTheClusterLevelDnsFieldsAreIgnoredAsInEnvoy() throws ConfigException {
    ClusterConfig c = cluster(extensionCluster("dns_refresh_rate: 7s", ONE_ENDPOINT)
        .replace("  cluster_type:", "  dns_refresh_rate: 60s\n  dns_lookup_family: V6_ONLY\n  cluster_type:"));

    assertThat(c.dnsRefreshRate()).isEqualTo(Duration.ofSeconds(7));
    assertThat(c.dnsLookupFamily()).isEqualTo(DnsLookupFamily.AUTO);
  }

  @Test
  void theExtensionsLogicalDnsKeepsTheOneEndpointRule() {
    BootstrapYaml.minimal()
        .clusters(extensionCluster("all_addresses_in_single_endpoint: true", ONE_ENDPOINT + "\n" + ONE_ENDPOINT))
        .rejects(CLUSTER_0 + ".load_assignment.endpoints[0].lb_endpoints: LOGICAL_DNS clusters must have a single"
            + " locality_lb_endpoint and a single lb_endpoint");
  }

  @Test
  void rejectsWhatTheExtensionCannotHonour() {
    String at = CLUSTER_0 + ".cluster_type.";
    BootstrapYaml.minimal().clusters(extensionCluster("respect_dns_ttl: true", ONE_ENDPOINT))
        .rejects(at + "typed_config.respect_dns_ttl: true is not supported: names are resolved with the JVM's"
            + " resolver, which does not report TTLs (re-resolution follows dns_refresh_rate)");
    BootstrapYaml.minimal()
        .clusters(extensionCluster("typed_dns_resolver_config: {name: envoy.network.dns_resolver.cares}",
            ONE_ENDPOINT))
        .rejects(at + "typed_config.typed_dns_resolver_config: typed_dns_resolver_config is not supported");
    BootstrapYaml.minimal().clusters(extensionCluster("dns_failure_refresh_rate: {max_interval: 1s}", ONE_ENDPOINT))
        .rejects(at + "typed_config.dns_failure_refresh_rate.base_interval: base_interval is required");
    BootstrapYaml.minimal().clusters(extensionCluster("dns_refresh_rate: 0.0005s", ONE_ENDPOINT))
        .rejects(at + "typed_config.dns_refresh_rate: must be at least 1ms");
    BootstrapYaml.minimal()
        .clusters(extensionCluster("", ONE_ENDPOINT).replace("envoy.clusters.dns", "envoy.clusters.aggregate"))
        .rejects(at + "name: 'envoy.clusters.aggregate' is not supported (the one cluster extension is"
            + " envoy.clusters.dns; ORIGINAL_DST, aggregate and dynamic forward proxy clusters are not built)");
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              cluster_type: {name: envoy.clusters.dns}
            """)
        .rejects(at + "typed_config: typed_config is required (a DnsCluster)");
  }
}
