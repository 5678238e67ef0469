package io.spillway.edge.overload;

import io.spillway.edge.stats.Counter;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Envoy's proactive resource {@code envoy.resource_monitors.global_downstream_max_connections}: the
 * number of active downstream connections across every listener and worker, updated on accept and
 * close rather than polled. One instance per process, shared by all workers.
 *
 * <p>A listener calls {@link #tryAllocate()} when it accepts a connection and closes the connection
 * when that returns false; listeners with {@code ignore_global_conn_limit} and the admin listener
 * call {@link #allocateIgnoringLimit()}, which always succeeds but still counts, so such connections
 * take their share of the limit from the others. Every accepted connection calls
 * {@link #deallocate()} exactly once when it closes. A refused allocation counts
 * {@code overload.<name>.failed_updates}, as in Envoy.
 *
 * <p>Cost: a CAS loop on one shared {@link AtomicLong} that never lets the limited count pass the
 * limit (as the cluster circuit breakers do); no lock, no allocation. Without a configured limit it
 * still counts, and never refuses.
 */
public final class GlobalConnectionLimit {

  private final long limit;
  private final AtomicLong active = new AtomicLong();
  private final Counter failedUpdates;

  /**
   * @param limit the maximum of active connections; empty for no limit
   * @param failedUpdates counts refused allocations; null when the monitor is not configured
   */
  GlobalConnectionLimit(OptionalLong limit, Counter failedUpdates) {
    this.limit = limit.orElse(Long.MAX_VALUE);
    if (this.limit <= 0) {
      throw new IllegalArgumentException("limit must be greater than 0: " + this.limit);
    }
    this.failedUpdates = failedUpdates;
  }

  /** No limit, no stats: what listeners use when the monitor is not configured. */
  public static GlobalConnectionLimit unlimited() {
    return new GlobalConnectionLimit(OptionalLong.empty(), null);
  }

  /**
   * Counts one more connection if that stays within the limit. Hot path (accept).
   *
   * @return false, counting nothing but {@code failed_updates}, if the limit is reached
   */
  public boolean tryAllocate() {
    return tryAllocate(Long.MAX_VALUE);
  }

  /**
   * {@link #tryAllocate()} with a limit for when the monitor sets none: the deprecated runtime key
   * {@code overload.global_downstream_max_connections}, which the monitor overrides as in Envoy.
   */
  public boolean tryAllocate(long limitWithoutMonitor) {
    long effective = limit == Long.MAX_VALUE ? limitWithoutMonitor : limit;
    long current;
    do {
      current = active.get();
      if (current >= effective) {
        if (failedUpdates != null) {
          failedUpdates.inc();
        }
        return false;
      }
    } while (!active.compareAndSet(current, current + 1));
    return true;
  }

  /** Counts one more connection whatever the limit (ignore_global_conn_limit, admin). Hot path. */
  public void allocateIgnoringLimit() {
    active.incrementAndGet();
  }

  /**
   * Counts one connection fewer. Hot path (close).
   *
   * @throws IllegalStateException if no connection is counted (an unbalanced call)
   */
  public void deallocate() {
    long after = active.decrementAndGet();
    if (after < 0) {
      active.incrementAndGet();
      throw new IllegalStateException("deallocating a downstream connection that was never allocated");
    }
  }

  /** The active connections counted now. */
  public long active() {
    return active.get();
  }

  /** The configured limit; empty when there is none. */
  public OptionalLong limit() {
    return limit == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(limit);
  }

  /** active / limit, at most 1 (exempt connections can push the count past the limit); 0 without a limit. */
  public double pressure() {
    if (limit == Long.MAX_VALUE) {
      return 0.0;
    }
    return Math.min(1.0, (double) active.get() / limit);
  }

  @Override
  public String toString() {
    return "GlobalConnectionLimit[active=" + active.get() + ", limit=" + limit() + "]";
  }
}
