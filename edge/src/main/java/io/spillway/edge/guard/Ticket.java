package io.spillway.edge.guard;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.RejectedExecutionException;

/**
 * A call waiting for a slot (enforce: the router's handle; shadow: the guard's simulation of the
 * wait enforce would have had). Its state moves once, by CAS, from waiting to admitted, timed out
 * or cancelled, so exactly one of a freed slot, the timer and a cancel wins.
 */
public final class Ticket implements Admission {

  private static final int WAITING = 0;
  private static final int ADMITTED = 1;
  private static final int TIMED_OUT = 2;
  private static final int CANCELLED = 3;

  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(Ticket.class, "state", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final PeerGuard guard;
  private final GuardLoop loop;
  private final QueueCallback callback;
  private final boolean shadow;
  private final long probe;
  private volatile int state = WAITING;
  private volatile GuardLoop.Cancellable timer;

  Ticket(PeerGuard guard, GuardLoop loop, QueueCallback callback, boolean shadow, long probe) {
    this.guard = guard;
    this.loop = loop;
    this.callback = callback;
    this.shadow = shadow;
    this.probe = probe;
  }

  void arm(long delayMillis) {
    timer = loop.schedule(this::onTimeout, delayMillis);
  }

  /**
   * Withdraws a call still waiting (the downstream request went away). Returns {@code true} when
   * it was still waiting: no callback will come. {@code false} means the callback has fired or
   * will: if it brings a {@link Permit}, release that permit (e.g. with {@link Outcome#ABANDONED}).
   */
  public boolean cancel() {
    if (!withdraw()) {
      return false;
    }
    if (probe >= 0) {
      guard.abandonProbe(probe);
    }
    return true;
  }

  /** Whether the call is still waiting. */
  public boolean waiting() {
    return state == WAITING;
  }

  boolean admitted() {
    return state == ADMITTED;
  }

  /** Leaves the queue if still waiting; no refusal is counted. */
  boolean withdraw() {
    if (!STATE.compareAndSet(this, WAITING, CANCELLED)) {
      return false;
    }
    leave();
    return true;
  }

  /** Called by the drain once it has reserved a slot for this ticket; false if no longer waiting. */
  boolean claim() {
    if (!STATE.compareAndSet(this, WAITING, ADMITTED)) {
      return false;
    }
    guard.leftQueue();
    cancelTimer();
    return true;
  }

  /** Hands the reserved slot to the waiting router (enforce). */
  void deliver() {
    if (shadow) {
      return; // the shadow call is already running; its permit now holds the slot
    }
    Permit permit = new Permit(guard, true, false, probe, null);
    try {
      loop.execute(() -> callback.onAdmitted(permit));
    } catch (RejectedExecutionException e) {
      permit.release(Outcome.ABANDONED); // the worker is gone: give the slot back
    }
  }

  private void onTimeout() {
    if (!STATE.compareAndSet(this, WAITING, TIMED_OUT)) {
      return;
    }
    leave();
    if (probe >= 0) {
      guard.abandonProbe(probe);
    }
    guard.countRefusal(shadow, Refusal.QUEUE_TIMEOUT);
    if (!shadow) {
      callback.onRefused(Refusal.QUEUE_TIMEOUT); // timers run on the loop already
    }
  }

  private void leave() {
    guard.leftQueue();
    guard.unlink(this);
    cancelTimer();
  }

  private void cancelTimer() {
    GuardLoop.Cancellable t = timer;
    if (t != null) {
      t.cancel();
    }
  }

  @Override
  public String toString() {
    String[] names = {"waiting", "admitted", "timed-out", "cancelled"};
    return "Ticket[" + guard.peer() + ", " + names[state] + (shadow ? ", shadow" : "") + "]";
  }
}
