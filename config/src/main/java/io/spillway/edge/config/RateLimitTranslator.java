package io.spillway.edge.config;

import io.envoyproxy.envoy.config.core.v3.ApiVersion;
import io.envoyproxy.envoy.config.core.v3.RuntimeFractionalPercent;
import io.envoyproxy.envoy.config.ratelimit.v3.RateLimitServiceConfig;
import io.envoyproxy.envoy.config.route.v3.RateLimit;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.LocalRateLimitDescriptor;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit;
import io.envoyproxy.envoy.extensions.filters.http.ratelimit.v3.RateLimitPerRoute;
import io.envoyproxy.envoy.type.v3.HttpStatus;
import io.spillway.edge.config.HeaderMutationTranslator.Direction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Envoy's local rate limit filter config ({@code LocalRateLimit}) → {@link LocalRateLimitConfig},
 * its global rate limit filter's ({@code envoy.extensions.filters.http.ratelimit.v3.RateLimit} and
 * {@code RateLimitPerRoute}) → {@link GlobalRateLimitConfig}, and the {@code rate_limits} entries of
 * routes, virtual hosts and the filters → {@link RateLimitPolicy}. The local filter's
 * {@code filter_enabled} / {@code filter_enforced} are runtime fractions.
 */
final class RateLimitTranslator {

  /** Envoy's lower bound on a bucket's fill interval. */
  static final Duration MIN_FILL_INTERVAL = Duration.ofMillis(50);

  private static final SupportedFields LOCAL_RATE_LIMIT = SupportedFields.of(LocalRateLimit.getDescriptor(),
      "stat_prefix", "status", "token_bucket", "filter_enabled", "filter_enforced",
      "request_headers_to_add_when_not_enforced", "response_headers_to_add", "descriptors", "stage",
      "local_rate_limit_per_downstream_connection", "enable_x_ratelimit_headers", "vh_rate_limits",
      "always_consume_default_token_bucket", "rate_limits");
  private static final SupportedFields TOKEN_BUCKET = SupportedFields.of(
      io.envoyproxy.envoy.type.v3.TokenBucket.getDescriptor(), "max_tokens", "tokens_per_fill", "fill_interval");
  private static final SupportedFields DESCRIPTOR = SupportedFields.of(LocalRateLimitDescriptor.getDescriptor(),
      "entries", "token_bucket");
  private static final SupportedFields ENTRY = SupportedFields.of(RateLimitDescriptor.Entry.getDescriptor(),
      "key", "value");
  private static final SupportedFields RATE_LIMIT = SupportedFields.of(RateLimit.getDescriptor(), "stage", "actions");
  private static final SupportedFields FILTER_RATE_LIMIT = SupportedFields.of(RateLimit.getDescriptor(), "actions");
  private static final SupportedFields ACTION = SupportedFields.of(RateLimit.Action.getDescriptor(),
      "request_headers", "remote_address", "generic_key", "header_value_match", "destination_cluster",
      "source_cluster");
  private static final SupportedFields GLOBAL_RATE_LIMIT = SupportedFields.of(
      io.envoyproxy.envoy.extensions.filters.http.ratelimit.v3.RateLimit.getDescriptor(),
      "domain", "stage", "request_type", "timeout", "failure_mode_deny", "rate_limited_as_resource_exhausted",
      "rate_limit_service", "enable_x_ratelimit_headers", "disable_x_envoy_ratelimited_header", "rate_limited_status",
      "response_headers_to_add", "status_on_error", "filter_enabled", "filter_enforced");
  private static final SupportedFields RATE_LIMIT_SERVICE = SupportedFields.of(RateLimitServiceConfig.getDescriptor(),
      "grpc_service", "transport_api_version");
  private static final SupportedFields GLOBAL_PER_ROUTE = SupportedFields.of(RateLimitPerRoute.getDescriptor(),
      "vh_rate_limits", "override_option", "rate_limits", "domain");
  private static final SupportedFields HTTP_STATUS = SupportedFields.of(HttpStatus.getDescriptor(), "code");
  private static final SupportedFields REQUEST_HEADERS = SupportedFields.of(
      RateLimit.Action.RequestHeaders.getDescriptor(), "header_name", "descriptor_key", "skip_if_absent");
  private static final SupportedFields GENERIC_KEY = SupportedFields.of(RateLimit.Action.GenericKey.getDescriptor(),
      "descriptor_value", "descriptor_key");
  private static final SupportedFields HEADER_VALUE_MATCH = SupportedFields.of(
      RateLimit.Action.HeaderValueMatch.getDescriptor(), "descriptor_key", "descriptor_value", "expect_match",
      "headers");

