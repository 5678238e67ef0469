package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.TestPem;
import org.junit.jupiter.api.Test;

class ListenerTranslationTest {

  private static final String TLS = """
      transport_socket:
        name: envoy.transport_sockets.tls
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext
          common_tls_context:
            tls_certificates:
            - certificate_chain: {filename: "CERT"}
              private_key: {filename: "KEY"}
      %s""".replace("CERT", TestPem.certificate("server").toString())
      .replace("KEY", TestPem.key("server").toString());

  @Test
  void translatesListenerSettings() throws ConfigException {
    ListenerConfig listener = BootstrapYaml.minimal()
        .listener("""
            per_connection_buffer_limit_bytes: 32768
            ignore_global_conn_limit: true
            traffic_direction: INBOUND
            listener_filters:
            - name: envoy.filters.listener.tls_inspector
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.filters.listener.tls_inspector.v3.TlsInspector
            """)
        .translate().listeners().get(0);

    assertThat(listener.perConnectionBufferLimitBytes()).isEqualTo(32768);
    assertThat(listener.ignoreGlobalConnLimit()).isTrue();
  }

  @Test
  void translatesTlsWithoutAlpnAsHttp11Only() throws ConfigException {
    ListenerConfig listener = BootstrapYaml.minimal().chain(TLS.formatted("")).translate().listeners().get(0);

    ListenerConfig.TlsContext tls = listener.tls().orElseThrow();
    assertThat(tls.alpnProtocols()).isEmpty();
    assertThat(tls.certificateChain()).isEqualTo(new PemData("x",
        TestPem.text(TestPem.certificate("server")).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    assertThat(tls.privateKey().toString()).isEqualTo("filename " + TestPem.key("server") + " (241 bytes)")
        .doesNotContain("PRIVATE");
  }

  @Test
  void readsInlineCertificatesAndKeys() throws ConfigException {
    String inline = TLS.formatted("")
        .replace("{filename: \"" + TestPem.certificate("server") + "\"}",
            "{inline_string: " + TestPem.yamlString(TestPem.certificate("server")) + "}")
        .replace("{filename: \"" + TestPem.key("server") + "\"}",
            "{inline_string: " + TestPem.yamlString(TestPem.key("server")) + "}");
    ListenerConfig.TlsContext tls = BootstrapYaml.minimal().chain(inline).translate().listeners().get(0)
        .tls().orElseThrow();

    assertThat(tls.privateKey().origin()).isEqualTo("inline_string");
    assertThat(tls.privateKey().toString()).isEqualTo("inline_string (241 bytes)");
    assertThat(tls).hasToString(tls.toString().replace("PRIVATE", "")); // the key never shows
    assertThat(tls.certificateChain()).isEqualTo(BootstrapYaml.minimal().chain(TLS.formatted("")).translate()
        .listeners().get(0).tls().orElseThrow().certificateChain());
  }

  @Test
  void readsTheTransportSocketConnectTimeoutAsTheHandshakeTimeout() throws ConfigException {
    assertThat(BootstrapYaml.minimal().chain(TLS.formatted("")).translate().listeners().get(0).tls().orElseThrow()
        .handshakeTimeout()).as("unset: the default").isEqualTo(ListenerConfig.TlsContext.DEFAULT_HANDSHAKE_TIMEOUT);
    String chain = TLS.formatted("") + "transport_socket_connect_timeout: 0.25s\n";
    assertThat(BootstrapYaml.minimal().chain(chain).translate().listeners().get(0).tls().orElseThrow()
        .handshakeTimeout()).isEqualTo(java.time.Duration.ofMillis(250));
    String none = TLS.formatted("") + "transport_socket_connect_timeout: 0s\n";
    assertThat(BootstrapYaml.minimal().chain(none).translate().listeners().get(0).tls().orElseThrow()
        .handshakeTimeout()).as("zero: no limit").isZero();
    BootstrapYaml.minimal().chain(TLS.formatted("") + "transport_socket_connect_timeout: -1s\n")
        .rejects("static_resources.listeners[0].filter_chains[0].transport_socket_connect_timeout: must not be negative");
  }

  @Test
  void splitsACommaSeparatedAlpnEntry() throws ConfigException {
    ListenerConfig listener = BootstrapYaml.minimal()
        .chain(TLS.formatted("      alpn_protocols: [\"h2,http/1.1\"]\n"))
        .translate().listeners().get(0);

    assertThat(listener.tls().orElseThrow().alpnProtocols()).containsExactly("h2", "http/1.1");
  }

  @Test
  void acceptsAlpnAsSeparateEntries() throws ConfigException {
    ListenerConfig listener = BootstrapYaml.minimal()
        .chain(TLS.formatted("      alpn_protocols: [h2, \" http/1.1 \", h2]\n"))
        .translate().listeners().get(0);

    assertThat(listener.tls().orElseThrow().alpnProtocols()).containsExactly("h2", "http/1.1");
  }

  @Test
  void rejectsWhatTlsCannotDoYet() {
    String tlsPath = "static_resources.listeners[0].filter_chains[0].transport_socket.typed_config";
    BootstrapYaml.minimal().chain(TLS.formatted("      alpn_protocols: [\"h2,h3\"]\n"))
        .rejects(tlsPath + ".common_tls_context.alpn_protocols[0]: h3 is not supported (h2, http/1.1)");
    BootstrapYaml.minimal().chain(TLS.formatted("      tls_params: {ecdh_curves: [X25519]}\n"))
        .rejects(tlsPath + ".common_tls_context.tls_params.ecdh_curves: ecdh_curves is not supported");
    BootstrapYaml.minimal().chain(TLS.formatted("    require_client_certificate: true\n"))
        .rejects(tlsPath + ".common_tls_context.validation_context.trusted_ca: is required with"
            + " require_client_certificate: true (a client certificate is verified against it)");
    String key = "{filename: \"" + TestPem.key("server") + "\"}";
    String cert = "{filename: \"" + TestPem.certificate("server") + "\"}";
    String certPath = tlsPath + ".common_tls_context.tls_certificates[0]";
    BootstrapYaml.minimal().chain(TLS.formatted("").replace(key, "{}"))
        .rejects(certPath + ".private_key: one of filename, inline_string, inline_bytes or environment_variable"
            + " is required");
    BootstrapYaml.minimal().chain(TLS.formatted("").replace(key, "{inline_string: secret}"))
        .rejects(certPath + ": unusable certificate chain or private key (inline_string): IllegalArgumentException");
    BootstrapYaml.minimal().chain(TLS.formatted("").replace(key, "{filename: /nonexistent/key.pem}"))
        .rejects(certPath + ".private_key.filename: cannot read /nonexistent/key.pem: no such file");
    BootstrapYaml.minimal().chain(TLS.formatted("").replace(key, "{environment_variable: SPILLWAY_NO_SUCH_VAR}"))
        .rejects(certPath + ".private_key.environment_variable: environment variable SPILLWAY_NO_SUCH_VAR is not"
            + " set or empty");
    BootstrapYaml.minimal().chain(TLS.formatted("").replace(cert, "{inline_string: \"not a certificate\"}"))
        .rejects(certPath + ".certificate_chain: holds no usable PEM certificate (inline_string): No certificate data"
            + " found");
    BootstrapYaml.minimal().chain(TLS.formatted("").replace(key, "{filename: /x, watched_directory: {path: /}}"))
        .rejects(certPath + ".private_key.watched_directory: watched_directory is not supported");
  }
}
