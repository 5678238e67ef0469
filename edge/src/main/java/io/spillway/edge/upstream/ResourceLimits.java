package io.spillway.edge.upstream;

import io.spillway.edge.config.ClusterConfig;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A cluster's circuit-breaker counters, shared by all workers: connections, pending requests,
 * active requests and active retries, each bounded by its threshold. Lock-free: each acquire is a
 * CAS loop that never lets the count pass its limit.
 */
public final class ResourceLimits {
  private final ClusterConfig.Thresholds thresholds;
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger pending = new AtomicInteger();
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger retries = new AtomicInteger();

  public ResourceLimits(ClusterConfig.Thresholds thresholds) {
    this.thresholds = thresholds;
  }

  public boolean tryAcquireConnection() {
    return tryAcquire(connections, thresholds.maxConnections());
  }

  public void releaseConnection() {
    connections.decrementAndGet();
  }

  public boolean tryAcquirePending() {
    return tryAcquire(pending, thresholds.maxPendingRequests());
  }

  public void releasePending() {
    pending.decrementAndGet();
  }

  public boolean tryAcquireRequest() {
    return tryAcquire(requests, thresholds.maxRequests());
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