  private RateLimitTranslator() {}

  /**
   * @param perRoute a route's or virtual host's {@code typed_per_filter_config}, which must bring its
   *     own token bucket (Envoy's rule)
   */
  static LocalRateLimitConfig localRateLimit(LocalRateLimit l, FieldPath path, boolean perRoute)
      throws ConfigException {
    LOCAL_RATE_LIMIT.check(l, path);
    if (l.getStatPrefix().isEmpty()) {
      throw new ConfigException(path.field("stat_prefix"), "stat_prefix is required");
    }
    int status = 429;
    if (l.hasStatus()) {
      int code = l.getStatus().getCodeValue();
      if (code == 0) {
        throw new ConfigException(path.field("status").field("code"), "code is required");
      }
      status = code < 400 ? 429 : code; // Envoy: below 400 means 429
    }
    Optional<LocalRateLimitConfig.TokenBucket> bucket = Optional.empty();
    if (l.hasTokenBucket()) {
      bucket = Optional.of(tokenBucket(l.getTokenBucket(), path.field("token_bucket")));
    } else if (perRoute) {
      throw new ConfigException(path.field("token_bucket"),
          "token_bucket is required in typed_per_filter_config (the route's bucket)");
    }
    RuntimeFraction enabled = fraction(l.hasFilterEnabled(), l.getFilterEnabled(), path.field("filter_enabled"));
    RuntimeFraction enforced = fraction(l.hasFilterEnforced(), l.getFilterEnforced(), path.field("filter_enforced"));
    if (l.getResponseHeadersToAddCount() > 10) {
      throw new ConfigException(path.field("response_headers_to_add"), "at most 10 headers");
    }
    if (l.getRequestHeadersToAddWhenNotEnforcedCount() > 10) {
      throw new ConfigException(path.field("request_headers_to_add_when_not_enforced"), "at most 10 headers");
    }
    HeaderMutations responseHeaders = HeaderMutationTranslator.additions(l.getResponseHeadersToAddList(),
        Direction.RESPONSE, path.field("response_headers_to_add"));
    HeaderMutations requestHeaders = HeaderMutationTranslator.additions(
        l.getRequestHeadersToAddWhenNotEnforcedList(), Direction.REQUEST,
        path.field("request_headers_to_add_when_not_enforced"));
    List<LocalRateLimitConfig.Descriptor> descriptors = new ArrayList<>();
    Set<List<RateLimitPolicy.Entry>> seen = new HashSet<>();
    for (int i = 0; i < l.getDescriptorsCount(); i++) {
      FieldPath at = path.field("descriptors").index(i);
      LocalRateLimitConfig.Descriptor d = descriptor(l.getDescriptors(i), at);
      if (!seen.add(d.entries())) {
        throw new ConfigException(at.field("entries"), "the same entries as an earlier descriptor");
      }
      descriptors.add(d);
    }
    if (l.getStage() > 10) {
      throw new ConfigException(path.field("stage"), "must be at most 10");
    }
    RateLimitPolicy.VhRateLimits vh = switch (l.getVhRateLimits()) {
      case OVERRIDE -> RateLimitPolicy.VhRateLimits.OVERRIDE;
      case INCLUDE -> RateLimitPolicy.VhRateLimits.INCLUDE;
      case IGNORE -> RateLimitPolicy.VhRateLimits.IGNORE;
      default -> throw new ConfigException(path.field("vh_rate_limits"), l.getVhRateLimits() + " is not defined");
    };
    boolean xHeaders = switch (l.getEnableXRatelimitHeaders()) {
      case OFF -> false;
      case DRAFT_VERSION_03 -> true;
      default -> throw new ConfigException(path.field("enable_x_ratelimit_headers"),
          l.getEnableXRatelimitHeaders() + " is not defined");
    };
    List<RateLimitPolicy> rateLimits = new ArrayList<>();
    for (int i = 0; i < l.getRateLimitsCount(); i++) {
      rateLimits.add(policy(l.getRateLimits(i), path.field("rate_limits").index(i), FILTER_RATE_LIMIT));
    }
    boolean alwaysConsume = !l.hasAlwaysConsumeDefaultTokenBucket() || l.getAlwaysConsumeDefaultTokenBucket().getValue();
    return new LocalRateLimitConfig(l.getStatPrefix(), status, bucket, enabled, enforced, responseHeaders,
        requestHeaders, descriptors, l.getStage(), l.getLocalRateLimitPerDownstreamConnection(), xHeaders, vh,
        alwaysConsume, rateLimits);
  }

