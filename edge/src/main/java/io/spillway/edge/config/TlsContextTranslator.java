package io.spillway.edge.config;

import io.envoyproxy.envoy.config.core.v3.DataSource;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CommonTlsContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.TlsCertificate;
import io.spillway.edge.config.ListenerConfig.TlsContext;
import java.util.ArrayList;
import java.util.List;

/**
 * A listener's {@code DownstreamTlsContext} → {@link TlsContext}: one PEM certificate chain and key
 * read from files, and the ALPN protocols to offer. An ALPN entry may hold several protocols
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
    FieldPath certPath = certsPath.index(0);
    TlsCertificate cert = common.getTlsCertificates(0);
    CERTIFICATE.check(cert, certPath);
    String chain = filename(cert.hasCertificateChain(), cert.getCertificateChain(), certPath.field("certificate_chain"));
    String key = filename(cert.hasPrivateKey(), cert.getPrivateKey(), certPath.field("private_key"));
    return new TlsContext(chain, key, alpn(common.getAlpnProtocolsList(), commonPath.field("alpn_protocols")));
  }

  private static String filename(boolean has, DataSource source, FieldPath path) throws ConfigException {
    if (!has) {
      throw new ConfigException(path, path.text().substring(path.text().lastIndexOf('.') + 1) + " is required");
    }
    if (source.getSpecifierCase() == DataSource.SpecifierCase.SPECIFIER_NOT_SET) {
      throw new ConfigException(path.field("filename"), "filename is required");
    }
    if (source.getSpecifierCase() != DataSource.SpecifierCase.FILENAME) {
      String used = source.getSpecifierCase().name().toLowerCase(java.util.Locale.ROOT);
      throw new ConfigException(path, used + " is not supported: give the PEM file as filename");
    }
    if (source.hasWatchedDirectory()) {
      throw new ConfigException(path.field("watched_directory"), "watched_directory is not supported");
    }
    if (source.getFilename().isEmpty()) {
      throw new ConfigException(path.field("filename"), "filename must not be empty");
    }
    return source.getFilename();
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
