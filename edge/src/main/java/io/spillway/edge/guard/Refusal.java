package io.spillway.edge.guard;

/**
 * Why the guard refused (or, in shadow, would have refused) a call or a retry. A refusal is the
 * guard's own decision: it is never counted as a failure of the peer. Its {@link #label()} is the
 * {@code reason} label of {@code http_client_guard_rejected_total}.
 */
public enum Refusal implements Admission {
  /** All {@code maxConcurrent} slots busy and {@code maxQueue} calls already waiting. */
  QUEUE_FULL("queue_full"),
  /** Waited {@code queueTimeoutMillis} without a slot freeing. */
  QUEUE_TIMEOUT("queue_timeout"),
  /** The circuit breaker is open, or half-open with every probe slot taken. */
  BREAKER_OPEN("breaker_open"),
  /** A retry refused by the retry budget ({@link PeerGuard#canRetry()}); never a call refusal. */
  RETRY_BUDGET("retry_budget");

  private final String label;

  Refusal(String label) {
    this.label = label;
  }

  /** The {@code reason} label value. */
  public String label() {
    return label;
  }
}
