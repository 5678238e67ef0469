package io.spillway.edge.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A cluster's {@code transport_socket} {@code envoy.transport_sockets.tls} ({@code
 * UpstreamTlsContext}), reduced to what is supported. The material was read when the
 * configuration was loaded; nothing here prints a key.
 *
 * @param sni the server name sent in the handshake ({@code sni}); empty: none is sent, as in Envoy
 * @param autoHostSni {@code auto_host_sni}: send the host's DNS name instead when it has one (the
 *     endpoint address of a STRICT_DNS or LOGICAL_DNS cluster); IP literals send {@code sni}
 * @param trustedCa {@code validation_context.trusted_ca}; empty: the server's certificate is NOT
 *     verified (Envoy's behaviour without a validation context: any certificate is accepted)
 * @param subjectAltNames the server certificate must carry a SAN matching one of these (none: no
 *     SAN check); only with {@code trustedCa}
 * @param clientCertificate the certificate presented when the server asks for one (mTLS), or empty
 * @param alpnProtocols the protocols offered in ALPN: the cluster's own ({@code h2} for an HTTP/2
 *     cluster, {@code http/1.1} otherwise)
 * @param protocolVersions the TLS versions allowed, JDK names ({@code TLSv1.2}, {@code TLSv1.3})
 */
public record UpstreamTlsConfig(
    String sni,
    boolean autoHostSni,
    Optional<PemData> trustedCa,
    List<SanMatcher> subjectAltNames,
    Optional<ClientCertificate> clientCertificate,
    List<String> alpnProtocols,
    List<String> protocolVersions) {

  public UpstreamTlsConfig {
    Objects.requireNonNull(sni, "sni");
    Objects.requireNonNull(trustedCa, "trustedCa");
    Objects.requireNonNull(clientCertificate, "clientCertificate");
    subjectAltNames = List.copyOf(subjectAltNames);
    alpnProtocols = List.copyOf(alpnProtocols);
    protocolVersions = List.copyOf(protocolVersions);
    if (!subjectAltNames.isEmpty() && trustedCa.isEmpty()) {
      throw new IllegalArgumentException("SAN matching needs a trusted CA");
    }
  }

  /** A client certificate chain and its key. */
  public record ClientCertificate(PemData certificateChain, PemData privateKey) {}
}
