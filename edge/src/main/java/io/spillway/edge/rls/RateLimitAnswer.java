package io.spillway.edge.rls;

import java.util.List;

/**
 * The rate limit service's answer to one call, in plain types (Envoy's {@code RateLimitResponse}
 * as its filter reads it), or the failure of the call.
 *
 * @param code the overall code; {@code UNKNOWN} from the service is an {@link Code#ERROR}
 * @param requestHeadersToAdd added to the upstream request (OK only)
 * @param responseHeadersToAdd added to the client's response (or to the refusal)
 * @param statuses one per descriptor, in the request's order, for the x-ratelimit headers
 * @param body {@code raw_body}: the refusal's body (empty: none)
 * @param detail why the call failed ({@link Code#ERROR}), else empty
 * @param timedOut whether it failed because its deadline passed
 */
public record RateLimitAnswer(Code code, List<Header> requestHeadersToAdd, List<Header> responseHeadersToAdd,
    List<DescriptorStatus> statuses, String body, String detail, boolean timedOut) {

  public RateLimitAnswer {
    requestHeadersToAdd = List.copyOf(requestHeadersToAdd);
    responseHeadersToAdd = List.copyOf(responseHeadersToAdd);
    statuses = List.copyOf(statuses);
  }

  /** A failed call: no answer from the service, or one it could not mean. */
  public static RateLimitAnswer error(String detail, boolean timedOut) {
    return new RateLimitAnswer(Code.ERROR, List.of(), List.of(), List.of(), "", detail, timedOut);
  }

  /** The outcome of a call. */
  public enum Code {
    /** Under every limit. */
    OK,
    /** Over at least one limit. */
    OVER_LIMIT,
    /** The call failed, timed out, or the service answered {@code UNKNOWN}. */
    ERROR
  }

  /** A header the service asks for, as it sent it (the filter checks it). */
  public record Header(String name, String value) {}

  /**
   * One descriptor's status.
   *
   * @param limited whether the service sent its {@code current_limit}
   * @param requestsPerUnit the limit's {@code requests_per_unit}
   * @param unitSeconds the limit's unit in seconds (0: a unit the headers cannot express)
   * @param name the limit's {@code name}, or empty
   * @param remaining {@code limit_remaining}
   * @param resetSeconds {@code duration_until_reset}, whole seconds
   */
  public record DescriptorStatus(boolean limited, long requestsPerUnit, long unitSeconds, String name, long remaining,
      long resetSeconds) {}
}
