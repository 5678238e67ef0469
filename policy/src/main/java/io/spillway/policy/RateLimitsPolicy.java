package io.spillway.policy;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Optional;

/**
 * The {@code rateLimits} section of an edge's policy (SPEC §9): limits per caller key, each a token
 * bucket per distinct key value, answered with 429 in enforce. Read and checked by
 * {@link RateLimitJson} along the {@link RateLimitField} table; sent to the edge in the policy xDS
 * resource by {@link RateLimitProto}.
 *
 * @param limits the limits, names unique, at most {@link RateLimitField#MAX_LIMITS}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record RateLimitsPolicy(List<RateLimit> limits) {

  /** The section's key in the policy API. */
  public static final String SECTION = "rateLimits";

  /** No limits. */
  public static final RateLimitsPolicy EMPTY = new RateLimitsPolicy(List.of());

  /** Copies the list. */
  public RateLimitsPolicy {
    limits = limits == null ? List.of() : List.copyOf(limits);
  }

  /** The limit called {@code name}, if there is one. */
  public Optional<RateLimit> limit(String name) {
    return limits.stream().filter(l -> l.name().equals(name)).findFirst();
  }

  /** The path of the limit at {@code index}: {@code rateLimits.limits[1]}. */
  public static String limitPath(int index) {
    return SECTION + ".limits[" + index + "]";
  }
}
