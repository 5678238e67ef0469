package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.spillway.edge.config.BootstrapLoader;
import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.config.ConfigException;
import io.spillway.edge.config.SocketAddress;
import io.spillway.edge.config.XdsClientConfig.Header;
import io.spillway.edge.config.XdsClientConfig.XdsServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Every accepted field lands in the config; every rejection names its field's path. */
class DynamicResourcesTranslatorTest {

  private static final Map<String, ClusterConfig> CLUSTERS = Map.of(
      "xds", cluster("xds", ClusterConfig.UpstreamProtocol.HTTP2,
          new SocketAddress("10.0.0.1", 18000), new SocketAddress("10.0.0.2", 18001)),
      "plain", cluster("plain", ClusterConfig.UpstreamProtocol.HTTP1, new SocketAddress("10.0.0.3", 80)));

  private static final String NODE = "node: {id: edge-1, cluster: edges, metadata: {zone: a}}\n";

  private static String ads(String adsConfig, String rest) {
    return NODE + "dynamic_resources:\n  ads_config: " + adsConfig + "\n" + rest;
  }

  private static final String CDS_LDS = "  cds_config: {ads: {}, resource_api_version: V3}\n  lds_config: {ads: {}}\n";

  @Test
  void noDynamicResourcesIsNoClient() throws ConfigException {
    assertThat(translate(NODE)).isEmpty();
  }

  @Test
  void envoyGrpcClusterGivesItsEndpointsInOrder() throws ConfigException {
    XdsClientConfig config = translate(ads("""
        {api_type: GRPC, transport_api_version: V3, set_node_on_first_message_only: true,
           grpc_services: [{envoy_grpc: {cluster_name: xds},
                            initial_metadata: [{key: Authorization, value: "Bearer s3cret"}]}]}""", CDS_LDS))
        .orElseThrow();

    List<Header> metadata = List.of(new Header("authorization", "Bearer s3cret"));
    assertThat(config.servers()).containsExactly(
        new XdsServer("10.0.0.1", 18000, metadata), new XdsServer("10.0.0.2", 18001, metadata));
    assertThat(config.variant()).isEqualTo(XdsClientConfig.Variant.SOTW);
    assertThat(config.setNodeOnFirstMessageOnly()).isTrue();
    assertThat(config.initialFetchTimeout()).isEqualTo(Duration.ofSeconds(15));
    assertThat(config.backoffBase()).isEqualTo(Duration.ofMillis(250));
    assertThat(config.backoffCap()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.node().getId()).isEqualTo("edge-1");
    assertThat(config.node().getCluster()).isEqualTo("edges");
    assertThat(config.node().getMetadata().getFieldsOrThrow("zone").getStringValue()).isEqualTo("a");
    assertThat(config.node().getUserAgentName()).isEqualTo("spillway");
    assertThat(config.node().getUserAgentVersion()).isNotEmpty();
    assertThat(config.stateDirectory()).isEmpty();
  }

  @Test
  void credentialsAreNeverPrinted() throws ConfigException {
    XdsClientConfig config = translate(ads("""
        {api_type: GRPC, grpc_services: [{google_grpc: {target_uri: "xds.example:443"},
                            initial_metadata: [{key: authorization, value: "Bearer s3cret"}]}]}""", CDS_LDS))
        .orElseThrow();

    assertThat(config.toString()).doesNotContain("s3cret").contains("authorization");
  }

  @Test
  void googleGrpcTargetDeltaAndTimeout() throws ConfigException {
    XdsClientConfig config = translate(ads(
        "{api_type: DELTA_GRPC, grpc_services: [{google_grpc: {target_uri: \"dns:///xds.example:18000\", stat_prefix: x}},"
            + " {google_grpc: {target_uri: \"[::1]:18001\"}}]}",
        "  cds_config: {ads: {}, initial_fetch_timeout: 2s}\n  lds_config: {ads: {}, initial_fetch_timeout: 0.5s}\n"),
        Optional.of(Path.of("/var/lib/spillway"))).orElseThrow();

    assertThat(config.variant()).isEqualTo(XdsClientConfig.Variant.DELTA);
    assertThat(config.servers()).extracting(XdsServer::address).containsExactly("xds.example:18000", "[::1]:18001");
    assertThat(config.initialFetchTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.stateDirectory()).contains(Path.of("/var/lib/spillway"));
  }

  @Test
  void rejectsOtherApiTypes() {
    rejects(ads("{api_type: REST, grpc_services: [{envoy_grpc: {cluster_name: xds}}]}", CDS_LDS),
        "dynamic_resources.ads_config.api_type: REST is not supported");
    rejects(ads("{api_type: AGGREGATED_GRPC, grpc_services: [{envoy_grpc: {cluster_name: xds}}]}", CDS_LDS),
        "dynamic_resources.ads_config.api_type: AGGREGATED_GRPC is not supported");
  }

  @Test
  void rejectsV2Transport() {
    rejects(ads("{api_type: GRPC, transport_api_version: V2, grpc_services: [{envoy_grpc: {cluster_name: xds}}]}",
        CDS_LDS), "dynamic_resources.ads_config.transport_api_version: V2 is not supported");
  }

  @Test
  void rejectsUnsupportedAdsConfigFields() {
    rejects(ads("{api_type: GRPC, grpc_services: [{envoy_grpc: {cluster_name: xds}}], rate_limit_settings: {}}",
        CDS_LDS), "dynamic_resources.ads_config.rate_limit_settings: rate_limit_settings is not supported");
    rejects(ads("{api_type: GRPC, cluster_names: [xds], grpc_services: [{envoy_grpc: {cluster_name: xds}}]}",
        CDS_LDS), "dynamic_resources.ads_config.cluster_names: cluster_names is not supported");
  }

