package io.spillway.policy;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Inbound admission: limits requests in flight on the edge. A request is admitted while in-flight
 * is below its tier's share of the learned limit. Every component is optional (null = deployment
 * value); ranges are in {@link PolicyField}.
 *
 * @param mode off, shadow or enforce
 * @param maxInFlight the starting limit, 1–100000; clamped into [minLimit, maxLimit], never an error
 * @param continuationShare share of the limit for work already started, 0.01–1
 * @param startShare share of the limit for new entries, 0.01–1 and at most continuationShare
 * @param retryAfterSeconds the {@code Retry-After} of a refusal, 1–60
 * @param adaptive how the limit is learned, or null
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Inbound(
    Mode mode,
    Integer maxInFlight,
    Double continuationShare,
    Double startShare,
    Integer retryAfterSeconds,
    Adaptive adaptive) {

  /** An inbound section that sets nothing. */
  public static final Inbound EMPTY = new Inbound(null, null, null, null, null, null);
}
