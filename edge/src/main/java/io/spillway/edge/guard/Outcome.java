package io.spillway.edge.guard;

/**
 * How a guarded call ended, given to {@link Permit#release(Outcome)}. Transport errors, timeouts
 * and {@code 502}/{@code 503}/{@code 504} are failures of the peer and feed the circuit breaker;
 * {@link #ABANDONED} (the downstream went away, the call was never sent, ...) says nothing about
 * the peer and counts neither way.
 */
public enum Outcome {
  /** Response headers arrived with any status other than 502, 503 or 504. */
  SUCCESS(false),
  /** Connect failure, reset or other transport error before the response headers. */
  TRANSPORT_ERROR(true),
  /** The request timeout expired before the response headers (the router answers {@code 504}). */
  TIMEOUT(true),
  /** The peer answered {@code 502}. */
  HTTP_502(true),
  /** The peer answered {@code 503}. */
  HTTP_503(true),
  /** The peer answered {@code 504}. */
  HTTP_504(true),
  /** Ended without a verdict on the peer; not counted. */
  ABANDONED(false);

  private final boolean failure;

  Outcome(boolean failure) {
    this.failure = failure;
  }

  /** Whether this outcome counts as a failure of the peer. */
  public boolean failure() {
    return failure;
  }

  /** Whether this outcome is counted by the breaker at all (everything but {@link #ABANDONED}). */
  public boolean counted() {
    return this != ABANDONED;
  }

  /** The outcome of response headers with this status. */
  public static Outcome ofStatus(int status) {
    return switch (status) {
      case 502 -> HTTP_502;
      case 503 -> HTTP_503;
      case 504 -> HTTP_504;
      default -> SUCCESS;
    };
  }
}
