package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spillway.edge.config.SanMatcher.Type;
import io.spillway.testkit.TestPem;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A listener's {@code validation_context} beyond {@code trusted_ca}: SAN matchers (typed and
 * legacy), {@code verify_certificate_hash} and {@code verify_certificate_spki}, accepted and
 * refused with their paths.
 */
class DownstreamTlsValidationTranslationTest {

  private static final String AT = "static_resources.listeners[0].filter_chains[0].transport_socket.typed_config";
  private static final String VALIDATION = AT + ".common_tls_context.validation_context";
  private static final String CA = "trusted_ca: {filename: \"" + TestPem.certificate("client") + "\"}";
  private static final String HASH = "DF:6F:F7:2F:E9:11:65:21:26:8F:6F:2D:D4:96:6F:51:DF:47:88:83:88:4A:49:03:7C:4E:A5:41:1F:0F:61:2D";

  private static String bootstrap(String requireClient, String validation) {
    return """
        static_resources:
          listeners:
          - name: l
            address: {socket_address: {address: 127.0.0.1, port_value: 10000}}
            filter_chains:
            - transport_socket:
                name: envoy.transport_sockets.tls
                typed_config:
                  "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext
                  %s
                  common_tls_context:
                    tls_certificates:
                    - certificate_chain: {filename: "%s"}
                      private_key: {filename: "%s"}
                    validation_context: %s
              filters:
              - name: envoy.filters.network.http_connection_manager
                typed_config:
                  "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                  stat_prefix: ingress_http
                  http_filters: [{name: envoy.filters.http.router}]
                  route_config: {virtual_hosts: [{name: a, domains: ["*"], routes: [{match: {prefix: "/"}, route: {cluster: backend}}]}]}
          clusters:
          - name: backend
            connect_timeout: 1s
            load_assignment: {cluster_name: backend, endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 8080}}}}]}]}
        """.formatted(requireClient, TestPem.certificate("server"), TestPem.key("server"), validation);
  }

  private static ListenerConfig.TlsContext tls(String requireClient, String validation) throws ConfigException {
    return ConfigTranslator.translate(BootstrapLoader.parse(bootstrap(requireClient, validation),
        BootstrapLoader.Format.YAML)).listeners().get(0).tls().orElseThrow();
  }

  private static void rejects(String validation, String message) {
    assertThatThrownBy(() -> tls("", validation)).isInstanceOf(ConfigException.class).hasMessage(message);
  }

  @Test
  void translatesTheMtlsDoubleProxyShape() throws ConfigException {
    ListenerConfig.TlsContext ctx = tls("require_client_certificate: true", "{" + CA
        + ", match_typed_subject_alt_names: [{san_type: DNS, matcher: {exact: proxy-postgres-frontend.example.com}}]}");

    assertThat(ctx.requireClientCertificate()).isTrue();
    assertThat(ctx.clientCertificateRequired()).isTrue();
    assertThat(ctx.trustedCa()).isPresent();
    assertThat(ctx.validation().subjectAltNames()).containsExactly(
        new SanMatcher(Type.DNS, new Route.StringMatch.Exact("proxy-postgres-frontend.example.com", false)));
  }

  @Test
  void translatesEverySanTypeMatcherAndTheLegacyForm() throws ConfigException {
    ListenerConfig.TlsContext ctx = tls("", "{" + CA + ", match_typed_subject_alt_names: ["
        + "{san_type: DNS, matcher: {suffix: .example.com}},"
        + "{san_type: URI, matcher: {prefix: \"spiffe://Test/\", ignore_case: true}},"
        + "{san_type: IP_ADDRESS, matcher: {exact: 127.0.0.1}},"
        + "{san_type: EMAIL, matcher: {contains: \"@\"}},"
        + "{san_type: DNS, matcher: {safe_regex: {regex: \"[a-z]+\\\\.test\"}}}],"
        + " match_subject_alt_names: [{exact: legacy.example.com}]}");

    List<SanMatcher> sans = ctx.validation().subjectAltNames();
    assertThat(sans).hasSize(6);
    assertThat(sans.subList(0, 4)).containsExactly(
        new SanMatcher(Type.DNS, new Route.StringMatch.Suffix(".example.com", false)),
        new SanMatcher(Type.URI, new Route.StringMatch.Prefix("spiffe://Test/", true)),
        new SanMatcher(Type.IP_ADDRESS, new Route.StringMatch.Exact("127.0.0.1", false)),
        new SanMatcher(Type.EMAIL, new Route.StringMatch.Contains("@", false)));
    assertThat(sans.get(4).match()).isInstanceOfSatisfying(Route.StringMatch.Regex.class,
        r -> assertThat(r.pattern().pattern()).isEqualTo("[a-z]+\\.test"));
    assertThat(sans.get(5)).isEqualTo(new SanMatcher(Type.ANY, new Route.StringMatch.Exact("legacy.example.com", false)));
    assertThat(ctx.requireClientCertificate()).isFalse();
    assertThat(ctx.clientCertificateRequired()).as("Envoy requires a certificate once SANs are matched").isTrue();
  }

