package io.spillway.policy;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * One rate limit of the {@code rateLimits} section; fields and ranges in {@link RateLimitField}.
 * Optional components are null when absent and left out of the JSON; the {@code effective…}
 * accessors give the value the edge applies.
 *
 * @param name unique name, for metrics and /ratelimits
 * @param key {@code clientAddress}, {@code header:<name>} or {@code route} ({@link RateLimitKey})
 * @param rate requests per second per key value
 * @param burst bucket size per key value
 * @param mode off, shadow or enforce; null: shadow
 * @param retryAfterSeconds the refusal's Retry-After; null: the seconds until the bucket refills
 * @param exempt key values (or, for clientAddress, addresses and CIDR prefixes) never limited; null: none
 * @param maxKeys distinct key values tracked; null: 10000
 * @param scope edge (counted on this edge) or fleet (counted in Redis across every edge with it); null: edge
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record RateLimit(String name, String key, Double rate, Integer burst, Mode mode, Integer retryAfterSeconds,
    List<String> exempt, Integer maxKeys, RateLimitScope scope) {

  /** Copies the exempt list. */
  public RateLimit {
    exempt = exempt == null ? null : List.copyOf(exempt);
  }

  /** A limit without a scope (counted on each edge). */
  public RateLimit(String name, String key, Double rate, Integer burst, Mode mode, Integer retryAfterSeconds,
      List<String> exempt, Integer maxKeys) {
    this(name, key, rate, burst, mode, retryAfterSeconds, exempt, maxKeys, null);
  }

  /** The scope applied: edge when absent. */
  @JsonIgnore
  public RateLimitScope effectiveScope() {
    return scope != null ? scope : (RateLimitScope) RateLimitField.SCOPE.defaultValue();
  }

  /** The mode applied: shadow when absent. */
  @JsonIgnore
  public Mode effectiveMode() {
    return mode != null ? mode : (Mode) RateLimitField.MODE.defaultValue();
  }

  /** The exempt values applied: none when absent. */
  @JsonIgnore
  public List<String> effectiveExempt() {
    return exempt != null ? exempt : List.of();
  }

  /** The key values tracked: 10000 when absent. */
  @JsonIgnore
  public int effectiveMaxKeys() {
    return maxKeys != null ? maxKeys : (Integer) RateLimitField.MAX_KEYS.defaultValue();
  }

  /** The parsed key; only for a validated limit. */
  @JsonIgnore
  public RateLimitKey parsedKey() {
    RateLimitKey parsed = RateLimitKey.parse(key);
    if (parsed == null) {
      throw new IllegalStateException("rate limit " + name + " has an invalid key " + key);
    }
    return parsed;
  }
}
