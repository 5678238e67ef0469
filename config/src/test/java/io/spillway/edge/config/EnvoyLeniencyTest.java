package io.spillway.edge.config;

import static io.spillway.edge.config.BootstrapYaml.HCM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.TlsParameters;
import io.spillway.edge.config.BootstrapLoader.Format;
import io.spillway.edge.config.HttpConnectionManagerConfig.CodecType;
import org.junit.jupiter.api.Test;

/**
 * What Envoy's loader accepts beyond protobuf's canonical JSON mapping, and the neighbouring
 * forms it still refuses. YAML-level forms (anchors, !ignore, merge keys) are in
 * {@link YamlTreeReaderTest}.
 */
class EnvoyLeniencyTest {

  private static final String CLUSTER = "static_resources.clusters[0]";

  // --- enum names in any case ---

  @Test
  void readsEnumNamesInAnyCase() throws ConfigException {
    EdgeConfig config = BootstrapYaml.minimal()
        .hcm("codec_type: http2")
        .clusters("""
            - name: backend
              lb_policy: round_robin
              type: Static
              load_assignment:
                cluster_name: backend
                endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 8080}}}}]}]
            """)
        .translate();

    assertThat(config.listeners().get(0).hcm().codecType()).isEqualTo(CodecType.HTTP2);
    assertThat(config.clusters().get("backend").lbPolicy()).isEqualTo(ClusterConfig.LbPolicy.ROUND_ROBIN);
  }

  @Test
  void matchesMixedCaseEnumNamesToTheDeclaredOne() throws ConfigException {
    Bootstrap b = BootstrapYaml.minimal().chain("""
        transport_socket:
          name: envoy.transport_sockets.tls
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext
            common_tls_context:
              tls_params: {tls_minimum_protocol_version: tlsv1_2, tls_maximum_protocol_version: TLSV1_3}
        """).parse();

    TlsParameters params = unpack(b.getStaticResources().getListeners(0).getFilterChains(0).getTransportSocket()
        .getTypedConfig(), DownstreamTlsContext.class).getCommonTlsContext().getTlsParams();
    assertThat(params.getTlsMinimumProtocolVersion()).isEqualTo(TlsParameters.TlsProtocol.TLSv1_2);
    assertThat(params.getTlsMaximumProtocolVersion()).isEqualTo(TlsParameters.TlsProtocol.TLSv1_3);
  }

  @Test
  void readsAnEnumNumberWrittenAsAString() throws ConfigException {
    Cluster c = BootstrapLoader.parseResource("{name: c, lb_policy: \"1\"}", Format.YAML, Cluster.getDefaultInstance());

    assertThat(c.getLbPolicy()).isEqualTo(Cluster.LbPolicy.LEAST_REQUEST);
  }

  @Test
  void stillRefusesUnknownEnumNamesAndNonAsciiCaseFolding() {
    BootstrapYaml.minimal().clusters("- name: backend\n  lb_policy: fastest\n")
        .rejects(CLUSTER + ".lb_policy: \"fastest\" is not one of ROUND_ROBIN, LEAST_REQUEST, RING_HASH, RANDOM,"
            + " MAGLEV, CLUSTER_PROVIDED, LOAD_BALANCING_POLICY_CONFIG");
    // U+017F (long s) upper-cases to S in Java, but Envoy compares ASCII letters only.
    BootstrapYaml.minimal().clusters("- name: backend\n  lb_policy: LEAſT_REQUEST\n")
        .rejects(CLUSTER + ".lb_policy: \"LEAſT_REQUEST\" is not one of ROUND_ROBIN, LEAST_REQUEST, RING_HASH,"
            + " RANDOM, MAGLEV, CLUSTER_PROVIDED, LOAD_BALANCING_POLICY_CONFIG");
  }

  // --- one value where a list belongs ---

  @Test
  void readsOneValueWhereAListBelongsAsAListOfIt() throws ConfigException {
    EdgeConfig config = BootstrapYaml.minimal()
        .httpFilters("  name: envoy.filters.http.router\n") // the slot takes list items: indent a mapping
        .virtualHosts("""
              name: local
              domains: "*"
              routes: {match: {prefix: /}, route: {cluster: backend}}
            """)
        .translate();

    assertThat(config.listeners().get(0).hcm().filterNames()).containsExactly("envoy.filters.http.router");
    assertThat(config.listeners().get(0).hcm().routeConfig().virtualHosts().get(0).domains()).containsExactly("*");
  }

