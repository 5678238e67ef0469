package io.spillway.edge.overload.monitor;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * (ours) {@code spillway.resource_monitors.event_loop_lag}: the worst event-loop lag against a
 * target, min(1, lag / target), so a loop as late as the target is saturated. The lag comes from an
 * injected supplier (the largest lateness of the workers' periodic probe tasks since the last
 * read); a negative value is a failed update.
 */
public final class EventLoopLagMonitor extends PolledMonitor {

  private final LongSupplier worstLagNanos;
  private final long targetNanos;

  public EventLoopLagMonitor(LongSupplier worstLagNanos, Duration target) {
    if (target.isZero() || target.isNegative()) {
      throw new IllegalArgumentException("target must be positive: " + target);
    }
    this.worstLagNanos = worstLagNanos;
    this.targetNanos = target.toNanos();
  }

  @Override
  protected double readPressure() throws MonitorReadException {
    long lag = worstLagNanos.getAsLong();
    if (lag < 0) {
      throw new MonitorReadException("event loop lag is unavailable");
    }
    return Math.min(1.0, (double) lag / targetNanos);
  }
}
