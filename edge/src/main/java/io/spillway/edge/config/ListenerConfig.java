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
 */
public record ListenerConfig(
    String name,
    SocketAddress address,
    int perConnectionBufferLimitBytes,
    boolean ignoreGlobalConnLimit,
    Optional<TlsContext> tls,
    HttpConnectionManagerConfig hcm) {

  /**
   * A DownstreamTlsContext reduced to what is supported: one PEM certificate chain and key, and
   * the ALPN protocols to offer (each already split on commas, as Envoy accepts).
   */
  public record TlsContext(String certificateChainPath, String privateKeyPath, List<String> alpnProtocols) {
    public TlsContext {
      alpnProtocols = List.copyOf(alpnProtocols);
    }
  }
}
