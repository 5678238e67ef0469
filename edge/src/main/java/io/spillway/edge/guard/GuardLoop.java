package io.spillway.edge.guard;

import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The worker's event loop as the guard sees it: where queue callbacks run and where the queue
 * timeout timer is armed. The router adapts its Netty {@code EventLoop} once per worker with
 * {@link #of(ScheduledExecutorService)}; tests use a hand-driven fake.
 */
public interface GuardLoop extends Executor {

  /** Runs {@code task} on this loop after {@code delayMillis}, unless cancelled first. */
  Cancellable schedule(Runnable task, long delayMillis);

  /** A scheduled task that may be cancelled; cancelling a fired or cancelled task does nothing. */
  @FunctionalInterface
  interface Cancellable {
    void cancel();
  }

  /** Adapts a scheduled executor (a Netty {@code EventLoop} is one). */
  static GuardLoop of(ScheduledExecutorService executor) {
    Objects.requireNonNull(executor, "executor");
    return new GuardLoop() {
      @Override
      public Cancellable schedule(Runnable task, long delayMillis) {
        ScheduledFuture<?> future = executor.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
        return () -> future.cancel(false);
      }

      @Override
      public void execute(Runnable command) {
        executor.execute(command);
      }
    };
  }
}
