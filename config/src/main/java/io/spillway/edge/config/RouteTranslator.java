package io.spillway.edge.config;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.config.core.v3.DataSource;
import io.envoyproxy.envoy.config.core.v3.Metadata;
import io.envoyproxy.envoy.config.route.v3.DirectResponseAction;
import io.envoyproxy.envoy.config.route.v3.FilterConfig;
import io.envoyproxy.envoy.config.route.v3.RedirectAction;
import io.envoyproxy.envoy.config.route.v3.RouteAction;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.config.route.v3.VirtualHost;
import io.envoyproxy.envoy.config.route.v3.WeightedCluster;
import io.envoyproxy.envoy.extensions.filters.http.compressor.v3.CompressorPerRoute;
import io.envoyproxy.envoy.extensions.filters.http.ext_authz.v3.ExtAuthzPerRoute;
import io.envoyproxy.envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit;
import io.envoyproxy.envoy.extensions.filters.http.ratelimit.v3.RateLimitPerRoute;
import io.envoyproxy.envoy.extensions.filters.http.rbac.v3.RBACPerRoute;
import io.spillway.edge.config.HeaderMutationTranslator.Direction;
import io.spillway.edge.config.Route.PathMatch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * An inline {@code RouteConfiguration} → {@link RouteConfig}: virtual hosts with unique domains,
 * routes with their matches, actions, header mutations and metadata. Every cluster a route names
 * must be one of the static clusters (Envoy's {@code validate_clusters}, on by default for inline
 * route configurations).
 */
final class RouteTranslator {

  /** The CORS filter's per-route message (its simple name is the record it becomes). */
  private static final Class<io.envoyproxy.envoy.extensions.filters.http.cors.v3.CorsPolicy> CORS_POLICY =
      io.envoyproxy.envoy.extensions.filters.http.cors.v3.CorsPolicy.class;
  /** The header-to-metadata filter's message, the same for the filter and for a route. */
  private static final Class<io.envoyproxy.envoy.extensions.filters.http.header_to_metadata.v3.Config> H2M =
      io.envoyproxy.envoy.extensions.filters.http.header_to_metadata.v3.Config.class;
  private static final Duration DEFAULT_ROUTE_TIMEOUT = Duration.ofSeconds(15);
  /** Envoy's default {@code max_direct_response_body_size_bytes}. */
  private static final int MAX_DIRECT_RESPONSE_BODY = 4096;

  private static final SupportedFields ROUTE_CONFIGURATION = SupportedFields.of(RouteConfiguration.getDescriptor(),
      "name", "virtual_hosts", "request_headers_to_add", "request_headers_to_remove", "response_headers_to_add",
      "response_headers_to_remove", "validate_clusters");
  private static final SupportedFields VIRTUAL_HOST = SupportedFields.of(VirtualHost.getDescriptor(),
      "name", "domains", "routes", "request_headers_to_add", "request_headers_to_remove", "response_headers_to_add",
      "response_headers_to_remove", "retry_policy", "typed_per_filter_config", "rate_limits", "cors");
  private static final SupportedFields ROUTE = SupportedFields.of(
      io.envoyproxy.envoy.config.route.v3.Route.getDescriptor(),
      "name", "match", "route", "redirect", "direct_response", "metadata", "request_headers_to_add",
      "request_headers_to_remove", "response_headers_to_add", "response_headers_to_remove", "typed_per_filter_config",
      "decorator");
  private static final SupportedFields EXT_AUTHZ_PER_ROUTE = SupportedFields.of(ExtAuthzPerRoute.getDescriptor(), "disabled");
  private static final SupportedFields FILTER_CONFIG = SupportedFields.of(FilterConfig.getDescriptor(), "disabled");
  private static final SupportedFields ROUTE_ACTION = SupportedFields.of(RouteAction.getDescriptor(),
      "cluster", "cluster_header", "weighted_clusters", "prefix_rewrite", "host_rewrite_literal", "auto_host_rewrite",
      "timeout", "idle_timeout", "retry_policy", "rate_limits", "include_vh_rate_limits", "cors", "upgrade_configs",
      "hash_policy", "request_mirror_policies", "max_stream_duration");
  private static final SupportedFields MAX_STREAM_DURATION = SupportedFields.of(
      RouteAction.MaxStreamDuration.getDescriptor(), "max_stream_duration", "grpc_timeout_header_max",
      "grpc_timeout_header_offset");
  private static final SupportedFields HASH_POLICY = SupportedFields.of(RouteAction.HashPolicy.getDescriptor(),
      "header", "cookie", "connection_properties", "query_parameter", "terminal");
  private static final SupportedFields HASH_HEADER = SupportedFields.of(
      RouteAction.HashPolicy.Header.getDescriptor(), "header_name");
  private static final SupportedFields HASH_COOKIE = SupportedFields.of(
      RouteAction.HashPolicy.Cookie.getDescriptor(), "name", "ttl", "path");
  private static final SupportedFields HASH_CONNECTION = SupportedFields.of(
      RouteAction.HashPolicy.ConnectionProperties.getDescriptor(), "source_ip");
  private static final SupportedFields HASH_QUERY = SupportedFields.of(
      RouteAction.HashPolicy.QueryParameter.getDescriptor(), "name");
  private static final SupportedFields WEIGHTED_CLUSTER = SupportedFields.of(WeightedCluster.getDescriptor(),
      "clusters", "total_weight");
  private static final SupportedFields CLUSTER_WEIGHT = SupportedFields.of(
      WeightedCluster.ClusterWeight.getDescriptor(), "name", "weight");
  private static final SupportedFields REDIRECT = SupportedFields.of(RedirectAction.getDescriptor(),
      "https_redirect", "scheme_redirect", "host_redirect", "port_redirect", "path_redirect", "prefix_rewrite",
      "response_code", "strip_query");
  private static final SupportedFields DIRECT_RESPONSE = SupportedFields.of(DirectResponseAction.getDescriptor(),
      "status", "body");
  private static final SupportedFields BODY = SupportedFields.of(DataSource.getDescriptor(), "inline_string");
  private static final SupportedFields METADATA = SupportedFields.of(Metadata.getDescriptor(), "filter_metadata");

