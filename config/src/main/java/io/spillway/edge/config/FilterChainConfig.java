package io.spillway.edge.config;

import java.util.Optional;

/**
 * One of a listener's filter chains: which connections it takes, its TLS termination, and its
 * network filter — the listener's HTTP connection manager, or a TCP proxy.
 *
 * @param name the chain's {@code name} (may be empty)
 * @param match which connections the chain takes ({@link FilterChainMatch#ANY} for the default chain)
 * @param tls TLS termination, absent for cleartext or TLS passthrough
 * @param tcpProxy the TCP proxy; absent when the chain's network filter is the HTTP connection manager
 */
public record FilterChainConfig(String name, FilterChainMatch match, Optional<ListenerConfig.TlsContext> tls,
    Optional<TcpProxyConfig> tcpProxy) {

  /** True when the chain's network filter is the listener's HTTP connection manager. */
  public boolean isHttp() {
    return tcpProxy.isEmpty();
  }
}
