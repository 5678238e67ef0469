package io.spillway.central.xds;

import com.google.protobuf.Message;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The resources of one type for one edge at one version.
 *
 * @param version changes whenever any resource of the set changes (and only then, ideally: an
 *     unchanged version is not pushed again)
 * @param resources by resource name; the name must be the resource's own ({@code Cluster.name},
 *     {@code ClusterLoadAssignment.cluster_name}, {@code Listener.name}, {@code RouteConfiguration.name})
 */
public record TypeResources(String version, Map<String, Message> resources) {

  /** No resources, version {@code "0"}. */
  public static final TypeResources EMPTY = new TypeResources("0", Map.of());

  /** Copies the map, keeping its order. */
  public TypeResources {
    Objects.requireNonNull(version, "version");
    resources = Collections.unmodifiableMap(new LinkedHashMap<>(resources));
  }

  /** A set built from any message type's map. */
  public static TypeResources of(String version, Map<String, ? extends Message> resources) {
    return new TypeResources(version, new LinkedHashMap<>(resources));
  }
}
