package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RuntimeTranslationTest {

  private static RuntimeConfig runtime(String layers) throws ConfigException {
    return BootstrapYaml.minimal().top("layered_runtime:\n  layers:\n" + layers.indent(2)).translate().runtime();
  }

  @Test
  void noRuntimeIsNoLayers() throws ConfigException {
    assertThat(BootstrapYaml.minimal().translate().runtime()).isEqualTo(RuntimeConfig.NONE);
    assertThat(BootstrapYaml.minimal().top("layered_runtime: {}\n").translate().runtime().layers()).isEmpty();
  }

  @Test
  void aStaticLayerIsFlattenedToDottedKeysAsInEnvoysEdgeGuide() throws ConfigException {
    RuntimeConfig r = runtime("""
        - name: static_layer_0
          static_layer:
            envoy:
              resource_limits:
                listener:
                  example_listener_name:
                    connection_limit: 10000
            overload:
              global_downstream_max_connections: 50000
            ratio: 0.25
            enabled: true
            label: blue
            sampled: { numerator: 5, denominator: TEN_THOUSAND }
        - name: admin_layer_0
          admin_layer: {}
        """);

    assertThat(r.layers()).hasSize(2);
    assertThat(r.layers().get(0)).isEqualTo(new RuntimeConfig.StaticLayer("static_layer_0", Map.of(
        "envoy.resource_limits.listener.example_listener_name.connection_limit", "10000",
        "overload.global_downstream_max_connections", "50000",
        "ratio", "0.25", "enabled", "true", "label", "blue", "sampled", "5/10000")));
    assertThat(r.layers().get(1)).isEqualTo(new RuntimeConfig.AdminLayer("admin_layer_0"));
  }

  @Test
  void aDiskLayerKeepsItsPaths() throws ConfigException {
    RuntimeConfig r = runtime("""
        - name: disk_layer_0
          disk_layer: { symlink_root: /srv/runtime/current, subdirectory: envoy, append_service_cluster: true }
        """);

    assertThat(r.layers()).containsExactly(
        new RuntimeConfig.DiskLayer("disk_layer_0", "/srv/runtime/current", "envoy", true));
  }

  @Test
  void refusesWhatEnvoyRefuses() {
    assertThatThrownBy(() -> runtime("""
        - name: same
          static_layer: { a: 1 }
        - name: same
          admin_layer: {}
        """)).hasMessageContaining("layered_runtime.layers[1].name").hasMessageContaining("duplicate layer name");
    assertThatThrownBy(() -> runtime("""
        - name: a
          admin_layer: {}
        - name: b
          admin_layer: {}
        """)).hasMessageContaining("layered_runtime.layers[1].admin_layer").hasMessageContaining("at most one");
    assertThatThrownBy(() -> runtime("""
        - name: a
        """)).hasMessageContaining("layered_runtime.layers[0]").hasMessageContaining("is required");
  }

  @Test
  void refusesValuesThatHaveNoRuntimeMeaning() {
    assertThatThrownBy(() -> runtime("""
        - name: s
          static_layer: { a: { b: [1, 2] } }
        """)).hasMessageContaining("layered_runtime.layers[0].static_layer.a.b").hasMessageContaining("list");
    assertThatThrownBy(() -> runtime("""
        - name: s
          static_layer: { a: null }
        """)).hasMessageContaining("layered_runtime.layers[0].static_layer.a");
    assertThatThrownBy(() -> runtime("""
        - name: s
          static_layer: { p: { numerator: 5, denominator: THOUSAND } }
        """)).hasMessageContaining("static_layer.p.denominator");
    assertThatThrownBy(() -> runtime("""
        - name: s
          static_layer: { p: { numerator: -1 } }
        """)).hasMessageContaining("static_layer.p.numerator");
  }

  private static final String XDS_CLUSTER = """
      - name: backend
        load_assignment:
          endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 8080}}}}]}]
      - name: xds
        typed_extension_protocol_options:
          envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
            "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
            explicit_http_config: {http2_protocol_options: {}}
        load_assignment:
          endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 18000}}}}]}]
      """;

  private static final String ADS = """
      dynamic_resources:
        ads_config: {api_type: GRPC, transport_api_version: V3, grpc_services: [{envoy_grpc: {cluster_name: xds}}]}
        cds_config: {ads: {}}
        lds_config: {ads: {}}
      """;

  @Test
  void anRtdsLayerSubscribesToItsResourceOverAds() throws ConfigException {
    EdgeConfig config = BootstrapYaml.minimal().clusters(XDS_CLUSTER).top(ADS + """
        layered_runtime:
          layers:
          - name: control_plane
            rtds_layer: { name: edge-runtime, rtds_config: { ads: {}, resource_api_version: V3 } }
        """).translate();

    assertThat(config.runtime().layers()).containsExactly(new RuntimeConfig.RtdsLayer("control_plane", "edge-runtime"));
    assertThat(config.xds().orElseThrow().runtimeResources()).containsExactly("edge-runtime");
    assertThatThrownBy(() -> BootstrapYaml.minimal().clusters(XDS_CLUSTER).top(ADS + """
        layered_runtime:
          layers:
          - name: control_plane
            rtds_layer: { name: edge-runtime, rtds_config: { path: /etc/runtime.yaml } }
        """).translate()).hasMessageContaining("layered_runtime.layers[0].rtds_layer.rtds_config");
    assertThatThrownBy(() -> BootstrapYaml.minimal().clusters(XDS_CLUSTER).top(ADS + """
        layered_runtime:
          layers:
          - name: control_plane
            rtds_layer: { rtds_config: { ads: {} } }
        """).translate()).hasMessageContaining("layered_runtime.layers[0].rtds_layer.name");
  }

  @Test
  void refusesRtdsAndDiskLayersWithoutARoot() {
    assertThatThrownBy(() -> runtime("""
        - name: rtds
          rtds_layer: { name: runtime, rtds_config: { ads: {} } }
        """)).hasMessage("layered_runtime.layers[0].rtds_layer: an RTDS layer needs dynamic_resources.ads_config"
        + " (runtime comes over ADS)");
    assertThatThrownBy(() -> runtime("""
        - name: d
          disk_layer: { subdirectory: envoy }
        """)).hasMessageContaining("layered_runtime.layers[0].disk_layer.symlink_root");
    assertThatThrownBy(() -> runtime("""
        - name: d
          disk_layer: { symlink_root: /srv/rt, subdirectory: ../etc }
        """)).hasMessageContaining("disk_layer.subdirectory");
  }
}
