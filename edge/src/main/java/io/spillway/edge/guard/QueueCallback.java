package io.spillway.edge.guard;

/**
 * Told how a queued call ({@link Ticket}) ends. Exactly one of the two methods is called, once,
 * on the {@link GuardLoop} the call was queued with, never inline in
 * {@link PeerGuard#tryAcquire}; neither is called after a successful {@link Ticket#cancel()}.
 */
public interface QueueCallback {

  /** A slot freed: make the call and release {@code permit} exactly once when it ends. */
  void onAdmitted(Permit permit);

  /** The wait ended without a slot ({@link Refusal#QUEUE_TIMEOUT}): answer {@code 503}. */
  void onRefused(Refusal reason);
}
