package io.spillway.edge.filters.policylimit;

import io.netty.util.NetUtil;
import io.spillway.edge.filters.ratelimit.TokenBucket;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.CustomScope;
import io.spillway.policy.IpPrefix;
import io.spillway.policy.Mode;
import io.spillway.policy.RateLimit;
import io.spillway.policy.RateLimitKey;
import io.spillway.policy.RateLimitScope;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One limit of the {@code rateLimits} policy, compiled for the hot path: its key, its exemptions
 * (a set of values, or address prefixes for {@code clientAddress}), its buckets and its counters
 * {@code http_ratelimit_checked_total{limit}} and {@code http_ratelimit_refused_total{limit,mode}}.
 * A fleet-wide limit also counts its calls to the shared count,
 * {@code http_ratelimit_fleet_calls_total{limit}}, and the requests it checked on this edge alone
 * because the shared count could not answer, {@code http_ratelimit_fleet_fallback_total{limit,reason}}.
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
  /** The shared count of a fleet-wide limit; null for an edge-scoped one. */
  final FleetCounter fleet;
  private final FleetCounter.Cell fleetCell;
  final Counter fleetCalls;
  final Counter fallbackTimeout;
  final Counter fallbackError;
  final Counter fallbackUnavailable;
  private final Set<String> exemptValues;
  private final List<IpPrefix> exemptPrefixes;

  /**
   * @param fleet the shared count; used (and required) when the limit's scope is fleet
   */
  PolicyLimit(RateLimit config, CustomScope stats, FleetCounter fleet) {
    this.config = config;
    this.name = config.name();
    this.mode = config.effectiveMode();
    this.key = config.parsedKey();
    this.buckets = new KeyedBuckets(config.effectiveMaxKeys(), config.rate(), config.burst());
    this.checked = stats.counter("http_ratelimit_checked_total", Map.of("limit", name));
    this.refusedShadow = stats.counter("http_ratelimit_refused_total", Map.of("limit", name, "mode", "shadow"));
    this.refusedEnforce = stats.counter("http_ratelimit_refused_total", Map.of("limit", name, "mode", "enforce"));
    if (config.effectiveScope() == RateLimitScope.FLEET) {
      if (fleet == null) {
        throw new IllegalArgumentException("rate limit " + name + " is fleet-wide but the edge has no Redis");
      }
      this.fleet = fleet;
      this.fleetCell = fleet.cell(name, config.rate(), config.burst());
      this.fleetCalls = stats.counter("http_ratelimit_fleet_calls_total", Map.of("limit", name));
      this.fallbackTimeout = fallback(stats, "timeout");
      this.fallbackError = fallback(stats, "error");
      this.fallbackUnavailable = fallback(stats, "unavailable");
    } else {
      this.fleet = null;
      this.fleetCell = null;
      this.fleetCalls = null;
      this.fallbackTimeout = null;
      this.fallbackError = null;
      this.fallbackUnavailable = null;
    }
    if (key.kind() == RateLimitKey.Kind.CLIENT_ADDRESS) {
      this.exemptValues = Set.of();
      this.exemptPrefixes = config.effectiveExempt().stream().map(IpPrefix::parse).toList();
    } else {
      this.exemptValues = Set.copyOf(config.effectiveExempt());
      this.exemptPrefixes = List.of();
    }
  }

  private Counter fallback(CustomScope stats, String reason) {
    return stats.counter("http_ratelimit_fleet_fallback_total", Map.of("limit", name, "reason", reason));
  }

  /** Takes one request from the shared allowance of {@code entry}'s key value (a fleet-wide limit only). */
  java.util.concurrent.CompletionStage<FleetCounter.Answer> take(KeyedBuckets.Entry entry) {
    fleetCalls.inc();
    return fleetCell.take(entry.key, KeyedBuckets.isHash(entry.key));
  }

  /** A request checked on this edge alone because the shared count gave no answer of {@code outcome} (null: not asked). */
  void countFallback(FleetCounter.Outcome outcome) {
    (outcome == null ? fallbackUnavailable : outcome == FleetCounter.Outcome.TIMEOUT ? fallbackTimeout : fallbackError).inc();
  }

  /** The Retry-After of a refusal by the shared count that admits one more after {@code retryAfterMicros}. */
  long retryAfterSeconds(long retryAfterMicros) {
    return config.retryAfterSeconds() != null ? config.retryAfterSeconds()
        : Math.max(1, (retryAfterMicros + 999_999) / 1_000_000);
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
