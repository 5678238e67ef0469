package io.spillway.policy;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * How many retries the edge may spend on a peer. Every component is optional (null = built-in
 * default); ranges are in {@link PolicyField}.
 *
 * @param ratio retries allowed per call made, 0–1
 * @param minPerSecond retries per second always allowed, 0–1000
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record RetryBudget(Double ratio, Integer minPerSecond) {

  /** A retry budget section that sets nothing. */
  public static final RetryBudget EMPTY = new RetryBudget(null, null);
}
