package io.spillway.edge.overload.monitor;

import java.lang.management.GarbageCollectorMXBean;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * (ours) {@code spillway.resource_monitors.gc_pressure}: the share of wall time spent in garbage
 * collection over the last {@code window}, from the collectors' accumulated collection time (in
 * production {@link #accumulatedMillis(List)} over the {@link GarbageCollectorMXBean}s; for a
 * concurrent collector that time includes its concurrent cycles).
 *
 * <p>Each refresh records (now, accumulated GC time); the pressure is the GC time over the wall
 * time since the newest sample at least {@code window} old (the oldest one while the window is
 * still filling). The first sample is taken at construction.
 */
public final class GcPressureMonitor extends PolledMonitor {

  private record Sample(long nanos, long gcMillis) {}

  private final LongSupplier accumulatedGcMillis;
  private final LongSupplier nanoClock;
  private final long windowNanos;
  private final ArrayDeque<Sample> samples = new ArrayDeque<>();

  /**
   * @param accumulatedGcMillis the total GC time so far, in milliseconds
   * @param nanoClock monotonic time in nanoseconds
   * @param window how far back the share is measured
   */
  public GcPressureMonitor(LongSupplier accumulatedGcMillis, LongSupplier nanoClock, Duration window) {
    if (window.isZero() || window.isNegative()) {
      throw new IllegalArgumentException("window must be positive: " + window);
    }
    this.accumulatedGcMillis = accumulatedGcMillis;
    this.nanoClock = nanoClock;
    this.windowNanos = window.toNanos();
    long gc = accumulatedGcMillis.getAsLong();
    if (gc >= 0) {
      samples.add(new Sample(nanoClock.getAsLong(), gc));
    }
  }

  /** The sum of {@link GarbageCollectorMXBean#getCollectionTime()} over {@code beans}, skipping undefined ones. */
  public static long accumulatedMillis(List<GarbageCollectorMXBean> beans) {
    long total = 0;
    for (GarbageCollectorMXBean bean : beans) {
      long time = bean.getCollectionTime();
      if (time > 0) {
        total += time;
      }
    }
    return total;
  }

  @Override
  protected double readPressure() throws MonitorReadException {
    long now = nanoClock.getAsLong();
    long gc = accumulatedGcMillis.getAsLong();
    if (gc < 0) {
      throw new MonitorReadException("GC time is unavailable");
    }
    Sample latest = samples.peekLast();
    if (latest != null && (now <= latest.nanos() || gc < latest.gcMillis())) {
      throw new MonitorReadException("GC time or the clock went backwards");
    }
    samples.addLast(new Sample(now, gc));
    // The base is the newest sample at least a window old; older ones are no longer needed.
    while (samples.size() > 2) {
      Iterator<Sample> it = samples.iterator();
      it.next();
      if (now - it.next().nanos() >= windowNanos) {
        samples.removeFirst();
      } else {
        break;
      }
    }
    if (samples.size() < 2) {
      throw new MonitorReadException("no earlier GC sample yet");
    }
    Sample base = samples.peekFirst();
    double wallMillis = (now - base.nanos()) / 1e6;
    return Math.min(1.0, (gc - base.gcMillis()) / wallMillis);
  }
}
