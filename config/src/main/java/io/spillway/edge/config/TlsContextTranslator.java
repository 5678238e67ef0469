package io.spillway.edge.config;

import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CertificateValidationContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CommonTlsContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.SubjectAltNameMatcher;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.TlsParameters;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext;
import io.envoyproxy.envoy.type.matcher.v3.StringMatcher;
import io.spillway.edge.config.ClusterConfig.UpstreamProtocol;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.TlsCertificate;
import io.spillway.edge.config.ListenerConfig.TlsContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
      "tls_certificates", "alpn_protocols", "tls_params", "validation_context");
  private static final SupportedFields DOWNSTREAM_VALIDATION =
      SupportedFields.of(CertificateValidationContext.getDescriptor(), "trusted_ca", "match_typed_subject_alt_names",
          "match_subject_alt_names", "verify_certificate_hash", "verify_certificate_spki");
  private static final SupportedFields DOWNSTREAM_TLS_PARAMS = SupportedFields.of(TlsParameters.getDescriptor(),
      "tls_minimum_protocol_version", "tls_maximum_protocol_version", "cipher_suites");
  /**
   * Envoy's (BoringSSL's) cipher suite names → the JDK's. TLS 1.3 suites are not configurable in
   * Envoy; the JDK's three are always kept so that TLS 1.3 still negotiates.
   */
  private static final java.util.Map<String, String> CIPHERS = java.util.Map.ofEntries(
      java.util.Map.entry("ECDHE-ECDSA-AES128-GCM-SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"),
      java.util.Map.entry("ECDHE-RSA-AES128-GCM-SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"),
      java.util.Map.entry("ECDHE-ECDSA-AES256-GCM-SHA384", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"),
      java.util.Map.entry("ECDHE-RSA-AES256-GCM-SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"),
      java.util.Map.entry("ECDHE-ECDSA-CHACHA20-POLY1305", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"),
      java.util.Map.entry("ECDHE-RSA-CHACHA20-POLY1305", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"),
      java.util.Map.entry("ECDHE-ECDSA-AES128-SHA", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"),
      java.util.Map.entry("ECDHE-RSA-AES128-SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"),
      java.util.Map.entry("ECDHE-ECDSA-AES256-SHA", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA"),
      java.util.Map.entry("ECDHE-RSA-AES256-SHA", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA"),
      java.util.Map.entry("AES128-GCM-SHA256", "TLS_RSA_WITH_AES_128_GCM_SHA256"),
      java.util.Map.entry("AES256-GCM-SHA384", "TLS_RSA_WITH_AES_256_GCM_SHA384"),
      java.util.Map.entry("AES128-SHA", "TLS_RSA_WITH_AES_128_CBC_SHA"),
      java.util.Map.entry("AES256-SHA", "TLS_RSA_WITH_AES_256_CBC_SHA"));
  private static final List<String> TLS13_CIPHERS =
      List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256");
  private static final SupportedFields CERTIFICATE = SupportedFields.of(TlsCertificate.getDescriptor(),
      "certificate_chain", "private_key");

  private static final SupportedFields UPSTREAM = SupportedFields.of(UpstreamTlsContext.getDescriptor(),
      "common_tls_context", "sni", "auto_host_sni");
  private static final SupportedFields UPSTREAM_COMMON = SupportedFields.of(CommonTlsContext.getDescriptor(),
      "tls_certificates", "validation_context", "alpn_protocols", "tls_params");
  private static final SupportedFields VALIDATION = SupportedFields.of(CertificateValidationContext.getDescriptor(),
      "trusted_ca", "match_typed_subject_alt_names", "match_subject_alt_names");
  private static final SupportedFields SAN_MATCHER = SupportedFields.of(SubjectAltNameMatcher.getDescriptor(),
      "san_type", "matcher");
  private static final SupportedFields STRING_MATCHER = SupportedFields.of(StringMatcher.getDescriptor(),
      "exact", "prefix", "suffix", "contains", "safe_regex", "ignore_case");
  private static final SupportedFields TLS_PARAMS = SupportedFields.of(TlsParameters.getDescriptor(),
      "tls_minimum_protocol_version", "tls_maximum_protocol_version");
  /** The versions a client may negotiate, oldest first; the JDK disables TLS 1.0 and 1.1. */
  private static final List<String> VERSIONS = List.of("TLSv1.2", "TLSv1.3");

  private TlsContextTranslator() {}

  /**
   * A cluster's {@code UpstreamTlsContext}. Without {@code validation_context} the server's
   * certificate is not verified, exactly as Envoy; SAN matchers need {@code trusted_ca}, as Envoy
   * requires. ALPN offers the cluster's protocol.
   */
  static UpstreamTlsConfig upstream(UpstreamTlsContext tls, UpstreamProtocol protocol, FieldPath path,
      DataSources sources) throws ConfigException {
    UPSTREAM.check(tls, path);
    FieldPath commonPath = path.field("common_tls_context");
    CommonTlsContext common = tls.getCommonTlsContext();
    UPSTREAM_COMMON.check(common, commonPath);
    if (tls.getSni().length() > 255) {
      throw new ConfigException(path.field("sni"), "must be at most 255 characters");
    }
    if (!tls.getSni().isEmpty()) {
      try {
        new javax.net.ssl.SNIHostName(tls.getSni());
      } catch (IllegalArgumentException e) {
        throw new ConfigException(path.field("sni"), "\"" + tls.getSni() + "\" is not a host name: " + e.getMessage());
      }
    }
    FieldPath certsPath = commonPath.field("tls_certificates");
    if (common.getTlsCertificatesCount() > 1) {
      throw new ConfigException(certsPath.index(1), "only one client certificate is supported");
    }
    Optional<UpstreamTlsConfig.ClientCertificate> client = Optional.empty();
    if (common.getTlsCertificatesCount() == 1) {
      KeyPair pair = keyPair(common.getTlsCertificates(0), certsPath.index(0), sources);
      client = Optional.of(new UpstreamTlsConfig.ClientCertificate(pair.chain(), pair.key()));
    }
    Optional<PemData> trustedCa = Optional.empty();
    List<SanMatcher> sans = List.of();
    if (common.hasValidationContext()) {
      FieldPath validationPath = commonPath.field("validation_context");
      CertificateValidationContext validation = common.getValidationContext();
      VALIDATION.check(validation, validationPath);
      trustedCa = trustedCa(validation, validationPath, sources);
      sans = subjectAltNames(validation, validationPath);
      if (!sans.isEmpty() && trustedCa.isEmpty()) {
        throw new ConfigException(validationPath.field("trusted_ca"), "is required to match subject alt names"
            + " (Envoy refuses SAN verification without a trusted CA)");
      }
    }
    List<String> versions = VERSIONS;
    if (common.hasTlsParams()) {
      versions = versions(common.getTlsParams(), commonPath.field("tls_params"));
    }
    String own = protocol == UpstreamProtocol.HTTP2 ? "h2" : "http/1.1";
    FieldPath alpnPath = commonPath.field("alpn_protocols");
    List<String> offered = alpn(common.getAlpnProtocolsList(), alpnPath);
    if (!offered.isEmpty() && !offered.contains(own)) {
      throw new ConfigException(alpnPath, "must offer " + own + ", the protocol this cluster speaks"
          + " (the protocol is not chosen by ALPN)");
    }
    return new UpstreamTlsConfig(tls.getSni(), tls.getAutoHostSni(), trustedCa, sans, client, List.of(own),
        versions);
  }

  /**
   * {@code match_typed_subject_alt_names} then the legacy {@code match_subject_alt_names} (type
   * ANY), for clusters and listeners alike.
   */
  private static List<SanMatcher> subjectAltNames(CertificateValidationContext validation, FieldPath validationPath)
      throws ConfigException {
    List<SanMatcher> sans = new ArrayList<>();
    for (int i = 0; i < validation.getMatchTypedSubjectAltNamesCount(); i++) {
      FieldPath at = validationPath.field("match_typed_subject_alt_names").index(i);
      SubjectAltNameMatcher m = validation.getMatchTypedSubjectAltNames(i);
      SAN_MATCHER.check(m, at);
      SanMatcher.Type type = switch (m.getSanType()) {
        case DNS -> SanMatcher.Type.DNS;
        case URI -> SanMatcher.Type.URI;
        case IP_ADDRESS -> SanMatcher.Type.IP_ADDRESS;
        case EMAIL -> SanMatcher.Type.EMAIL;
        case SAN_TYPE_UNSPECIFIED -> throw new ConfigException(at.field("san_type"), "san_type is required");
        default -> throw new ConfigException(at.field("san_type"), m.getSanType() + " is not supported"
            + " (DNS, URI, IP_ADDRESS, EMAIL)");
      };
      if (!m.hasMatcher()) {
        throw new ConfigException(at.field("matcher"), "matcher is required");
      }
      sans.add(new SanMatcher(type, sanString(m.getMatcher(), at.field("matcher"))));
    }
    for (int i = 0; i < validation.getMatchSubjectAltNamesCount(); i++) {
      FieldPath at = validationPath.field("match_subject_alt_names").index(i);
      sans.add(new SanMatcher(SanMatcher.Type.ANY, sanString(validation.getMatchSubjectAltNames(i), at)));
    }
    return sans;
  }

  /**
   * {@code verify_certificate_hash}: hex SHA-256 of the DER certificate, with or without colons,
   * any case (as Envoy) → lower-case hex.
   */
  private static List<String> certificateHashes(List<String> values, FieldPath path) throws ConfigException {
    List<String> hashes = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      String hex = values.get(i).replace(":", "").toLowerCase(java.util.Locale.ROOT);
      if (hex.length() != 64 || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
        throw new ConfigException(path.index(i), "\"" + values.get(i) + "\" is not a hex-encoded SHA-256"
            + " (64 hex digits, colons allowed)");
      }
      hashes.add(hex);
    }
    return hashes;
  }

  /** {@code verify_certificate_spki}: base64 SHA-256 of the DER SubjectPublicKeyInfo → lower-case hex. */
  private static List<String> spkiHashes(List<String> values, FieldPath path) throws ConfigException {
    List<String> hashes = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      byte[] digest;
      try {
        digest = java.util.Base64.getDecoder().decode(values.get(i));
      } catch (IllegalArgumentException e) {
        digest = new byte[0];
      }
      if (digest.length != 32) {
        throw new ConfigException(path.index(i), "\"" + values.get(i) + "\" is not a base64-encoded SHA-256");
      }
      hashes.add(java.util.HexFormat.of().formatHex(digest));
    }
    return hashes;
  }

  private static Route.StringMatch sanString(StringMatcher m, FieldPath path) throws ConfigException {
    STRING_MATCHER.check(m, path);
    return MatchTranslator.string(m, path);
  }

  private static List<String> versions(TlsParameters params, FieldPath path) throws ConfigException {
    TLS_PARAMS.check(params, path);
    return versionRange(params, path);
  }

  private static List<String> versionRange(TlsParameters params, FieldPath path) throws ConfigException {
    int min = version(params.getTlsMinimumProtocolVersion(), path.field("tls_minimum_protocol_version"), 0);
    int max = version(params.getTlsMaximumProtocolVersion(), path.field("tls_maximum_protocol_version"),
        VERSIONS.size() - 1);
    if (min > max) {
      throw new ConfigException(path.field("tls_maximum_protocol_version"),
          "must not be below tls_minimum_protocol_version");
    }
    return VERSIONS.subList(min, max + 1);
  }

  private static int version(TlsParameters.TlsProtocol p, FieldPath path, int auto) throws ConfigException {
    return switch (p) {
      case TLS_AUTO -> auto;
      case TLSv1_2 -> 0;
      case TLSv1_3 -> 1;
      default -> throw new ConfigException(path, p + " is not supported (TLSv1_2, TLSv1_3; the JDK disables"
          + " older versions)");
    };
  }

  static TlsContext translate(DownstreamTlsContext tls, FieldPath path) throws ConfigException {
    return translate(tls, path, DataSources.system());
  }

  static TlsContext translate(DownstreamTlsContext tls, FieldPath path, DataSources sources) throws ConfigException {
    DOWNSTREAM.check(tls, path);
    boolean requireClient = tls.hasRequireClientCertificate() && tls.getRequireClientCertificate().getValue();
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
    CertificateValidation validation = CertificateValidation.NONE;
    FieldPath validationPath = commonPath.field("validation_context");
    if (common.hasValidationContext()) {
      validation = downstreamValidation(common.getValidationContext(), validationPath, sources);
    }
    if (requireClient && !validation.verifies()) {
      throw new ConfigException(validationPath.field("trusted_ca"),
          "is required with require_client_certificate: true (a client certificate is verified against it)");
    }
    List<String> versions = TlsContext.DEFAULT_PROTOCOLS;
    List<String> ciphers = List.of();
    if (common.hasTlsParams()) {
      FieldPath paramsPath = commonPath.field("tls_params");
      TlsParameters params = common.getTlsParams();
      DOWNSTREAM_TLS_PARAMS.check(params, paramsPath);
      versions = versionRange(params, paramsPath);
      ciphers = cipherSuites(params.getCipherSuitesList(), paramsPath.field("cipher_suites"), versions);
    }
    return new TlsContext(pair.chain(), pair.key(), alpn(common.getAlpnProtocolsList(), commonPath.field("alpn_protocols")),
        TlsContext.DEFAULT_HANDSHAKE_TIMEOUT, requireClient, validation, versions, ciphers);
  }

  /**
   * A listener's {@code validation_context}: {@code trusted_ca}, the SAN matchers (which need
   * {@code trusted_ca}, as Envoy) and the certificate hashes (which Envoy checks even without one).
   */
  private static CertificateValidation downstreamValidation(CertificateValidationContext validation,
      FieldPath validationPath, DataSources sources) throws ConfigException {
    DOWNSTREAM_VALIDATION.check(validation, validationPath);
    Optional<PemData> trustedCa = trustedCa(validation, validationPath, sources);
    List<SanMatcher> sans = subjectAltNames(validation, validationPath);
    if (!sans.isEmpty() && trustedCa.isEmpty()) {
      throw new ConfigException(validationPath.field("trusted_ca"), "is required to match subject alt names"
          + " (Envoy refuses SAN verification without a trusted CA)");
    }
    return new CertificateValidation(trustedCa, sans,
        certificateHashes(validation.getVerifyCertificateHashList(), validationPath.field("verify_certificate_hash")),
        spkiHashes(validation.getVerifyCertificateSpkiList(), validationPath.field("verify_certificate_spki")));
  }

  /**
   * Envoy's cipher suite names, an entry possibly an equal-preference group ({@code [A|B]}), →
   * the JDK's; the TLS 1.3 suites are added when TLS 1.3 is allowed (Envoy does not configure them).
   */
  static List<String> cipherSuites(List<String> entries, FieldPath path, List<String> versions)
      throws ConfigException {
    if (entries.isEmpty()) {
      return List.of();
    }
    List<String> jdk = new ArrayList<>();
    for (int i = 0; i < entries.size(); i++) {
      String entry = entries.get(i).trim();
      if (entry.startsWith("[") && entry.endsWith("]")) {
        entry = entry.substring(1, entry.length() - 1);
      }
      for (String name : entry.split("\\|")) {
        String mapped = CIPHERS.get(name.trim());
        if (mapped == null) {
          throw new ConfigException(path.index(i), "unknown cipher suite \"" + name.trim() + "\" (supported: "
              + new java.util.TreeSet<>(CIPHERS.keySet()) + ")");
        }
        if (!jdk.contains(mapped)) {
          jdk.add(mapped);
        }
      }
    }
    if (versions.contains("TLSv1.3")) {
      jdk.addAll(TLS13_CIPHERS);
    }
    return jdk;
  }

  /** A certificate chain and its private key, read and checked to be usable together. */
  record KeyPair(PemData chain, PemData key) {}

  /** The validation context's {@code trusted_ca}, read and checked to hold certificates; empty without one. */
  private static Optional<PemData> trustedCa(CertificateValidationContext validation, FieldPath validationPath,
      DataSources sources) throws ConfigException {
    if (!validation.hasTrustedCa()) {
      return Optional.empty();
    }
    PemData ca = sources.read(validation.getTrustedCa(), validationPath.field("trusted_ca"));
    certificates(ca, validationPath.field("trusted_ca"));
    return Optional.of(ca);
  }

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
