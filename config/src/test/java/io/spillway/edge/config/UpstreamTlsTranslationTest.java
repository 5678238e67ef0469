package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext;
import io.spillway.edge.config.ClusterConfig.UpstreamProtocol;
import io.spillway.edge.config.SanMatcher.Type;
import io.spillway.testkit.TestPem;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class UpstreamTlsTranslationTest {
  private static final String PATH = "static_resources.clusters[0].transport_socket.typed_config";
  private static final String CA = "trusted_ca: {filename: \"" + TestPem.certificate("server") + "\"}";

  private static String cluster(String protocol, String tls) {
    return """
        - name: backend
          type: LOGICAL_DNS
          typed_extension_protocol_options:
            envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
              "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
              explicit_http_config: {%s: {}}
          transport_socket:
            name: envoy.transport_sockets.tls
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext
        %s
          load_assignment:
            cluster_name: backend
            endpoints:
            - lb_endpoints:
              - endpoint: {address: {socket_address: {address: www.example.com, port_value: 443}}}
        """.formatted(protocol, indent(tls, 6));
  }

  private static String indent(String text, int spaces) {
    return text.stripIndent().lines().map(l -> " ".repeat(spaces) + l).reduce((a, b) -> a + "\n" + b).orElse("");
  }

  private static UpstreamTlsConfig tls(String protocol, String yaml) throws ConfigException {
    return BootstrapYaml.minimal().clusters(cluster(protocol, yaml)).translate().clusters().get("backend").tls()
        .orElseThrow();
  }

  private static UpstreamTlsConfig tls(String yaml) throws ConfigException {
    return tls("http_protocol_options", yaml);
  }

  private static void rejects(String yaml, String message) {
    BootstrapYaml.minimal().clusters(cluster("http_protocol_options", yaml)).rejects(message);
  }

  private static PemData pem(String name) {
    return new PemData("x", TestPem.text(TestPem.certificate(name)).getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void translatesEverySupportedField() throws ConfigException {
    UpstreamTlsConfig tls = tls("http2_protocol_options", """
        sni: www.example.com
        auto_host_sni: true
        common_tls_context:
          alpn_protocols: [h2]
          tls_params: {tls_minimum_protocol_version: TLSv1_3, tls_maximum_protocol_version: TLSv1_3}
          tls_certificates:
          - certificate_chain: {filename: "%s"}
            private_key: {inline_string: %s}
          validation_context:
            %s
            match_typed_subject_alt_names:
            - {san_type: DNS, matcher: {exact: www.example.com}}
            - {san_type: URI, matcher: {prefix: "spiffe://", ignore_case: true}}
            - {san_type: IP_ADDRESS, matcher: {suffix: ".1"}}
            - {san_type: EMAIL, matcher: {contains: "@"}}
            match_subject_alt_names: [{exact: legacy.example.com}]
        """.formatted(TestPem.certificate("client"), TestPem.yamlString(TestPem.key("client")), CA));

    assertThat(tls.sni()).isEqualTo("www.example.com");
    assertThat(tls.autoHostSni()).isTrue();
    assertThat(tls.alpnProtocols()).containsExactly("h2");
    assertThat(tls.protocolVersions()).containsExactly("TLSv1.3");
    assertThat(tls.trustedCa()).contains(pem("server"));
    assertThat(tls.clientCertificate().orElseThrow().certificateChain()).isEqualTo(pem("client"));
    assertThat(tls.clientCertificate().orElseThrow().privateKey().origin()).isEqualTo("inline_string");
    assertThat(tls.subjectAltNames()).containsExactly(
        new SanMatcher(Type.DNS, new Route.StringMatch.Exact("www.example.com", false)),
        new SanMatcher(Type.URI, new Route.StringMatch.Prefix("spiffe://", true)),
        new SanMatcher(Type.IP_ADDRESS, new Route.StringMatch.Suffix(".1", false)),
        new SanMatcher(Type.EMAIL, new Route.StringMatch.Contains("@", false)),
        new SanMatcher(Type.ANY, new Route.StringMatch.Exact("legacy.example.com", false)));
    assertThat(tls.toString()).doesNotContain("PRIVATE");
  }

  @Test
  void defaultsToNoVerificationNoSniAndTheClustersProtocol() throws ConfigException {
    UpstreamTlsConfig tls = tls("");

    assertThat(tls).isEqualTo(new UpstreamTlsConfig("", false, Optional.empty(), List.of(), Optional.empty(),
        List.of("http/1.1"), List.of("TLSv1.2", "TLSv1.3")));
    assertThat(tls("http2_protocol_options", "").alpnProtocols()).containsExactly("h2");
    assertThat(tls("common_tls_context: {alpn_protocols: [\"h2,http/1.1\"]}").alpnProtocols())
        .as("only the cluster's protocol is offered").containsExactly("http/1.1");
    assertThat(tls("common_tls_context: {tls_params: {tls_maximum_protocol_version: TLSv1_2}}").protocolVersions())
        .containsExactly("TLSv1.2");
  }

  @Test
  void translatesTheCommonBootstrapShapeWithTheSystemCaBundle() throws ConfigException {
    java.nio.file.Path bundle = java.nio.file.Path.of("/etc/ssl/certs/ca-certificates.crt");
    org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isReadable(bundle), "no system CA bundle");
    UpstreamTlsConfig tls = tls("""
        sni: www.example.com
        common_tls_context:
          validation_context:
            trusted_ca: {filename: /etc/ssl/certs/ca-certificates.crt}
        """);

    assertThat(tls.trustedCa().orElseThrow().origin()).isEqualTo("filename " + bundle);
    assertThat(UpstreamTlsContexts.client(tls, () -> {}, () -> {}).isClient()).isTrue();
  }

  @Test
  void aClusterWithoutTransportSocketIsCleartext() throws ConfigException {
    assertThat(BootstrapYaml.minimal().translate().clusters().values()).allMatch(c -> c.tls().isEmpty());
  }

  @Test
  void readsTheCaFromAnEnvironmentVariable() throws ConfigException {
    UpstreamTlsContext proto = UpstreamTlsContext.newBuilder()
        .setCommonTlsContext(io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CommonTlsContext.newBuilder()
            .setValidationContext(io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CertificateValidationContext
                .newBuilder().setTrustedCa(io.envoyproxy.envoy.config.core.v3.DataSource.newBuilder()
                    .setEnvironmentVariable("UPSTREAM_CA"))))
        .build();
    DataSources env = new DataSources(Map.of("UPSTREAM_CA", TestPem.text(TestPem.certificate("server"))));

    UpstreamTlsConfig tls = TlsContextTranslator.upstream(proto, UpstreamProtocol.HTTP1, new FieldPath("tls"), env);

    assertThat(tls.trustedCa()).contains(pem("server"));
    assertThat(tls.trustedCa().orElseThrow().origin()).isEqualTo("environment_variable UPSTREAM_CA");
    assertThatThrownBy(() -> TlsContextTranslator.upstream(proto, UpstreamProtocol.HTTP1, new FieldPath("tls"),
        new DataSources(Map.of())))
        .hasMessage("tls.common_tls_context.validation_context.trusted_ca.environment_variable: environment"
            + " variable UPSTREAM_CA is not set or empty");
  }

  @Test
  void rejectsWhatIsNotImplementedWithItsPath() {
    String common = PATH + ".common_tls_context";
    String validation = common + ".validation_context";
    rejects("allow_renegotiation: true", PATH + ".allow_renegotiation: allow_renegotiation is not supported");
    rejects("max_session_keys: 0", PATH + ".max_session_keys: max_session_keys is not supported");
    rejects("auto_sni_san_validation: true",
        PATH + ".auto_sni_san_validation: auto_sni_san_validation is not supported");
    rejects("sni: \"bad name!\"", PATH + ".sni: \"bad name!\" is not a host name: Contains non-LDH ASCII"
        + " characters");
    rejects("common_tls_context: {tls_params: {cipher_suites: [ECDHE-RSA-AES128-GCM-SHA256]}}",
        common + ".tls_params.cipher_suites: cipher_suites is not supported");
    rejects("common_tls_context: {tls_params: {ecdh_curves: [X25519]}}",
        common + ".tls_params.ecdh_curves: ecdh_curves is not supported");
    rejects("common_tls_context: {tls_params: {tls_minimum_protocol_version: TLSv1_1}}",
        common + ".tls_params.tls_minimum_protocol_version: TLSv1_1 is not supported (TLSv1_2, TLSv1_3; the JDK"
            + " disables older versions)");
    rejects("common_tls_context: {tls_params: {tls_minimum_protocol_version: TLSv1_3,"
            + " tls_maximum_protocol_version: TLSv1_2}}",
        common + ".tls_params.tls_maximum_protocol_version: must not be below tls_minimum_protocol_version");
    rejects("common_tls_context: {alpn_protocols: [h2]}",
        common + ".alpn_protocols: must offer http/1.1, the protocol this cluster speaks (the protocol is not"
            + " chosen by ALPN)");
    rejects("common_tls_context: {alpn_protocols: [h3]}", common + ".alpn_protocols[0]: h3 is not supported"
        + " (h2, http/1.1)");
    rejects("common_tls_context: {validation_context: {match_typed_subject_alt_names: [{san_type: DNS,"
            + " matcher: {exact: a}}]}}",
        validation + ".trusted_ca: is required to match subject alt names (Envoy refuses SAN verification"
            + " without a trusted CA)");
    rejects("common_tls_context: {validation_context: {" + CA + ", match_typed_subject_alt_names: [{san_type:"
            + " OTHER_NAME, matcher: {exact: a}}]}}",
        validation + ".match_typed_subject_alt_names[0].san_type: OTHER_NAME is not supported (DNS, URI,"
            + " IP_ADDRESS, EMAIL)");
    rejects("common_tls_context: {validation_context: {" + CA + ", match_typed_subject_alt_names: [{matcher:"
            + " {exact: a}}]}}",
        validation + ".match_typed_subject_alt_names[0].san_type: san_type is required");
    rejects("common_tls_context: {validation_context: {" + CA + ", match_typed_subject_alt_names: [{san_type:"
            + " DNS}]}}",
        validation + ".match_typed_subject_alt_names[0].matcher: matcher is required");
    rejects("common_tls_context: {validation_context: {" + CA + ", match_subject_alt_names: [{safe_regex:"
            + " {regex: \"(\"}}]}}",
        validation + ".match_subject_alt_names[0].safe_regex.regex: invalid regular expression \"(\": Unclosed group"
            + " near index 1");
    rejects("common_tls_context: {validation_context: {" + CA + ", allow_expired_certificate: true}}",
        validation + ".allow_expired_certificate: allow_expired_certificate is not supported");
    rejects("common_tls_context: {validation_context: {trusted_ca: {filename: /nonexistent/ca.pem}}}",
        validation + ".trusted_ca.filename: cannot read /nonexistent/ca.pem: no such file");
    rejects("common_tls_context: {validation_context: {trusted_ca: {inline_string: junk}}}",
        validation + ".trusted_ca: holds no usable PEM certificate (inline_string): No certificate data found");
    rejects("common_tls_context: {validation_context_sds_secret_config: {name: ca}}",
        common + ".validation_context_sds_secret_config: validation_context_sds_secret_config is not supported");
    rejects("common_tls_context: {tls_certificates: [{certificate_chain: {filename: \""
            + TestPem.certificate("client") + "\"}}]}",
        common + ".tls_certificates[0].private_key: private_key is required");
    rejects("common_tls_context: {tls_certificates: [{certificate_chain: {filename: \""
            + TestPem.certificate("client") + "\"}, private_key: {filename: \"" + TestPem.key("server") + "\"}},"
            + " {}]}",
        common + ".tls_certificates[1]: only one client certificate is supported");
  }

  @Test
  void refusesAutoSniFromTheRequestHost() {
    BootstrapYaml.minimal().clusters(cluster("http_protocol_options", "").replace(
            "explicit_http_config: {http_protocol_options: {}}",
            "explicit_http_config: {http_protocol_options: {}}\n"
                + "      upstream_http_protocol_options: {auto_sni: true}"))
        .rejects("static_resources.clusters[0].typed_extension_protocol_options"
            + "[\"envoy.extensions.upstreams.http.v3.HttpProtocolOptions\"].upstream_http_protocol_options:"
            + " upstream_http_protocol_options is not supported");
  }

  @Test
  void rejectsADownstreamContextOnACluster() {
    BootstrapYaml.minimal().clusters(cluster("http_protocol_options", "").replace(
            "tls.v3.UpstreamTlsContext", "tls.v3.DownstreamTlsContext"))
        .rejects(PATH + ": envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext"
            + " (envoy.transport_sockets.tls) cannot be used here: expected an upstream transport socket");
  }
}