  private final Set<String> clusterNames;
  private final boolean validateClustersByDefault;

  /** @param clusterNames the static clusters routes may name */
  RouteTranslator(Set<String> clusterNames) {
    this(clusterNames, true);
  }

  /**
   * @param clusterNames the clusters known when the routes arrive
   * @param validateClustersByDefault whether an unset {@code validate_clusters} means true: so for
   *     static and listener-inline routes, not for routes delivered by RDS (Envoy's rule)
   */
  RouteTranslator(Set<String> clusterNames, boolean validateClustersByDefault) {
    this.clusterNames = Set.copyOf(clusterNames);
    this.validateClustersByDefault = validateClustersByDefault;
  }

  /** Whether a cluster of that name is known (for filters that name a cluster, such as ext_authz). */
  boolean knowsCluster(String name) {
    return clusterNames.contains(name);
  }

  RouteConfig translate(RouteConfiguration rc, FieldPath path) throws ConfigException {
    ROUTE_CONFIGURATION.check(rc, path);
    boolean validateClusters = rc.hasValidateClusters() ? rc.getValidateClusters().getValue() : validateClustersByDefault;
    Map<String, FieldPath> domains = new HashMap<>();
    List<RouteConfig.VirtualHost> hosts = new ArrayList<>();
    for (int i = 0; i < rc.getVirtualHostsCount(); i++) {
      hosts.add(virtualHost(rc.getVirtualHosts(i), path.field("virtual_hosts").index(i), domains, validateClusters));
    }
    return new RouteConfig(rc.getName(), hosts,
        HeaderMutationTranslator.translate(rc.getRequestHeadersToAddList(), rc.getRequestHeadersToRemoveList(),
            Direction.REQUEST, path, true),
        HeaderMutationTranslator.translate(rc.getResponseHeadersToAddList(), rc.getResponseHeadersToRemoveList(),
            Direction.RESPONSE, path, true));
  }