  @Test
  void splicesAListInsideAListAsEnvoyDoes() throws ConfigException {
    Bootstrap b = BootstrapYaml.minimal()
        .top("!ignore domains: &shared [a.example.com, b.example.com]\n")
        .virtualHosts("""
            - name: local
              domains: [*shared, c.example.com]
              routes: [{match: {prefix: /}, route: {cluster: backend}}]
            """)
        .parse();

    assertThat(BootstrapLoaderTest.unpackHcm(b).getRouteConfig().getVirtualHosts(0).getDomainsList())
        .containsExactly("a.example.com", "b.example.com", "c.example.com");
  }

  @Test
  void readsANullListElementAsTheDefaultElement() throws ConfigException {
    Bootstrap b = BootstrapLoader.parse("static_resources: {clusters: [null, {name: b}]}", Format.YAML);

    assertThat(b.getStaticResources().getClustersList()).extracting(Cluster::getName).containsExactly("", "b");
  }

  @Test
  void stillRefusesAListWhereOneObjectBelongsAndAStringWhereAnObjectBelongs() {
    assertThatThrownBy(() -> BootstrapLoader.parse("node: [{id: a}]", Format.YAML))
        .hasMessage("node: expected an object (envoy.config.core.v3.Node), got a list");
    BootstrapYaml.minimal().httpFilters("  envoy.filters.http.router\n")
        .rejects(HCM + ".http_filters[0]: expected an object"
            + " (envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter), got a string");
  }

  // --- an extension chosen by name: no typed_config, or typed_config: {} ---

  @Test
  void anEmptyTypedConfigIsNoTypedConfigAndTheNameChoosesTheRouter() throws ConfigException {
    EdgeConfig config = BootstrapYaml.minimal()
        .httpFilters("- name: envoy.filters.http.router\n  typed_config: {}\n")
        .translate();

    assertThat(config.listeners().get(0).hcm().filterNames()).containsExactly("envoy.filters.http.router");
  }

  @Test
  void listenerFiltersWithCompleteDefaultsMayBeNamedAlone() throws ConfigException {
    BootstrapYaml.minimal().listener("""
        listener_filters:
        - name: envoy.filters.listener.tls_inspector
        - name: envoy.filters.listener.http_inspector
          typed_config: {}
        """).translate();
  }

  @Test
  void anExtensionThatNeedsItsConfigIsNotChosenByNameAlone() {
    BootstrapYaml.minimal()
        .httpFilters("""
            - name: envoy.filters.http.buffer
              typed_config: {}
            - name: envoy.filters.http.router
            """)
        .rejects(HCM + ".http_filters[0].typed_config: typed_config is required for envoy.filters.http.buffer");
  }

  @Test
  void refusesEnvoysFormerExtensionNamesWithTheCurrentOne() {
    BootstrapYaml.minimal().httpFilters("- name: envoy.router\n")
        .rejects(HCM + ".http_filters[0].name: envoy.router is the former name of envoy.filters.http.router,"
            + " which Envoy no longer resolves: write envoy.filters.http.router with its typed_config");
  }

  @Test
  void aNetworkFilterWithAnEmptyTypedConfigIsRefused() throws ConfigException {
    Listener l = BootstrapLoader.parseResource("""
        name: l
        address: {socket_address: {address: 127.0.0.1, port_value: 80}}
        filter_chains: [{filters: [{name: envoy.filters.network.http_connection_manager, typed_config: {}}]}]
        """, Format.YAML, Listener.getDefaultInstance());

    assertThatThrownBy(() -> ConfigTranslator.translate(Bootstrap.newBuilder()
            .setStaticResources(Bootstrap.StaticResources.newBuilder().addListeners(l)).build()))
        .hasMessage("static_resources.listeners[0].filter_chains[0].filters[0].typed_config: typed_config is empty:"
            + " it must name its type with \"@type\" (Envoy chooses the extension by that type)");
  }

  // --- TypedStruct ---

