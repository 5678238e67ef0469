package io.spillway.edge.filters.cors;

import io.spillway.edge.config.CorsPolicy;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;

/**
 * The CORS filter of one connection manager (Envoy's {@code envoy.filters.http.cors}): it has no
 * settings of its own, only its name and its stats, {@code http.<stat_prefix>.cors.origin_valid}
 * and {@code origin_invalid}; each request gets a {@link CorsFilter}. The policy comes from the
 * request's route: the {@code CorsPolicy} that the route's or virtual host's
 * {@code typed_per_filter_config} gives this filter, else the older {@code cors} fields of the
 * route action and virtual host (Envoy reads those only when no per-filter policy exists).
 */
public final class CorsFactory implements HttpFilterFactory {
  private final String name;
  final Counter originValid;
  final Counter originInvalid;
  private final java.util.function.Supplier<io.spillway.edge.runtime.RuntimeSnapshot> runtime;

  /**
   * @param name the chain entry's name, which routes' {@code typed_per_filter_config} refer to
   * @param httpScope the connection manager's {@code http.<stat_prefix>.} scope
   * @param runtime the runtime, whose keys may override the policies' {@code filter_enabled} and
   *     {@code shadow_enabled}
   */
  public CorsFactory(String name, Scope httpScope,
      java.util.function.Supplier<io.spillway.edge.runtime.RuntimeSnapshot> runtime) {
    this.name = name;
    this.runtime = runtime;
    Scope cors = httpScope.scope("cors");
    this.originValid = cors.counter("origin_valid");
    this.originInvalid = cors.counter("origin_invalid");
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void createFilters(FilterChainBuilder chain) {
    chain.addStreamFilter(new CorsFilter(this));
  }

  /** The runtime's latest snapshot. */
  io.spillway.edge.runtime.RuntimeSnapshot runtime() {
    return runtime.get();
  }

  /** The policy for a request on a forwarding {@code route}, or null when it has none. */
  CorsPolicy policyFor(RouteEntry route) {
    if (route.filterConfig(name) instanceof CorsPolicy own) {
      return own;
    }
    return route.route().cors().orElse(null);
  }
}
