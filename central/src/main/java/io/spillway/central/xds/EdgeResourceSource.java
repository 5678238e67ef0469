package io.spillway.central.xds;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * Where the xDS server takes an edge's clusters, endpoints, listeners and route configurations
 * from. Called whenever the edge's stream opens and after every change published on the
 * {@link ChangeBus} for that edge (or for all); it reads the committed state and must be safe to
 * call from several threads. A source with nothing for an edge answers {@link EdgeResources#EMPTY}.
 */
@FunctionalInterface
public interface EdgeResourceSource {

  /** The resources the edge should have now. */
  EdgeResources resourcesFor(String edgeId);

  /**
   * The resources of several edges (a change that reaches a fleet); a source that can read them
   * together should, instead of one read per edge. Every id is in the answer.
   */
  default Map<String, EdgeResources> resourcesFor(Collection<String> edgeIds) {
    Map<String, EdgeResources> all = new HashMap<>();
    for (String edgeId : edgeIds) {
      all.put(edgeId, resourcesFor(edgeId));
    }
    return all;
  }

  /** Serves no resources of any type: the edge runs on its bootstrap's. */
  static EdgeResourceSource none() {
    return edgeId -> EdgeResources.EMPTY;
  }
}