  @SuppressWarnings("deprecation") // cors: deprecated for typed_per_filter_config, still honoured by Envoy
  private RouteConfig.VirtualHost virtualHost(VirtualHost vh, FieldPath path, Map<String, FieldPath> seenDomains,
      boolean validateClusters) throws ConfigException {
    VIRTUAL_HOST.check(vh, path);
    if (vh.getName().isEmpty()) {
      throw new ConfigException(path.field("name"), "name is required");
    }
    if (vh.getDomainsCount() == 0) {
      throw new ConfigException(path.field("domains"), "at least one domain is required");
    }
    List<String> domains = new ArrayList<>();
    for (int i = 0; i < vh.getDomainsCount(); i++) {
      FieldPath domainPath = path.field("domains").index(i);
      String domain = domain(vh.getDomains(i), domainPath);
      FieldPath first = seenDomains.putIfAbsent(domain, domainPath);
      if (first != null) {
        throw new ConfigException(domainPath, "duplicate domain \"" + domain + "\" (also " + first + ")");
      }
      domains.add(domain);
    }
    RetryPolicy hostRetry = vh.hasRetryPolicy()
        ? RetryPolicyTranslator.translate(vh.getRetryPolicy(), path.field("retry_policy"))
        : RetryPolicy.NONE;
    Map<String, Object> hostFilters = perFilter(vh.getTypedPerFilterConfigMap(), path.field("typed_per_filter_config"));
    List<RateLimitPolicy> hostRateLimits = RateLimitTranslator.policies(vh.getRateLimitsList(),
        path.field("rate_limits"));
    Optional<CorsPolicy> hostCors = vh.hasCors()
        ? Optional.of(CorsPolicyTranslator.translate(vh.getCors(), path.field("cors")))
        : Optional.empty();
    List<Route> routes = new ArrayList<>();
    for (int i = 0; i < vh.getRoutesCount(); i++) {
      routes.add(route(vh.getRoutes(i), path.field("routes").index(i), hostRetry, validateClusters, hostFilters,
          hostRateLimits, hostCors));
    }
    return new RouteConfig.VirtualHost(vh.getName(), domains, routes,
        HeaderMutationTranslator.translate(vh.getRequestHeadersToAddList(), vh.getRequestHeadersToRemoveList(),
            Direction.REQUEST, path, true),
        HeaderMutationTranslator.translate(vh.getResponseHeadersToAddList(), vh.getResponseHeadersToRemoveList(),
            Direction.RESPONSE, path, true),
        hostRetry);
  }

  /**
   * A domain, lower-cased (host matching is case-insensitive): {@code *}, an exact name, a suffix
   * wildcard {@code *.example.com} / {@code *-bar.example.com} or a prefix wildcard
   * {@code example.*}; one {@code *} at most, at either end.
   */
  private static String domain(String raw, FieldPath path) throws ConfigException {
    String domain = raw.trim().toLowerCase(Locale.ROOT);
    if (domain.isEmpty()) {
      throw new ConfigException(path, "a domain must not be empty");
    }
    int star = domain.indexOf('*');
    if (star >= 0 && domain.length() > 1
        && (domain.indexOf('*', star + 1) >= 0 || (star != 0 && star != domain.length() - 1))) {
      throw new ConfigException(path, "\"" + raw + "\" is not a valid domain: a wildcard may only be the whole"
          + " domain or its first or last character");
    }
    for (int i = 0; i < domain.length(); i++) {
      char c = domain.charAt(i);
      if (c <= ' ' || c >= 127 || c == '/' || c == '"') {
        throw new ConfigException(path, "\"" + raw + "\" is not a valid domain");
      }
    }
    return domain;
  }

