package io.spillway.central.xds;

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

  /** Serves no clusters, endpoints, listeners or routes: the edge runs on its bootstrap's. */
  static EdgeResourceSource none() {
    return edgeId -> EdgeResources.EMPTY;
  }
}
