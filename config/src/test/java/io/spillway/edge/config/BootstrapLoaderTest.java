package io.spillway.edge.config;

import static io.spillway.edge.config.BootstrapYaml.HCM;
import static io.spillway.edge.config.BootstrapYaml.ROUTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.util.Durations;
import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.spillway.edge.config.BootstrapLoader.Format;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BootstrapLoaderTest {

  private static final String YAML = """
      node: {id: edge-1, cluster: edges}
      static_resources:
        listeners:
        - name: main
          address:
            socket_address: {address: 127.0.0.1, port_value: 8000}
          filter_chains:
          - filters:
            - name: envoy.filters.network.http_connection_manager
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                stat_prefix: main
                stream_idle_timeout: 30s
                http_filters:
                - name: envoy.filters.http.router
                route_config:
                  virtual_hosts:
                  - name: all
                    domains: ["*"]
                    routes:
                    - match: {prefix: /}
                      route: {cluster: web, timeout: 2.5s}
        clusters:
        - name: web
          type: STRICT_DNS
          lb_policy: LEAST_REQUEST
          load_assignment:
            endpoints:
            - lb_endpoints:
              - endpoint: {address: {socket_address: {address: localhost, port_value: 9000}}}
      """;

  /** The same bootstrap as JSON, with lowerCamelCase names where protobuf's JSON mapping allows them. */
  private static final String JSON = """
      {
        "node": {"id": "edge-1", "cluster": "edges"},
        "staticResources": {
          "listeners": [{
            "name": "main",
            "address": {"socketAddress": {"address": "127.0.0.1", "portValue": 8000}},
            "filterChains": [{
              "filters": [{
                "name": "envoy.filters.network.http_connection_manager",
                "typedConfig": {
                  "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
                  "statPrefix": "main",
                  "streamIdleTimeout": "30s",
                  "httpFilters": [{"name": "envoy.filters.http.router"}],
                  "routeConfig": {
                    "virtualHosts": [{
                      "name": "all",
                      "domains": ["*"],
                      "routes": [{"match": {"prefix": "/"}, "route": {"cluster": "web", "timeout": "2.5s"}}]
                    }]
                  }
                }
              }]
            }]
          }],
          "clusters": [{
            "name": "web",
            "type": "STRICT_DNS",
            "lb_policy": "LEAST_REQUEST",
            "load_assignment": {"endpoints": [{"lb_endpoints": [
              {"endpoint": {"address": {"socket_address": {"address": "localhost", "port_value": 9000}}}}
            ]}]}
          }]
        }
      }
      """;

  @Test
  void jsonFormEqualsYamlForm() throws ConfigException {
    Bootstrap fromYaml = BootstrapLoader.parse(YAML, Format.YAML);
    Bootstrap fromJson = BootstrapLoader.parse(JSON, Format.JSON);

    assertThat(fromJson).isEqualTo(fromYaml);
    assertThat(ConfigTranslator.translate(fromJson)).isEqualTo(ConfigTranslator.translate(fromYaml));
  }

  @Test
  void loadsTheDemoFileByExtensionAndItsJsonTwin(@TempDir Path dir) throws Exception {
    Path yaml = Files.write(dir.resolve("envoy-demo.yaml"), envoyDemo());
    Bootstrap demo = BootstrapLoader.load(yaml);
    String json = com.google.protobuf.util.JsonFormat.printer()
        .usingTypeRegistry(ExtensionRegistry.standard().typeRegistry())
        .print(demo);
    Path jsonFile = Files.writeString(dir.resolve("envoy-demo.json"), json);

    assertThat(BootstrapLoader.load(jsonFile)).isEqualTo(demo);
    assertThat(demo.getStaticResources().getListeners(0).getName()).isEqualTo("listener_0");
  }

  @Test
  void fileFormatComesFromTheExtension(@TempDir Path dir) throws Exception {
    assertThat(Format.ofFileName("edge.yml")).isEqualTo(Format.YAML);
    assertThat(Format.ofFileName("EDGE.YAML")).isEqualTo(Format.YAML);
    assertThat(Format.ofFileName("edge.json")).isEqualTo(Format.JSON);
    Path text = Files.writeString(dir.resolve("edge.pb_text"), "node {}");

    assertThatThrownBy(() -> BootstrapLoader.load(text))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("edge.pb_text: unknown bootstrap format");
    assertThatThrownBy(() -> BootstrapLoader.load(dir.resolve("missing.yaml")))
        .isInstanceOf(ConfigException.class)
        .hasMessageEndingWith("missing.yaml: no such file");
  }

  @Test
  void acceptsTheDurationObjectFormEverywhereIncludingInsideTypedConfig() throws ConfigException {
    Bootstrap b = BootstrapYaml.minimal()
        .hcm("""
            stream_idle_timeout: {seconds: 0, nanos: 250000000}
            request_timeout: {seconds: 2}
            """)
        .clusters("""
            - name: backend
              connect_timeout: {nanos: 500000000}
            """)
        .parse();

    HttpConnectionManager hcm = unpackHcm(b);
    assertThat(Durations.toMillis(hcm.getStreamIdleTimeout())).isEqualTo(250);
    assertThat(Durations.toMillis(hcm.getRequestTimeout())).isEqualTo(2000);
    assertThat(Durations.toMillis(b.getStaticResources().getClusters(0).getConnectTimeout())).isEqualTo(500);

    EdgeConfig config = ConfigTranslator.translate(b);
    assertThat(config.listeners().get(0).hcm().streamIdleTimeout()).isEqualTo(Duration.ofMillis(250));
    assertThat(config.clusters().get("backend").connectTimeout()).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void rejectsADurationGivenAsABareNumber() {
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              connect_timeout: 5
            """)
        .rejects("static_resources.clusters[0].connect_timeout: a duration must be a string such as \"5s\""
            + " or an object {seconds, nanos}, not a bare number");
  }

  @Test
  void rejectsMalformedDurations() {
    BootstrapYaml.minimal().hcm("drain_timeout: 5 seconds")
        .rejects(HCM + ".drain_timeout: \"5 seconds\" is not a duration (write e.g. \"0.25s\")");
    BootstrapYaml.minimal().hcm("drain_timeout: {seconds: 1, nanos: -5}")
        .rejects(HCM + ".drain_timeout: {seconds: 1, nanos: -5} is not a valid duration (nanos within"
            + " +-999999999 and of the same sign as seconds)");
    BootstrapYaml.minimal().hcm("drain_timeout: {seconds: 1, minutes: 2}")
        .rejects(HCM + ".drain_timeout.minutes: unknown field (a duration has seconds and nanos)");
  }

  @Test
  void rejectsAnUnknownFieldWithItsFullPath() {
    BootstrapYaml.minimal()
        .routes("""
            - match: {prefix: /}
              route: {clustr: backend}
            """)
        .rejects(ROUTE + ".route.clustr: unknown field (not in envoy.config.route.v3.RouteAction)");
  }

  @Test
  void rejectsAnUnknownTypeWithThePathOfTheTypedConfig() {
    BootstrapYaml.minimal()
        .httpFilters("""
            - name: envoy.filters.http.wasm
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.filters.http.wasm.v3.Wasm
            - name: envoy.filters.http.router
            """)
        .rejects(HCM + ".http_filters[0].typed_config: unknown @type"
            + " \"type.googleapis.com/envoy.extensions.filters.http.wasm.v3.Wasm\""
            + " (not an extension Spillway supports)");
  }

  @Test
  void acceptsSnakeCaseAndCamelCaseButNotBothForOneField() throws ConfigException {
    assertThat(BootstrapYaml.minimal().hcm("maxRequestHeadersKb: 80").translate()
        .listeners().get(0).hcm().maxRequestHeadersBytes()).isEqualTo(80 * 1024);

    BootstrapYaml.minimal().hcm("statPrefix: other")
        .rejects(HCM + ".stat_prefix: set twice, as \"stat_prefix\" and as \"statPrefix\"");
  }

  @Test
  void rejectsTwoMembersOfOneOneof() {
    BootstrapYaml.minimal()
        .routes("""
            - match: {prefix: /, path: /x}
              route: {cluster: backend}
            """)
        .rejects(ROUTE + ".match.path: only one of prefix and path may be set (oneof path_specifier)");
  }

  @Test
  void rejectsValuesOfTheWrongKindOrRange() {
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              lb_policy: FASTEST
            """)
        .rejects("static_resources.clusters[0].lb_policy: \"FASTEST\" is not one of ROUND_ROBIN, LEAST_REQUEST,"
            + " RING_HASH, RANDOM, MAGLEV, CLUSTER_PROVIDED, LOAD_BALANCING_POLICY_CONFIG");
    BootstrapYaml.minimal().listener("per_connection_buffer_limit_bytes: -1")
        .rejects("static_resources.listeners[0].per_connection_buffer_limit_bytes: -1 is out of range"
            + " [0, 4294967295]");
    BootstrapYaml.minimal().listener("ignore_global_conn_limit: maybe")
        .rejects("static_resources.listeners[0].ignore_global_conn_limit: expected true or false,"
            + " got a string \"maybe\"");
  }

  @Test
  void rejectsDuplicateKeysInsteadOfKeepingTheLastOne() {
    BootstrapYaml.minimal().top("static_resources: {listeners: []}\n")
        .rejects("invalid YAML at line 2, column 1: duplicate key 'static_resources' (first at line 1)");
    assertThatThrownBy(() -> BootstrapLoader.parse("{\"node\": {}, \"node\": {}}", Format.JSON))
        .hasMessageStartingWith("invalid JSON at line 1, column 20: Duplicate field 'node'");
  }

  @Test
  void rejectsAListWhereAnObjectBelongs() {
    assertThatThrownBy(() -> BootstrapLoader.parse("node: [a]", Format.YAML))
        .hasMessage("node: expected an object (envoy.config.core.v3.Node), got a list");
  }

  @Test
  void readsAScalarAsAStringWhereAStringBelongs() throws ConfigException {
    Bootstrap b = BootstrapLoader.parse("node: {id: 123, cluster: 1.10}", Format.YAML);

    assertThat(b.getNode().getId()).isEqualTo("123");
    assertThat(b.getNode().getCluster()).isEqualTo("1.10");
  }

  @Test
  void keepsPlainYamlScalarsAsWrittenWhereAStringBelongs() throws ConfigException {
    Bootstrap b = BootstrapLoader.parse("node: {id: no, cluster: 010, locality: {zone: 1e3, region: on}}",
        Format.YAML);

    assertThat(b.getNode().getId()).isEqualTo("no");
    assertThat(b.getNode().getCluster()).isEqualTo("010");
    assertThat(b.getNode().getLocality().getZone()).isEqualTo("1e3");
    assertThat(b.getNode().getLocality().getRegion()).isEqualTo("on");
  }

  @Test
  void readsYamlBooleanWordsInBoolFieldsAsEnvoyDoes() throws ConfigException {
    Bootstrap b = BootstrapYaml.minimal().listener("ignore_global_conn_limit: yes").parse();

    assertThat(b.getStaticResources().getListeners(0).getIgnoreGlobalConnLimit()).isTrue();
  }

  @Test
  void rejectsASecondYamlDocumentAndTrailingJson() {
    assertThatThrownBy(() -> BootstrapLoader.parse("node: {id: a}\n---\nnode: {id: b}\n", Format.YAML))
        .hasMessage("invalid YAML: a bootstrap is one YAML document; another starts at line 3");
    assertThatThrownBy(() -> BootstrapLoader.parse("{} {}", Format.JSON))
        .hasMessageStartingWith("invalid JSON at line 1");
  }

  @Test
  void reportsSyntaxErrorsWithTheirLine() {
    assertThatThrownBy(() -> BootstrapLoader.parse("node:\n  id: [unclosed\n", Format.YAML))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("invalid YAML at line")
        .satisfies(e -> assertThat(((ConfigException) e).path()).isEmpty());
    assertThatThrownBy(() -> BootstrapLoader.parse("{\"node\": ", Format.JSON))
        .hasMessageStartingWith("invalid JSON at line 1");
  }

  @Test
  void anEmptyDocumentIsAnEmptyBootstrap() throws ConfigException {
    assertThat(BootstrapLoader.parse("", Format.YAML)).isEqualTo(Bootstrap.getDefaultInstance());
    assertThat(BootstrapLoader.parse("# nothing\n", Format.YAML)).isEqualTo(Bootstrap.getDefaultInstance());
  }

  static HttpConnectionManager unpackHcm(Bootstrap b) {
    try {
      return b.getStaticResources().getListeners(0).getFilterChains(0).getFilters(0).getTypedConfig()
          .unpack(HttpConnectionManager.class);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }

  /** The testkit's copy of Envoy's configs/envoy-demo.yaml. */
  static byte[] envoyDemo() throws IOException {
    try (InputStream in = BootstrapLoaderTest.class.getResourceAsStream("/bootstraps/envoy-demo.yaml")) {
      assertThat(in).as("testkit resource bootstraps/envoy-demo.yaml").isNotNull();
      return in.readAllBytes();
    }
  }
}
