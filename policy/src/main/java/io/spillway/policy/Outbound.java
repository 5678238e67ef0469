package io.spillway.policy;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The outbound guard: protects each peer (upstream cluster) the edge calls. Queue and timeouts act
 * only in {@code enforce}. Every component is optional (null = deployment value); ranges are in
 * {@link PolicyField}.
 *
 * @param mode off, shadow or enforce
 * @param maxConcurrent calls in flight per peer, 1–100000
 * @param maxQueue calls that may wait for a slot, 1–100000
 * @param queueTimeoutMillis longest wait for a slot, 1–600000
 * @param requestTimeoutMillis time until response headers, 1–600000
 * @param breaker the circuit breaker, or null
 * @param retryBudget the retry budget, or null
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Outbound(
    Mode mode,
    Integer maxConcurrent,
    Integer maxQueue,
    Integer queueTimeoutMillis,
    Integer requestTimeoutMillis,
    Breaker breaker,
    RetryBudget retryBudget) {

  /** An outbound section that sets nothing. */
  public static final Outbound EMPTY = new Outbound(null, null, null, null, null, null, null);
}