  @Test
  void unwrapsATypedStructIntoTheMessageItsTypeUrlNames() throws ConfigException {
    EdgeConfig config = BootstrapYaml.minimal()
        .httpFilters("""
            - name: buffer
              typed_config:
                "@type": type.googleapis.com/xds.type.v3.TypedStruct
                type_url: type.googleapis.com/envoy.extensions.filters.http.buffer.v3.Buffer
                value: {max_request_bytes: 65536}
            - name: envoy.filters.http.router
              typed_config:
                "@type": type.googleapis.com/udpa.type.v1.TypedStruct
                type_url: envoy.extensions.filters.http.router.v3.Router
            """)
        .translate();

    assertThat(config.listeners().get(0).hcm().filter("envoy.filters.http.buffer").map(f -> f.settings(HttpFilterConfig.Buffer.class).maxRequestBytes())).contains(65536L);
    // The loader keeps the message the TypedStruct wrapped, not the wrapper.
    HttpConnectionManager hcm = BootstrapLoaderTest.unpackHcm(BootstrapYaml.minimal()
        .httpFilters("""
            - name: envoy.filters.http.router
              typed_config:
                "@type": type.googleapis.com/udpa.type.v1.TypedStruct
                type_url: envoy.extensions.filters.http.router.v3.Router
                value: {dynamic_stats: false}
            """).parse());
    assertThat(hcm.getHttpFilters(0).getTypedConfig().getTypeUrl())
        .isEqualTo("type.googleapis.com/envoy.extensions.filters.http.router.v3.Router");
    assertThat(unpack(hcm.getHttpFilters(0).getTypedConfig(),
        io.envoyproxy.envoy.extensions.filters.http.router.v3.Router.class).hasDynamicStats()).isTrue();
    assertThat(config.listeners().get(0).hcm().filterNames())
        .containsExactly("envoy.filters.http.buffer", "envoy.filters.http.router");
  }

  @Test
  void aTypedStructMayHoldAWholeConnectionManagerWithTheLoadersLeniencies() throws ConfigException {
    EdgeConfig config = ConfigTranslator.translate(BootstrapLoader.parse("""
        static_resources:
          listeners:
          - name: main
            address: {socket_address: {address: 127.0.0.1, port_value: 10000}}
            filter_chains:
              filters:
                name: envoy.filters.network.http_connection_manager
                typed_config:
                  "@type": type.googleapis.com/xds.type.v3.TypedStruct
                  type_url: type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                  value:
                    stat_prefix: main
                    codec_type: auto
                    stream_idle_timeout: {seconds: 7}
                    http_filters: {name: envoy.filters.http.router, typed_config: {}}
                    route_config:
                      virtual_hosts:
                        name: all
                        domains: "*"
                        routes: {match: {prefix: /}, route: {cluster: backend}}
          clusters:
            name: backend
            load_assignment:
              cluster_name: backend
              endpoints: {lb_endpoints: {endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 80}}}}}
        """, Format.YAML));

    assertThat(config.listeners().get(0).hcm().codecType()).isEqualTo(CodecType.AUTO);
    assertThat(config.listeners().get(0).hcm().streamIdleTimeout()).hasSeconds(7);
    assertThat(config.listeners().get(0).hcm().routeConfig().virtualHosts().get(0).domains()).containsExactly("*");
  }

  @Test
  void unwrapsATypedStructThatArrivesAsAProtoAsOverXds() throws Exception {
    Bootstrap plain = BootstrapYaml.minimal().parse();
    Any hcm = plain.getStaticResources().getListeners(0).getFilterChains(0).getFilters(0).getTypedConfig();
    Struct.Builder value = Struct.newBuilder();
    JsonFormat.parser().merge(JsonFormat.printer().usingTypeRegistry(ExtensionRegistry.standard().typeRegistry())
        .print(unpack(hcm, HttpConnectionManager.class)), value);
    Any typedStruct = Any.pack(com.github.xds.type.v3.TypedStruct.newBuilder()
        .setTypeUrl(hcm.getTypeUrl()).setValue(value.putFields("codec_type", Value.newBuilder()
            .setStringValue("http1").build())).build());
    Bootstrap.Builder b = plain.toBuilder();
    b.getStaticResourcesBuilder().getListenersBuilder(0).getFilterChainsBuilder(0).getFiltersBuilder(0)
        .setTypedConfig(typedStruct);

    EdgeConfig config = ConfigTranslator.translate(b.build());

    assertThat(config.listeners().get(0).hcm().codecType()).isEqualTo(CodecType.HTTP1);
    // What central and /config_dump print must print a TypedStruct too.
    assertThat(JsonFormat.printer().usingTypeRegistry(ExtensionRegistry.standard().typeRegistry()).print(b))
        .contains("xds.type.v3.TypedStruct");
  }

