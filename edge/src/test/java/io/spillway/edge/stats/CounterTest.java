package io.spillway.edge.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class CounterTest {

  private final StatsStore store = new StatsStore();
  private final Counter counter = store.rootScope().scope("server").counter("requests");

  @Test
  void latchReturnsTheIncrementsSinceThePreviousLatchWhateverTheResets() {
    assertThat(counter.latch()).isZero();
    counter.add(3);
    assertThat(counter.latch()).isEqualTo(3);
    assertThat(counter.latch()).isZero();
    counter.inc();
    store.resetCounters();
    counter.add(2);

    assertThat(counter.value()).isEqualTo(2);
    assertThat(counter.latch()).as("every increment is sent once, the reset's too").isEqualTo(3);
  }

  @Test
  void countsAndRemembersBeingUsed() {
    assertThat(counter.value()).isZero();
    assertThat(counter.used()).isFalse();

    counter.inc();
    counter.add(41);

    assertThat(counter.value()).isEqualTo(42);
    assertThat(counter.used()).isTrue();
  }

  @Test
  void addingZeroMarksItUsedAsInEnvoy() {
    counter.add(0);

    assertThat(counter.used()).isTrue();
    assertThat(counter.value()).isZero();
  }

  @Test
  void neverGoesDown() {
    assertThatThrownBy(() -> counter.add(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void resetReadsZeroAndKeepsCounting() {
    counter.add(10);

    store.resetCounters();

    assertThat(counter.value()).isZero();
    assertThat(counter.used()).isTrue();
    counter.inc();
    assertThat(counter.value()).isEqualTo(1);
  }

  @Test
  void concurrentIncrementsSumExactly() throws InterruptedException {
    int threads = 8;
    int perThread = 100_000;
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread worker = new Thread(() -> {
        awaitUninterruptibly(start);
        for (int i = 0; i < perThread; i++) {
          if (i % 2 == 0) {
            counter.inc();
          } else {
            counter.add(2);
          }
        }
      });
      worker.start();
      workers.add(worker);
    }

    start.countDown();
    for (Thread worker : workers) {
      worker.join();
    }

    assertThat(counter.value()).isEqualTo(threads * (perThread / 2) * 3L);
  }

  static void awaitUninterruptibly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
