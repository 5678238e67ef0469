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

  @Test
  void refusesRtdsAndDiskLayersWithoutARoot() {
    assertThatThrownBy(() -> runtime("""
        - name: rtds
          rtds_layer: { name: runtime, rtds_config: { ads: {} } }
        """)).hasMessageContaining("layered_runtime.layers[0].rtds_layer").hasMessageContaining("not supported");
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