  /**
   * The global rate limit filter's {@code typed_config}.
   *
   * @param filterName the filter's name in the chain
   * @param knownCluster whether a cluster of that name is configured
   */
  static GlobalRateLimitConfig globalRateLimit(io.envoyproxy.envoy.extensions.filters.http.ratelimit.v3.RateLimit r,
      String filterName, Predicate<String> knownCluster, FieldPath path) throws ConfigException {
    GLOBAL_RATE_LIMIT.check(r, path);
    if (r.getDomain().isEmpty()) {
      throw new ConfigException(path.field("domain"), "domain is required");
    }
    if (Integer.toUnsignedLong(r.getStage()) > 10) {
      throw new ConfigException(path.field("stage"), "must be at most 10");
    }
    GlobalRateLimitConfig.RequestType requestType = switch (r.getRequestType()) {
      case "", "both" -> GlobalRateLimitConfig.RequestType.BOTH;
      case "internal" -> GlobalRateLimitConfig.RequestType.INTERNAL;
      case "external" -> GlobalRateLimitConfig.RequestType.EXTERNAL;
      default -> throw new ConfigException(path.field("request_type"),
          "must be internal, external or both, not \"" + r.getRequestType() + "\"");
    };
    java.time.Duration timeout = ProtoValues.duration(r.hasTimeout(), r.getTimeout(), path.field("timeout"),
        GlobalRateLimitConfig.DEFAULT_TIMEOUT);
    if (r.getRateLimitedAsResourceExhausted()) {
      throw new ConfigException(path.field("rate_limited_as_resource_exhausted"),
          "rate_limited_as_resource_exhausted: true is not supported (local replies to gRPC requests keep their"
              + " HTTP status)");
    }
    FieldPath servicePath = path.field("rate_limit_service");
    if (!r.hasRateLimitService()) {
      throw new ConfigException(servicePath, "rate_limit_service is required");
    }
    RateLimitServiceConfig service = r.getRateLimitService();
    RATE_LIMIT_SERVICE.check(service, servicePath);
    if (service.getTransportApiVersion() != ApiVersion.V3) {
      throw new ConfigException(servicePath.field("transport_api_version"),
          "must be V3 (the edge speaks envoy.service.ratelimit.v3 only), not " + service.getTransportApiVersion());
    }
    if (!service.hasGrpcService()) {
      throw new ConfigException(servicePath.field("grpc_service"), "grpc_service is required");
    }
    GrpcServiceConfig grpc = GrpcServiceTranslator.envoyGrpc(service.getGrpcService(), knownCluster,
        servicePath.field("grpc_service"));
    if (grpc.timeout().isPresent()) {
      throw new ConfigException(servicePath.field("grpc_service").field("timeout"),
          "is not supported here: the filter's timeout is the call's deadline");
    }
    boolean xHeaders = switch (r.getEnableXRatelimitHeaders()) {
      case OFF -> false;
      case DRAFT_VERSION_03 -> true;
      default -> throw new ConfigException(path.field("enable_x_ratelimit_headers"),
          r.getEnableXRatelimitHeaders() + " is not defined");
    };
    int rateLimited = r.hasRateLimitedStatus()
        ? errorStatus(r.getRateLimitedStatus(), path.field("rate_limited_status"), 429) : 429;
    int onError = r.hasStatusOnError()
        ? errorStatus(r.getStatusOnError(), path.field("status_on_error"), 500) : 500;
    if (r.getResponseHeadersToAddCount() > 10) {
      throw new ConfigException(path.field("response_headers_to_add"), "at most 10 headers");
    }
    HeaderMutations responseHeaders = HeaderMutationTranslator.additions(r.getResponseHeadersToAddList(),
        Direction.RESPONSE, path.field("response_headers_to_add"));
    RuntimeFraction enabled = r.hasFilterEnabled()
        ? RuntimeTranslator.fraction(r.getFilterEnabled(), path.field("filter_enabled"))
        : GlobalRateLimitConfig.DEFAULT_ENABLED;
    RuntimeFraction enforced = r.hasFilterEnforced()
        ? RuntimeTranslator.fraction(r.getFilterEnforced(), path.field("filter_enforced"))
        : GlobalRateLimitConfig.DEFAULT_ENFORCED;
    return new GlobalRateLimitConfig(filterName, r.getDomain(), r.getStage(), requestType, timeout,
        r.getFailureModeDeny(), grpc, xHeaders, !r.getDisableXEnvoyRatelimitedHeader(), rateLimited, responseHeaders,
        onError, enabled, enforced);
  }

