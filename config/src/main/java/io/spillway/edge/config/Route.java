package io.spillway.edge.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One route: a match and what to do with a request that matches it.
 *
 * @param name optional route name ("" when unset)
 * @param match what the request must look like
 * @param action forward, answer directly or redirect
 * @param requestHeaders mutations applied to the upstream request
 * @param responseHeaders mutations applied to the downstream response
 * @param metadata string values of {@code metadata.filter_metadata}, keyed "filter.key"
 *     (e.g. {@code spillway.admission.tier})
 * @param disabledFilters the HTTP filters (by their name in the connection manager) that
 *     {@code typed_per_filter_config} turns off for this route, its own entries overriding its
 *     virtual host's
 * @param filterConfigs the {@code typed_per_filter_config} entries that configure a filter for this
 *     route (by the filter's name in the connection manager): the route's own, else its virtual host's
 * @param rateLimits the {@code rate_limits} of the route and of its virtual host
 * @param cors the older {@code cors} field's policy for a forwarding route: its route action's,
 *     each field it leaves empty taken from its virtual host's; the CORS filter uses it when no
 *     {@code typed_per_filter_config} gives it a policy
 * @param decorator {@code decorator}: the name of the request's downstream span, or empty
 */
public record Route(
    String name,
    Match match,
    Action action,
    HeaderMutations requestHeaders,
    HeaderMutations responseHeaders,
    Map<String, String> metadata,
    java.util.Set<String> disabledFilters,
    Map<String, RouteFilterConfig> filterConfigs,
    RateLimits rateLimits,
    Optional<CorsPolicy> cors,
    Optional<Decorator> decorator) {

  public Route {
    java.util.Objects.requireNonNull(decorator, "decorator");
    metadata = Map.copyOf(metadata);
    disabledFilters = java.util.Set.copyOf(disabledFilters);
    filterConfigs = Map.copyOf(filterConfigs);
    java.util.Objects.requireNonNull(rateLimits, "rateLimits");
    java.util.Objects.requireNonNull(cors, "cors");
  }

  /** A route without a decorator. */
  public Route(String name, Match match, Action action, HeaderMutations requestHeaders, HeaderMutations responseHeaders,
      Map<String, String> metadata, java.util.Set<String> disabledFilters, Map<String, RouteFilterConfig> filterConfigs,
      RateLimits rateLimits, Optional<CorsPolicy> cors) {
    this(name, match, action, requestHeaders, responseHeaders, metadata, disabledFilters, filterConfigs, rateLimits,
        cors, Optional.empty());
  }

  /**
   * A route's {@code decorator}.
   *
   * @param operation the span's name
   * @param propagate whether the name travels: in {@code x-envoy-decorator-operation} on the
   *     response of an ingress span (default true)
   */
  public record Decorator(String operation, boolean propagate) {}

  /** A route without per-route filter configuration, rate limits or CORS policy. */
  public Route(String name, Match match, Action action, HeaderMutations requestHeaders, HeaderMutations responseHeaders,
      Map<String, String> metadata, java.util.Set<String> disabledFilters) {
    this(name, match, action, requestHeaders, responseHeaders, metadata, disabledFilters, Map.of(), RateLimits.NONE,
        Optional.empty());
  }

  /**
   * The descriptor actions a rate limit filter may use for a route.
   *
   * @param route the route action's {@code rate_limits}
   * @param virtualHost its virtual host's {@code rate_limits}
   * @param includeVirtualHost the route's {@code include_vh_rate_limits}
   */
  public record RateLimits(List<RateLimitPolicy> route, List<RateLimitPolicy> virtualHost,
      boolean includeVirtualHost) {
    public static final RateLimits NONE = new RateLimits(List.of(), List.of(), false);

    public RateLimits {
      route = List.copyOf(route);
      virtualHost = List.copyOf(virtualHost);
    }
  }

  /** A route with every HTTP filter on. */
  public Route(String name, Match match, Action action, HeaderMutations requestHeaders, HeaderMutations responseHeaders,
      Map<String, String> metadata) {
    this(name, match, action, requestHeaders, responseHeaders, metadata, java.util.Set.of());
  }

  /**
   * The route match; all given conditions must hold.
   *
   * @param path how the path (without the query) is matched
   * @param caseSensitive for prefix and path matches (Envoy default true)
   * @param headers header conditions
   * @param queryParameters query parameter conditions
   */
  public record Match(
      PathMatch path,
      boolean caseSensitive,
      List<HeaderMatch> headers,
      List<QueryParameterMatch> queryParameters,
      java.util.Optional<RuntimeFraction> runtimeFraction) {
    public Match {
      headers = List.copyOf(headers);
      queryParameters = List.copyOf(queryParameters);
      java.util.Objects.requireNonNull(runtimeFraction, "runtimeFraction");
    }

    /** A match without {@code runtime_fraction}. */
    public Match(PathMatch path, boolean caseSensitive, List<HeaderMatch> headers,
        List<QueryParameterMatch> queryParameters) {
      this(path, caseSensitive, headers, queryParameters, java.util.Optional.empty());
    }
  }

  /** How the request path is matched. */
  public sealed interface PathMatch {
    record Prefix(String prefix) implements PathMatch {}

    record Exact(String path) implements PathMatch {}

    /** RE2 syntax in Envoy; Java's regex engine accepts the subset Envoy users write. Whole-path match. */
    record Regex(Pattern pattern) implements PathMatch {}

    /**
     * {@code connect_matcher}: only CONNECT requests (which have no path); the other path matches
     * never match them, as in Envoy.
     */
    record Connect() implements PathMatch {}
  }

  /**
   * A header condition. {@code name} is lower case ({@code :authority}, {@code :method} work).
   * {@link StringMatch.Present} matches when the header is there; {@code invert} negates.
   */
  public record HeaderMatch(String name, StringMatch match, boolean invert) {}

  /** A query parameter condition; {@link StringMatch.Present} matches when the key is there. */
  public record QueryParameterMatch(String name, StringMatch match) {}

  /** Envoy's StringMatcher plus the "present" form of header and query matchers. */
  public sealed interface StringMatch {
    record Exact(String value, boolean ignoreCase) implements StringMatch {}

    record Prefix(String value, boolean ignoreCase) implements StringMatch {}

    record Suffix(String value, boolean ignoreCase) implements StringMatch {}

    record Contains(String value, boolean ignoreCase) implements StringMatch {}

    record Regex(Pattern pattern) implements StringMatch {}

    record Present(boolean present) implements StringMatch {}
  }

  /** What a matched route does. */
  public sealed interface Action {}

  /**
   * Forward upstream.
   *
   * @param clusters one entry for {@code cluster}, several for {@code weighted_clusters}
   * @param clusterHeader when set, the cluster name is read from this request header
   * @param prefixRewrite replaces the matched prefix (or the whole path for path matches)
   * @param hostRewriteLiteral replaces Host/:authority
   * @param autoHostRewrite rewrite Host/:authority to the chosen upstream host
   * @param timeout whole upstream exchange until the response completes (Envoy default 15 s; 0 = none)
   * @param idleTimeout per-stream idle timeout overriding the connection manager's
   * @param retryPolicy route retry policy (overrides the virtual host's)
   * @param upgradeConfigs {@code upgrade_configs}: upgrade type (lower case) → enabled, overriding
   *     the connection manager's (see {@link HttpConnectionManagerConfig#upgradeAllowed})
   * @param hashPolicies {@code hash_policy}: what of the request RING_HASH and MAGLEV clusters hash, in order
   * @param terminatesConnect the CONNECT entry of {@code upgrade_configs} has a {@code connect_config}:
   *     the edge answers a CONNECT itself and relays its bytes over a TCP connection to the host
   * @param mirrorPolicies {@code request_mirror_policies}: clusters each request is copied to
   */
  public record RouteAction(
      List<WeightedCluster> clusters,
      Optional<String> clusterHeader,
      Optional<String> prefixRewrite,
      Optional<String> hostRewriteLiteral,
      boolean autoHostRewrite,
      Duration timeout,
      Optional<Duration> idleTimeout,
      RetryPolicy retryPolicy,
      Map<String, Boolean> upgradeConfigs,
      List<HashPolicy> hashPolicies,
      boolean terminatesConnect,
      List<MirrorPolicy> mirrorPolicies,
      Optional<MaxStreamDuration> maxStreamDuration) implements Action {
    public RouteAction {
      clusters = List.copyOf(clusters);
      upgradeConfigs = Map.copyOf(upgradeConfigs);
      hashPolicies = List.copyOf(hashPolicies);
      mirrorPolicies = List.copyOf(mirrorPolicies);
      java.util.Objects.requireNonNull(maxStreamDuration, "maxStreamDuration");
    }

    /** A route action without {@code max_stream_duration}. */
    public RouteAction(List<WeightedCluster> clusters, Optional<String> clusterHeader, Optional<String> prefixRewrite,
        Optional<String> hostRewriteLiteral, boolean autoHostRewrite, Duration timeout,
        Optional<Duration> idleTimeout, RetryPolicy retryPolicy, Map<String, Boolean> upgradeConfigs,
        List<HashPolicy> hashPolicies, boolean terminatesConnect, List<MirrorPolicy> mirrorPolicies) {
      this(clusters, clusterHeader, prefixRewrite, hostRewriteLiteral, autoHostRewrite, timeout, idleTimeout,
          retryPolicy, upgradeConfigs, hashPolicies, terminatesConnect, mirrorPolicies, Optional.empty());
    }

    /** A route action that neither terminates CONNECT nor mirrors requests. */
    public RouteAction(List<WeightedCluster> clusters, Optional<String> clusterHeader, Optional<String> prefixRewrite,
        Optional<String> hostRewriteLiteral, boolean autoHostRewrite, Duration timeout,
        Optional<Duration> idleTimeout, RetryPolicy retryPolicy, Map<String, Boolean> upgradeConfigs,
        List<HashPolicy> hashPolicies) {
      this(clusters, clusterHeader, prefixRewrite, hostRewriteLiteral, autoHostRewrite, timeout, idleTimeout,
          retryPolicy, upgradeConfigs, hashPolicies, false, List.of());
    }

    /** A route action without {@code upgrade_configs} or a hash policy. */
    public RouteAction(List<WeightedCluster> clusters, Optional<String> clusterHeader, Optional<String> prefixRewrite,
        Optional<String> hostRewriteLiteral, boolean autoHostRewrite, Duration timeout,
        Optional<Duration> idleTimeout, RetryPolicy retryPolicy) {
      this(clusters, clusterHeader, prefixRewrite, hostRewriteLiteral, autoHostRewrite, timeout, idleTimeout,
          retryPolicy, Map.of(), List.of(), false, List.of());
    }
  }

  /**
   * A route's {@code max_stream_duration} (Envoy's "new timeouts"). Its presence turns the route's
   * {@code timeout} off: the stream instead has a limit counted from its start, which is
   * {@code max_stream_duration} (0 or unset: none; the connection manager sets none), or — when
   * {@code grpc_timeout_header_max} is set and the request carries {@code grpc-timeout} — that
   * header's value, capped by {@code grpc_timeout_header_max} when above 0 and reduced by
   * {@code grpc_timeout_header_offset}.
   */
  public record MaxStreamDuration(Optional<Duration> maxStreamDuration, Optional<Duration> grpcTimeoutHeaderMax,
      Optional<Duration> grpcTimeoutHeaderOffset) {
    /** No limit. */
    public static final long NONE = -1;

    /**
     * The stream's limit in nanoseconds from its start, or {@link #NONE}.
     *
     * @param grpcTimeoutNanos the request's {@code grpc-timeout}, or {@link #NONE} when it has none
     */
    public long limitNanos(long grpcTimeoutNanos) {
      if (grpcTimeoutNanos == NONE || grpcTimeoutHeaderMax.isEmpty()) {
        long max = maxStreamDuration.map(Duration::toNanos).orElse(0L);
        return max > 0 ? max : NONE;
      }
      long limit = grpcTimeoutNanos;
      long cap = grpcTimeoutHeaderMax.get().toNanos();
      if (cap > 0 && limit > cap) {
        limit = cap;
      }
      if (limit != 0 && grpcTimeoutHeaderOffset.isPresent()) {
        long offset = grpcTimeoutHeaderOffset.get().toNanos();
        limit = offset < limit ? limit - offset : 0;
      }
      return limit;
    }
  }

  /**
   * One of a route's {@code request_mirror_policies}: where a copy of each request goes (Envoy's
   * shadowing: fire and forget, its response discarded).
   *
   * @param cluster the mirror cluster, or "" when {@code clusterHeader} names it
   * @param clusterHeader the request header whose first value names the cluster, or ""
   * @param fraction {@code runtime_fraction}: the share of requests mirrored (all when unset)
   * @param appendShadowSuffix whether the copy's {@code :authority} gets {@code -shadow} (Envoy's
   *     default; off with {@code disable_shadow_host_suffix_append})
   */
  public record MirrorPolicy(String cluster, String clusterHeader, RuntimeFraction fraction,
      boolean appendShadowSuffix) {
    public MirrorPolicy {
      java.util.Objects.requireNonNull(cluster, "cluster");
      java.util.Objects.requireNonNull(clusterHeader, "clusterHeader");
      java.util.Objects.requireNonNull(fraction, "fraction");
    }
  }

  /**
   * One entry of a route's {@code hash_policy}. Envoy's combination: each entry that yields a hash
   * folds it in as {@code hash = rotl(hash, 1) ^ next}; a terminal entry that leaves a hash ends
   * the walk. A request no entry yields a hash for has none (the cluster picks at random).
   */
  public sealed interface HashPolicy {
    boolean terminal();

    /** xxHash64 of the header's values, sorted and concatenated; none when the request lacks it. */
    record Header(String name, boolean terminal) implements HashPolicy {}

    /**
     * xxHash64 of the cookie's value (an empty value counts as none). With {@code ttl}, a request
     * without the cookie gets one: its value is xxHash64 of the downstream connection's addresses
     * (hex), the hash is that value's, and the response sets it ({@code Max-Age} in whole seconds
     * unless that is 0, {@code Path} when set, HttpOnly).
     */
    record Cookie(String name, Optional<Duration> ttl, String path, boolean terminal) implements HashPolicy {}

    /** xxHash64 of the downstream peer's IP address. */
    record SourceIp(boolean terminal) implements HashPolicy {}

    /** xxHash64 of the query parameter's first value as sent (not decoded, as in Envoy); none when it is absent. */
    record QueryParameter(String name, boolean terminal) implements HashPolicy {}
  }

  /** A cluster with its weight (1 for a single {@code cluster}). */
  public record WeightedCluster(String name, int weight) {}

  /** Answer locally with a fixed status and optional body. */
  public record DirectResponse(int status, Optional<String> body) implements Action {}

  /**
   * Answer with a redirect.
   *
   * @param responseCode 301, 302, 303, 307 or 308 (Envoy default 301)
   */
  public record Redirect(
      Optional<String> scheme,
      Optional<String> host,
      Optional<Integer> port,
      Optional<String> path,
      Optional<String> prefixRewrite,
      boolean stripQuery,
      int responseCode) implements Action {}
}
