package io.spillway.policy;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The per-peer circuit breaker. Every component is optional (null = built-in default); ranges are
 * in {@link PolicyField}.
 *
 * @param enabled off until enabled
 * @param failureRatio share of failed calls (transport error, timeout, 502, 503, 504) that opens, 0.01–1
 * @param minCalls calls in the window before the ratio counts, 1–10000
 * @param windowSeconds the window the ratio is measured over, 1–300
 * @param openSeconds open time before probing, 1–600
 * @param probeCalls calls let through half-open, 1–100
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Breaker(
    Boolean enabled,
    Double failureRatio,
    Integer minCalls,
    Integer windowSeconds,
    Integer openSeconds,
    Integer probeCalls) {

  /** A breaker section that sets nothing. */
  public static final Breaker EMPTY = new Breaker(null, null, null, null, null, null);
}