  @Test
  void namesTheFieldInsideATypedStructThatIsWrong() {
    BootstrapYaml.minimal()
        .httpFilters("""
            - name: buffer
              typed_config:
                "@type": type.googleapis.com/xds.type.v3.TypedStruct
                type_url: type.googleapis.com/envoy.extensions.filters.http.buffer.v3.Buffer
                value: {max_request_byte: 65536}
            - name: envoy.filters.http.router
            """)
        .rejects(HCM + ".http_filters[0].typed_config.value.max_request_byte: unknown field"
            + " (not in envoy.extensions.filters.http.buffer.v3.Buffer)");
    BootstrapYaml.minimal()
        .httpFilters("""
            - name: envoy.filters.http.router
              typed_config:
                "@type": type.googleapis.com/xds.type.v3.TypedStruct
                value: {}
            """)
        .rejects(HCM + ".http_filters[0].typed_config.type_url: type_url is required (it names the extension the"
            + " value configures)");
  }

  @Test
  void refusesATypedStructOfAnotherSlotOrOfAV2Type() {
    BootstrapYaml.minimal()
        .httpFilters("""
            - name: envoy.filters.http.router
              typed_config:
                "@type": type.googleapis.com/xds.type.v3.TypedStruct
                type_url: type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext
            """)
        .rejects(HCM + ".http_filters[0].typed_config: envoy.extensions.transport_sockets.tls.v3"
            + ".DownstreamTlsContext (envoy.transport_sockets.tls) cannot be used here: expected an HTTP filter");
    BootstrapYaml.minimal()
        .httpFilters("""
            - name: envoy.filters.http.router
              typed_config:
                "@type": type.googleapis.com/udpa.type.v1.TypedStruct
                type_url: type.googleapis.com/envoy.config.filter.http.router.v2.Router
            """)
        .rejects(HCM + ".http_filters[0].typed_config.type_url: unknown @type"
            + " \"type.googleapis.com/envoy.config.filter.http.router.v2.Router\": a v2 API type, which Envoy's v3"
            + " API no longer resolves; write type.googleapis.com/envoy.extensions.filters.http.router.v3.Router");
  }

  @Test
  void refusesATypedStructInsideATypedStruct() {
    BootstrapYaml.minimal()
        .httpFilters("""
            - name: envoy.filters.http.router
              typed_config:
                "@type": type.googleapis.com/xds.type.v3.TypedStruct
                type_url: type.googleapis.com/udpa.type.v1.TypedStruct
                value: {type_url: envoy.extensions.filters.http.router.v3.Router}
            """)
        .rejects(HCM + ".http_filters[0].typed_config.type_url: a TypedStruct cannot hold another TypedStruct"
            + " (Envoy does not unwrap nested ones)");
  }

  // --- v2 types stay refused ---

  @Test
  void refusesAV2TypeUrlAndSaysWhichV3TypeToWrite() {
    BootstrapYaml.minimal()
        .httpFilters("""
            - name: envoy.filters.http.router
              typed_config:
                "@type": type.googleapis.com/envoy.config.filter.http.router.v2.Router
            """)
        .rejects(HCM + ".http_filters[0].typed_config: unknown @type"
            + " \"type.googleapis.com/envoy.config.filter.http.router.v2.Router\": a v2 API type, which Envoy's v3"
            + " API no longer resolves; write type.googleapis.com/envoy.extensions.filters.http.router.v3.Router");
  }

  // --- where else the leniencies apply ---

  @Test
  void resourcesReadWithTheSameLeniencies() throws ConfigException {
    Cluster c = BootstrapLoader.parseResource("""
        name: web
        lb_policy: least_request
        load_assignment:
          cluster_name: web
          endpoints: {lb_endpoints: {endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 80}}}}}
        """, Format.YAML, Cluster.getDefaultInstance());

    assertThat(c.getLbPolicy()).isEqualTo(Cluster.LbPolicy.LEAST_REQUEST);
    assertThat(c.getLoadAssignment().getEndpoints(0).getLbEndpoints(0).getEndpoint().getAddress()
        .getSocketAddress().getPortValue()).isEqualTo(80);
  }

  private static <T extends com.google.protobuf.Message> T unpack(Any any, Class<T> type) {
    try {
      return any.unpack(type);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }
}
