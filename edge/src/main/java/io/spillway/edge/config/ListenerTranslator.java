package io.spillway.edge.config;

import io.envoyproxy.envoy.config.core.v3.TransportSocket;
import io.envoyproxy.envoy.config.listener.v3.Filter;
import io.envoyproxy.envoy.config.listener.v3.FilterChain;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.listener.v3.ListenerFilter;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
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
 * with one filter chain whose only network filter is the HTTP connection manager, optionally behind
 * TLS. Listener filters ({@code tls_inspector}, {@code http_inspector}) are accepted and ignored:
 * they only inspect a connection for filter chain matching, and there is one filter chain.
 */
final class ListenerTranslator {

  private static final SupportedFields LISTENER = SupportedFields.of(Listener.getDescriptor(),
      "name", "address", "filter_chains", "per_connection_buffer_limit_bytes", "metadata",
      "listener_filters", "listener_filters_timeout", "continue_on_listener_filters_timeout", "traffic_direction",
      "access_log", "ignore_global_conn_limit");
  private static final SupportedFields LISTENER_FILTER = SupportedFields.of(ListenerFilter.getDescriptor(),
      "name", "typed_config");
  private static final SupportedFields FILTER_CHAIN = SupportedFields.of(FilterChain.getDescriptor(),
      "filters", "metadata", "transport_socket", "name", "transport_socket_connect_timeout");
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
    for (int i = 0; i < l.getListenerFiltersCount(); i++) {
      FieldPath filterPath = path.field("listener_filters").index(i);
      ListenerFilter filter = l.getListenerFilters(i);
      LISTENER_FILTER.check(filter, filterPath);
      registry.select(filter.getName(), filter.hasTypedConfig(), filter.getTypedConfig(), Category.LISTENER_FILTER,
          filterPath);
    }
    List<AccessLogConfig> accessLogs =
        AccessLogTranslator.translate(l.getAccessLogList(), path.field("access_log"), registry);
    FieldPath chainsPath = path.field("filter_chains");
    if (l.getFilterChainsCount() == 0) {
      throw new ConfigException(chainsPath, "one filter chain is required");
    }
    if (l.getFilterChainsCount() > 1) {
      throw new ConfigException(chainsPath.index(1), "only one filter chain is supported");
    }
    FieldPath chainPath = chainsPath.index(0);
    FilterChain chain = l.getFilterChains(0);
    FILTER_CHAIN.check(chain, chainPath);
    Optional<ListenerConfig.TlsContext> tls = chain.hasTransportSocket()
        ? Optional.of(transportSocket(chain.getTransportSocket(), chainPath.field("transport_socket")))
        : Optional.empty();
    if (chain.hasTransportSocketConnectTimeout() && tls.isPresent()) {
      // Cleartext connections have no transport handshake to time (in Envoy either).
      tls = Optional.of(tls.get().withHandshakeTimeout(ProtoValues.duration(true, chain.getTransportSocketConnectTimeout(),
          chainPath.field("transport_socket_connect_timeout"), ListenerConfig.TlsContext.DEFAULT_HANDSHAKE_TIMEOUT)));
    }
    HttpConnectionManagerConfig hcm = httpConnectionManager(chain, chainPath);
    return new ListenerConfig(name, address, bufferLimit, l.getIgnoreGlobalConnLimit(), tls, hcm, accessLogs);
  }

  private HttpConnectionManagerConfig httpConnectionManager(FilterChain chain, FieldPath chainPath)
      throws ConfigException {
    FieldPath filtersPath = chainPath.field("filters");
    if (chain.getFiltersCount() == 0) {
      throw new ConfigException(filtersPath, ExtensionRegistry.HTTP_CONNECTION_MANAGER + " is required");
    }
    if (chain.getFiltersCount() > 1) {
      throw new ConfigException(filtersPath.index(1), "only one network filter, "
          + ExtensionRegistry.HTTP_CONNECTION_MANAGER + ", is supported");
    }
    FieldPath filterPath = filtersPath.index(0);
    Filter filter = chain.getFilters(0);
    FILTER.check(filter, filterPath);
    FieldPath configPath = filterPath.field("typed_config");
    if (!filter.hasTypedConfig()) {
      throw new ConfigException(configPath, "typed_config is required");
    }
    HttpConnectionManager hcm = registry.unpack(filter.getTypedConfig(), HttpConnectionManager.class,
        Category.NETWORK_FILTER, configPath);
    return hcmTranslator.translate(hcm, configPath);
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
