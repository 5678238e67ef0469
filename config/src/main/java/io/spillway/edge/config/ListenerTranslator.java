package io.spillway.edge.config;

import io.envoyproxy.envoy.config.core.v3.TransportSocket;
import io.envoyproxy.envoy.config.listener.v3.Filter;
import io.envoyproxy.envoy.config.listener.v3.FilterChain;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.listener.v3.ListenerFilter;
import io.envoyproxy.envoy.extensions.filters.listener.tls_inspector.v3.TlsInspector;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext;
import io.spillway.edge.config.AddressTranslator.HostKind;
import io.spillway.edge.config.ExtensionRegistry.Category;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code static_resources.listeners} → {@link ListenerConfig}s: a TCP listener on an IP address,
 * with filter chains (and a {@code default_filter_chain}) chosen by {@code filter_chain_match},
 * each optionally behind TLS, each with one network filter: the HTTP connection manager (one per
 * listener) or {@code tcp_proxy}. The {@code tls_inspector} listener filter makes SNI and ALPN
 * available to the match; {@code http_inspector} is accepted and does nothing.
 */
final class ListenerTranslator {

  private static final SupportedFields LISTENER = SupportedFields.of(Listener.getDescriptor(),
      "name", "address", "filter_chains", "per_connection_buffer_limit_bytes", "metadata",
      "listener_filters", "listener_filters_timeout", "continue_on_listener_filters_timeout", "traffic_direction",
      "access_log", "ignore_global_conn_limit", "default_filter_chain");
  private static final SupportedFields LISTENER_FILTER = SupportedFields.of(ListenerFilter.getDescriptor(),
      "name", "typed_config");
  private static final SupportedFields FILTER_CHAIN = SupportedFields.of(FilterChain.getDescriptor(),
      "filters", "metadata", "transport_socket", "name", "transport_socket_connect_timeout", "filter_chain_match");
  private static final SupportedFields TLS_INSPECTOR = SupportedFields.of(TlsInspector.getDescriptor(),
      "initial_read_buffer_size");
  private static final SupportedFields FILTER = SupportedFields.of(Filter.getDescriptor(), "name", "typed_config");
  private static final SupportedFields TRANSPORT_SOCKET = SupportedFields.of(TransportSocket.getDescriptor(),
      "name", "typed_config");

  private final ExtensionRegistry registry;
  private final HttpConnectionManagerTranslator hcmTranslator;

  ListenerTranslator(ExtensionRegistry registry, HttpConnectionManagerTranslator hcmTranslator) {
    this.registry = registry;
    this.hcmTranslator = hcmTranslator;
  }

  /** Translates every listener; names and bound addresses must be unique. */
  List<ListenerConfig> translate(List<Listener> listeners, FieldPath path) throws ConfigException {
    List<ListenerConfig> result = new ArrayList<>();
    Map<String, FieldPath> names = new HashMap<>();
    Map<SocketAddress, FieldPath> addresses = new HashMap<>();
    for (int i = 0; i < listeners.size(); i++) {
      FieldPath listenerPath = path.index(i);
      ListenerConfig listener = listener(listeners.get(i), listenerPath);
      FieldPath sameName = names.putIfAbsent(listener.name(), listenerPath);
      if (sameName != null) {
        throw new ConfigException(listenerPath.field("name"), "duplicate listener name \"" + listener.name()
            + "\" (also " + sameName + ")");
      }
      if (listener.address().port() != 0) {
        FieldPath sameAddress = addresses.putIfAbsent(listener.address(), listenerPath);
        if (sameAddress != null) {
          throw new ConfigException(listenerPath.field("address"), "duplicate address " + listener.address()
              + " (also " + sameAddress + ")");
        }
      }
      result.add(listener);
    }
    return result;
  }

