package io.spillway.edge.filters.ratelimit;

import io.spillway.edge.config.GlobalRateLimitConfig;
import io.spillway.edge.guard.PeerGuard;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.FilterContext;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.rls.RateLimitClient;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.upstream.Cluster;
import io.spillway.edge.upstream.ClusterStats;
import java.util.random.RandomGenerator;

/**
 * The global rate limit filter of one connection manager (Envoy's {@code envoy.filters.http.ratelimit}
 * {@code FilterConfig}): the parsed configuration, the rate limit service's client (its channel taken
 * here, on the control side) and the outbound guard of the service's cluster; shared by every worker
 * and immutable. Each request gets a {@link GlobalRateLimitFilter}. A route's or virtual host's
 * {@code RateLimitPerRoute} (in {@code typed_per_filter_config} under the filter's name) picks its
 * descriptors and domain.
 *
 * <p>Stats are Envoy's {@code cluster.<route's cluster>.ratelimit.*} ({@link ClusterStats}).
 */
public final class GlobalRateLimitFactory implements HttpFilterFactory {
  private final GlobalRateLimitConfig config;
  private final FilterContext context;
  private final RateLimitClient client;

  /** Builds the filter's factory and gets the service's channel (control side). */
  public GlobalRateLimitFactory(GlobalRateLimitConfig config, FilterContext context) {
    this.config = config;
    this.context = context;
    this.client = context.rateLimitService().grpc(config.service());
  }

  @Override
  public String name() {
    return config.filterName();
  }

  @Override
  public void createFilters(FilterChainBuilder chain) {
    chain.addStreamFilter(new GlobalRateLimitFilter(this));
  }

  GlobalRateLimitConfig config() {
    return config;
  }

  RateLimitClient client() {
    return client;
  }

  /** {@code filter_enabled} (or {@code ratelimit.http_filter_enabled}) for this request. */
  boolean enabled(RandomGenerator random) {
    return runtime().featureEnabled(config.filterEnabled(), random);
  }

  /** {@code filter_enforced} (or {@code ratelimit.http_filter_enforcing}) for this over-limit decision. */
  boolean enforced(RandomGenerator random) {
    return runtime().featureEnabled(config.filterEnforced(), random);
  }

  private RuntimeSnapshot runtime() {
    return context.runtime() == null ? RuntimeSnapshot.EMPTY : context.runtime().snapshot();
  }

  String localCluster() {
    return context.localCluster();
  }

  /** The outbound guard of the service's cluster, or null when it has none. */
  PeerGuard guard() {
    var guards = context.guards();
    return guards == null ? null : guards.guard(config.service().cluster());
  }

  /** The most specific {@code RateLimitPerRoute} of a route (its own, else its virtual host's), else Envoy's defaults. */
  GlobalRateLimitConfig.PerRoute perRoute(RouteEntry route) {
    return route.filterConfig(config.filterName()) instanceof GlobalRateLimitConfig.PerRoute own
        ? own : GlobalRateLimitConfig.PerRoute.DEFAULT;
  }

  /**
   * The stats of the route's cluster, when it is known before the router picks (one cluster, or the
   * cluster header's) and configured; else null (nothing is counted).
   */
  ClusterStats stats(RouteEntry route, RequestHeaders headers) {
    String name = RequestDescriptors.destinationCluster(route, headers);
    Cluster cluster = name == null || context.clusters() == null ? null : context.clusters().get(name);
    return cluster == null ? null : cluster.stats();
  }
}
