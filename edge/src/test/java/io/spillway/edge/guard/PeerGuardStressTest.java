package io.spillway.edge.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.stats.StatsStore;
import io.spillway.policy.Mode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PeerGuardStressTest {

  private static final int THREADS = 4;
  private static final int ITERATIONS = 100_000;
  private static final int MAX_CONCURRENT = 3;

  /** A loop whose tasks any worker thread may run; timers never fire (the queue timeout is long). */
  private static final class SharedLoop implements GuardLoop {
    final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();

    @Override
    public Cancellable schedule(Runnable task, long delayMillis) {
      return () -> {};
    }

    @Override
    public void execute(Runnable command) {
      tasks.add(command);
    }

    void runSome() {
      Runnable task;
      while ((task = tasks.poll()) != null) {
        task.run();
      }
    }
  }

  @Test
  void fourThreadsNeverExceedMaxConcurrentAndEndAtZero() throws Exception {
    PeerGuard guard = new PeerGuard("p", Outbounds.limits(Mode.ENFORCE, MAX_CONCURRENT, 2, 600_000), new StatsStore(),
        System::nanoTime, () -> 0.5);
    SharedLoop loop = new SharedLoop();
    AtomicInteger active = new AtomicInteger();
    AtomicInteger maxActive = new AtomicInteger();
    AtomicInteger maxInFlight = new AtomicInteger();
    AtomicLong completed = new AtomicLong();
    AtomicLong refused = new AtomicLong();

    QueueCallback callback = new QueueCallback() {
      @Override
      public void onAdmitted(Permit permit) {
        use(permit);
      }

      @Override
      public void onRefused(Refusal reason) {
        throw new AssertionError("no timeouts expected: " + reason);
      }

      void use(Permit permit) {
        int now = active.incrementAndGet();
        maxActive.accumulateAndGet(now, Math::max);
        maxInFlight.accumulateAndGet(guard.inFlight(), Math::max);
        active.decrementAndGet();
        permit.release(Outcome.SUCCESS);
        permit.release(Outcome.SUCCESS); // a double release changes nothing
        completed.incrementAndGet();
      }
    };

    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        done.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < ITERATIONS; i++) {
            switch (guard.tryAcquire(loop, callback)) {
              case Permit p -> {
                int now = active.incrementAndGet();
                maxActive.accumulateAndGet(now, Math::max);
                maxInFlight.accumulateAndGet(guard.inFlight(), Math::max);
                active.decrementAndGet();
                p.release(Outcome.SUCCESS);
                completed.incrementAndGet();
              }
              case Refusal r -> refused.incrementAndGet();
              case Ticket q -> {
                if ((i & 7) == 0 && q.cancel()) {
                  completed.incrementAndGet();
                }
              }
            }
            loop.runSome();
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    loop.runSome();

    assertThat(maxActive.get()).isLessThanOrEqualTo(MAX_CONCURRENT);
    assertThat(maxInFlight.get()).isLessThanOrEqualTo(MAX_CONCURRENT);
    assertThat(guard.inFlight()).isZero();
    assertThat(guard.waiting()).isZero();
    assertThat(completed.get() + refused.get()).isEqualTo((long) THREADS * ITERATIONS);
    assertThat(guard.rejected(Mode.ENFORCE, Refusal.QUEUE_FULL)).isEqualTo(refused.get());
  }

  @Test
  void shadowUnderFourThreadsRefusesNothingAndEndsAtZero() throws Exception {
    PeerGuard guard = new PeerGuard("p", Outbounds.limits(Mode.SHADOW, MAX_CONCURRENT, 2, 600_000), new StatsStore(),
        System::nanoTime, () -> 0.5);
    SharedLoop loop = new SharedLoop();
    AtomicInteger maxInFlight = new AtomicInteger();
    AtomicLong wouldQueue = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        done.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < ITERATIONS; i++) {
            Admission a = guard.tryAcquire(loop, RecordingCallback.unused());
            assertThat(a).isInstanceOf(Permit.class);
            Permit p = (Permit) a;
            if (p.shadowQueued()) {
              wouldQueue.incrementAndGet();
            }
            maxInFlight.accumulateAndGet(guard.inFlight(), Math::max);
            p.release(Outcome.SUCCESS);
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(loop.tasks).as("shadow never calls back").isEmpty();
    assertThat(maxInFlight.get()).isLessThanOrEqualTo(MAX_CONCURRENT);
    assertThat(guard.inFlight()).isZero();
    assertThat(guard.waiting()).isZero();
    assertThat(guard.rejected(Mode.ENFORCE, Refusal.QUEUE_FULL)).isZero();
  }
}
