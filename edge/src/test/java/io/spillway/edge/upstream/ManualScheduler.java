package io.spillway.edge.upstream;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A control thread driven by hand: tasks run on the test's thread when {@link #advance} moves the
 * clock past their time. Not thread-safe (one test thread).
 */
final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {
  private final List<Task<?>> tasks = new ArrayList<>();
  private long now;
  private long sequence;

  /** The scheduler's clock, in nanoseconds. */
  long nanoTime() {
    return now;
  }

  /** Moves the clock forward, running every task that comes due on the way, in time order. */
  void advance(Duration d) {
    long until = now + d.toNanos();
    for (int i = 0; i < 10_000; i++) {
      Task<?> next = tasks.stream().filter(t -> t.dueNanos <= until)
          .min(Comparator.comparingLong((Task<?> t) -> t.dueNanos).thenComparingLong(t -> t.sequence)).orElse(null);
      if (next == null) {
        now = until;
        return;
      }
      tasks.remove(next);
      now = Math.max(now, next.dueNanos);
      next.run();
    }
    throw new AssertionError("tasks keep coming due");
  }

  /** Tasks waiting to run (not cancelled). */
  int pending() {
    return tasks.size();
  }

  /** The delay until the earliest pending task, or null when none is pending. */
  Duration nextDelay() {
    return tasks.stream().mapToLong(t -> t.dueNanos).min().stream().mapToObj(t -> Duration.ofNanos(t - now))
        .findFirst().orElse(null);
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return add(() -> {
      command.run();
      return null;
    }, unit.toNanos(delay), 0);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    return add(callable, unit.toNanos(delay), 0);
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
    return scheduleWithFixedDelay(command, initialDelay, period, unit);
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
    return add(() -> {
      command.run();
      return null;
    }, unit.toNanos(initialDelay), unit.toNanos(delay));
  }

  private <V> Task<V> add(Callable<V> callable, long delayNanos, long periodNanos) {
    Task<V> t = new Task<>(callable, now + Math.max(0, delayNanos), periodNanos, sequence++);
    tasks.add(t);
    return t;
  }

  @Override
  public void execute(Runnable command) {
    schedule(command, 0, TimeUnit.NANOSECONDS);
  }

  @Override
  public void shutdown() {
    tasks.clear();
  }

  @Override
  public List<Runnable> shutdownNow() {
    tasks.clear();
    return List.of();
  }

  @Override
  public boolean isShutdown() {
    return false;
  }

  @Override
  public boolean isTerminated() {
    return false;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return true;
  }

  private final class Task<V> implements ScheduledFuture<V> {
    private final Callable<V> callable;
    private final long periodNanos;
    private final long sequence;
    private long dueNanos;
    private boolean cancelled;
    private boolean done;

    Task(Callable<V> callable, long dueNanos, long periodNanos, long sequence) {
      this.callable = callable;
      this.dueNanos = dueNanos;
      this.periodNanos = periodNanos;
      this.sequence = sequence;
    }

    void run() {
      try {
        callable.call();
      } catch (Exception e) {
        throw new AssertionError("a scheduled task failed", e);
      }
      if (periodNanos > 0 && !cancelled) {
        dueNanos = now + periodNanos;
        tasks.add(this);
      } else {
        done = true;
      }
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(dueNanos - now, TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      cancelled = true;
      tasks.remove(this);
      return !done;
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }

    @Override
    public boolean isDone() {
      return done || cancelled;
    }

    @Override
    public V get() {
      throw new UnsupportedOperationException();
    }

    @Override
    public V get(long timeout, TimeUnit unit) {
      throw new UnsupportedOperationException();
    }
  }
}