  /**
   * A {@code typed_per_filter_config}: filter name → {@link Boolean#TRUE} when the entry turns that
   * filter off, {@link Boolean#FALSE} when it leaves it on, or the filter's configuration for the
   * route ({@link RouteFilterConfig}). Supported: {@code ExtAuthzPerRoute} with {@code disabled},
   * Envoy's generic {@code FilterConfig} with {@code disabled} and no {@code config}, a
   * {@code LocalRateLimit} (the route's own limit), a global rate limit filter's
   * {@code RateLimitPerRoute}, a CORS filter's {@code CorsPolicy}, a
   * {@code CompressorPerRoute}, an {@code HTTPFault} (the route's own faults), an
   * {@code RBACPerRoute} (the route's own rules, or none), a header_to_metadata {@code Config} (the
   * route's own rules), a jwt_authn {@code PerRouteConfig} and a {@code LuaPerRoute} (turning the Lua
   * filter off, or the route's script).
   */
  private static Map<String, Object> perFilter(Map<String, Any> configs, FieldPath path) throws ConfigException {
    Map<String, Object> entries = new TreeMap<>();
    for (Map.Entry<String, Any> entry : new TreeMap<>(configs).entrySet()) {
      FieldPath at = path.key(entry.getKey());
      Any any = entry.getValue();
      try {
        if (any.is(ExtAuthzPerRoute.class)) {
          ExtAuthzPerRoute perRoute = any.unpack(ExtAuthzPerRoute.class);
          EXT_AUTHZ_PER_ROUTE.check(perRoute, at);
          entries.put(entry.getKey(), perRoute.getDisabled());
        } else if (any.is(FilterConfig.class)) {
          FilterConfig config = any.unpack(FilterConfig.class);
          FILTER_CONFIG.check(config, at);
          entries.put(entry.getKey(), config.getDisabled());
        } else if (any.is(LocalRateLimit.class)) {
          entries.put(entry.getKey(), RateLimitTranslator.localRateLimit(any.unpack(LocalRateLimit.class), at, true));
        } else if (any.is(RateLimitPerRoute.class)) {
          entries.put(entry.getKey(), RateLimitTranslator.globalPerRoute(any.unpack(RateLimitPerRoute.class), at));
        } else if (any.is(CORS_POLICY)) {
          entries.put(entry.getKey(), CorsPolicyTranslator.translate(any.unpack(CORS_POLICY), at));
        } else if (any.is(CompressorPerRoute.class)) {
          entries.put(entry.getKey(), CompressorTranslator.perRoute(any, at));
        } else if (any.is(io.envoyproxy.envoy.extensions.filters.http.fault.v3.HTTPFault.class)) {
          entries.put(entry.getKey(), FaultTranslator.translate(
              any.unpack(io.envoyproxy.envoy.extensions.filters.http.fault.v3.HTTPFault.class), at));
        } else if (any.is(io.envoyproxy.envoy.extensions.filters.http.lua.v3.LuaPerRoute.class)) {
          entries.put(entry.getKey(), LuaTranslator.perRoute(
              any.unpack(io.envoyproxy.envoy.extensions.filters.http.lua.v3.LuaPerRoute.class), at));
        } else if (any.is(H2M)) {
          entries.put(entry.getKey(), HeaderToMetadataTranslator.translate(any.unpack(H2M), at, true));
        } else if (any.is(io.envoyproxy.envoy.extensions.filters.http.csrf.v3.CsrfPolicy.class)) {
          entries.put(entry.getKey(), CsrfTranslator.translate(
              any.unpack(io.envoyproxy.envoy.extensions.filters.http.csrf.v3.CsrfPolicy.class), at));
        } else if (any.is(RBACPerRoute.class)) {
          entries.put(entry.getKey(), RbacTranslator.perRoute(any.unpack(RBACPerRoute.class), at));
        } else if (any.is(io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig.class)) {
          entries.put(entry.getKey(), JwtAuthnTranslator.perRoute(
              any.unpack(io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig.class), at));
        } else {
          throw new ConfigException(at, "\"" + any.getTypeUrl() + "\" is not supported here: only "
              + ExtAuthzPerRoute.getDescriptor().getFullName() + " or " + FilterConfig.getDescriptor().getFullName()
              + " with disabled, " + LocalRateLimit.getDescriptor().getFullName() + " or "
              + RateLimitPerRoute.getDescriptor().getFullName() + " or "
              + io.envoyproxy.envoy.extensions.filters.http.cors.v3.CorsPolicy.getDescriptor().getFullName() + " or "
              + CompressorPerRoute.getDescriptor().getFullName() + " or "
              + io.envoyproxy.envoy.extensions.filters.http.fault.v3.HTTPFault.getDescriptor().getFullName() + " or "
              + RBACPerRoute.getDescriptor().getFullName() + " or "
              + io.envoyproxy.envoy.extensions.filters.http.lua.v3.LuaPerRoute.getDescriptor().getFullName() + " or "
              + io.envoyproxy.envoy.extensions.filters.http.header_to_metadata.v3.Config.getDescriptor().getFullName()
              + " or "
              + io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig.getDescriptor().getFullName()
              + " or " + io.envoyproxy.envoy.extensions.filters.http.csrf.v3.CsrfPolicy.getDescriptor().getFullName());
        }
      } catch (InvalidProtocolBufferException e) {
        throw new ConfigException(at, "cannot decode " + any.getTypeUrl() + ": " + e.getMessage(), e);
      }
    }
    return entries;
  }

