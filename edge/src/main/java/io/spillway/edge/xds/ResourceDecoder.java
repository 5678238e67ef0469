package io.spillway.edge.xds;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Filter;
import io.envoyproxy.envoy.config.listener.v3.FilterChain;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.service.discovery.v3.Resource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Unpacks the {@link Any}s of a discovery response into their proto classes, names them, and reads
 * from accepted clusters and listeners which endpoints and route configurations to subscribe to.
 */
final class ResourceDecoder {

  /** The name of an overload policy sent bare (not wrapped in a {@link Resource}) in State of the World. */
  static final String DEFAULT_POLICY_NAME = "default";

  private static final String RESOURCE_WRAPPER_URL = "type.googleapis.com/" + Resource.getDescriptor().getFullName();
  private static final String HCM_URL = "type.googleapis.com/" + HttpConnectionManager.getDescriptor().getFullName();

  /** A resource that could not be decoded; the message becomes the NACK's error_detail. */
  static final class DecodeException extends Exception {
    DecodeException(String message) {
      super(message);
    }
  }

  /** One decoded resource. */
  record Decoded(String name, Message message, Any any) {}

  private ResourceDecoder() {}

  /**
   * Decodes one State-of-the-World resource: a bare resource of {@code type} or one wrapped in an
   * {@code envoy.service.discovery.v3.Resource}. A problem names the resource by its type and name
   * when the name can be read ({@code listener "ingress" (resources[2]) cannot be decoded ...}),
   * otherwise by its position ({@code listener at resources[2] ...}).
   *
   * @param index its position in the response, for the error message
   */
  static Decoded decodeSotw(XdsResourceType type, Any any, int index) throws DecodeException {
    String at = "resources[" + index + "]";
    String name = "";
    Any body = any;
    if (any.getTypeUrl().equals(RESOURCE_WRAPPER_URL)) {
      try {
        Resource wrapper = any.unpack(Resource.class);
        name = wrapper.getName();
        body = wrapper.getResource();
      } catch (InvalidProtocolBufferException e) {
        throw new DecodeException(type.kind() + " at " + at + " cannot be decoded as "
            + Resource.getDescriptor().getFullName() + ": " + e.getMessage());
      }
    }
    return decode(type, name, body, at);
  }

  /** Decodes one Delta resource; its name is the wrapper's. */
  static Decoded decodeDelta(XdsResourceType type, Resource resource, int index) throws DecodeException {
    String at = "resources[" + index + "]";
    if (resource.getName().isEmpty()) {
      throw new DecodeException(type.kind() + " at " + at + " has no name");
    }
    if (!resource.hasResource()) {
      throw new DecodeException(where(type, resource.getName(), at) + " has no resource body");
    }
    return decode(type, resource.getName(), resource.getResource(), at);
  }

  /** Decodes a resource read back from the last-known-good file. */
  static Message decodeStored(XdsResourceType type, String name, Any any) throws DecodeException {
    return decode(type, name, any, "the last-known-good state").message();
  }

  private static Decoded decode(XdsResourceType type, String name, Any body, String at) throws DecodeException {
    if (!body.getTypeUrl().equals(type.typeUrl())) {
      throw new DecodeException(where(type, name, at) + " is a " + body.getTypeUrl() + " in a " + type.typeUrl()
          + " response");
    }
    Message message;
    try {
      message = body.unpack(messageClass(type));
    } catch (InvalidProtocolBufferException e) {
      // What was read before the problem often holds the name.
      String partialName = name;
      if (partialName.isEmpty() && e.getUnfinishedMessage() instanceof Message partial) {
        String own = ownName(partial);
        partialName = own == null ? "" : own;
      }
      throw new DecodeException(where(type, partialName, at) + " cannot be decoded as " + body.getTypeUrl() + ": "
          + e.getMessage());
    }
    String ownName = ownName(message);
    if (name.isEmpty()) {
      name = ownName != null ? ownName : DEFAULT_POLICY_NAME;
    }
    if (name.isEmpty()) {
      throw new DecodeException(type.kind() + " at " + at + " has no name");
    }
    return new Decoded(name, message, body);
  }

