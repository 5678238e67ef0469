package io.spillway.edge.upstream;

import io.spillway.edge.config.ClusterConfig;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A cluster's circuit-breaker counters, shared by all workers: connections, pending requests,
 * active requests and active retries, each bounded by its threshold. Lock-free: each acquire is a
 * CAS loop that never lets the count pass its limit.
 *
 * <p>Requests and pending requests are also shared fairly between downstream connections: a
 * connection that already holds {@code n} slots of one of these budgets gets another only while
 * more than {@code n} are free ({@code active + n < max}). Alone, a connection can take half the
 * budget (rounded up); k connections that all want more end up with about {@code max / (k + 1)}
 * each, and about as much stays free; a connection that holds nothing gets a slot whenever one is
 * free, so many small clients can still use the whole budget.
 */
public final class ResourceLimits {
  private final ClusterConfig.Thresholds thresholds;
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger pending = new AtomicInteger();
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger retries = new AtomicInteger();

  /** What an attempt to take a request or pending slot came to. */
  public enum Slot {
    TAKEN,
    /** The breaker is full. */
    FULL,
    /** The downstream connection already holds its share (no more than it holds is free). */
    OVER_SHARE
  }

  public ResourceLimits(ClusterConfig.Thresholds thresholds) {
    this.thresholds = thresholds;
  }

  public boolean tryAcquireConnection() {
    return tryAcquire(connections, thresholds.maxConnections());
  }

  public void releaseConnection() {
    connections.decrementAndGet();
  }

  /** A pending slot for a downstream connection whose requests already wait in {@code held} of them. */
  public Slot tryAcquirePending(int held) {
    return tryAcquireShare(pending, thresholds.maxPendingRequests(), held);
  }

  public void releasePending() {
    pending.decrementAndGet();
  }

  /** A request slot for a downstream connection that already holds {@code held} of them. */
  public Slot tryAcquireRequest(int held) {
    return tryAcquireShare(requests, thresholds.maxRequests(), held);
  }

  public void releaseRequest() {
    requests.decrementAndGet();
  }

  public boolean tryAcquireRetry() {
    return tryAcquire(retries, thresholds.maxRetries());
  }

  public void releaseRetry() {
    retries.decrementAndGet();
  }

  public int connections() {
    return connections.get();
  }

  public int pending() {
    return pending.get();
  }

  public int requests() {
    return requests.get();
  }

  public int retries() {
    return retries.get();
  }

  public ClusterConfig.Thresholds thresholds() {
    return thresholds;
  }

  private static Slot tryAcquireShare(AtomicInteger counter, int max, int held) {
    while (true) {
      int current = counter.get();
      if (current >= max) {
        return Slot.FULL;
      }
      if (held >= max - current) {
        return Slot.OVER_SHARE;
      }
      if (counter.compareAndSet(current, current + 1)) {
        return Slot.TAKEN;
      }
    }
  }

  private static boolean tryAcquire(AtomicInteger counter, int max) {
    while (true) {
      int current = counter.get();
      if (current >= max) {
        return false;
      }
      if (counter.compareAndSet(current, current + 1)) {
        return true;
      }
    }
  }
}
