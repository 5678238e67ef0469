package io.spillway.central.resources;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.Router;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.service.runtime.v3.Runtime;
import io.spillway.edge.config.ConfigException;
import io.spillway.edge.config.ExtensionRegistry;
import io.spillway.edge.config.ListenerConfig;
import io.spillway.edge.config.SocketAddress;
import io.spillway.edge.config.XdsResourceTranslator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Checks what one edge would receive with the edge's own {@link XdsResourceTranslator}, so central
 * never sends what the edge would NACK: every resource by the translator's rules (listeners with
 * inline routes, and routes that set {@code validate_clusters}, against the clusters of that same
 * set), then the rules across resources — one listener per address. The first problem wins; its
 * message is the translator's, naming the resource and the field, e.g.
 * {@code cluster "backend".lb_policy: CLUSTER_PROVIDED is not supported}.
 *
 * <p>One exception: a listener with an {@code api_listener} and neither {@code address} nor
 * {@code filter_chains} is an API listener for proxyless gRPC clients (grpc-java's, Go's, C++'s
 * {@code xds:///name} channels ask for the listener named after the target). The edge's
 * translator, which binds sockets, would reject it, so it is checked here by its structure instead:
 * an {@code HttpConnectionManager} with {@code rds} (ADS) or an inline {@code route_config} (checked
 * by the translator's route rules) and the router filter last. It has no address, so it takes no
 * part in the one-listener-per-address rule. Such listeners are meant for edge ids that gRPC clients
 * use; a Spillway edge that received one would NACK it.
 */
final class ResourceValidator {

  private final XdsResourceTranslator translator;

  ResourceValidator(ExtensionRegistry registry) {
    this.translator = new XdsResourceTranslator(registry);
  }

  /**
   * The first problem of a set of resources, checking {@code first} (the one being changed) before
   * the others so its own problem is the one reported.
   *
   * @param set the resources one edge would receive, by type and name
   * @param first the type of the resource changed, or null
   * @param firstName its name, or null
   */
  Optional<String> check(ResourceSet set, ResourceType first, String firstName) {
    Set<String> clusters = set.of(ResourceType.CLUSTERS).keySet();
    if (first != null && set.of(first).containsKey(firstName)) {
      Optional<String> problem = checkOne(first, set.of(first).get(firstName), clusters);
      if (problem.isPresent()) {
        return problem;
      }
    }
    Map<SocketAddress, String> addresses = new HashMap<>();
    for (ResourceType type : ResourceType.values()) {
      for (Map.Entry<String, Message> entry : set.of(type).entrySet()) {
        if (type == ResourceType.LISTENERS && isApiListener((Listener) entry.getValue())) {
          Optional<String> problem = checkApiListener((Listener) entry.getValue(), clusters);
          if (problem.isPresent()) {
            return problem;
          }
        } else if (type == ResourceType.LISTENERS) {
          ListenerConfig listener;
          try {
            listener = translator.listener((Listener) entry.getValue(), clusters);
          } catch (ConfigException e) {
            return Optional.of(e.getMessage());
          } catch (RuntimeException e) {
            return Optional.of(untranslatable(type, entry.getKey(), e));
          }
          String other = addresses.putIfAbsent(listener.address(), entry.getKey());
          if (other != null) {
            String[] pair = ordered(other, entry.getKey(), firstName);
            return Optional.of("listener \"" + pair[1] + "\".address: " + listener.address()
                + " is already the address of listener \"" + pair[0] + "\"");
          }
        } else if (type != first || !entry.getKey().equals(firstName)) {
          Optional<String> problem = checkOne(type, entry.getValue(), clusters);
          if (problem.isPresent()) {
            return problem;
          }
        }
      }
    }
    return Optional.empty();
  }

  /** The listener named in the message is the one being changed, when it is one of the two. */
  private static String[] ordered(String earlier, String later, String changed) {
    return earlier.equals(changed) ? new String[] {later, earlier} : new String[] {earlier, later};
  }

  private Optional<String> checkOne(ResourceType type, Message resource, Set<String> clusters) {
    try {
      switch (type) {
        case CLUSTERS -> translator.cluster((Cluster) resource);
        case ENDPOINTS -> translator.endpoints((ClusterLoadAssignment) resource);
        case LISTENERS -> {
          if (isApiListener((Listener) resource)) {
            return checkApiListener((Listener) resource, clusters);
          }
          translator.listener((Listener) resource, clusters);
        }
        case ROUTES -> translator.routes((RouteConfiguration) resource, clusters);
        case RUNTIMES -> translator.runtimeLayer((Runtime) resource);
      }
      return Optional.empty();
    } catch (ConfigException e) {
      return Optional.of(e.getMessage());
    } catch (RuntimeException e) {
      return Optional.of(untranslatable(type, type.nameOf(resource), e));
    }
  }

  /** An API listener for proxyless gRPC clients: {@code api_listener} and no socket. */
  static boolean isApiListener(Listener listener) {
    return listener.hasApiListener() && !listener.hasAddress() && listener.getFilterChainsCount() == 0;
  }

  private Optional<String> checkApiListener(Listener listener, Set<String> clusters) {
    String path = "listener \"" + listener.getName() + "\".api_listener.api_listener";
    Any any = listener.getApiListener().getApiListener();
    if (!any.is(HttpConnectionManager.class)) {
      return Optional.of(path + ": must be an " + HttpConnectionManager.getDescriptor().getFullName()
          + ", not \"" + any.getTypeUrl() + "\"");
    }
    HttpConnectionManager hcm;
    try {
      hcm = any.unpack(HttpConnectionManager.class);
    } catch (InvalidProtocolBufferException e) {
      return Optional.of(path + ": cannot be read: " + e.getMessage());
    }
    switch (hcm.getRouteSpecifierCase()) {
      case RDS -> {
        if (hcm.getRds().getRouteConfigName().isEmpty()) {
          return Optional.of(path + ".rds.route_config_name: is required");
        }
        if (!hcm.getRds().getConfigSource().hasAds()) {
          return Optional.of(path + ".rds.config_source: must be ads");
        }
      }
      case ROUTE_CONFIG -> {
        try {
          translator.routes(hcm.getRouteConfig(), clusters);
        } catch (ConfigException e) {
          return Optional.of(path + ".route_config: " + e.getMessage());
        } catch (RuntimeException e) {
          return Optional.of(path + ".route_config: cannot be translated: " + e.getMessage());
        }
      }
      default -> {
        return Optional.of(path + ": rds or route_config is required");
      }
    }
    int filters = hcm.getHttpFiltersCount();
    if (filters == 0 || !hcm.getHttpFilters(filters - 1).getTypedConfig().is(Router.class)) {
      return Optional.of(path + ".http_filters: the last filter must be the router ("
          + Router.getDescriptor().getFullName() + ")");
    }
    return Optional.empty();
  }

  private static String untranslatable(ResourceType type, String name, RuntimeException e) {
    return type.jsonName() + " \"" + name + "\": cannot be translated: " + e.getMessage();
  }
}