  /** A route's or virtual host's {@code RateLimitPerRoute} for the global filter. */
  static GlobalRateLimitConfig.PerRoute globalPerRoute(RateLimitPerRoute p, FieldPath path) throws ConfigException {
    GLOBAL_PER_ROUTE.check(p, path);
    RateLimitPolicy.VhRateLimits vh = switch (p.getVhRateLimits()) {
      case OVERRIDE -> RateLimitPolicy.VhRateLimits.OVERRIDE;
      case INCLUDE -> RateLimitPolicy.VhRateLimits.INCLUDE;
      case IGNORE -> RateLimitPolicy.VhRateLimits.IGNORE;
      default -> throw new ConfigException(path.field("vh_rate_limits"), p.getVhRateLimits() + " is not defined");
    };
    switch (p.getOverrideOption()) {
      case DEFAULT, OVERRIDE_POLICY -> { } // the most specific configuration replaces the others: what the edge does
      case INCLUDE_POLICY, IGNORE_POLICY -> throw new ConfigException(path.field("override_option"),
          p.getOverrideOption() + " is not supported (only DEFAULT and OVERRIDE_POLICY: the most specific"
              + " configuration applies)");
      default -> throw new ConfigException(path.field("override_option"), p.getOverrideOption() + " is not defined");
    }
    List<RateLimitPolicy> rateLimits = new ArrayList<>();
    for (int i = 0; i < p.getRateLimitsCount(); i++) {
      rateLimits.add(policy(p.getRateLimits(i), path.field("rate_limits").index(i), FILTER_RATE_LIMIT));
    }
    return new GlobalRateLimitConfig.PerRoute(vh, rateLimits,
        p.getDomain().isEmpty() ? Optional.empty() : Optional.of(p.getDomain()));
  }

  /** An {@code HttpStatus} of a refusal: a defined code; below 400 means {@code fallback} (Envoy's rule). */
  private static int errorStatus(HttpStatus status, FieldPath path, int fallback) throws ConfigException {
    HTTP_STATUS.check(status, path);
    int code = status.getCodeValue();
    if (code == 0) {
      throw new ConfigException(path.field("code"), "code is required");
    }
    if (status.getCode() == io.envoyproxy.envoy.type.v3.StatusCode.UNRECOGNIZED) {
      throw new ConfigException(path.field("code"), code + " is not a defined status code");
    }
    return code < 400 ? fallback : code;
  }

  /** A route's or virtual host's {@code rate_limits}. */
  static List<RateLimitPolicy> policies(List<RateLimit> rateLimits, FieldPath path) throws ConfigException {
    List<RateLimitPolicy> out = new ArrayList<>(rateLimits.size());
    for (int i = 0; i < rateLimits.size(); i++) {
      out.add(policy(rateLimits.get(i), path.index(i), RATE_LIMIT));
    }
    return out;
  }

  private static RateLimitPolicy policy(RateLimit r, FieldPath path, SupportedFields fields) throws ConfigException {
    fields.check(r, path);
    int stage = 0;
    if (r.hasStage()) {
      stage = r.getStage().getValue();
      if (stage < 0 || stage > 10) {
        throw new ConfigException(path.field("stage"), "must be at most 10");
      }
    }
    if (r.getActionsCount() == 0) {
      throw new ConfigException(path.field("actions"), "at least one action is required");
    }
    List<RateLimitPolicy.Action> actions = new ArrayList<>();
    for (int i = 0; i < r.getActionsCount(); i++) {
      actions.add(action(r.getActions(i), path.field("actions").index(i)));
    }
    return new RateLimitPolicy(stage, actions);
  }