  @SuppressWarnings("deprecation") // include_vh_rate_limits, cors: deprecated, still honoured by Envoy
  private Route route(io.envoyproxy.envoy.config.route.v3.Route r, FieldPath path, RetryPolicy hostRetry,
      boolean validateClusters, Map<String, Object> hostFilters, List<RateLimitPolicy> hostRateLimits,
      Optional<CorsPolicy> hostCors) throws ConfigException {
    ROUTE.check(r, path);
    FieldPath matchPath = path.field("match");
    if (!r.hasMatch()) {
      throw new ConfigException(matchPath, "match is required");
    }
    Route.Match match = MatchTranslator.translate(r.getMatch(), matchPath);
    Route.Action action = switch (r.getActionCase()) {
      case ROUTE -> routeAction(r.getRoute(), path.field("route"), match, hostRetry, validateClusters);
      case REDIRECT -> redirect(r.getRedirect(), path.field("redirect"));
      case DIRECT_RESPONSE -> directResponse(r.getDirectResponse(), path.field("direct_response"));
      default -> throw new ConfigException(path, "one of route, redirect or direct_response is required");
    };
    Map<String, Object> filters = merged(hostFilters,
        perFilter(r.getTypedPerFilterConfigMap(), path.field("typed_per_filter_config")));
    Route.RateLimits rateLimits = Route.RateLimits.NONE;
    Optional<CorsPolicy> cors = Optional.empty();
    if (r.hasRoute()) {
      RouteAction a = r.getRoute();
      rateLimits = new Route.RateLimits(
          RateLimitTranslator.policies(a.getRateLimitsList(), path.field("route").field("rate_limits")),
          hostRateLimits, a.hasIncludeVhRateLimits() && a.getIncludeVhRateLimits().getValue());
      // Envoy reads the route action's policy first, field by field, then the virtual host's.
      cors = a.hasCors()
          ? Optional.of(CorsPolicyTranslator.translate(a.getCors(), path.field("route").field("cors")))
              .map(own -> hostCors.map(own::over).orElse(own))
          : hostCors;
    } else if (!hostRateLimits.isEmpty()) {
      rateLimits = new Route.RateLimits(List.of(), hostRateLimits, false);
    }
    return new Route(r.getName(), match, action,
        HeaderMutationTranslator.translate(r.getRequestHeadersToAddList(), r.getRequestHeadersToRemoveList(),
            Direction.REQUEST, path, true),
        HeaderMutationTranslator.translate(r.getResponseHeadersToAddList(), r.getResponseHeadersToRemoveList(),
            Direction.RESPONSE, path, true),
        r.hasMetadata() ? metadata(r.getMetadata(), path.field("metadata")) : Map.of(),
        disabledFilters(filters), filterConfigs(filters), rateLimits, cors, decorator(r, path));
  }

  /** {@code decorator}: an operation is required (Envoy's validation); {@code propagate} defaults to true. */
  private static Optional<Route.Decorator> decorator(io.envoyproxy.envoy.config.route.v3.Route r, FieldPath path)
      throws ConfigException {
    if (!r.hasDecorator()) {
      return Optional.empty();
    }
    var d = r.getDecorator();
    if (d.getOperation().isEmpty()) {
      throw new ConfigException(path.field("decorator").field("operation"), "operation is required");
    }
    return Optional.of(new Route.Decorator(d.getOperation(), !d.hasPropagate() || d.getPropagate().getValue()));
  }

  /**
   * A route's {@code typed_per_filter_config} entries: its virtual host's, each overridden by the
   * route's own. A CORS policy on both is merged field by field, the route's first, as Envoy's
   * CORS filter reads them.
   */
  private static Map<String, Object> merged(Map<String, Object> host, Map<String, Object> route) {
    Map<String, Object> merged = new TreeMap<>(host);
    route.forEach((name, own) -> merged.merge(name, own, (hostValue, routeValue) ->
        routeValue instanceof CorsPolicy r
            && hostValue instanceof CorsPolicy h ? r.over(h) : routeValue));
    return merged;
  }

  /** The filters the merged entries turn off. */
  private static Set<String> disabledFilters(Map<String, Object> entries) {
    Set<String> off = new java.util.TreeSet<>();
    entries.forEach((name, value) -> {
      if (Boolean.TRUE.equals(value)) {
        off.add(name);
      }
    });
    return off;
  }

  /** The filters the merged entries configure for the route. */
  private static Map<String, RouteFilterConfig> filterConfigs(Map<String, Object> entries) {
    Map<String, RouteFilterConfig> configs = new TreeMap<>();
    entries.forEach((name, value) -> {
      if (value instanceof RouteFilterConfig c) {
        configs.put(name, c);
      }
    });
    return configs;
  }

