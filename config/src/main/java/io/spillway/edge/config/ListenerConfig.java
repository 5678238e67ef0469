package io.spillway.edge.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One listener: its filter chains (each a match, optional TLS and one network filter: the HTTP
 * connection manager or a TCP proxy), the optional default chain and the listener filters that
 * inspect a connection before a chain is chosen. At most one HTTP connection manager per listener:
 * every HTTP chain uses {@link #hcm}.
 *
 * @param name listener name; stats use {@code listener.<address>.*}
 * @param address bind address
 * @param perConnectionBufferLimitBytes soft limit on buffered bytes per connection (Envoy default 1 MiB)
 * @param ignoreGlobalConnLimit counted against, but never refused by, the global connection limit
 * @param filterChains the chains, in configuration order
 * @param defaultFilterChain the chain for connections no other chain matches
 * @param hcm the HTTP connection manager of the HTTP chains, null when every chain is a TCP proxy
 * @param accessLogs the listener's {@code access_log}: one line per connection, when it closes
 * @param inspection the listener filters that run before a chain is chosen
 */
public record ListenerConfig(
    String name,
    SocketAddress address,
    int perConnectionBufferLimitBytes,
    boolean ignoreGlobalConnLimit,
    List<FilterChainConfig> filterChains,
    Optional<FilterChainConfig> defaultFilterChain,
    HttpConnectionManagerConfig hcm,
    List<AccessLogConfig> accessLogs,
    Inspection inspection) {

  public ListenerConfig {
    filterChains = List.copyOf(filterChains);
    accessLogs = List.copyOf(accessLogs);
    Objects.requireNonNull(defaultFilterChain, "defaultFilterChain");
    Objects.requireNonNull(inspection, "inspection");
    if (filterChains.isEmpty() && defaultFilterChain.isEmpty()) {
      throw new IllegalArgumentException("a listener needs a filter chain");
    }
  }

  /** One filter chain that matches everything, with the HTTP connection manager. */
  public ListenerConfig(String name, SocketAddress address, int perConnectionBufferLimitBytes,
      boolean ignoreGlobalConnLimit, Optional<TlsContext> tls, HttpConnectionManagerConfig hcm,
      List<AccessLogConfig> accessLogs) {
    this(name, address, perConnectionBufferLimitBytes, ignoreGlobalConnLimit,
        List.of(new FilterChainConfig("", FilterChainMatch.ANY, tls, Optional.empty())), Optional.empty(), hcm,
        accessLogs, Inspection.NONE);
  }

  /** Without access logs. */
  public ListenerConfig(String name, SocketAddress address, int perConnectionBufferLimitBytes,
      boolean ignoreGlobalConnLimit, Optional<TlsContext> tls, HttpConnectionManagerConfig hcm) {
    this(name, address, perConnectionBufferLimitBytes, ignoreGlobalConnLimit, tls, hcm, List.of());
  }

  /** The TLS context of the first HTTP chain (what the connection manager reports as "secure"). */
  public Optional<TlsContext> tls() {
    return httpChain().flatMap(FilterChainConfig::tls);
  }

  /** The first HTTP chain, the default chain counted last. */
  public Optional<FilterChainConfig> httpChain() {
    for (FilterChainConfig c : filterChains) {
      if (c.isHttp()) {
        return Optional.of(c);
      }
    }
    return defaultFilterChain.filter(FilterChainConfig::isHttp);
  }

  /** True when the listener has an HTTP connection manager. */
  public boolean hasHttp() {
    return hcm != null;
  }

  /**
   * The listener filters Spillway runs: the TLS inspector, and {@code listener_filters_timeout}
   * with {@code continue_on_listener_filters_timeout}.
   *
   * @param tlsInspector peek at the ClientHello for SNI and ALPN before a chain is chosen
   * @param timeout how long the inspection may wait for the ClientHello; zero = no limit (Envoy default 15 s)
   * @param continueOnTimeout after the timeout, choose a chain without the inspection's results instead of closing
   */
  public record Inspection(boolean tlsInspector, Duration timeout, boolean continueOnTimeout) {
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(15);
    public static final Inspection NONE = new Inspection(false, DEFAULT_TIMEOUT, false);
  }

  /**
   * A DownstreamTlsContext reduced to what is supported: one PEM certificate chain and key (read
   * when the configuration was loaded; {@link PemData#toString()} never shows them), the ALPN
   * protocols to offer (each already split on commas, as Envoy accepts), client certificate
   * validation and the protocol versions and cipher suites allowed.
   *
   * @param handshakeTimeout the filter chain's {@code transport_socket_connect_timeout}: how long
   *     a connection may take to complete its TLS handshake before it is closed; zero = no limit
   * @param requireClientCertificate the handshake fails without a client certificate that {@code validation} accepts
   * @param validation how a client certificate is verified: the CAs, SAN matchers and hashes; with
   *     only CAs and without {@code requireClientCertificate}, a certificate is asked for and verified
   *     if sent; with SAN matchers or hashes one is required (Envoy)
   * @param protocols the TLS versions allowed, JDK names, oldest first
   * @param cipherSuites the cipher suites allowed, JDK names; empty = the JDK's defaults
   */
  public record TlsContext(PemData certificateChain, PemData privateKey, List<String> alpnProtocols,
      Duration handshakeTimeout, boolean requireClientCertificate, CertificateValidation validation,
      List<String> protocols, List<String> cipherSuites) {
    /** When the filter chain sets no {@code transport_socket_connect_timeout} (Envoy has none). */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
    /** The versions a downstream may negotiate by default: Envoy's TLS 1.2 to 1.3. */
    public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.2", "TLSv1.3");

    public TlsContext {
      alpnProtocols = List.copyOf(alpnProtocols);
      protocols = List.copyOf(protocols);
      cipherSuites = List.copyOf(cipherSuites);
      Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
      Objects.requireNonNull(validation, "validation");
      if (requireClientCertificate && !validation.verifies()) {
        throw new IllegalArgumentException("a required client certificate needs a validation context");
      }
    }

    /** {@code validation_context.trusted_ca}. */
    public Optional<PemData> trustedCa() {
      return validation.trustedCa();
    }

    /**
     * Whether the handshake fails without a client certificate: {@code require_client_certificate},
     * or a validation context with SAN matchers or hashes (Envoy then requires one too).
     */
    public boolean clientCertificateRequired() {
      return requireClientCertificate || validation.hasCertificateChecks();
    }

    /** With the default handshake timeout, no client certificate, the default versions and ciphers. */
    public TlsContext(PemData certificateChain, PemData privateKey, List<String> alpnProtocols) {
      this(certificateChain, privateKey, alpnProtocols, DEFAULT_HANDSHAKE_TIMEOUT, false, CertificateValidation.NONE,
          DEFAULT_PROTOCOLS, List.of());
    }

    /** The same context with another handshake timeout. */
    public TlsContext withHandshakeTimeout(Duration timeout) {
      return new TlsContext(certificateChain, privateKey, alpnProtocols, timeout, requireClientCertificate,
          validation, protocols, cipherSuites);
    }
  }
}