  ListenerConfig listener(Listener l, FieldPath path) throws ConfigException {
    LISTENER.check(l, path);
    FieldPath addressPath = path.field("address");
    if (!l.hasAddress()) {
      throw new ConfigException(addressPath, "address is required");
    }
    SocketAddress address = AddressTranslator.translate(l.getAddress(), addressPath, HostKind.IP_LITERAL,
        " (a listener binds to an IP address)", 0);
    // Envoy requires unique names; an unnamed listener is named after its address.
    String name = l.getName().isEmpty() ? address.toString() : l.getName();
    int bufferLimit = ProtoValues.uint32(l.hasPerConnectionBufferLimitBytes(), l.getPerConnectionBufferLimitBytes(),
        path.field("per_connection_buffer_limit_bytes"), 0, ClusterTranslator.DEFAULT_BUFFER_LIMIT);
    boolean tlsInspector = false;
    for (int i = 0; i < l.getListenerFiltersCount(); i++) {
      FieldPath filterPath = path.field("listener_filters").index(i);
      ListenerFilter filter = l.getListenerFilters(i);
      LISTENER_FILTER.check(filter, filterPath);
      ExtensionRegistry.Extension ext = registry.select(filter.getName(), filter.hasTypedConfig(),
          filter.getTypedConfig(), Category.LISTENER_FILTER, filterPath);
      if (ext.name().equals(ExtensionRegistry.TLS_INSPECTOR)) {
        if (filter.hasTypedConfig()) {
          FieldPath configPath = filterPath.field("typed_config");
          TLS_INSPECTOR.check(registry.unpack(filter.getTypedConfig(), TlsInspector.class, Category.LISTENER_FILTER,
              configPath), configPath);
        }
        tlsInspector = true;
      }
      // http_inspector is accepted and does nothing: no chain matches on its result (the
      // application protocols it would set are only read from the TLS inspector's ALPN).
    }
    ListenerConfig.Inspection inspection = new ListenerConfig.Inspection(tlsInspector,
        ProtoValues.duration(l.hasListenerFiltersTimeout(), l.getListenerFiltersTimeout(),
            path.field("listener_filters_timeout"), ListenerConfig.Inspection.DEFAULT_TIMEOUT),
        l.getContinueOnListenerFiltersTimeout());
    List<AccessLogConfig> accessLogs =
        AccessLogTranslator.translate(l.getAccessLogList(), path.field("access_log"), registry);
    FieldPath chainsPath = path.field("filter_chains");
    if (l.getFilterChainsCount() == 0 && !l.hasDefaultFilterChain()) {
      throw new ConfigException(chainsPath, "one filter chain (or default_filter_chain) is required");
    }
    List<FilterChainConfig> chains = new ArrayList<>();
    HttpConnectionManagerConfig[] hcm = {null};
    FieldPath[] hcmPath = {null};
    Map<FilterChainMatch, FieldPath> matches = new HashMap<>();
    // Envoy's HCM config: an OUTBOUND listener's connection manager makes egress spans.
    TracingConfig.OperationName operationName =
        l.getTrafficDirection() == io.envoyproxy.envoy.config.core.v3.TrafficDirection.OUTBOUND
            ? TracingConfig.OperationName.EGRESS : TracingConfig.OperationName.INGRESS;
    for (int i = 0; i < l.getFilterChainsCount(); i++) {
      FieldPath chainPath = chainsPath.index(i);
      FilterChainConfig chain = filterChain(l.getFilterChains(i), chainPath, false, operationName, hcm, hcmPath);
      FieldPath same = matches.putIfAbsent(chain.match(), chainPath);
      if (same != null) {
        // Envoy: "multiple filter chains with the same matching rules are defined".
        throw new ConfigException(chainPath.field("filter_chain_match"),
            "the same matching rules as " + same + " (each filter chain's match must differ)");
      }
      chains.add(chain);
    }
    Optional<FilterChainConfig> defaultChain = l.hasDefaultFilterChain()
        ? Optional.of(filterChain(l.getDefaultFilterChain(), path.field("default_filter_chain"), true, operationName,
            hcm, hcmPath))
        : Optional.empty();
    return new ListenerConfig(name, address, bufferLimit, l.getIgnoreGlobalConnLimit(), chains, defaultChain,
        hcm[0], accessLogs, inspection);
  }

