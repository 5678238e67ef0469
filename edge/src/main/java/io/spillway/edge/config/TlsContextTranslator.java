package io.spillway.edge.config;

import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CommonTlsContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.TlsCertificate;
import io.spillway.edge.config.ListenerConfig.TlsContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * A listener's {@code DownstreamTlsContext} → {@link TlsContext}: one PEM certificate chain and key
 * (each a {@link DataSources DataSource}: file, inline or environment variable, read and checked
 * when the configuration is loaded), and the ALPN protocols to offer. An ALPN entry may hold several protocols
 * separated by commas ({@code "h2,http/1.1"}), as Envoy accepts.
 */
final class TlsContextTranslator {

  private static final List<String> ALPN_SUPPORTED = List.of("h2", "http/1.1");

  private static final SupportedFields DOWNSTREAM = SupportedFields.of(DownstreamTlsContext.getDescriptor(),
      "common_tls_context", "require_client_certificate");
  private static final SupportedFields COMMON = SupportedFields.of(CommonTlsContext.getDescriptor(),
      "tls_certificates", "alpn_protocols");
  private static final SupportedFields CERTIFICATE = SupportedFields.of(TlsCertificate.getDescriptor(),
      "certificate_chain", "private_key");

  private TlsContextTranslator() {}

  static TlsContext translate(DownstreamTlsContext tls, FieldPath path) throws ConfigException {
    return translate(tls, path, DataSources.system());
  }

  static TlsContext translate(DownstreamTlsContext tls, FieldPath path, DataSources sources) throws ConfigException {
    DOWNSTREAM.check(tls, path);
    if (tls.hasRequireClientCertificate() && tls.getRequireClientCertificate().getValue()) {
      throw new ConfigException(path.field("require_client_certificate"),
          "require_client_certificate: true is not supported");
    }
    FieldPath commonPath = path.field("common_tls_context");
    CommonTlsContext common = tls.getCommonTlsContext();
    COMMON.check(common, commonPath);
    FieldPath certsPath = commonPath.field("tls_certificates");
    if (common.getTlsCertificatesCount() == 0) {
      throw new ConfigException(certsPath, "one certificate is required");
    }
    if (common.getTlsCertificatesCount() > 1) {
      throw new ConfigException(certsPath.index(1), "only one certificate is supported");
    }
    KeyPair pair = keyPair(common.getTlsCertificates(0), certsPath.index(0), sources);
    return new TlsContext(pair.chain(), pair.key(), alpn(common.getAlpnProtocolsList(), commonPath.field("alpn_protocols")));
  }

  /** A certificate chain and its private key, read and checked to be usable together. */
  record KeyPair(PemData chain, PemData key) {}

  static KeyPair keyPair(TlsCertificate cert, FieldPath certPath, DataSources sources) throws ConfigException {
    CERTIFICATE.check(cert, certPath);
    FieldPath chainPath = certPath.field("certificate_chain");
    PemData chain = sources.read(cert.hasCertificateChain(), cert.getCertificateChain(), chainPath);
    PemData key = sources.read(cert.hasPrivateKey(), cert.getPrivateKey(), certPath.field("private_key"));
    certificates(chain, chainPath);
    try {
      SslContextBuilder.forServer(chain.open(), key.open()).build();
    } catch (SSLException | RuntimeException e) {
      // The key's bytes never reach the message, only where they came from.
      throw new ConfigException(certPath, "unusable certificate chain or private key (" + key.origin() + "): "
          + e.getClass().getSimpleName());
    }
    return new KeyPair(chain, key);
  }

  /** Checks that PEM holds at least one X.509 certificate. */
  static void certificates(PemData pem, FieldPath path) throws ConfigException {
    try (java.io.InputStream in = pem.open()) {
      if (CertificateFactory.getInstance("X.509").generateCertificates(in).isEmpty()) {
        throw new ConfigException(path, "holds no PEM certificate (" + pem.origin() + ")");
      }
    } catch (CertificateException | java.io.IOException e) {
      throw new ConfigException(path, "holds no usable PEM certificate (" + pem.origin() + "): " + e.getMessage());
    }
  }

  /** The protocols to offer, each entry split on commas; empty means HTTP/1.1 only (no ALPN). */
  static List<String> alpn(List<String> entries, FieldPath path) throws ConfigException {
    List<String> protocols = new ArrayList<>();
    for (int i = 0; i < entries.size(); i++) {
      for (String part : entries.get(i).split(",")) {
        String protocol = part.trim();
        if (protocol.isEmpty()) {
          continue;
        }
        if (!ALPN_SUPPORTED.contains(protocol)) {
          throw new ConfigException(path.index(i), protocol + " is not supported (h2, http/1.1)");
        }
        if (!protocols.contains(protocol)) {
          protocols.add(protocol);
        }
      }
    }
    return protocols;
  }
}