  private static RateLimitPolicy.Action action(RateLimit.Action a, FieldPath path) throws ConfigException {
    ACTION.check(a, path);
    return switch (a.getActionSpecifierCase()) {
      case REQUEST_HEADERS -> {
        FieldPath at = path.field("request_headers");
        RateLimit.Action.RequestHeaders h = a.getRequestHeaders();
        REQUEST_HEADERS.check(h, at);
        String name = HeaderMutationTranslator.headerName(h.getHeaderName(), at.field("header_name"));
        yield new RateLimitPolicy.RequestHeaders(name, required(h.getDescriptorKey(), at.field("descriptor_key")),
            h.getSkipIfAbsent());
      }
      case REMOTE_ADDRESS -> new RateLimitPolicy.RemoteAddress();
      case DESTINATION_CLUSTER -> new RateLimitPolicy.DestinationCluster();
      case SOURCE_CLUSTER -> new RateLimitPolicy.SourceCluster();
      case GENERIC_KEY -> {
        FieldPath at = path.field("generic_key");
        RateLimit.Action.GenericKey g = a.getGenericKey();
        GENERIC_KEY.check(g, at);
        yield new RateLimitPolicy.GenericKey(g.getDescriptorKey().isEmpty() ? "generic_key" : g.getDescriptorKey(),
            required(g.getDescriptorValue(), at.field("descriptor_value")));
      }
      case HEADER_VALUE_MATCH -> {
        FieldPath at = path.field("header_value_match");
        RateLimit.Action.HeaderValueMatch m = a.getHeaderValueMatch();
        HEADER_VALUE_MATCH.check(m, at);
        if (m.getHeadersCount() == 0) {
          throw new ConfigException(at.field("headers"), "at least one header matcher is required");
        }
        List<Route.HeaderMatch> headers = new ArrayList<>();
        for (int i = 0; i < m.getHeadersCount(); i++) {
          headers.add(MatchTranslator.header(m.getHeaders(i), at.field("headers").index(i)));
        }
        yield new RateLimitPolicy.HeaderValueMatch(
            m.getDescriptorKey().isEmpty() ? "header_match" : m.getDescriptorKey(),
            required(m.getDescriptorValue(), at.field("descriptor_value")),
            !m.hasExpectMatch() || m.getExpectMatch().getValue(), headers);
      }
      default -> throw new ConfigException(path, "an action is required");
    };
  }

  private static LocalRateLimitConfig.Descriptor descriptor(LocalRateLimitDescriptor d, FieldPath path)
      throws ConfigException {
    DESCRIPTOR.check(d, path);
    if (d.getEntriesCount() == 0) {
      throw new ConfigException(path.field("entries"), "at least one entry is required");
    }
    List<RateLimitPolicy.Entry> entries = new ArrayList<>();
    for (int i = 0; i < d.getEntriesCount(); i++) {
      FieldPath at = path.field("entries").index(i);
      RateLimitDescriptor.Entry e = d.getEntries(i);
      ENTRY.check(e, at);
      String key = required(e.getKey(), at.field("key"));
      if (e.getValue().isEmpty()) {
        // Envoy: an entry without a value is a wildcard with a bucket per distinct value (an LRU cache).
        throw new ConfigException(at.field("value"), "an empty value (a wildcard descriptor) is not supported yet");
      }
      entries.add(new RateLimitPolicy.Entry(key, e.getValue()));
    }
    if (!d.hasTokenBucket()) {
      throw new ConfigException(path.field("token_bucket"), "token_bucket is required");
    }
    return new LocalRateLimitConfig.Descriptor(entries, tokenBucket(d.getTokenBucket(), path.field("token_bucket")));
  }

  private static LocalRateLimitConfig.TokenBucket tokenBucket(io.envoyproxy.envoy.type.v3.TokenBucket b, FieldPath path)
      throws ConfigException {
    TOKEN_BUCKET.check(b, path);
    long max = Integer.toUnsignedLong(b.getMaxTokens());
    if (max == 0) {
      throw new ConfigException(path.field("max_tokens"), "must be greater than 0");
    }
    long perFill = 1;
    if (b.hasTokensPerFill()) {
      perFill = Integer.toUnsignedLong(b.getTokensPerFill().getValue());
      if (perFill == 0) {
        throw new ConfigException(path.field("tokens_per_fill"), "must be greater than 0");
      }
    }
    if (!b.hasFillInterval()) {
      throw new ConfigException(path.field("fill_interval"), "fill_interval is required");
    }
    Duration interval = ProtoValues.duration(true, b.getFillInterval(), path.field("fill_interval"), Duration.ZERO);
    if (interval.compareTo(MIN_FILL_INTERVAL) < 0) {
      throw new ConfigException(path.field("fill_interval"), "must be at least 50ms");
    }
    return new LocalRateLimitConfig.TokenBucket(max, perFill, interval);
  }

  /** A runtime fractional percent; never when unset (Envoy's default). */
  private static RuntimeFraction fraction(boolean has, RuntimeFractionalPercent f, FieldPath path)
      throws ConfigException {
    return has ? RuntimeTranslator.fraction(f, path) : RuntimeFraction.NEVER;
  }

  private static String required(String value, FieldPath path) throws ConfigException {
    if (value.isEmpty()) {
      throw new ConfigException(path, path.toString().substring(path.toString().lastIndexOf('.') + 1)
          + " is required");
    }
    return value;
  }
}
