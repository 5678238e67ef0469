package io.spillway.edge.router;

import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.RetryPolicy;
import io.spillway.edge.config.Route;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * A route ready for the hot path: its action plus everything inherited from the virtual host and
 * the route configuration, merged once when the table is compiled.
 *
 * @param route the configured route
 * @param virtualHostName for stats and access logs
 * @param requestHeaders route, then virtual host, then route-configuration mutations (Envoy's order)
 * @param responseHeaders same order, for the response
 * @param retryPolicy the route's policy, else the virtual host's
 * @param cumulativeWeights for weighted clusters: running sums of the weights (empty otherwise)
 * @param filterConfigs the route's {@code typed_per_filter_config} as its filters use it (see
 *     {@link RouteFilterCompiler}), by filter name
 */
public record RouteEntry(
    Route route,
    String virtualHostName,
    List<HeaderMutations> requestHeaders,
    List<HeaderMutations> responseHeaders,
    RetryPolicy retryPolicy,
    int[] cumulativeWeights,
    java.util.Map<String, Object> filterConfigs) {

  public RouteEntry {
    filterConfigs = java.util.Map.copyOf(filterConfigs);
  }

  /**
   * The route's configuration of the filter of that name, compiled, or null when the route (and its
   * virtual host) leave that filter as the connection manager configured it.
   */
  public Object filterConfig(String filterName) {
    return filterConfigs.isEmpty() ? null : filterConfigs.get(filterName);
  }

  /** The route's forwarding action, or null for direct responses and redirects. */
  public Route.RouteAction routeAction() {
    return route.action() instanceof Route.RouteAction a ? a : null;
  }

  /** Picks a cluster name of a forwarding route: the only one, or one by weight. */
  public String pickCluster(RandomGenerator random) {
    List<Route.WeightedCluster> clusters = routeAction().clusters();
    if (clusters.size() == 1) {
      return clusters.get(0).name();
    }
    int total = cumulativeWeights[cumulativeWeights.length - 1];
    int r = random.nextInt(total);
    for (int i = 0; i < cumulativeWeights.length; i++) {
      if (r < cumulativeWeights[i]) {
        return clusters.get(i).name();
      }
    }
    return clusters.get(clusters.size() - 1).name();
  }

  /** Whether the route's {@code typed_per_filter_config} turns off the HTTP filter of that name. */
  public boolean filterDisabled(String filterName) {
    return route.disabledFilters().contains(filterName);
  }

  /** The admission tier from route metadata ({@code spillway.admission.tier}), or null. */
  public String metadata(String key) {
    return route.metadata().get(key);
  }
}
