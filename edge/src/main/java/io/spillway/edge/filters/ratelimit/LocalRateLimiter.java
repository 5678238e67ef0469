package io.spillway.edge.filters.ratelimit;

import io.spillway.edge.config.LocalRateLimitConfig;
import io.spillway.edge.config.RateLimitPolicy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The buckets of one local rate limit configuration (Envoy's {@code LocalRateLimiterImpl}): the
 * default bucket, if any, and one bucket per configured descriptor. One instance is shared by every
 * worker, or one per downstream connection with {@code local_rate_limit_per_downstream_connection}.
 *
 * <p>The decision follows Envoy: every configured descriptor that one of the request's descriptors
 * equals is consumed, the one with the lowest fill rate first, and the first empty one refuses the
 * request (tokens already taken from others are not given back); then the default bucket is
 * consumed when no descriptor matched, or always with {@code always_consume_default_token_bucket}.
 */
final class LocalRateLimiter {

  /** What decided a request, and which bucket the x-ratelimit headers describe (null: none). */
  record Decision(boolean allowed, TokenBucket bucket) {}

  private final TokenBucket defaultBucket;
  /** Configured descriptors' entries, from the lowest fill rate up. */
  private final List<RateLimitPolicy.Entry>[] descriptorEntries;
  private final TokenBucket[] descriptorBuckets;
  private final boolean alwaysConsumeDefault;

  @SuppressWarnings("unchecked")
  LocalRateLimiter(LocalRateLimitConfig config, long nowNanos) {
    this.defaultBucket = config.tokenBucket().map(b -> bucket(b, nowNanos)).orElse(null);
    List<LocalRateLimitConfig.Descriptor> sorted = new ArrayList<>(config.descriptors());
    sorted.sort(Comparator.comparingDouble(d -> (double) d.tokenBucket().tokensPerFill()
        / d.tokenBucket().fillInterval().toNanos()));
    this.descriptorEntries = new List[sorted.size()];
    this.descriptorBuckets = new TokenBucket[sorted.size()];
    for (int i = 0; i < sorted.size(); i++) {
      descriptorEntries[i] = sorted.get(i).entries();
      descriptorBuckets[i] = bucket(sorted.get(i).tokenBucket(), nowNanos);
    }
    this.alwaysConsumeDefault = config.alwaysConsumeDefaultTokenBucket();
  }

  private static TokenBucket bucket(LocalRateLimitConfig.TokenBucket b, long nowNanos) {
    return new TokenBucket(b.maxTokens(), b.tokensPerFill(), b.fillInterval().toNanos(), nowNanos);
  }

  /**
   * Takes the request's tokens.
   *
   * @param requestDescriptors the request's descriptors (each a list of entries), possibly empty
   */
  Decision decide(List<List<RateLimitPolicy.Entry>> requestDescriptors, long nowNanos) {
    TokenBucket firstMatched = null;
    if (!requestDescriptors.isEmpty()) {
      for (int i = 0; i < descriptorEntries.length; i++) {
        if (!requestDescriptors.contains(descriptorEntries[i])) {
          continue;
        }
        TokenBucket bucket = descriptorBuckets[i];
        if (!bucket.tryConsume(nowNanos)) {
          return new Decision(false, bucket);
        }
        if (firstMatched == null) {
          firstMatched = bucket;
        }
      }
    }
    if (firstMatched == null || alwaysConsumeDefault) {
      if (defaultBucket == null) {
        return new Decision(true, firstMatched);
      }
      if (!defaultBucket.tryConsume(nowNanos)) {
        return new Decision(false, defaultBucket);
      }
    }
    return new Decision(true, firstMatched != null ? firstMatched : defaultBucket);
  }
}
