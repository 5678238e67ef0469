package io.spillway.central.resources;

import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.service.runtime.v3.Runtime;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What central sends one edge: its own resources plus those of every selector its labels match,
 * an edge-specific resource winning over a selector's of the same type and name (and, between two
 * matching selectors, the one whose canonical text sorts first). Every map is immutable and sorted
 * by name.
 *
 * @param edgeId the edge
 * @param changeCounter the database's resource change counter when this was read: it grows with
 *     every accepted resource change anywhere, so a watcher can poll {@link ResourceStore#changeCounter()}
 *     and re-read only when it moved
 * @param clusters CDS resources by name
 * @param endpoints EDS resources by cluster name
 * @param listeners LDS resources by name
 * @param routes RDS resources by name
 * @param runtimes RTDS resources (runtime layers) by name
 * @param versions per type, an opaque version for xDS {@code version_info}: a digest of that type's
 *     resources, equal exactly when their content is equal (so a restart or another central
 *     replica computes the same version for the same content, and a change of the edge's labels
 *     that changes its set changes the version too)
 */
public record EffectiveResources(
    String edgeId,
    long changeCounter,
    Map<String, Cluster> clusters,
    Map<String, ClusterLoadAssignment> endpoints,
    Map<String, Listener> listeners,
    Map<String, RouteConfiguration> routes,
    Map<String, Runtime> runtimes,
    Map<ResourceType, String> versions) {

  /** Copies the maps. */
  public EffectiveResources {
    clusters = Collections.unmodifiableMap(new TreeMap<>(clusters));
    endpoints = Collections.unmodifiableMap(new TreeMap<>(endpoints));
    listeners = Collections.unmodifiableMap(new TreeMap<>(listeners));
    routes = Collections.unmodifiableMap(new TreeMap<>(routes));
    runtimes = Collections.unmodifiableMap(new TreeMap<>(runtimes));
    versions = Collections.unmodifiableMap(new EnumMap<>(versions));
  }

  /** The version of one type. */
  public String version(ResourceType type) {
    return versions.get(type);
  }
}
