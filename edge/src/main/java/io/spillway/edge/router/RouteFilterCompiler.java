package io.spillway.edge.router;

import io.spillway.edge.config.RouteFilterConfig;

/**
 * Turns a route's {@code typed_per_filter_config} into what its filter uses on the hot path (Envoy's
 * {@code createRouteSpecificFilterConfig}): built once per route when the table is compiled, so
 * state such as a route's token bucket lives as long as the route table.
 */
@FunctionalInterface
public interface RouteFilterCompiler {

  /** For tables whose routes configure no filter; any such configuration is a programming error. */
  RouteFilterCompiler NONE = (filterName, config) -> {
    throw new IllegalStateException("no compiler for the per-route config of " + filterName + ": " + config);
  };

  /** @param filterName the filter's name in the connection manager (the config's key) */
  Object compile(String filterName, RouteFilterConfig config);
}
