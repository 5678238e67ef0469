package io.spillway.edge.guard;

import io.spillway.policy.EffectivePolicy;

/**
 * A Finagle-style retry budget over the last {@value #WINDOW_SECONDS} seconds: every call made
 * deposits {@code ratio} of a retry, every retry withdraws one, and {@code minPerSecond} retries
 * per second are always allowed. Concretely a retry is allowed when
 *
 * <pre>
 *   retries this second + 1 ≤ minPerSecond
 *   or retries in the window + 1 ≤ ratio × (calls in the window − retries in the window)
 * </pre>
 *
 * (calls count every admitted attempt, retries included, so {@code calls − retries} are first
 * attempts). The check and the withdrawal are one CAS on the current second's cell, so concurrent
 * retries cannot overspend the current second. Cells: {@code a} = calls, {@code b} = retries.
 */
final class PeerRetryBudget {

  static final int WINDOW_SECONDS = 10;

  private final SecondsRing ring = new SecondsRing(WINDOW_SECONDS + 1);

  void onCall(long second) {
    ring.add(second, 1, 0);
  }

  /** Whether a retry is allowed now; when it is, it is withdrawn from the budget. */
  boolean tryWithdraw(EffectivePolicy.RetryBudget settings, long second) {
    int i = ring.index(second);
    long t = SecondsRing.tag(second);
    for (;;) {
      long cell = ring.raw(i);
      long cellTag = SecondsRing.tagOf(cell);
      boolean current = cellTag == t;
      if (!current && !SecondsRing.older(cellTag, t)) {
        return true; // our clock read is behind another thread's: allow, record nothing
      }
      long callsNow = current ? SecondsRing.aOf(cell) : 0;
      long retriesNow = current ? SecondsRing.bOf(cell) : 0;
      long past = ring.sum(second - 1, WINDOW_SECONDS - 1, 0);
      long calls = SecondsRing.sumA(past) + callsNow;
      long retries = SecondsRing.sumB(past) + retriesNow;
      boolean allowed = retriesNow + 1 <= settings.minPerSecond()
          || retries + 1 <= settings.ratio() * Math.max(0, calls - retries);
      if (!allowed) {
        return false;
      }
      long next = SecondsRing.pack(t, callsNow, Math.min(SecondsRing.COUNT_MAX, retriesNow + 1));
      if (ring.compareAndSet(i, cell, next)) {
        return true;
      }
    }
  }
}
