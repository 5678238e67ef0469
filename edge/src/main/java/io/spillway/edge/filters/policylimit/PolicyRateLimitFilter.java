package io.spillway.edge.filters.policylimit;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.admission.Tier;
import io.spillway.edge.filters.ratelimit.TokenBucket;
import io.spillway.edge.http.filter.DecoderFilter;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.FilterTrailersStatus;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.policy.Mode;
import java.util.List;

/**
 * The policy's rate limits on one request, the first stage of every connection manager's chain
 * (before inbound admission, so a caller over its share is told 429 without taking a permit, and
 * before every configured filter; SPEC §9) — except the limits keyed by the authenticated subject,
 * which a second stage checks just before the router, once jwt_authn has run. For each limit in force that is not off, in policy
 * order: the request's key value (no value — header absent, route unnamed — means this limit does
 * not apply), exempt values skipped, then one token from that value's allowance. Without one a
 * shadow limit counts a would-be refusal and the request goes on; an enforce limit counts a refusal
 * and answers <b>429</b> (RFC 6585 §4) with {@code Retry-After} (RFC 9110 §10.2.3) and the draft
 * {@code RateLimit-Limit}, {@code RateLimit-Remaining} and {@code RateLimit-Reset} headers
 * (draft-ietf-httpapi-ratelimit-headers, as local_ratelimit's {@code DRAFT_VERSION_03} gives them),
 * flag {@code RL}; the limits after it are not consulted. Tokens taken by earlier limits are not
 * given back, as in Envoy.
 *
 * <p>An edge-scoped limit's allowance is its bucket on this edge. A fleet-scoped one's is the shared
 * count ({@link FleetCounter}): an enforced limit holds the request until it answers (the answer
 * comes back to the request's own loop), a shadow one asks without holding it and counts the
 * would-be refusal when the answer comes. A key value the shared count refused is refused on this
 * edge, without asking again, until the instant the count said it admits one more (taken from when
 * the question was sent, so never later than the count's own). While the shared count cannot answer
 * — not connected, a call timed out in the last second, or this call timed out or failed — the
 * request takes a token from the limit's bucket on this edge instead (counted as a fallback).
 */
final class PolicyRateLimitFilter implements DecoderFilter {
  static final String BODY = "rate_limited";

  private final PolicyRateLimits limits;
  /** True for the stage just before the router, which checks only the limits keyed by what filters find (the subject). */
  private final boolean late;
  private DecoderFilterCallbacks callbacks;
  private RequestHeaders request;
  private List<PolicyLimit> inForce;
  /** While an enforced fleet limit's answer is awaited: its index in {@link #inForce}; else -1. */
  private int waitingAt = -1;
  private boolean destroyed;

  PolicyRateLimitFilter(PolicyRateLimits limits) {
    this(limits, false);
  }

  /** @param late whether this is the stage before the router (subject-keyed limits only) rather than the first one (all others) */
  PolicyRateLimitFilter(PolicyRateLimits limits, boolean late) {
    this.limits = limits;
    this.late = late;
  }

