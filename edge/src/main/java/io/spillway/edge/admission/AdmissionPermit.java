package io.spillway.edge.admission;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The outcome of {@link AdmissionController#tryAcquire(Tier)}. A refused permit means: answer
 * {@code 503} with {@code Retry-After}. Every other permit must be released exactly once when the
 * request ends; releasing again (or releasing a refused or uncounted permit) does nothing, so a
 * double release cannot make the in-flight count wrong.
 *
 * <p>Refused and uncounted permits (mode off, tier exempt) are shared constants; an admitted,
 * counted permit is one small object holding its tier and its released flag — the per-request
 * handle that makes exactly-once release possible (a pooled or token-free design could not tell
 * a late second release from the next request's release).
 */
public final class AdmissionPermit {

  private static final VarHandle RELEASED;

  static {
    try {
      RELEASED = MethodHandles.lookup().findVarHandle(AdmissionPermit.class, "released", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Admitted without being counted: mode off or tier exempt. */
  static final AdmissionPermit UNCOUNTED = new AdmissionPermit(null, Tier.EXEMPT, true, false);
  /** Refused (enforce only). */
  static final AdmissionPermit REFUSED = new AdmissionPermit(null, Tier.EXEMPT, false, false);

  private final AdmissionController controller;
  private final Tier tier;
  private final boolean admitted;
  private final boolean shadowRefused;
  @SuppressWarnings("unused") // through RELEASED
  private volatile int released;

  AdmissionPermit(AdmissionController controller, Tier tier, boolean admitted, boolean shadowRefused) {
    this.controller = controller;
    this.tier = tier;
    this.admitted = admitted;
    this.shadowRefused = shadowRefused;
  }

  /** Whether the request may proceed. */
  public boolean admitted() {
    return admitted;
  }

  /** Whether the request must be refused with {@code 503} and {@code Retry-After}. */
  public boolean refused() {
    return !admitted;
  }

  /** Whether this permit holds a slot of the in-flight count until released. */
  public boolean counted() {
    return controller != null && !shadowRefused;
  }

  /**
   * Whether {@code enforce} would have refused this request (shadow only). Such a permit is
   * admitted but, as in enforce, takes no slot of the in-flight count; its call time is still
   * learned, because the call really happens.
   */
  public boolean shadowRefused() {
    return shadowRefused;
  }

  /** The tier the permit was taken for ({@link Tier#EXEMPT} for the shared constants). */
  public Tier tier() {
    return tier;
  }

  /**
   * Gives the slot back and feeds the call time to the learned limit. Only the first call on a
   * counted permit has any effect.
   *
   * @param durationNanos how long the request took
   * @param success whether it succeeded; a failed call's time is learned only when it was slow
   *     (a fast failure must not make the edge look faster than it is)
   */
  public void release(long durationNanos, boolean success) {
    if (controller != null && RELEASED.compareAndSet(this, 0, 1)) {
      controller.onRelease(tier, durationNanos, success, !shadowRefused);
    }
  }

  @Override
  public String toString() {
    if (controller == null) {
      return admitted ? "AdmissionPermit[uncounted]" : "AdmissionPermit[refused]";
    }
    return shadowRefused ? "AdmissionPermit[" + tier + ", shadow-refused]" : "AdmissionPermit[" + tier + "]";
  }
}
