package io.spillway.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spillway.edge.config.EdgeConfig;
import io.spillway.edge.config.ExtensionRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConfigDumpEndpointTest {
  private static final String ADMIN = "type.googleapis.com/envoy.admin.v3.";

  private final FakeAdminContext context = new FakeAdminContext();
  private final ConfigDumpEndpoint endpoint = new ConfigDumpEndpoint(context, ExtensionRegistry.standard());

  @AfterEach
  void close() {
    context.close();
  }

  @Test
  void dumpsBootstrapClustersListenersAndRoutesInEnvoysOrder() throws Exception {
    JsonNode configs = dump("/config_dump").get("configs");

    assertThat(types(configs)).containsExactly(ADMIN + "BootstrapConfigDump", ADMIN + "ClustersConfigDump",
        ADMIN + "ListenersConfigDump", ADMIN + "RoutesConfigDump");
    JsonNode bootstrap = configs.get(0).get("bootstrap");
    assertThat(bootstrap.get("node").get("id").asText()).isEqualTo("edge-1");
    assertThat(bootstrap.get("static_resources").get("clusters").get(0).get("connect_timeout").asText())
        .isEqualTo("1s");
    assertThat(configs.get(0).get("last_updated").asText()).isEqualTo("2025-01-01T00:00:00Z");

    JsonNode cluster = configs.get(1).get("static_clusters").get(0);
    assertThat(cluster.get("cluster").get("@type").asText())
        .isEqualTo("type.googleapis.com/envoy.config.cluster.v3.Cluster");
    assertThat(cluster.get("cluster").get("name").asText()).isEqualTo("backend");
    assertThat(cluster.get("last_updated").asText()).isEqualTo("2025-01-01T00:00:00Z");

    JsonNode listener = configs.get(2).get("static_listeners").get(0).get("listener");
    assertThat(listener.get("@type").asText()).isEqualTo("type.googleapis.com/envoy.config.listener.v3.Listener");
    assertThat(listener.get("name").asText()).isEqualTo("listener_0");
    JsonNode hcm = listener.get("filter_chains").get(0).get("filters").get(0).get("typed_config");
    assertThat(hcm.get("stat_prefix").asText()).isEqualTo("ingress_http");

    JsonNode route = configs.get(3).get("static_route_configs").get(0).get("route_config");
    assertThat(route.get("@type").asText())
        .isEqualTo("type.googleapis.com/envoy.config.route.v3.RouteConfiguration");
    assertThat(route.get("name").asText()).isEqualTo("local_route");
  }

  @Test
  void redactsInlinePrivateKeysButKeepsKeyFileNames() throws Exception {
    AdminResponse r = endpoint.handle(Requests.get("/config_dump"));

    assertThat(r.bodyText()).doesNotContain("TOPSECRET").doesNotContain("BEGIN PRIVATE KEY");
    JsonNode bootstrap = new ObjectMapper().readTree(r.body()).get("configs").get(0).get("bootstrap");
    JsonNode certificates = bootstrap.get("static_resources").get("listeners").get(0).get("filter_chains").get(0)
        .get("transport_socket").get("typed_config").get("common_tls_context").get("tls_certificates");
    assertThat(certificates.get(0).get("private_key").get("inline_string").asText()).isEqualTo("[redacted]");
    assertThat(certificates.get(0).get("certificate_chain").get("filename").asText())
        .isEqualTo("/etc/spillway/cert.pem");
    assertThat(certificates.get(1).get("private_key").get("filename").asText()).isEqualTo("/etc/spillway/key2.pem");
    JsonNode clusterTls = bootstrap.get("static_resources").get("clusters").get(0).get("transport_socket")
        .get("typed_config");
    assertThat(clusterTls.get("sni").asText()).isEqualTo("backend.example");
    assertThat(clusterTls.get("common_tls_context").get("tls_certificates").get(0).get("private_key")
        .get("inline_string").asText()).isEqualTo("[redacted]");
    assertThat(r.bodyText()).doesNotContain("CLUSTERSECRET");
    // The redaction applies to the dump, not to the configuration in force.
    assertThat(context.bootstrap.toString()).contains("TOPSECRET");
  }

  @Test
  void redactsGrpcInitialMetadataValues() throws Exception {
    AdminResponse r = endpoint.handle(Requests.get("/config_dump"));

    assertThat(r.bodyText()).doesNotContain("ads-token");
    JsonNode metadata = new ObjectMapper().readTree(r.body()).get("configs").get(0).get("bootstrap")
        .get("dynamic_resources").get("ads_config").get("grpc_services").get(0).get("initial_metadata").get(0);
    assertThat(metadata.get("key").asText()).isEqualTo("authorization");
    assertThat(metadata.get("value").asText()).isEqualTo("[redacted]");
  }

  @Test
  void bootstrapShowsTheEffectiveNode() throws Exception {
    context.config = new EdgeConfig(new EdgeConfig.NodeInfo("override-id", "edges", Map.of()),
        context.config.admin(), context.config.listeners(), context.config.clusters(), context.config.overload());

    JsonNode node = dump("/config_dump").get("configs").get(0).get("bootstrap").get("node");

    assertThat(node.get("id").asText()).isEqualTo("override-id");
    assertThat(node.get("metadata").get("team").asText()).isEqualTo("core");
  }

  @Test
  void resourceSelectsTheEntriesOfOneField() throws Exception {
    JsonNode configs = dump("/config_dump?resource=static_clusters").get("configs");

    assertThat(types(configs)).containsExactly(ADMIN + "ClustersConfigDump.StaticCluster");
    assertThat(configs.get(0).get("cluster").get("name").asText()).isEqualTo("backend");
  }

  @Test
  void unknownResourceIs404AndUnsupportedParametersAre400() {
    assertThat(endpoint.handle(Requests.get("/config_dump?resource=dynamic_secrets")).status()).isEqualTo(404);
    assertThat(endpoint.handle(Requests.get("/config_dump?resource=bootstrap")).status()).isEqualTo(400);
    AdminResponse mask = endpoint.handle(Requests.get("/config_dump?mask=bootstrap.node"));
    assertThat(mask.status()).isEqualTo(400);
    assertThat(mask.bodyText()).contains("mask");
    assertThat(endpoint.handle(Requests.get("/config_dump?include_eds")).status()).isEqualTo(200);
  }

  private JsonNode dump(String uri) throws Exception {
    AdminResponse r = endpoint.handle(Requests.get(uri));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).isEqualTo("application/json");
    return new ObjectMapper().readTree(r.body());
  }

  private static List<String> types(JsonNode configs) {
    List<String> types = new ArrayList<>();
    configs.forEach(c -> types.add(c.get("@type").asText()));
    return types;
  }
}