  @Test
  void rejectsMissingOrUnknownServers() {
    rejects(ads("{api_type: GRPC}", CDS_LDS),
        "dynamic_resources.ads_config.grpc_services: at least one gRPC service is required");
    rejects(ads("{api_type: GRPC, grpc_services: [{envoy_grpc: {cluster_name: nope}}]}", CDS_LDS),
        "dynamic_resources.ads_config.grpc_services[0].envoy_grpc.cluster_name: no static cluster named \"nope\"");
    rejects(ads("{api_type: GRPC, grpc_services: [{envoy_grpc: {cluster_name: plain}}]}", CDS_LDS),
        "dynamic_resources.ads_config.grpc_services[0].envoy_grpc.cluster_name: cluster \"plain\" must use HTTP/2");
    rejects(ads("{api_type: GRPC, grpc_services: [{google_grpc: {target_uri: xds}}]}", CDS_LDS),
        "dynamic_resources.ads_config.grpc_services[0].google_grpc.target_uri: \"xds\" is not host:port");
    rejects(ads("{api_type: GRPC, grpc_services: [{envoy_grpc: {cluster_name: xds}},"
            + " {google_grpc: {target_uri: \"a:1\", channel_credentials: {local_credentials: {}}}}]}", CDS_LDS),
        "dynamic_resources.ads_config.grpc_services[1].google_grpc.channel_credentials.local_credentials: "
            + "local_credentials is not supported");
    rejects(ads("{api_type: GRPC, grpc_services: [{envoy_grpc: {cluster_name: xds, authority: x}}]}", CDS_LDS),
        "dynamic_resources.ads_config.grpc_services[0].envoy_grpc.authority: authority is not supported");
  }

  @Test
  void rejectsBadMetadataWithoutEchoingTheValue() {
    assertThatThrownBy(() -> translate(ads(
        "{api_type: GRPC, grpc_services: [{envoy_grpc: {cluster_name: xds},"
            + " initial_metadata: [{key: \"bad key\", value: s3cret}]}]}", CDS_LDS)))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("dynamic_resources.ads_config.grpc_services[0].initial_metadata[0].key: ")
        .hasMessageNotContaining("s3cret");
  }

  @Test
  void cdsAndLdsMustComeOverAds() {
    String adsConfig = "{api_type: GRPC, grpc_services: [{envoy_grpc: {cluster_name: xds}}]}";
    rejects(ads(adsConfig, "  lds_config: {ads: {}}\n"), "dynamic_resources.cds_config: cds_config is required");
    rejects(ads(adsConfig, "  cds_config: {ads: {}}\n  lds_config: {path_config_source: {path: /tmp/l.yaml}}\n"),
        "dynamic_resources.lds_config.path_config_source: path_config_source is not supported");
    rejects(ads(adsConfig, "  cds_config: {ads: {}, resource_api_version: V2}\n  lds_config: {ads: {}}\n"),
        "dynamic_resources.cds_config.resource_api_version: V2 is not supported");
    rejects(ads(adsConfig, "  cds_config: {ads: {}, initial_fetch_timeout: 0s}\n  lds_config: {ads: {}}\n"),
        "dynamic_resources.cds_config.initial_fetch_timeout: must be positive");
  }

  @Test
  void rejectsOtherDynamicResourcesFields() {
    rejects(NODE + "dynamic_resources:\n  lds_config: {ads: {}}\n  lds_resources_locator: \"xdstp://x/l\"\n",
        "dynamic_resources.lds_resources_locator: lds_resources_locator is not supported");
    rejects(NODE + "dynamic_resources:\n  cds_config: {ads: {}}\n",
        "dynamic_resources.ads_config: ads_config is required");
  }

  @Test
  void withoutAdsAFileSourceIsNamedWhereItIsWritten() {
    rejects(NODE + "dynamic_resources:\n  cds_config: {path_config_source: {path: /var/lib/envoy/cds.yaml}}\n"
            + "  lds_config: {path_config_source: {path: /var/lib/envoy/lds.yaml}}\n",
        "dynamic_resources.cds_config.path_config_source: path_config_source is not supported");
  }

  private static Optional<XdsClientConfig> translate(String yaml) throws ConfigException {
    return translate(yaml, Optional.empty());
  }

  private static Optional<XdsClientConfig> translate(String yaml, Optional<Path> dir) throws ConfigException {
    Bootstrap bootstrap = BootstrapLoader.parse(yaml, BootstrapLoader.Format.YAML);
    return DynamicResourcesTranslator.translate(bootstrap, CLUSTERS, dir);
  }

  private static void rejects(String yaml, String messagePrefix) {
    assertThatThrownBy(() -> translate(yaml))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(messagePrefix);
  }

  private static ClusterConfig cluster(String name, ClusterConfig.UpstreamProtocol protocol, SocketAddress... addresses) {
    List<ClusterConfig.Endpoint> endpoints = java.util.Arrays.stream(addresses)
        .map(a -> new ClusterConfig.Endpoint(a, 1)).toList();
    return new ClusterConfig(name, ClusterConfig.DiscoveryType.STATIC, ClusterConfig.LbPolicy.ROUND_ROBIN, 2,
        Duration.ofSeconds(5), Duration.ofSeconds(5), endpoints, ClusterConfig.Thresholds.DEFAULTS, protocol,
        1 << 20, 0, Duration.ofHours(1));
  }
}
