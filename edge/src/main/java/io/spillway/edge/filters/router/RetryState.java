package io.spillway.edge.filters.router;

import io.spillway.edge.config.RetryPolicy.RetryOn;
import io.spillway.edge.config.RetryPolicy;
import io.spillway.edge.guard.PeerGuard;
import io.spillway.edge.upstream.Cluster;
import io.spillway.edge.upstream.Host;
import io.spillway.edge.upstream.StreamCallbacks.PoolFailure;
import java.util.random.RandomGenerator;

/**
 * One request's retries (Envoy's {@code RetryStateImpl}): which failures the route's
 * {@code retry_policy} retries, how many tries are left, the cluster's retry circuit breaker and
 * the peer's retry budget, the jittered exponential back-off, and the host to avoid next.
 */
final class RetryState {
  private final RetryPolicy policy;
  private final Cluster cluster;
  private final PeerGuard guard;
  private int retriesUsed;
  private boolean slotHeld;
  private boolean exhausted;
  private Host lastFailedHost;

  RetryState(RetryPolicy policy, Cluster cluster, PeerGuard guard) {
    this.policy = policy;
    this.cluster = cluster;
    this.guard = guard;
  }

  /** Whether the body must be kept whole for a later try. */
  boolean enabled() {
    return policy.enabled();
  }

  int retriesUsed() {
    return retriesUsed;
  }

  /** The try ran out of retries (response flag URX). */
  boolean exhausted() {
    return exhausted;
  }

  Host hostToAvoid() {
    return lastFailedHost;
  }

  void failedOn(Host host) {
    lastFailedHost = host;
  }

  boolean retriesStatus(int code) {
    if (policy.retryOn().isEmpty()) {
      return false;
    }
    return (code >= 500 && on(RetryOn.FIVE_XX))
        || ((code == 502 || code == 503 || code == 504) && on(RetryOn.GATEWAY_ERROR))
        || (on(RetryOn.RETRIABLE_STATUS_CODES) && policy.retriableStatusCodes().contains(code));
  }

  boolean retriesReset() {
    return on(RetryOn.RESET) || on(RetryOn.FIVE_XX);
  }

  boolean retriesPerTryTimeout() {
    return on(RetryOn.FIVE_XX) || on(RetryOn.GATEWAY_ERROR) || on(RetryOn.RESET);
  }

  boolean retriesPoolFailure(PoolFailure failure) {
    return on(RetryOn.CONNECT_FAILURE) || on(RetryOn.FIVE_XX) || on(RetryOn.GATEWAY_ERROR)
        || (failure == PoolFailure.CONNECTION_TERMINATED && on(RetryOn.RESET));
  }

  long perTryTimeoutNanos() {
    return policy.perTryTimeout().toNanos();
  }

  /** Whether another try may go: tries left, and the body can be sent again. */
  boolean mayRetry(boolean responseStarted, boolean bodyReplayable) {
    if (responseStarted || retriesUsed >= policy.numRetries()) {
      if (policy.enabled() && retriesUsed >= policy.numRetries()) {
        exhausted = true;
      }
      return false;
    }
    return bodyReplayable;
  }

  /**
   * Takes a retry: the peer's budget, then the cluster's retry slot (one held per request).
   *
   * @return the back-off before the next try in nanoseconds, or -1 when no retry may be taken
   */
  long takeRetry(RandomGenerator random) {
    if (guard != null && !guard.canRetry()) {
      return -1; // the retry budget is spent; counted by the guard, never a peer failure
    }
    releaseSlot();
    if (!cluster.limits().tryAcquireRetry()) {
      cluster.stats().upstreamRqRetryOverflow.inc();
      return -1;
    }
    slotHeld = true;
    retriesUsed++;
    cluster.stats().upstreamRqRetry.inc();
    long base = Math.max(1, policy.backoffBase().toNanos());
    long cap = Math.max(base, policy.backoffMax().toNanos());
    long ceiling = Math.min(cap, base << Math.min(retriesUsed - 1, 20));
    return Math.max(1, (long) (random.nextDouble() * ceiling));
  }

  void releaseSlot() {
    if (slotHeld) {
      cluster.limits().releaseRetry();
      slotHeld = false;
    }
  }

  private boolean on(RetryOn condition) {
    return policy.retryOn().contains(condition);
  }
}
