package io.spillway.edge.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Envoy's {@code envoy.filters.http.local_ratelimit} ({@code LocalRateLimit}), in the connection
 * manager's chain or as a route's or virtual host's {@code typed_per_filter_config}.
 *
 * @param statPrefix stats live under {@code <statPrefix>.http_local_rate_limit.*}
 * @param status the refusal's status (429 unless set to 400 or more)
 * @param tokenBucket the default bucket; empty in the chain means no default limit (routes bring
 *     their own), always present in a route's config
 * @param filterEnabled {@code filter_enabled}: the share of requests checked (none unless set)
 * @param filterEnforced {@code filter_enforced}: the share of checked requests refused when over the limit (none unless set)
 * @param responseHeadersToAdd added to an enforced refusal
 * @param requestHeadersToAddWhenNotEnforced added to a request over the limit that goes on
 *     because the limit is not enforced for it
 * @param descriptors buckets of their own for requests whose descriptors match one exactly
 * @param stage which {@code rate_limits} entries of the route apply
 * @param perDownstreamConnection each downstream connection gets its own buckets
 * @param xRateLimitHeaders add {@code x-ratelimit-limit/-remaining/-reset} (DRAFT_VERSION_03)
 * @param vhRateLimits whether the virtual host's {@code rate_limits} count as well as the route's
 * @param alwaysConsumeDefaultTokenBucket take a default token even when a descriptor matched (default true)
 * @param rateLimits the filter's own descriptor actions; when present the route's and virtual
 *     host's {@code rate_limits} are not used
 */
public record LocalRateLimitConfig(
    String statPrefix,
    int status,
    Optional<TokenBucket> tokenBucket,
    RuntimeFraction filterEnabled,
    RuntimeFraction filterEnforced,
    HeaderMutations responseHeadersToAdd,
    HeaderMutations requestHeadersToAddWhenNotEnforced,
    List<Descriptor> descriptors,
    int stage,
    boolean perDownstreamConnection,
    boolean xRateLimitHeaders,
    RateLimitPolicy.VhRateLimits vhRateLimits,
    boolean alwaysConsumeDefaultTokenBucket,
    List<RateLimitPolicy> rateLimits) implements RouteFilterConfig, HttpFilterConfig.Settings {

  /** One million: the scale of the two fractions. */
  public static final int MILLION = RuntimeFraction.MILLION;

  public LocalRateLimitConfig {
    descriptors = List.copyOf(descriptors);
    rateLimits = List.copyOf(rateLimits);
  }

  /**
   * Envoy's {@code TokenBucket}: holds {@code maxTokens} (and starts full), gains
   * {@code tokensPerFill} every {@code fillInterval}.
   */
  public record TokenBucket(long maxTokens, long tokensPerFill, Duration fillInterval) {}

  /** A {@code LocalRateLimitDescriptor}: the entries a request's descriptor must equal, and its bucket. */
  public record Descriptor(List<RateLimitPolicy.Entry> entries, TokenBucket tokenBucket) {
    public Descriptor {
      entries = List.copyOf(entries);
    }
  }

}
