package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.envoyproxy.envoy.extensions.filters.http.buffer.v3.Buffer;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.Router;
import io.spillway.edge.config.ExtensionRegistry.Category;
import io.spillway.edge.config.ExtensionRegistry.Extension;
import org.junit.jupiter.api.Test;

class ExtensionRegistryTest {

  private final ExtensionRegistry registry = ExtensionRegistry.standard();

  @Test
  void registersTheSupportedExtensionsUnderEnvoysNames() {
    assertThat(registry.extensions()).extracting(Extension::name).contains(
        "envoy.filters.network.http_connection_manager",
        "envoy.filters.http.router",
        "envoy.filters.http.buffer",
        "envoy.transport_sockets.tls",
        "envoy.extensions.upstreams.http.v3.HttpProtocolOptions",
        "envoy.filters.listener.tls_inspector",
        "envoy.access_loggers.stdout",
        "envoy.resource_monitors.fixed_heap",
        "envoy.overload_actions.reduce_timeouts");
    assertThat(registry.byName("envoy.filters.http.router").orElseThrow().category()).isEqualTo(Category.HTTP_FILTER);
    assertThat(registry.byName("envoy.filters.http.wasm")).isEmpty();
  }

  @Test
  void findsATypeWhateverTheUrlPrefix() {
    assertThat(registry.byTypeUrl("type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"))
        .map(Extension::name).contains("envoy.filters.http.router");
    assertThat(registry.byTypeUrl("example.com/types/envoy.extensions.filters.http.buffer.v3.Buffer"))
        .map(Extension::name).contains("envoy.filters.http.buffer");
    assertThat(registry.byTypeUrl("type.googleapis.com/envoy.extensions.filters.http.wasm.v3.Wasm"))
        .isEmpty();
    assertThat(registry.byName("envoy.filters.http.buffer").orElseThrow().typeUrl())
        .isEqualTo("type.googleapis.com/envoy.extensions.filters.http.buffer.v3.Buffer");
  }

  @Test
  void selectsByTypeAndByNameOnlyWhereTheDefaultConfigIsComplete() throws Exception {
    FieldPath at = FieldPath.ROOT.field("f");
    com.google.protobuf.Any buffer = com.google.protobuf.Any.pack(Buffer.getDefaultInstance());

    // The type decides; the name is only a label.
    assertThat(registry.select("anything", true, buffer, Category.HTTP_FILTER, at).name())
        .isEqualTo("envoy.filters.http.buffer");
    // No type (absent or {}): the name, for the router and the listener inspectors only.
    assertThat(registry.select("envoy.filters.http.router", true, com.google.protobuf.Any.getDefaultInstance(),
        Category.HTTP_FILTER, at).name()).isEqualTo("envoy.filters.http.router");
    assertThat(registry.select("envoy.filters.listener.tls_inspector", false,
        com.google.protobuf.Any.getDefaultInstance(), Category.LISTENER_FILTER, at).nameSuffices()).isTrue();
    assertThatThrownBy(() -> registry.select("envoy.filters.http.buffer", false,
            com.google.protobuf.Any.getDefaultInstance(), Category.HTTP_FILTER, at))
        .hasMessage("f.typed_config: typed_config is required for envoy.filters.http.buffer");
    assertThatThrownBy(() -> registry.select("envoy.filters.listener.tls_inspector", false,
            com.google.protobuf.Any.getDefaultInstance(), Category.HTTP_FILTER, at))
        .hasMessage("f: envoy.filters.listener.tls_inspector is not supported");
    assertThatThrownBy(() -> registry.select("", false, com.google.protobuf.Any.getDefaultInstance(),
            Category.HTTP_FILTER, at))
        .hasMessage("f.name: name is required");
  }

  @Test
  void knowsBothTypedStructsAndGivesJsonFormatTheirTypes() throws Exception {
    assertThat(ExtensionRegistry.isTypedStruct("type.googleapis.com/xds.type.v3.TypedStruct")).isTrue();
    assertThat(ExtensionRegistry.isTypedStruct("udpa.type.v1.TypedStruct")).isTrue();
    assertThat(ExtensionRegistry.isTypedStruct("type.googleapis.com/google.protobuf.Struct")).isFalse();
    assertThat(registry.typeRegistry().find("xds.type.v3.TypedStruct")).isNotNull();
    assertThat(registry.typeRegistry().find("udpa.type.v1.TypedStruct")).isNotNull();
  }

  @Test
  void givesJsonFormatTheRegisteredTypes() throws Exception {
    assertThat(registry.typeRegistry().find("envoy.extensions.filters.http.router.v3.Router")).isNotNull();
  }

  @Test
  void rejectsANameOrTypeRegisteredTwice() {
    assertThatThrownBy(() -> ExtensionRegistry.builder()
            .add("x", Category.HTTP_FILTER, Router.getDefaultInstance())
            .add("x", Category.HTTP_FILTER, Buffer.getDefaultInstance())
            .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("extension x registered twice");
    assertThatThrownBy(() -> ExtensionRegistry.builder()
            .add("x", Category.HTTP_FILTER, Router.getDefaultInstance())
            .add("y", Category.HTTP_FILTER, Router.getDefaultInstance())
            .build())
        .hasMessage("type envoy.extensions.filters.http.router.v3.Router registered twice");
  }

  @Test
  void aSmallerRegistryRejectsWhatItLacks() {
    ExtensionRegistry routerOnly = ExtensionRegistry.builder()
        .add("envoy.filters.network.http_connection_manager", Category.NETWORK_FILTER,
            io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                .getDefaultInstance())
        .add("envoy.filters.http.router", Category.HTTP_FILTER, Router.getDefaultInstance())
        .build();
    String yaml = BootstrapYaml.minimal()
        .httpFilters("""
            - name: envoy.filters.http.buffer
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.filters.http.buffer.v3.Buffer
                max_request_bytes: 1024
            - name: envoy.filters.http.router
            """)
        .yaml();

    assertThatThrownBy(() -> BootstrapLoader.parse(yaml, BootstrapLoader.Format.YAML, routerOnly))
        .hasMessage(BootstrapYaml.HCM + ".http_filters[0].typed_config: unknown @type"
            + " \"type.googleapis.com/envoy.extensions.filters.http.buffer.v3.Buffer\""
            + " (not an extension Spillway supports)");
  }
}
