package io.spillway.edge.filters.ratelimit;

import io.spillway.edge.config.LocalRateLimitConfig;
import io.spillway.edge.config.RateLimitPolicy;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamFilter;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import java.util.List;

/**
 * One request's local rate limit (Envoy's {@code LocalRateLimitFilter::Filter}). On the request's
 * headers it picks the most specific configuration (the route's {@code typed_per_filter_config},
 * else the connection manager's), and when that is enabled for the request takes a token: with one,
 * the request goes on; without, it is counted as rate limited and, when enforced, answered with the
 * configured status, body {@code local_rate_limited}, {@code response_headers_to_add} and
 * {@code x-envoy-ratelimited: true} (flag RL); when not enforced it goes on with
 * {@code request_headers_to_add_when_not_enforced}. On the way out (the refusal included) it adds
 * the x-ratelimit headers of the bucket that decided, when configured.
 */
final class LocalRateLimitFilter implements StreamFilter {
  static final String BODY = "local_rate_limited";
  static final String X_ENVOY_RATELIMITED = "x-envoy-ratelimited";

  private final LocalRateLimitFactory factory;
  private DecoderFilterCallbacks decoder;
  private LocalRateLimit used;
  private TokenBucket decidedBy;

  LocalRateLimitFilter(LocalRateLimitFactory factory) {
    this.factory = factory;
  }

  @Override
  public void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks) {
    this.decoder = callbacks;
  }

  @Override
  public void setEncoderFilterCallbacks(EncoderFilterCallbacks callbacks) {}

  @Override
  public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
    RouteEntry route = decoder.route();
    LocalRateLimit config = factory.configFor(route);
    if (config == null || !config.isEnabled(decoder.worker().random())) {
      return FilterHeadersStatus.CONTINUE;
    }
    used = config;
    config.enabled.inc();
    List<List<RateLimitPolicy.Entry>> descriptors = config.hasDescriptors()
        ? RequestDescriptors.of(config.config.rateLimits(), config.config.stage(), config.config.vhRateLimits(), headers,
            decoder.streamInfo().downstreamAddress(), route, factory.localCluster())
        : List.of();
    LocalRateLimiter.Decision decision = config.limiter(decoder.connectionShare()).decide(descriptors, config.now());
    decidedBy = decision.bucket();
    if (decision.allowed()) {
      config.ok.inc();
      return FilterHeadersStatus.CONTINUE;
    }
    config.rateLimited.inc();
    if (!config.isEnforced(decoder.worker().random())) {
      LocalRateLimit.add(config.config.requestHeadersToAddWhenNotEnforced(), headers.headers());
      return FilterHeadersStatus.CONTINUE;
    }
    config.enforced.inc();
    decoder.sendLocalReply(config.config.status(), BODY, ResponseFlag.RL, reply -> {
      LocalRateLimit.add(config.config.responseHeadersToAdd(), reply);
      reply.set(X_ENVOY_RATELIMITED, "true");
    });
    return FilterHeadersStatus.STOP_ITERATION;
  }

  @Override
  public FilterHeadersStatus encodeHeaders(ResponseHeaders headers, boolean endStream) {
    if (decidedBy != null && used.config.xRateLimitHeaders()) {
      long now = used.now();
      headers.headers().set("x-ratelimit-limit", decidedBy.maxTokens());
      headers.headers().set("x-ratelimit-remaining", decidedBy.remainingTokens(now));
      headers.headers().set("x-ratelimit-reset", decidedBy.resetSeconds(now));
    }
    return FilterHeadersStatus.CONTINUE;
  }
}
