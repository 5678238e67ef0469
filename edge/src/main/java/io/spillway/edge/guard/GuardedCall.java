package io.spillway.edge.guard;

import java.time.Duration;
import java.util.OptionalInt;

/**
 * One call a filter makes to a side service (an authorization or rate limit service) through the
 * outbound guard of the service's cluster: admitted, queued (holding no thread) or refused, its
 * deadline capped by the guard's request timeout in {@code enforce}, and its permit released
 * exactly once — with the call's {@link Outcome}, or {@link Outcome#ABANDONED} when the request
 * goes away first. Used on the request's worker only; not thread-safe.
 */
public final class GuardedCall implements QueueCallback {

  /** What the filter does at each step. */
  public interface Steps {
    /** Make the call now, with this deadline (zero = none). */
    void call(Duration timeout);

    /** The guard refused the call: it is not made. */
    void refused(Refusal reason);
  }

  private final PeerGuard guard;
  private final Duration timeout;
  private final Steps steps;
  private Ticket ticket;
  private Permit permit;
  private boolean abandoned;

  /**
   * @param guard the cluster's guard, or null when it has none (the call is made at once)
   * @param timeout the filter's deadline for the call; zero = none
   */
  public GuardedCall(PeerGuard guard, Duration timeout, Steps steps) {
    this.guard = guard;
    this.timeout = timeout;
    this.steps = steps;
  }

  /** Asks the guard; the call (or the refusal) may follow inline, or later on {@code loop}. */
  public void start(GuardLoop loop) {
    if (guard == null) {
      steps.call(timeout);
      return;
    }
    switch (guard.tryAcquire(loop, this)) {
      case Permit p -> {
        permit = p;
        call();
      }
      case Refusal r -> steps.refused(r);
      case Ticket t -> ticket = t;
    }
  }

  @Override
  public void onAdmitted(Permit admitted) {
    ticket = null;
    if (abandoned) {
      admitted.release(Outcome.ABANDONED);
      return;
    }
    permit = admitted;
    call();
  }

  @Override
  public void onRefused(Refusal reason) {
    ticket = null;
    if (!abandoned) {
      steps.refused(reason);
    }
  }

  private void call() {
    Duration deadline = timeout;
    OptionalInt guardTimeout = guard.requestTimeoutMillis();
    if (guardTimeout.isPresent()) {
      Duration capped = Duration.ofMillis(guardTimeout.getAsInt());
      if (deadline.isZero() || capped.compareTo(deadline) < 0) {
        deadline = capped;
      }
    }
    steps.call(deadline);
  }

  /** The call ended: gives the permit back once, with how it ended. */
  public void release(Outcome outcome) {
    if (permit != null) {
      permit.release(outcome);
      permit = null;
    }
  }

  /** The request went away: withdraws a waiting call, gives a held permit back as abandoned. */
  public void abandon() {
    abandoned = true;
    if (ticket != null) {
      ticket.cancel(); // a permit it still brings is released in onAdmitted
      ticket = null;
    }
    release(Outcome.ABANDONED);
  }
}
