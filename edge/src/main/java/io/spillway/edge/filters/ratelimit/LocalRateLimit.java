package io.spillway.edge.filters.ratelimit;

import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.LocalRateLimitConfig;
import io.spillway.edge.config.RuntimeFraction;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.stats.Tag;
import io.spillway.edge.upstream.ConnectionShare;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * One {@code LocalRateLimit} ready for the hot path (Envoy's local rate limit {@code FilterConfig}):
 * the connection manager's, or a route's from {@code typed_per_filter_config}, whose buckets are then
 * the route's alone. Holds the buckets (shared, or made per downstream connection), the stats
 * {@code <stat_prefix>.http_local_rate_limit.*} and the clock. Immutable apart from the buckets.
 */
final class LocalRateLimit {
  final LocalRateLimitConfig config;
  final Counter enabled;
  final Counter enforced;
  final Counter rateLimited;
  final Counter ok;
  private final LongSupplier nanoClock;
  private final Supplier<RuntimeSnapshot> runtime;
  private final LocalRateLimiter shared;
  private final boolean hasDescriptors;

  /**
   * @param root the root stats scope
   * @param nanoClock a monotonic clock in nanoseconds (System::nanoTime in the edge)
   * @param runtime the runtime, whose keys may override {@code filter_enabled} and {@code filter_enforced}
   */
  LocalRateLimit(LocalRateLimitConfig config, Scope root, LongSupplier nanoClock, Supplier<RuntimeSnapshot> runtime) {
    this.config = config;
    this.nanoClock = nanoClock;
    this.runtime = runtime;
    Scope scope = root.valueFirstTaggedScope(config.statPrefix(), "http_local_rate_limit",
        Tag.LOCAL_HTTP_RATELIMIT_PREFIX);
    enabled = scope.counter("enabled");
    enforced = scope.counter("enforced");
    rateLimited = scope.counter("rate_limited");
    ok = scope.counter("ok");
    shared = config.perDownstreamConnection() ? null : new LocalRateLimiter(config, nanoClock.getAsLong());
    hasDescriptors = !config.descriptors().isEmpty();
  }

  long now() {
    return nanoClock.getAsLong();
  }

  /** Whether descriptors are worth building: only when the config has some to match. */
  boolean hasDescriptors() {
    return hasDescriptors;
  }

  /** The buckets this request draws from: the shared ones, or its downstream connection's own. */
  LocalRateLimiter limiter(ConnectionShare connection) {
    if (shared != null) {
      return shared;
    }
    return connection.ownBudget(this, () -> new LocalRateLimiter(config, nanoClock.getAsLong()));
  }

  /** {@code filter_enabled} for this request. */
  boolean isEnabled(RandomGenerator random) {
    return fraction(config.filterEnabled(), random);
  }

  /** {@code filter_enforced} for this request. */
  boolean isEnforced(RandomGenerator random) {
    return fraction(config.filterEnforced(), random);
  }

  private boolean fraction(RuntimeFraction fraction, RandomGenerator random) {
    return runtime.get().featureEnabled(fraction, random);
  }

  /** Adds a header list's values to {@code headers} ({@code append} false replaces). */
  static void add(HeaderMutations mutations, HttpHeaders headers) {
    List<HeaderMutations.HeaderValue> add = mutations.add();
    for (int i = 0; i < add.size(); i++) {
      HeaderMutations.HeaderValue h = add.get(i);
      if (h.append()) {
        headers.add(h.name(), h.value());
      } else {
        headers.set(h.name(), h.value());
      }
    }
  }
}
