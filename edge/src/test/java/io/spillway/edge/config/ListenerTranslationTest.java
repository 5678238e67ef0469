package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ListenerTranslationTest {

  private static final String TLS = """
      transport_socket:
        name: envoy.transport_sockets.tls
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext
          common_tls_context:
            tls_certificates:
            - certificate_chain: {filename: /etc/edge/cert.pem}
              private_key: {filename: /etc/edge/key.pem}
      %s""";

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

    assertThat(listener.tls()).contains(
        new ListenerConfig.TlsContext("/etc/edge/cert.pem", "/etc/edge/key.pem", java.util.List.of()));
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
    BootstrapYaml.minimal().chain(TLS.formatted("      tls_params: {tls_minimum_protocol_version: TLSv1_3}\n"))
        .rejects(tlsPath + ".common_tls_context.tls_params: tls_params is not supported");
    BootstrapYaml.minimal().chain(TLS.formatted("    require_client_certificate: true\n"))
        .rejects(tlsPath + ".require_client_certificate: require_client_certificate: true is not supported");
    BootstrapYaml.minimal().chain(TLS.formatted("").replace("private_key: {filename: /etc/edge/key.pem}",
            "private_key: {}"))
        .rejects(tlsPath + ".common_tls_context.tls_certificates[0].private_key.filename: filename is required");
    BootstrapYaml.minimal().chain(TLS.formatted("").replace("{filename: /etc/edge/key.pem}",
            "{inline_string: secret}"))
        .rejects(tlsPath + ".common_tls_context.tls_certificates[0].private_key: inline_string is not supported:"
            + " give the PEM file as filename");
  }
}
