package io.spillway.edge.filters.ratelimit;

import io.spillway.edge.config.LocalRateLimitConfig;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.stats.Scope;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The local rate limit filter of one connection manager (Envoy's
 * {@code envoy.filters.http.local_ratelimit}): its own {@link LocalRateLimit} — with no
 * {@code token_bucket} it limits only routes that bring theirs — and one {@link LocalRateLimitFilter}
 * per request. A route's {@code LocalRateLimit} in {@code typed_per_filter_config} replaces this
 * one for the route, with buckets of its own; it is built with the route table by {@link #routeConfig}.
 */
public final class LocalRateLimitFactory implements HttpFilterFactory {
  private final String name;
  private final LocalRateLimit config;
  private final String localCluster;

  /**
   * @param name the chain entry's name, which routes' {@code typed_per_filter_config} refer to
   * @param root the root stats scope ({@code <stat_prefix>.http_local_rate_limit.*} live there)
   * @param nanoClock a monotonic clock in nanoseconds
   * @param localCluster the edge's {@code node.cluster} ({@code source_cluster} descriptors), empty when unset
   */
  public LocalRateLimitFactory(String name, LocalRateLimitConfig config, Scope root, LongSupplier nanoClock,
      Supplier<RuntimeSnapshot> runtime, String localCluster) {
    this.name = name;
    this.localCluster = localCluster;
    this.config = new LocalRateLimit(config, root, nanoClock, runtime);
  }

  /** A route's (or virtual host's) LocalRateLimit as the filter uses it: its own buckets and stats. */
  public static Object routeConfig(LocalRateLimitConfig config, Scope root, LongSupplier nanoClock,
      Supplier<RuntimeSnapshot> runtime) {
    return new LocalRateLimit(config, root, nanoClock, runtime);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void createFilters(FilterChainBuilder chain) {
    chain.addStreamFilter(new LocalRateLimitFilter(this));
  }

  String localCluster() {
    return localCluster;
  }

  /** The most specific configuration for a request on {@code route} (null: none). */
  LocalRateLimit configFor(RouteEntry route) {
    if (route != null && route.filterConfig(name) instanceof LocalRateLimit own) {
      return own;
    }
    return config;
  }
}