  @Override
  public void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks) {
    this.callbacks = callbacks;
  }

  @Override
  public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
    inForce = limits.limits();
    if (inForce.isEmpty()) {
      return FilterHeadersStatus.CONTINUE;
    }
    request = headers;
    return checkFrom(0) ? FilterHeadersStatus.CONTINUE : FilterHeadersStatus.STOP_ITERATION;
  }

  /**
   * Checks the limits from {@code first} on; true when the request may go on now, false when it was
   * answered with 429 or waits for a fleet limit's answer.
   */
  private boolean checkFrom(int first) {
    HttpHeaders headers = request.headers();
    long now = limits.now();
    for (int i = first; i < inForce.size(); i++) {
      PolicyLimit limit = inForce.get(i);
      if (limit.mode == Mode.OFF || limit.key.kind().needsFilters() != late) {
        continue;
      }
      String value = switch (limit.key.kind()) {
        case CLIENT_ADDRESS -> callbacks.streamInfo().downstreamAddress();
        case HEADER -> headers.get(limit.key.headerName());
        case ROUTE -> routeName(callbacks.route());
        case TIER -> tierName(callbacks.route());
        case SUBJECT -> callbacks.streamInfo().authenticatedSubject();
      };
      if (value == null || value.isEmpty() || limit.exempt(value)) {
        continue;
      }
      limit.checked.inc();
      KeyedBuckets.Entry entry = limit.buckets.entry(value, now);
      if (limit.fleet == null) {
        if (!local(limit, entry, now)) {
          return false;
        }
        continue;
      }
      if (entry.denied(now)) {
        if (!refused(limit, limit.retryAfterSeconds((entry.deniedUntilNanos - now) / 1000), 0)) {
          return false;
        }
        continue;
      }
      if (!limit.fleet.available(now)) {
        limit.countFallback(null);
        if (!local(limit, entry, now)) {
          return false;
        }
        continue;
      }
      if (limit.mode == Mode.SHADOW) {
        askInShadow(limit, entry, now);
        continue;
      }
      waitingAt = i;
      long sent = now;
      limit.take(entry).whenComplete((answer, error) -> callbacks.worker().loop().execute(() -> onAnswer(limit, entry, sent,
              error == null ? answer : FleetCounter.Answer.failed(FleetCounter.Outcome.ERROR))));
      return false;
    }
    return true;
  }

  /** A token from the limit's bucket on this edge; false when the request was answered with 429. */
  private boolean local(PolicyLimit limit, KeyedBuckets.Entry entry, long now) {
    TokenBucket bucket = entry.bucket;
    if (bucket.tryConsume(now)) {
      return true;
    }
    return refused(limit, limit.retryAfterSeconds(bucket, now), bucket.remainingTokens(now), bucket.resetSeconds(now));
  }

  /** A refusal by the shared count: no token left now, the next after {@code retryAfter} seconds. */
  private boolean refused(PolicyLimit limit, long retryAfter, long remaining) {
    return refused(limit, retryAfter, remaining, retryAfter);
  }

  /** Counts a refusal; false (the request answered with 429) when the limit enforces. */
  private boolean refused(PolicyLimit limit, long retryAfter, long remaining, long reset) {
    if (limit.mode == Mode.SHADOW) {
      limit.refusedShadow.inc();
      return true;
    }
    limit.refusedEnforce.inc();
    callbacks.sendLocalReply(429, BODY, ResponseFlag.RL, reply -> {
      reply.set(HttpHeaderNames.RETRY_AFTER, retryAfter);
      reply.set(RateLimitHeaders.LIMIT, limit.config.burst());
      reply.set(RateLimitHeaders.REMAINING, remaining);
      reply.set(RateLimitHeaders.RESET, reset);
    });
    return false;
  }

  /**
   * A shadow limit's question: the request goes on at once; a refusal is counted (and remembered for
   * the key value) when the answer comes, on the counter's thread — a counter increment and a
   * volatile write. A failed call falls back to the bucket on this edge, as an enforced one does.
   */
  private void askInShadow(PolicyLimit limit, KeyedBuckets.Entry entry, long sent) {
    limit.take(entry).whenComplete((answer, error) -> {
          FleetCounter.Outcome outcome = error == null ? answer.outcome() : FleetCounter.Outcome.ERROR;
          switch (outcome) {
            case ALLOWED -> { }
            case REFUSED -> {
              entry.denyUntil(sent + answer.retryAfterMicros() * 1000);
              limit.refusedShadow.inc();
            }
            case TIMEOUT, ERROR -> {
              limit.countFallback(outcome);
              if (!entry.bucket.tryConsume(limits.now())) {
                limit.refusedShadow.inc();
              }
            }
          }
        });
  }

  /** An enforced fleet limit's answer, on the request's loop. */
  private void onAnswer(PolicyLimit limit, KeyedBuckets.Entry entry, long sent, FleetCounter.Answer answer) {
    if (destroyed) {
      return;
    }
    int at = waitingAt;
    waitingAt = -1;
    boolean goOn = switch (answer.outcome()) {
      case ALLOWED -> true;
      case REFUSED -> {
        entry.denyUntil(sent + answer.retryAfterMicros() * 1000);
        yield refused(limit, limit.retryAfterSeconds(answer.retryAfterMicros()), 0);
      }
      case TIMEOUT, ERROR -> {
        limit.countFallback(answer.outcome());
        yield local(limit, entry, limits.now());
      }
    };
    if (goOn && checkFrom(at + 1)) {
      callbacks.continueDecoding();
    }
  }

  @Override
  public FilterDataStatus decodeData(ByteBuf data, boolean endStream) {
    return waitingAt >= 0 ? FilterDataStatus.STOP_ITERATION_AND_WATERMARK : FilterDataStatus.CONTINUE;
  }

  @Override
  public FilterTrailersStatus decodeTrailers(HttpHeaders trailers) {
    return waitingAt >= 0 ? FilterTrailersStatus.STOP_ITERATION : FilterTrailersStatus.CONTINUE;
  }

  @Override
  public void onDestroy() {
    destroyed = true;
  }

  private static String routeName(RouteEntry route) {
    return route == null ? null : route.route().name();
  }

  /** The matched route's admission tier, as its metadata names it; null without a route. */
  private static String tierName(RouteEntry route) {
    return route == null ? null : Tier.fromMetadata(route.metadata(Tier.METADATA_KEY)).metadataName();
  }

  /** The draft RateLimit header names. */
  static final class RateLimitHeaders {
    static final String LIMIT = "ratelimit-limit";
    static final String REMAINING = "ratelimit-remaining";
    static final String RESET = "ratelimit-reset";

    private RateLimitHeaders() {}
  }
}
