package io.spillway.edge.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.EdgeProcess;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --mode validate} of the packaged edge: exit 0 and "... OK" on stdout for a valid
 * bootstrap; exit 1 and {@code error: <field path>: <rule>} on stderr for the first problem.
 */
class ValidateModeE2E {

  private static final Duration RUN_TIMEOUT = Duration.ofSeconds(60);

  @TempDir
  static Path dir;

  private static String demo;

  @BeforeAll
  static void readDemo() throws IOException {
    try (InputStream in = ValidateModeE2E.class.getResourceAsStream("/bootstraps/envoy-demo.yaml")) {
      assertThat(in).as("test resource bootstraps/envoy-demo.yaml").isNotNull();
      demo = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void envoyDemoBootstrapIsValid() throws IOException {
    Path file = write("envoy-demo.yaml", demo);

    EdgeProcess.Result result = validate(file);

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.stdout()).contains(file.toString()).contains("OK");
    assertThat(result.stderr()).doesNotContain("error:");
  }

  @Test
  void unsupportedLbPolicyIsRejectedWithItsPath() throws IOException {
    Path file = write("cluster-provided.yaml", withClusterField(demo, "lb_policy: CLUSTER_PROVIDED"));

    EdgeProcess.Result result = validate(file);

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(errorLine(result)).contains("static_resources.clusters[0].lb_policy").contains("CLUSTER_PROVIDED");
    assertThat(result.stdout()).doesNotContain("OK");
  }

  @Test
  void unknownClusterFieldIsRejectedWithItsPath() throws IOException {
    Path file = write("unknown-field.yaml", withClusterField(demo, "no_such_field: 3"));

    EdgeProcess.Result result = validate(file);

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(errorLine(result)).contains("static_resources.clusters[0].no_such_field");
  }

  @Test
  void unknownFieldInsideTypedConfigIsRejectedWithItsPath() throws IOException {
    String yaml = demo.replace("          stat_prefix: ingress_http\n",
        "          stat_prefix: ingress_http\n          no_such_option: true\n");
    assertThat(yaml).as("the demo's HCM block was found").isNotEqualTo(demo);
    Path file = write("unknown-hcm-field.yaml", yaml);

    EdgeProcess.Result result = validate(file);

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(errorLine(result))
        .contains("static_resources.listeners[0].filter_chains[0].filters[0].typed_config.no_such_option");
  }

  @Test
  void invalidYamlIsRejectedWithItsPosition() throws IOException {
    Path file = write("broken.yaml", """
        admin:
          address: { socket_address: { address: 127.0.0.1, port_value: [9901 }
        static_resources: {}
        """);

    EdgeProcess.Result result = validate(file);

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(errorLine(result)).containsIgnoringCase("yaml").contains("line 2");
    assertThat(result.stderr()).doesNotContain("Exception in thread").doesNotContain("\tat ");
  }

  @Test
  void missingFileIsRejectedWithItsName() {
    Path missing = dir.resolve("does-not-exist.yaml");

    EdgeProcess.Result result = validate(missing);

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(errorLine(result)).contains(missing.toString());
    assertThat(result.stdout()).doesNotContain("OK");
    assertThat(result.stderr()).doesNotContain("Exception in thread").doesNotContain("\tat ");
  }

  /** A bootstrap written the way Envoy's loader lets people write it (one leniency per comment). */
  private static final String LENIENT = """
      !ignore shared:                                   # a key Envoy leaves out, holding anchors
        - &loopback {address: 127.0.0.1, port_value: 8080}
        - &all_domains ["*", "localhost"]
      admin:
        address: {socket_address: {address: 127.0.0.1, port_value: 0}}
      static_resources:
        listeners:                                      # one listener, not a list of one
          name: main
          address: {socket_address: {address: 127.0.0.1, port_value: 0}}
          listener_filters:
          - name: envoy.filters.listener.tls_inspector  # named alone
          filter_chains:
            filters:
              name: envoy.filters.network.http_connection_manager
              typed_config:
                "@type": type.googleapis.com/xds.type.v3.TypedStruct
                type_url: type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                value:
                  stat_prefix: main
                  codec_type: auto                      # enum in lower case
                  stream_idle_timeout: {seconds: 30}    # Duration as an object
                  http_filters:
                  - name: envoy.filters.http.router
                    typed_config: {}                    # empty: chosen by name
                  route_config:
                    virtual_hosts:
                      name: all
                      domains: [*all_domains, example.com]   # an aliased list spliced in
                      routes: {match: {prefix: /}, route: {cluster: backend}}
        clusters:
        - name: backend
          type: static
          lb_policy: least_request
          connect_timeout: 1s
          load_assignment:
            cluster_name: backend
            endpoints: {lb_endpoints: {endpoint: {address: {socket_address: *loopback}}}}
      """;

  @Test
  void aBootstrapUsingEnvoysLeniencesIsValid() throws IOException {
    Path file = write("lenient.yaml", LENIENT);

    EdgeProcess.Result result = validate(file);

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.stdout()).contains(file.toString()).contains("OK");
  }

  @Test
  void aMergeKeyIsRefusedAsEnvoyRefusesIt() throws IOException {
    String yaml = LENIENT.replace("  - name: backend\n    type: static\n",
        "  - <<: {type: static}\n    name: backend\n");
    assertThat(yaml).isNotEqualTo(LENIENT);
    Path file = write("merge.yaml", yaml);

    EdgeProcess.Result result = validate(file);

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(errorLine(result)).contains("invalid YAML at line").contains("merge keys (<<) are not supported");
  }

  private static EdgeProcess.Result validate(Path file) {
    return EdgeProcess.run(RUN_TIMEOUT, "-c", file.toString(), "--mode", "validate");
  }

  /** The stderr line starting with {@code error: } (the JVM may print warnings around it). */
  private static String errorLine(EdgeProcess.Result result) {
    return result.stderr().lines().filter(l -> l.startsWith("error: ")).findFirst()
        .orElseThrow(() -> new AssertionError("no 'error: ' line on stderr: " + result));
  }

  /** The demo with one more field in its only cluster, right after {@code type: STRICT_DNS}. */
  private static String withClusterField(String yaml, String field) {
    String anchor = "    type: STRICT_DNS\n";
    assertThat(yaml).contains(anchor);
    return yaml.replace(anchor, anchor + "    " + field + "\n");
  }

  private static Path write(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content);
  }
}
