package io.spillway.policy;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * How the inbound limit is learned from call times and executor lag. Every component is optional
 * (null = built-in default); ranges are in {@link PolicyField}.
 *
 * @param minLimit the learned limit never drops below this, 1–100000
 * @param maxLimit the learned limit never grows above this, 1–100000 and at least minLimit
 * @param tolerance how much slower than usual a call may get before the limit shrinks, 1–5
 * @param smoothing the share of a new estimate that replaces the limit, 0.01–1
 * @param lagTargetMillis how late the executor may fire a timer before it counts as a stall, 5–10000
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Adaptive(
    Integer minLimit, Integer maxLimit, Double tolerance, Double smoothing, Integer lagTargetMillis) {

  /** An adaptive section that sets nothing. */
  public static final Adaptive EMPTY = new Adaptive(null, null, null, null, null);
}
