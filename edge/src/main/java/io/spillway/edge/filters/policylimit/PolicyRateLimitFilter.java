package io.spillway.edge.filters.policylimit;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.filters.ratelimit.TokenBucket;
import io.spillway.edge.http.filter.DecoderFilter;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.policy.Mode;
import java.util.List;

/**
 * The policy's rate limits on one request, the first stage of every connection manager's chain
 * (before inbound admission, so a caller over its share is told 429 without taking a permit, and
 * before every configured filter; SPEC §9). For each limit in force that is not off, in policy
 * order: the request's key value (no value — header absent, route unnamed — means this limit does
 * not apply), exempt values skipped, then one token from that value's bucket. Without a token a
 * shadow limit counts a would-be refusal and the request goes on; an enforce limit counts a refusal
 * and answers <b>429</b> (RFC 6585 §4) with {@code Retry-After} (RFC 9110 §10.2.3) and the draft
 * {@code RateLimit-Limit}, {@code RateLimit-Remaining} and {@code RateLimit-Reset} headers
 * (draft-ietf-httpapi-ratelimit-headers, as local_ratelimit's {@code DRAFT_VERSION_03} gives them),
 * flag {@code RL}; the limits after it are not consulted. Tokens taken by earlier limits are not
 * given back, as in Envoy.
 */
final class PolicyRateLimitFilter implements DecoderFilter {
  static final String BODY = "rate_limited";

  private final PolicyRateLimits limits;
  private DecoderFilterCallbacks callbacks;

  PolicyRateLimitFilter(PolicyRateLimits limits) {
    this.limits = limits;
  }

  @Override
  public void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks) {
    this.callbacks = callbacks;
  }

  @Override
  public FilterHeadersStatus decodeHeaders(RequestHeaders request, boolean endStream) {
    List<PolicyLimit> inForce = limits.limits();
    if (inForce.isEmpty()) {
      return FilterHeadersStatus.CONTINUE;
    }
    HttpHeaders headers = request.headers();
    long now = limits.now();
    for (PolicyLimit limit : inForce) {
      if (limit.mode == Mode.OFF) {
        continue;
      }
      String value = switch (limit.key.kind()) {
        case CLIENT_ADDRESS -> callbacks.streamInfo().downstreamAddress();
        case HEADER -> headers.get(limit.key.headerName());
        case ROUTE -> routeName(callbacks.route());
      };
      if (value == null || value.isEmpty() || limit.exempt(value)) {
        continue;
      }
      limit.checked.inc();
      TokenBucket bucket = limit.buckets.bucket(value, now);
      if (bucket.tryConsume(now)) {
        continue;
      }
      if (limit.mode == Mode.SHADOW) {
        limit.refusedShadow.inc();
        continue;
      }
      limit.refusedEnforce.inc();
      long retryAfter = limit.retryAfterSeconds(bucket, now);
      long reset = bucket.resetSeconds(now);
      long remaining = bucket.remainingTokens(now);
      callbacks.sendLocalReply(429, BODY, ResponseFlag.RL, reply -> {
        reply.set(HttpHeaderNames.RETRY_AFTER, retryAfter);
        reply.set(RateLimitHeaders.LIMIT, limit.config.burst());
        reply.set(RateLimitHeaders.REMAINING, remaining);
        reply.set(RateLimitHeaders.RESET, reset);
      });
      return FilterHeadersStatus.STOP_ITERATION;
    }
    return FilterHeadersStatus.CONTINUE;
  }

  private static String routeName(RouteEntry route) {
    return route == null ? null : route.route().name();
  }

  /** The draft RateLimit header names. */
  static final class RateLimitHeaders {
    static final String LIMIT = "ratelimit-limit";
    static final String REMAINING = "ratelimit-remaining";
    static final String RESET = "ratelimit-reset";

    private RateLimitHeaders() {}
  }
}
