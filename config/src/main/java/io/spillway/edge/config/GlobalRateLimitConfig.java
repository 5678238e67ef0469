package io.spillway.edge.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Envoy's global rate limit filter {@code envoy.filters.http.ratelimit} ({@code RateLimit}): the
 * request's descriptors go to a rate limit service over gRPC, whose answer lets it through or
 * refuses it.
 *
 * @param filterName the filter's {@code name} in the connection manager (the key of its
 *     {@code typed_per_filter_config} entries)
 * @param domain the rate limit domain of every call
 * @param stage which {@code rate_limits} entries of the route and virtual host apply (0–10)
 * @param requestType which requests are checked: by {@code x-envoy-internal}
 * @param timeout the call's deadline (20 ms unless set); zero = none
 * @param failureModeDeny a failed call refuses the request with {@code statusOnError} instead of letting it through
 * @param service {@code rate_limit_service.grpc_service}
 * @param xRateLimitHeaders add {@code x-ratelimit-limit/-remaining/-reset} from the service's
 *     statuses (DRAFT_VERSION_03)
 * @param xEnvoyRateLimitedHeader add {@code x-envoy-ratelimited: true} to a refusal (unless
 *     {@code disable_x_envoy_ratelimited_header})
 * @param rateLimitedStatus a refusal's status (429; below 400 means 429)
 * @param responseHeadersToAdd added to a refusal
 * @param statusOnError the status of a failed call with {@code failureModeDeny} (500)
 * @param filterEnabled the share of requests checked: {@code filter_enabled}, else the runtime key
 *     {@code ratelimit.http_filter_enabled} (100 %)
 * @param filterEnforced the share of over-limit decisions enforced: {@code filter_enforced}, else
 *     the runtime key {@code ratelimit.http_filter_enforcing} (100 %)
 */
public record GlobalRateLimitConfig(
    String filterName,
    String domain,
    int stage,
    RequestType requestType,
    Duration timeout,
    boolean failureModeDeny,
    GrpcServiceConfig service,
    boolean xRateLimitHeaders,
    boolean xEnvoyRateLimitedHeader,
    int rateLimitedStatus,
    HeaderMutations responseHeadersToAdd,
    int statusOnError,
    RuntimeFraction filterEnabled,
    RuntimeFraction filterEnforced) implements HttpFilterConfig.Settings {

  /** Envoy's default deadline of a call: 20 ms. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(20);
  /** Envoy's default refusal status. */
  public static final int DEFAULT_RATE_LIMITED_STATUS = 429;
  /** Envoy's default {@code status_on_error}: 500. */
  public static final int DEFAULT_STATUS_ON_ERROR = 500;
  /** Without {@code filter_enabled}: Envoy's runtime key, every request by default. */
  public static final RuntimeFraction DEFAULT_ENABLED =
      new RuntimeFraction("ratelimit.http_filter_enabled", RuntimeFraction.MILLION);
  /** Without {@code filter_enforced}: Envoy's runtime key, every decision by default. */
  public static final RuntimeFraction DEFAULT_ENFORCED =
      new RuntimeFraction("ratelimit.http_filter_enforcing", RuntimeFraction.MILLION);

  /** Envoy's {@code request_type}: {@code internal} when {@code x-envoy-internal: true}, else external. */
  public enum RequestType {
    INTERNAL,
    EXTERNAL,
    BOTH
  }

  /**
   * A route's or virtual host's {@code RateLimitPerRoute}: the most specific one applies.
   *
   * @param vhRateLimits whether the virtual host's {@code rate_limits} count with the route's
   * @param rateLimits its own descriptor actions; when present the route's and virtual host's
   *     {@code rate_limits} are not used
   * @param domain replaces the filter's domain when present
   */
  public record PerRoute(RateLimitPolicy.VhRateLimits vhRateLimits, List<RateLimitPolicy> rateLimits,
      Optional<String> domain) implements RouteFilterConfig {
    public PerRoute {
      rateLimits = List.copyOf(rateLimits);
    }

    /** No per-route configuration: Envoy's defaults. */
    public static final PerRoute DEFAULT = new PerRoute(RateLimitPolicy.VhRateLimits.OVERRIDE, List.of(), Optional.empty());
  }
}