  /** {@code listener "ingress" (resources[2])}, or {@code listener at resources[2]} without a name. */
  private static String where(XdsResourceType type, String name, String at) {
    return name.isEmpty() ? type.kind() + " at " + at : type.kind() + " \"" + name + "\" (" + at + ")";
  }

  static Class<? extends Message> messageClass(XdsResourceType type) {
    return switch (type) {
      case CLUSTER -> Cluster.class;
      case ENDPOINT -> ClusterLoadAssignment.class;
      case LISTENER -> Listener.class;
      case ROUTE -> RouteConfiguration.class;
      case OVERLOAD_POLICY -> io.spillway.policy.v1.OverloadPolicy.class;
      case RUNTIME -> io.envoyproxy.envoy.service.runtime.v3.Runtime.class;
    };
  }

  /** The name a resource gives itself, or null for a type without one (the policy). */
  private static String ownName(Message message) {
    return switch (message) {
      case Cluster c -> c.getName();
      case ClusterLoadAssignment a -> a.getClusterName();
      case Listener l -> l.getName();
      case RouteConfiguration r -> r.getName();
      case io.envoyproxy.envoy.service.runtime.v3.Runtime r -> r.getName();
      default -> null;
    };
  }

  /**
   * Each EDS resource name the EDS clusters ask for ({@code eds_cluster_config.service_name}, else
   * the cluster's name), with the names of the clusters that use it.
   */
  static Map<String, Set<String>> edsClusters(Collection<? extends Message> clusters) {
    Map<String, Set<String>> byService = new LinkedHashMap<>();
    for (Message message : clusters) {
      Cluster cluster = (Cluster) message;
      if (cluster.getType() == Cluster.DiscoveryType.EDS) {
        String service = cluster.getEdsClusterConfig().getServiceName();
        byService.computeIfAbsent(service.isEmpty() ? cluster.getName() : service, k -> new LinkedHashSet<>()).add(cluster.getName());
      }
    }
    return byService;
  }

  /** The {@code rds.route_config_name}s of the HTTP connection managers in the listeners' filter chains. */
  static Set<String> routeNames(Collection<? extends Message> listeners) {
    return routeStatPrefixes(listeners).keySet();
  }

  /**
   * Each {@code rds.route_config_name} of the listeners' HTTP connection managers, with the
   * {@code stat_prefix}es of the managers that name it (for Envoy's {@code http.<prefix>.rds.<name>.*}).
   */
  static Map<String, Set<String>> routeStatPrefixes(Collection<? extends Message> listeners) {
    Map<String, Set<String>> names = new LinkedHashMap<>();
    for (Message message : listeners) {
      Listener listener = (Listener) message;
      List<FilterChain> chains = new ArrayList<>(listener.getFilterChainsList());
      if (listener.hasDefaultFilterChain()) {
        chains.add(listener.getDefaultFilterChain());
      }
      for (FilterChain chain : chains) {
        for (Filter filter : chain.getFiltersList()) {
          if (!filter.hasTypedConfig() || !filter.getTypedConfig().getTypeUrl().equals(HCM_URL)) {
            continue;
          }
          try {
            HttpConnectionManager hcm = filter.getTypedConfig().unpack(HttpConnectionManager.class);
            if (hcm.hasRds() && !hcm.getRds().getRouteConfigName().isEmpty()) {
              Set<String> prefixes = names.computeIfAbsent(hcm.getRds().getRouteConfigName(), k -> new LinkedHashSet<>());
              if (!hcm.getStatPrefix().isEmpty()) {
                prefixes.add(hcm.getStatPrefix());
              }
            }
          } catch (InvalidProtocolBufferException e) {
            // The sink accepted the listener, so this does not happen; nothing to subscribe to if it does.
          }
        }
      }
    }
    return names;
  }
}
