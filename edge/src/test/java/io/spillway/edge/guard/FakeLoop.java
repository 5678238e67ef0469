package io.spillway.edge.guard;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A hand-driven {@link GuardLoop} with its own clock: {@link #execute} queues tasks until
 * {@link #runPending()}; timers fire only from {@link #advanceMillis}. Executed tasks may come from
 * any thread; timers are for single-threaded tests.
 */
final class FakeLoop implements GuardLoop {

  final AtomicLong nanos = new AtomicLong(5_000_000_000L);
  private final ConcurrentLinkedQueue<Runnable> pending = new ConcurrentLinkedQueue<>();
  private final List<Timer> timers = new ArrayList<>();
  private long seq;

  private static final class Timer {
    final long due;
    final long seq;
    final Runnable task;
    boolean cancelled;

    Timer(long due, long seq, Runnable task) {
      this.due = due;
      this.seq = seq;
      this.task = task;
    }
  }

  long now() {
    return nanos.get();
  }

  @Override
  public synchronized Cancellable schedule(Runnable task, long delayMillis) {
    Timer timer = new Timer(nanos.get() + delayMillis * 1_000_000L, seq++, task);
    timers.add(timer);
    return () -> {
      synchronized (FakeLoop.this) {
        timer.cancelled = true;
      }
    };
  }

  @Override
  public void execute(Runnable command) {
    pending.add(command);
  }

  /** Runs queued tasks (and those they queue) until none is left; returns how many ran. */
  int runPending() {
    int ran = 0;
    Runnable task;
    while ((task = pending.poll()) != null) {
      task.run();
      ran++;
    }
    return ran;
  }

  /** Moves the clock, firing due timers in order, then runs pending tasks. */
  void advanceMillis(long millis) {
    long target = nanos.get() + millis * 1_000_000L;
    for (;;) {
      Timer next;
      synchronized (this) {
        next = timers.stream().filter(t -> !t.cancelled && t.due <= target)
            .min(Comparator.<Timer>comparingLong(t -> t.due).thenComparingLong(t -> t.seq)).orElse(null);
        if (next != null) {
          timers.remove(next);
          nanos.set(Math.max(nanos.get(), next.due));
        }
      }
      if (next == null) {
        break;
      }
      next.task.run();
      runPending();
    }
    nanos.set(target);
    runPending();
  }

  synchronized int liveTimers() {
    return (int) timers.stream().filter(t -> !t.cancelled).count();
  }
}
