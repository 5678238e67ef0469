package io.spillway.central.resources;

import com.google.protobuf.Message;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
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
 * {@code cluster "backend".lb_policy: MAGLEV is not supported}.
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
        if (type == ResourceType.LISTENERS) {
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
        case LISTENERS -> translator.listener((Listener) resource, clusters);
        case ROUTES -> translator.routes((RouteConfiguration) resource, clusters);
      }
      return Optional.empty();
    } catch (ConfigException e) {
      return Optional.of(e.getMessage());
    } catch (RuntimeException e) {
      return Optional.of(untranslatable(type, type.nameOf(resource), e));
    }
  }

  private static String untranslatable(ResourceType type, String name, RuntimeException e) {
    return type.jsonName() + " \"" + name + "\": cannot be translated: " + e.getMessage();
  }
}
