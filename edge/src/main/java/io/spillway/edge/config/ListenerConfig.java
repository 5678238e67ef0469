package io.spillway.edge.config;

import java.util.List;
import java.util.Optional;

/**
 * One listener with a single filter chain whose only network filter is the HTTP connection
 * manager.
 *
 * @param name listener name; stats use {@code listener.<address>.*}
 * @param address bind address
 * @param perConnectionBufferLimitBytes soft limit on buffered bytes per connection (Envoy default 1 MiB)
 * @param ignoreGlobalConnLimit counted against, but never refused by, the global connection limit
 * @param tls TLS termination, absent for cleartext
 * @param hcm the HTTP connection manager of the filter chain
 * @param accessLogs the listener's {@code access_log}: one line per connection, when it closes
 */
public record ListenerConfig(
    String name,
    SocketAddress address,
    int perConnectionBufferLimitBytes,
    boolean ignoreGlobalConnLimit,
    Optional<TlsContext> tls,
    HttpConnectionManagerConfig hcm,
    List<AccessLogConfig> accessLogs) {

  public ListenerConfig {
    accessLogs = List.copyOf(accessLogs);
  }

  /** Without access logs. */
  public ListenerConfig(String name, SocketAddress address, int perConnectionBufferLimitBytes,
      boolean ignoreGlobalConnLimit, Optional<TlsContext> tls, HttpConnectionManagerConfig hcm) {
    this(name, address, perConnectionBufferLimitBytes, ignoreGlobalConnLimit, tls, hcm, List.of());
  }

  /**
   * A DownstreamTlsContext reduced to what is supported: one PEM certificate chain and key (read
   * when the configuration was loaded; {@link PemData#toString()} never shows them), and
   * the ALPN protocols to offer (each already split on commas, as Envoy accepts).
   *
   * @param handshakeTimeout the filter chain's {@code transport_socket_connect_timeout}: how long
   *     a connection may take to complete its TLS handshake before it is closed; zero = no limit
   */
  public record TlsContext(PemData certificateChain, PemData privateKey, List<String> alpnProtocols,
      java.time.Duration handshakeTimeout) {
    /** When the filter chain sets no {@code transport_socket_connect_timeout} (Envoy has none). */
    public static final java.time.Duration DEFAULT_HANDSHAKE_TIMEOUT = java.time.Duration.ofSeconds(10);

    public TlsContext {
      alpnProtocols = List.copyOf(alpnProtocols);
      java.util.Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
    }

    /** With the default handshake timeout. */
    public TlsContext(PemData certificateChain, PemData privateKey, List<String> alpnProtocols) {
      this(certificateChain, privateKey, alpnProtocols, DEFAULT_HANDSHAKE_TIMEOUT);
    }

    /** The same context with another handshake timeout. */
    public TlsContext withHandshakeTimeout(java.time.Duration timeout) {
      return new TlsContext(certificateChain, privateKey, alpnProtocols, timeout);
    }
  }
}
