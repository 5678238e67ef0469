package io.spillway.central.resources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Message;
import io.spillway.edge.config.BootstrapLoader;
import io.spillway.edge.config.ConfigException;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Resources sent to the REST API are read with the edge loader's Envoy leniencies, and stored canonical. */
class ResourceCodecLeniencyTest {

  private final ResourceCodec codec = new ResourceCodec();
  private final ResourceValidator validator = new ResourceValidator(codec.registry());

  @Test
  void readsEnvoysLenientFormsAndStoresTheCanonicalOnes() throws Exception {
    Message cluster = codec.parse("""
        !ignore shared: &local {address: 127.0.0.1, port_value: 8080}
        name: backend
        lb_policy: least_request
        connect_timeout: {seconds: 1}
        load_assignment:
          cluster_name: backend
          endpoints: {lb_endpoints: {endpoint: {address: {socket_address: *local}}}}
        """, BootstrapLoader.Format.YAML, ResourceType.CLUSTERS);

    String stored = codec.print(cluster);

    assertThat(stored).contains("\"lb_policy\":\"LEAST_REQUEST\"").contains("\"connect_timeout\":\"1s\"")
        .contains("\"port_value\":8080");
    assertThat(codec.parseStored(stored, ResourceType.CLUSTERS)).isEqualTo(cluster);
  }

  @Test
  void aListenerWhoseConnectionManagerIsATypedStructValidatesAndIsStoredUnwrapped() throws Exception {
    String listener = """
        name: ingress
        address: {socket_address: {address: 0.0.0.0, port_value: 10000}}
        filter_chains:
          filters:
            name: envoy.filters.network.http_connection_manager
            typed_config:
              "@type": type.googleapis.com/udpa.type.v1.TypedStruct
              type_url: type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
              value:
                stat_prefix: ingress
                codec_type: auto
                http_filters: {name: envoy.filters.http.router}
                route_config:
                  virtual_hosts: {name: all, domains: "*", routes: {match: {prefix: /}, route: {cluster: backend}}}
        """;
    Map<ResourceType, Map<String, Message>> byType = new EnumMap<>(ResourceType.class);
    byType.computeIfAbsent(ResourceType.CLUSTERS, t -> new TreeMap<>()).put("backend",
        codec.parse(Fixtures.cluster("backend"), BootstrapLoader.Format.YAML, ResourceType.CLUSTERS));
    Message parsed = codec.parse(listener, BootstrapLoader.Format.YAML, ResourceType.LISTENERS);
    byType.computeIfAbsent(ResourceType.LISTENERS, t -> new TreeMap<>()).put("ingress", parsed);

    assertThat(validator.check(new ResourceSet(byType), ResourceType.LISTENERS, "ingress")).isEmpty();
    // Stored as the message the TypedStruct wrapped, so edges receive a plain connection manager.
    assertThat(codec.print(parsed)).doesNotContain("TypedStruct")
        .contains("\"@type\":\"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3"
            + ".HttpConnectionManager\"");
  }

  @Test
  void refusesWhatEnvoyRefusesWithThePath() {
    assertThatThrownBy(() -> codec.parse("""
        base: &base {name: backend}
        <<: *base
        """, BootstrapLoader.Format.YAML, ResourceType.CLUSTERS))
        .isInstanceOf(ConfigException.class).hasMessageContaining("merge keys (<<) are not supported");
    assertThatThrownBy(() -> codec.parse("name: backend\nlb_policy: fastest\n", BootstrapLoader.Format.YAML,
        ResourceType.CLUSTERS))
        .isInstanceOf(ConfigException.class).hasMessageStartingWith("lb_policy: \"fastest\" is not one of");
  }
}
