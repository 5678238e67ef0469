package io.spillway.edge.guard;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An admitted call. Release it exactly once, when the call ends, with its {@link Outcome}; a second
 * release does nothing and returns {@code false}, so a double release cannot make the in-flight
 * count wrong. The mode-off permit is a shared constant holding nothing.
 *
 * <p>In shadow a permit may be {@link #shadowRefused()} (enforce would have refused the call: it
 * holds no slot and its outcome is not fed to the breaker, as the call would not have happened) or
 * may stand for a call that enforce would have queued (it holds a queue place, then a slot once
 * one frees, or nothing once the simulated wait timed out).
 */
public final class Permit implements Admission {

  private static final VarHandle RELEASED;

  static {
    try {
      RELEASED = MethodHandles.lookup().findVarHandle(Permit.class, "released", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Mode off: nothing counted, nothing held. */
  static final Permit UNCOUNTED = new Permit(null, false, false, PeerBreaker.NORMAL, null);

  private final PeerGuard guard;
  private final boolean holdsSlot;
  private final boolean shadowRefused;
  private final long probe;
  private final Ticket shadowTicket;
  @SuppressWarnings("unused") // through RELEASED
  private volatile int released;

  Permit(PeerGuard guard, boolean holdsSlot, boolean shadowRefused, long probe, Ticket shadowTicket) {
    this.guard = guard;
    this.holdsSlot = holdsSlot;
    this.shadowRefused = shadowRefused;
    this.probe = probe;
    this.shadowTicket = shadowTicket;
  }

  /** Whether the guard counts this call at all (false in mode off). */
  public boolean counted() {
    return guard != null;
  }

  /** Whether enforce would have refused this call (shadow only). */
  public boolean shadowRefused() {
    return shadowRefused;
  }

  /** Whether enforce would have queued this call (shadow only). */
  public boolean shadowQueued() {
    return shadowTicket != null;
  }

  /** Whether this call is one of the half-open breaker's probes. */
  public boolean probe() {
    return probe >= 0;
  }

  /**
   * Ends the call: frees its slot (admitting the next queued call, if any) and feeds the outcome
   * to the breaker. Only the first release has an effect.
   *
   * @return whether this was the first release (always true for the mode-off permit, which holds
   *     nothing and is shared)
   */
  public boolean release(Outcome outcome) {
    if (guard == null) {
      return true; // the shared mode-off permit holds nothing
    }
    if (!RELEASED.compareAndSet(this, 0, 1)) {
      return false;
    }
    boolean feedBreaker = !shadowRefused;
    if (shadowTicket != null) {
      if (!shadowTicket.withdraw()) {
        if (shadowTicket.admitted()) {
          guard.releaseSlot();
        } else {
          feedBreaker = false; // the simulated wait timed out: enforce would not have made the call
        }
      }
    } else if (holdsSlot) {
      guard.releaseSlot();
    }
    if (feedBreaker) {
      guard.onOutcome(outcome, probe);
    }
    return true;
  }

  @Override
  public String toString() {
    if (guard == null) {
      return "Permit[uncounted]";
    }
    return "Permit[" + guard.peer() + (shadowRefused ? ", shadow-refused" : "") + (shadowTicket != null ? ", shadow-queued" : "")
        + (probe >= 0 ? ", probe" : "") + "]";
  }
}
