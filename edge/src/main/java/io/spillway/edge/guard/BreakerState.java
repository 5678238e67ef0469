package io.spillway.edge.guard;

/** The circuit breaker's state; {@link #code()} is the value of {@code http_client_guard_breaker_state}. */
public enum BreakerState {
  /** Calls flow; failures are counted in the window. */
  CLOSED(0),
  /** Calls are refused until the open time ends. */
  OPEN(1),
  /** Exactly {@code probeCalls} probes may go through; the rest are refused. */
  HALF_OPEN(2);

  private final int code;

  BreakerState(int code) {
    this.code = code;
  }

  /** 0 closed, 1 open, 2 half-open. */
  public int code() {
    return code;
  }
}
