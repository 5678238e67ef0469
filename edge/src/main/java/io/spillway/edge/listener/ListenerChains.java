package io.spillway.edge.listener;

import io.netty.handler.ssl.SslContext;
import io.spillway.edge.config.FilterChainConfig;
import io.spillway.edge.config.ListenerConfig;
import io.spillway.edge.config.TcpProxyConfig;
import io.spillway.edge.tcp.TcpProxyFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A listener's filter chains built for run time: each chain's TLS context and, for a TCP proxy
 * chain, its factory; the compiled selector; the TLS inspector's stats. Built on the control path
 * with the listener's configuration, never changed.
 */
public final class ListenerChains {

  /** One chain: its configuration, its server TLS context (null for cleartext or passthrough), its TCP proxy (null for HTTP). */
  record Chain(FilterChainConfig config, SslContext ssl, TcpProxyFactory tcpProxy) {}

  private final List<Chain> chains;
  private final FilterChainSelector selector;
  private final TlsInspectorStats inspectorStats;

  private ListenerChains(List<Chain> chains, FilterChainSelector selector, TlsInspectorStats inspectorStats) {
    this.chains = chains;
    this.selector = selector;
    this.inspectorStats = inspectorStats;
  }

  /**
   * @param ssl a chain's server TLS context from its {@code transport_socket} (called only for chains that have one)
   * @param tcpProxy a TCP proxy chain's factory
   * @param inspectorScope where the TLS inspector's stats live ({@code tls_inspector.*})
   * @param listenerStats the listener's stats scope, for {@code downstream_pre_cx_timeout}
   */
  public static ListenerChains build(ListenerConfig config, Function<FilterChainConfig, SslContext> ssl,
      Function<TcpProxyConfig, TcpProxyFactory> tcpProxy, io.spillway.edge.stats.Scope inspectorScope,
      io.spillway.edge.stats.Scope listenerStats) {
    List<FilterChainConfig> all = new ArrayList<>(config.filterChains());
    config.defaultFilterChain().ifPresent(all::add);
    List<Chain> chains = new ArrayList<>();
    for (FilterChainConfig c : all) {
      chains.add(new Chain(c, c.tls().isPresent() ? ssl.apply(c) : null,
          c.tcpProxy().map(tcpProxy).orElse(null)));
    }
    TlsInspectorStats stats = config.inspection().tlsInspector()
        ? new TlsInspectorStats(inspectorScope, listenerStats) : null;
    return new ListenerChains(List.copyOf(chains), FilterChainSelector.compile(config), stats);
  }

  /** A listener of HTTP chains only, all with {@code ssl} (null for cleartext). */
  static ListenerChains http(ListenerConfig config, SslContext ssl) {
    if (config.inspection().tlsInspector()) {
      throw new IllegalArgumentException("a listener with the TLS inspector needs its stats: use build");
    }
    return build(config, c -> ssl, c -> {
      throw new IllegalArgumentException("a TCP proxy chain needs a factory: use build");
    }, null, null);
  }

  Chain chain(int index) {
    return chains.get(index);
  }

  FilterChainSelector selector() {
    return selector;
  }

  /** Null when the listener has no TLS inspector. */
  TlsInspectorStats inspectorStats() {
    return inspectorStats;
  }
}