  private Route.RouteAction routeAction(RouteAction a, FieldPath path, Route.Match match, RetryPolicy hostRetry,
      boolean validateClusters) throws ConfigException {
    ROUTE_ACTION.check(a, path);
    List<Route.WeightedCluster> clusters = new ArrayList<>();
    Optional<String> clusterHeader = Optional.empty();
    switch (a.getClusterSpecifierCase()) {
      case CLUSTER -> clusters.add(new Route.WeightedCluster(
          cluster(a.getCluster(), path.field("cluster"), validateClusters), 1));
      case CLUSTER_HEADER -> clusterHeader = Optional.of(
          HeaderMutationTranslator.headerName(a.getClusterHeader(), path.field("cluster_header")));
      case WEIGHTED_CLUSTERS -> clusters.addAll(
          weightedClusters(a.getWeightedClusters(), path.field("weighted_clusters"), validateClusters));
      default -> throw new ConfigException(path, "one of cluster, cluster_header or weighted_clusters is required");
    }
    Optional<String> prefixRewrite = Optional.empty();
    if (!a.getPrefixRewrite().isEmpty()) {
      if (match.path() instanceof PathMatch.Regex) {
        throw new ConfigException(path.field("prefix_rewrite"), "prefix_rewrite cannot be used with a safe_regex match");
      }
      prefixRewrite = Optional.of(a.getPrefixRewrite());
    }
    Optional<String> hostRewrite = Optional.empty();
    boolean autoHostRewrite = false;
    switch (a.getHostRewriteSpecifierCase()) {
      case HOST_REWRITE_LITERAL -> {
        if (a.getHostRewriteLiteral().isEmpty()) {
          throw new ConfigException(path.field("host_rewrite_literal"), "must not be empty");
        }
        hostRewrite = Optional.of(a.getHostRewriteLiteral());
      }
      case AUTO_HOST_REWRITE -> autoHostRewrite = a.getAutoHostRewrite().getValue();
      default -> { }
    }
    Duration timeout = ProtoValues.duration(a.hasTimeout(), a.getTimeout(), path.field("timeout"),
        DEFAULT_ROUTE_TIMEOUT);
    Optional<Duration> idleTimeout = a.hasIdleTimeout()
        ? Optional.of(ProtoValues.duration(true, a.getIdleTimeout(), path.field("idle_timeout"), Duration.ZERO))
        : Optional.empty();
    // The route's policy replaces the virtual host's, as in Envoy; resolved here, once.
    RetryPolicy retry = a.hasRetryPolicy()
        ? RetryPolicyTranslator.translate(a.getRetryPolicy(), path.field("retry_policy"))
        : hostRetry;
    List<Route.HashPolicy> hashPolicies = new ArrayList<>();
    for (int i = 0; i < a.getHashPolicyCount(); i++) {
      Route.HashPolicy p = hashPolicy(a.getHashPolicy(i), path.field("hash_policy").index(i));
      if (p != null) {
        hashPolicies.add(p);
      }
    }
    return new Route.RouteAction(clusters, clusterHeader, prefixRewrite, hostRewrite, autoHostRewrite, timeout,
        idleTimeout, retry, UpgradeConfigTranslator.route(a.getUpgradeConfigsList(), path.field("upgrade_configs")),
        hashPolicies, UpgradeConfigTranslator.terminatesConnect(a.getUpgradeConfigsList()),
        MirrorPolicyTranslator.translate(a.getRequestMirrorPoliciesList(), path.field("request_mirror_policies"),
            (name, at) -> cluster(name, at, validateClusters)),
        a.hasMaxStreamDuration()
            ? Optional.of(maxStreamDuration(a.getMaxStreamDuration(), path.field("max_stream_duration")))
            : Optional.empty());
  }

  /** {@code max_stream_duration}: three optional non-negative durations. */
  private static Route.MaxStreamDuration maxStreamDuration(RouteAction.MaxStreamDuration m, FieldPath path)
      throws ConfigException {
    MAX_STREAM_DURATION.check(m, path);
    return new Route.MaxStreamDuration(
        optionalDuration(m.hasMaxStreamDuration(), m.getMaxStreamDuration(), path.field("max_stream_duration")),
        optionalDuration(m.hasGrpcTimeoutHeaderMax(), m.getGrpcTimeoutHeaderMax(),
            path.field("grpc_timeout_header_max")),
        optionalDuration(m.hasGrpcTimeoutHeaderOffset(), m.getGrpcTimeoutHeaderOffset(),
            path.field("grpc_timeout_header_offset")));
  }

