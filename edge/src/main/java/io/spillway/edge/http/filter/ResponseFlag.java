package io.spillway.edge.http.filter;

/**
 * Envoy's response flags (the access log's {@code %RESPONSE_FLAGS%}) that Spillway sets. Each is
 * one bit so a request's flags are one int.
 */
public enum ResponseFlag {
  /** No healthy upstream host. */
  UH,
  /** Upstream connection failure. */
  UF,
  /** Upstream overflow: a circuit breaker refused the request. */
  UO,
  /** Upstream request timeout. */
  UT,
  /** Upstream remote reset. */
  UR,
  /** Upstream retry limit exceeded. */
  URX,
  /** No route. */
  NR,
  /** No cluster for the route. */
  NC,
  /** Local reset before the upstream answered / downstream connection termination. */
  DC,
  /** Local reply (direct response, redirect, bad request). */
  LR,
  /** Stream idle timeout. */
  SI,
  /** The request's headers or body broke a limit. */
  DPE,
  /** Overload manager refused the request. */
  OM,
  /** The external authorization service denied the request, or the check failed (ext_authz). */
  UAEX,
  /** Ours: inbound admission refused the request (503 with Retry-After). */
  AR,
  /** Ours: the outbound guard refused the call (queue full, queue timeout, breaker open). */
  GR,
  /** Rate limited: a local rate limit or the rate limit service refused the request. */
  RL,
  /** The rate limit service failed and {@code failure_mode_deny} refused the request. */
  RLSE,
  /** The fault filter delayed the request. */
  DI,
  /** The fault filter aborted the request. */
  FI,
  /** The stream reached its route's {@code max_stream_duration}. */
  DT;

  public int bit() {
    return 1 << ordinal();
  }

  /** Envoy's string form: flags joined by commas, "-" when none. */
  public static String format(int flags) {
    if (flags == 0) {
      return "-";
    }
    StringBuilder sb = new StringBuilder();
    for (ResponseFlag f : values()) {
      if ((flags & f.bit()) != 0) {
        if (!sb.isEmpty()) {
          sb.append(',');
        }
        sb.append(f.name());
      }
    }
    return sb.toString();
  }
}
