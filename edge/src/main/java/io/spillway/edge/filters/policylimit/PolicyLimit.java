package io.spillway.edge.filters.policylimit;

import io.netty.util.NetUtil;
import io.spillway.edge.filters.ratelimit.TokenBucket;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.CustomScope;
import io.spillway.policy.IpPrefix;
import io.spillway.policy.Mode;
import io.spillway.policy.RateLimit;
import io.spillway.policy.RateLimitKey;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One limit of the {@code rateLimits} policy, compiled for the hot path: its key, its exemptions
 * (a set of values, or address prefixes for {@code clientAddress}), its buckets and its counters
 * {@code http_ratelimit_checked_total{limit}} and {@code http_ratelimit_refused_total{limit,mode}}.
 */
final class PolicyLimit {
  final RateLimit config;
  final String name;
  final Mode mode;
  final RateLimitKey key;
  final KeyedBuckets buckets;
  final Counter checked;
  final Counter refusedShadow;
  final Counter refusedEnforce;
  private final Set<String> exemptValues;
  private final List<IpPrefix> exemptPrefixes;

  PolicyLimit(RateLimit config, CustomScope stats) {
    this.config = config;
    this.name = config.name();
    this.mode = config.effectiveMode();
    this.key = config.parsedKey();
    this.buckets = new KeyedBuckets(config.effectiveMaxKeys(), config.rate(), config.burst());
    this.checked = stats.counter("http_ratelimit_checked_total", Map.of("limit", name));
    this.refusedShadow = stats.counter("http_ratelimit_refused_total", Map.of("limit", name, "mode", "shadow"));
    this.refusedEnforce = stats.counter("http_ratelimit_refused_total", Map.of("limit", name, "mode", "enforce"));
    if (key.kind() == RateLimitKey.Kind.CLIENT_ADDRESS) {
      this.exemptValues = Set.of();
      this.exemptPrefixes = config.effectiveExempt().stream().map(IpPrefix::parse).toList();
    } else {
      this.exemptValues = Set.copyOf(config.effectiveExempt());
      this.exemptPrefixes = List.of();
    }
  }

  /** Whether requests with this key value are never limited. */
  boolean exempt(String value) {
    if (exemptPrefixes.isEmpty()) {
      return !exemptValues.isEmpty() && exemptValues.contains(value);
    }
    byte[] address = NetUtil.createByteArrayFromIpAddressString(value);
    for (IpPrefix prefix : exemptPrefixes) {
      if (prefix.contains(address)) {
        return true;
      }
    }
    return false;
  }

  /** The Retry-After of a refusal by {@code bucket}: the configured seconds, else until its refill. */
  long retryAfterSeconds(TokenBucket bucket, long nowNanos) {
    return config.retryAfterSeconds() != null ? config.retryAfterSeconds() : Math.max(1, bucket.resetSeconds(nowNanos));
  }

  /** The refusals counted in {@code m}. */
  long refused(Mode m) {
    return m == Mode.ENFORCE ? refusedEnforce.value() : refusedShadow.value();
  }
}