  private static Optional<Duration> optionalDuration(boolean has, com.google.protobuf.Duration value, FieldPath path)
      throws ConfigException {
    return has ? Optional.of(ProtoValues.duration(true, value, path, Duration.ZERO)) : Optional.empty();
  }

  /** One {@code hash_policy} entry; null for {@code connection_properties} without {@code source_ip} (as Envoy). */
  private static Route.HashPolicy hashPolicy(RouteAction.HashPolicy h, FieldPath path) throws ConfigException {
    HASH_POLICY.check(h, path);
    boolean terminal = h.getTerminal();
    return switch (h.getPolicySpecifierCase()) {
      case HEADER -> {
        FieldPath p = path.field("header");
        if (h.getHeader().hasRegexRewrite()) {
          throw new ConfigException(p.field("regex_rewrite"), "regex_rewrite is not supported");
        }
        HASH_HEADER.check(h.getHeader(), p);
        yield new Route.HashPolicy.Header(
            HeaderMutationTranslator.headerName(h.getHeader().getHeaderName(), p.field("header_name")), terminal);
      }
      case COOKIE -> {
        FieldPath p = path.field("cookie");
        RouteAction.HashPolicy.Cookie c = h.getCookie();
        if (c.getAttributesCount() > 0) {
          throw new ConfigException(p.field("attributes"), "attributes is not supported");
        }
        HASH_COOKIE.check(c, p);
        if (c.getName().isEmpty()) {
          throw new ConfigException(p.field("name"), "a cookie name is required");
        }
        Optional<Duration> ttl = c.hasTtl()
            ? Optional.of(ProtoValues.duration(true, c.getTtl(), p.field("ttl"), Duration.ZERO))
            : Optional.empty();
        yield new Route.HashPolicy.Cookie(c.getName(), ttl, c.getPath(), terminal);
      }
      case CONNECTION_PROPERTIES -> {
        HASH_CONNECTION.check(h.getConnectionProperties(), path.field("connection_properties"));
        yield h.getConnectionProperties().getSourceIp() ? new Route.HashPolicy.SourceIp(terminal) : null;
      }
      case QUERY_PARAMETER -> {
        FieldPath p = path.field("query_parameter");
        HASH_QUERY.check(h.getQueryParameter(), p);
        if (h.getQueryParameter().getName().isEmpty()) {
          throw new ConfigException(p.field("name"), "a query parameter name is required");
        }
        yield new Route.HashPolicy.QueryParameter(h.getQueryParameter().getName(), terminal);
      }
      case FILTER_STATE -> throw new ConfigException(path.field("filter_state"), "filter_state is not supported");
      default -> throw new ConfigException(path, "one of header, cookie, connection_properties or query_parameter is"
          + " required");
    };
  }

  @SuppressWarnings("deprecation") // total_weight: deprecated, still accepted (and checked) by Envoy
  private List<Route.WeightedCluster> weightedClusters(WeightedCluster w, FieldPath path, boolean validateClusters)
      throws ConfigException {
    WEIGHTED_CLUSTER.check(w, path);
    if (w.getClustersCount() == 0) {
      throw new ConfigException(path.field("clusters"), "at least one cluster is required");
    }
    List<Route.WeightedCluster> result = new ArrayList<>();
    long total = 0;
    for (int i = 0; i < w.getClustersCount(); i++) {
      FieldPath cwPath = path.field("clusters").index(i);
      WeightedCluster.ClusterWeight cw = w.getClusters(i);
      CLUSTER_WEIGHT.check(cw, cwPath);
      String name = cluster(cw.getName(), cwPath.field("name"), validateClusters);
      int weight = ProtoValues.uint32(cw.hasWeight(), cw.getWeight(), cwPath.field("weight"), 0, 0);
      total += weight;
      result.add(new Route.WeightedCluster(name, weight));
    }
    if (total == 0) {
      throw new ConfigException(path, "the sum of the cluster weights must be greater than 0");
    }
    if (total > Integer.MAX_VALUE) {
      throw new ConfigException(path, "the sum of the cluster weights (" + total + ") is larger than "
          + Integer.MAX_VALUE);
    }
    if (w.hasTotalWeight() && Integer.toUnsignedLong(w.getTotalWeight().getValue()) != total) {
      throw new ConfigException(path.field("total_weight"), "is " + Integer.toUnsignedLong(w.getTotalWeight()
          .getValue()) + " but the cluster weights add up to " + total);
    }
    return result;
  }

