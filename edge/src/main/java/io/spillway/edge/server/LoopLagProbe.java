package io.spillway.edge.server;

import io.netty.channel.EventLoop;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures how late each worker runs a 10 ms timer: the task notes when it should have run and
 * when it did. {@link #worstLagNanosSinceLastRead()} returns the worst lateness over all workers
 * since the previous read (the overload manager reads it once per refresh) and starts a new window.
 */
final class LoopLagProbe {
  private static final long PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final AtomicLong worst = new AtomicLong();
  private final AtomicLong worstForAdmission = new AtomicLong();

  LoopLagProbe(List<EventLoop> loops) {
    for (EventLoop loop : loops) {
      schedule(loop, System.nanoTime() + PERIOD_NANOS);
    }
  }

  private void schedule(EventLoop loop, long due) {
    if (loop.isShuttingDown()) {
      return;
    }
    loop.schedule(() -> {
      long now = System.nanoTime();
      long late = Math.max(0, now - due);
      worst.accumulateAndGet(late, Math::max);
      worstForAdmission.accumulateAndGet(late, Math::max);
      schedule(loop, now + PERIOD_NANOS);
    }, Math.max(0, due - System.nanoTime()), TimeUnit.NANOSECONDS);
  }

  long worstLagNanosSinceLastRead() {
    return worst.getAndSet(0);
  }

  /** The same measure with its own window, read by inbound admission every 100 ms. */
  long worstLagNanosForAdmission() {
    return worstForAdmission.getAndSet(0);
  }
}