  /**
   * One filter chain. The first HTTP connection manager met becomes the listener's; a second one
   * is refused (one connection manager per listener).
   */
  private FilterChainConfig filterChain(FilterChain chain, FieldPath chainPath, boolean isDefault,
      TracingConfig.OperationName operationName, HttpConnectionManagerConfig[] hcm, FieldPath[] hcmPath)
      throws ConfigException {
    FILTER_CHAIN.check(chain, chainPath);
    FilterChainMatch match = FilterChainMatch.ANY;
    if (chain.hasFilterChainMatch()) {
      if (isDefault) {
        throw new ConfigException(chainPath.field("filter_chain_match"),
            "the default filter chain takes every connection no other chain matches; it has no match");
      }
      match = FilterChainMatchTranslator.translate(chain.getFilterChainMatch(), chainPath.field("filter_chain_match"));
    }
    Optional<ListenerConfig.TlsContext> tls = chain.hasTransportSocket()
        ? Optional.of(transportSocket(chain.getTransportSocket(), chainPath.field("transport_socket")))
        : Optional.empty();
    if (chain.hasTransportSocketConnectTimeout() && tls.isPresent()) {
      // Cleartext connections have no transport handshake to time (in Envoy either).
      tls = Optional.of(tls.get().withHandshakeTimeout(ProtoValues.duration(true, chain.getTransportSocketConnectTimeout(),
          chainPath.field("transport_socket_connect_timeout"), ListenerConfig.TlsContext.DEFAULT_HANDSHAKE_TIMEOUT)));
    }
    FieldPath filtersPath = chainPath.field("filters");
    if (chain.getFiltersCount() == 0) {
      throw new ConfigException(filtersPath, "one network filter (" + ExtensionRegistry.HTTP_CONNECTION_MANAGER
          + " or " + ExtensionRegistry.TCP_PROXY + ") is required");
    }
    if (chain.getFiltersCount() > 1) {
      throw new ConfigException(filtersPath.index(1), "only one network filter, "
          + ExtensionRegistry.HTTP_CONNECTION_MANAGER + " or " + ExtensionRegistry.TCP_PROXY + ", is supported");
    }
    FieldPath filterPath = filtersPath.index(0);
    Filter filter = chain.getFilters(0);
    FILTER.check(filter, filterPath);
    FieldPath configPath = filterPath.field("typed_config");
    if (!filter.hasTypedConfig()) {
      throw new ConfigException(configPath, "typed_config is required");
    }
    // Envoy picks the network filter by its typed_config's type; anything else is read as the
    // HTTP connection manager, whose unpacking names what is wrong.
    if (filter.getTypedConfig().getTypeUrl().endsWith("/" + TcpProxy.getDescriptor().getFullName())) {
      TcpProxy proxy = registry.unpack(filter.getTypedConfig(), TcpProxy.class, Category.NETWORK_FILTER, configPath);
      return new FilterChainConfig(chain.getName(), match, tls, Optional.of(TcpProxyTranslator.translate(proxy, configPath)));
    }
    HttpConnectionManager proto = registry.unpack(filter.getTypedConfig(), HttpConnectionManager.class,
        Category.NETWORK_FILTER, configPath);
    HttpConnectionManagerConfig translated = hcmTranslator.translate(proto, operationName, configPath);
    if (hcm[0] != null && !hcm[0].equals(translated)) {
      throw new ConfigException(configPath, "a listener has one HTTP connection manager: this one differs from "
          + hcmPath[0] + " (several HTTP connection managers per listener are not supported yet)");
    }
    hcm[0] = translated;
    hcmPath[0] = configPath;
    return new FilterChainConfig(chain.getName(), match, tls, Optional.empty());
  }

  private ListenerConfig.TlsContext transportSocket(TransportSocket socket, FieldPath path) throws ConfigException {
    TRANSPORT_SOCKET.check(socket, path);
    FieldPath configPath = path.field("typed_config");
    if (!socket.hasTypedConfig()) {
      throw new ConfigException(configPath, "typed_config is required");
    }
    DownstreamTlsContext tls = registry.unpack(socket.getTypedConfig(), DownstreamTlsContext.class,
        Category.TRANSPORT_SOCKET, configPath);
    return TlsContextTranslator.translate(tls, configPath);
  }
}