  @Test
  void trustedCaAloneKeepsTheCertificateOptional() throws ConfigException {
    ListenerConfig.TlsContext ctx = tls("", "{" + CA + "}");

    assertThat(ctx.validation()).isEqualTo(CertificateValidation.trustedCa(ctx.trustedCa().orElseThrow()));
    assertThat(ctx.clientCertificateRequired()).isFalse();
  }

  @Test
  void translatesCertificateAndSpkiHashesEvenWithoutATrustedCa() throws ConfigException {
    String spki = "NvqYIYSbgK2vCJpQhObf77vv+bQWtc5ek5RIOwPiC9A=";
    ListenerConfig.TlsContext ctx = tls("require_client_certificate: true", "{verify_certificate_hash: [\"" + HASH
        + "\", " + HASH.replace(":", "").toLowerCase() + "], verify_certificate_spki: [\"" + spki + "\"]}");

    assertThat(ctx.trustedCa()).isEmpty();
    assertThat(ctx.validation().certificateSha256()).containsExactly(
        "df6ff72fe9116521268f6f2dd4966f51df478883884a49037c4ea5411f0f612d",
        "df6ff72fe9116521268f6f2dd4966f51df478883884a49037c4ea5411f0f612d");
    assertThat(ctx.validation().spkiSha256()).containsExactly(
        java.util.HexFormat.of().formatHex(java.util.Base64.getDecoder().decode(spki)));
    assertThat(ctx.clientCertificateRequired()).isTrue();
  }

  @Test
  void refusesWhatItCannotHonourWithThePath() {
    rejects("{match_typed_subject_alt_names: [{san_type: DNS, matcher: {exact: a}}]}",
        VALIDATION + ".trusted_ca: is required to match subject alt names (Envoy refuses SAN verification"
            + " without a trusted CA)");
    rejects("{match_subject_alt_names: [{exact: a}]}",
        VALIDATION + ".trusted_ca: is required to match subject alt names (Envoy refuses SAN verification"
            + " without a trusted CA)");
    rejects("{" + CA + ", match_typed_subject_alt_names: [{san_type: OTHER_NAME, oid: 1.3.6.1.4.1.311.20.2.3,"
            + " matcher: {exact: a}}]}",
        VALIDATION + ".match_typed_subject_alt_names[0].oid: oid is not supported");
    rejects("{" + CA + ", match_typed_subject_alt_names: [{san_type: OTHER_NAME, matcher: {exact: a}}]}",
        VALIDATION + ".match_typed_subject_alt_names[0].san_type: OTHER_NAME is not supported (DNS, URI,"
            + " IP_ADDRESS, EMAIL)");
    rejects("{" + CA + ", match_typed_subject_alt_names: [{matcher: {exact: a}}]}",
        VALIDATION + ".match_typed_subject_alt_names[0].san_type: san_type is required");
    rejects("{" + CA + ", match_typed_subject_alt_names: [{san_type: DNS}]}",
        VALIDATION + ".match_typed_subject_alt_names[0].matcher: matcher is required");
    rejects("{" + CA + ", match_typed_subject_alt_names: [{san_type: DNS, matcher: {prefix: \"\"}}]}",
        VALIDATION + ".match_typed_subject_alt_names[0].matcher.prefix: must not be empty");
    rejects("{" + CA + ", match_subject_alt_names: [{safe_regex: {regex: \"(\"}}]}",
        VALIDATION + ".match_subject_alt_names[0].safe_regex.regex: invalid regular expression \"(\": Unclosed group"
            + " near index 1");
    rejects("{verify_certificate_hash: [abcd]}",
        VALIDATION + ".verify_certificate_hash[0]: \"abcd\" is not a hex-encoded SHA-256 (64 hex digits, colons"
            + " allowed)");
    rejects("{verify_certificate_hash: [\"" + HASH.replace("DF", "ZZ") + "\"]}",
        VALIDATION + ".verify_certificate_hash[0]: \"" + HASH.replace("DF", "ZZ") + "\" is not a hex-encoded"
            + " SHA-256 (64 hex digits, colons allowed)");
    rejects("{verify_certificate_spki: [\"bm90IGEgaGFzaA==\"]}",
        VALIDATION + ".verify_certificate_spki[0]: \"bm90IGEgaGFzaA==\" is not a base64-encoded SHA-256");
    rejects("{" + CA + ", crl: {filename: /tmp/crl.pem}}", VALIDATION + ".crl: crl is not supported");
    rejects("{" + CA + ", trust_chain_verification: ACCEPT_UNTRUSTED}",
        VALIDATION + ".trust_chain_verification: trust_chain_verification is not supported");
  }
}