  private String cluster(String name, FieldPath path, boolean validateClusters) throws ConfigException {
    if (name.isEmpty()) {
      throw new ConfigException(path, "a cluster name is required");
    }
    if (validateClusters && !clusterNames.contains(name)) {
      throw new ConfigException(path, "unknown cluster \"" + name + "\" (no cluster of that name is configured)");
    }
    return name;
  }

  private static Route.Redirect redirect(RedirectAction r, FieldPath path) throws ConfigException {
    REDIRECT.check(r, path);
    Optional<String> scheme = switch (r.getSchemeRewriteSpecifierCase()) {
      case HTTPS_REDIRECT -> r.getHttpsRedirect() ? Optional.of("https") : Optional.empty();
      case SCHEME_REDIRECT -> Optional.of(r.getSchemeRedirect().toLowerCase(Locale.ROOT));
      default -> Optional.empty();
    };
    Optional<String> host = r.getHostRedirect().isEmpty() ? Optional.empty() : Optional.of(r.getHostRedirect());
    Optional<Integer> port = r.getPortRedirect() == 0
        ? Optional.empty()
        : Optional.of(ProtoValues.port(r.getPortRedirect(), path.field("port_redirect"), 1));
    Optional<String> redirectPath = Optional.empty();
    Optional<String> prefixRewrite = Optional.empty();
    switch (r.getPathRewriteSpecifierCase()) {
      case PATH_REDIRECT -> redirectPath = Optional.of(r.getPathRedirect());
      case PREFIX_REWRITE -> prefixRewrite = Optional.of(r.getPrefixRewrite());
      default -> { }
    }
    int code = switch (r.getResponseCode()) {
      case MOVED_PERMANENTLY -> 301;
      case FOUND -> 302;
      case SEE_OTHER -> 303;
      case TEMPORARY_REDIRECT -> 307;
      case PERMANENT_REDIRECT -> 308;
      default -> throw new ConfigException(path.field("response_code"), r.getResponseCode() + " is not supported");
    };
    return new Route.Redirect(scheme, host, port, redirectPath, prefixRewrite, r.getStripQuery(), code);
  }

  private static Route.DirectResponse directResponse(DirectResponseAction d, FieldPath path) throws ConfigException {
    DIRECT_RESPONSE.check(d, path);
    long status = Integer.toUnsignedLong(d.getStatus());
    if (status < 200 || status > 599) {
      throw new ConfigException(path.field("status"), status + " is not between 200 and 599");
    }
    Optional<String> body = Optional.empty();
    if (d.hasBody()) {
      FieldPath bodyPath = path.field("body");
      BODY.check(d.getBody(), bodyPath);
      String text = d.getBody().getInlineString();
      if (text.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_DIRECT_RESPONSE_BODY) {
        throw new ConfigException(bodyPath.field("inline_string"), "the body is larger than "
            + MAX_DIRECT_RESPONSE_BODY + " bytes");
      }
      body = text.isEmpty() ? Optional.empty() : Optional.of(text);
    }
    return new Route.DirectResponse((int) status, body);
  }

  /** The string values of {@code filter_metadata}, keyed {@code <filter>.<key>}; other values are not kept. */
  static Map<String, String> metadata(Metadata m, FieldPath path) throws ConfigException {
    METADATA.check(m, path);
    Map<String, String> flat = new LinkedHashMap<>();
    for (Map.Entry<String, Struct> filter : new java.util.TreeMap<>(m.getFilterMetadataMap()).entrySet()) {
      for (Map.Entry<String, Value> e : new java.util.TreeMap<>(filter.getValue().getFieldsMap()).entrySet()) {
        if (e.getValue().getKindCase() == Value.KindCase.STRING_VALUE) {
          String key = filter.getKey() + "." + e.getKey();
          if (flat.put(key, e.getValue().getStringValue()) != null) {
            throw new ConfigException(path.field("filter_metadata").key(filter.getKey()),
                "the flattened key \"" + key + "\" is defined twice");
          }
        }
      }
    }
    return flat;
  }
}
