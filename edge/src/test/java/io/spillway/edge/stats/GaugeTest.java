package io.spillway.edge.stats;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class GaugeTest {

  private final StatsStore store = new StatsStore();
  private final Scope listener = store.rootScope().taggedScope("listener", "0.0.0.0_10000", Tag.LISTENER_ADDRESS);

  @Test
  void goesUpAndDownAndCanBeSet() {
    Gauge gauge = listener.gauge("downstream_cx_active");
    assertThat(gauge.used()).isFalse();

    gauge.inc();
    gauge.inc();
    gauge.dec();
    gauge.add(10);
    gauge.sub(3);
    assertThat(gauge.value()).isEqualTo(8);

    gauge.set(-5);
    assertThat(gauge.value()).isEqualTo(-5);
    assertThat(gauge.used()).isTrue();
  }

  @Test
  void resetCountersLeavesGaugesAlone() {
    Gauge gauge = listener.gauge("downstream_cx_active");
    gauge.set(7);

    store.resetCounters();

    assertThat(gauge.value()).isEqualTo(7);
  }

  @Test
  void concurrentIncAndDecBalance() throws InterruptedException {
    Gauge gauge = listener.gauge("downstream_rq_active");
    int threads = 8;
    int perThread = 50_000;
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread worker = new Thread(() -> {
        CounterTest.awaitUninterruptibly(start);
        for (int i = 0; i < perThread; i++) {
          gauge.inc();
          gauge.inc();
          gauge.dec();
        }
      });
      worker.start();
      workers.add(worker);
    }

    start.countDown();
    for (Thread worker : workers) {
      worker.join();
    }

    assertThat(gauge.value()).isEqualTo((long) threads * perThread);
  }

  @Test
  void suppliedGaugeReadsItsSupplierEachTime() {
    AtomicLong heap = new AtomicLong(100);
    SuppliedGauge gauge = store.rootScope().scope("server").gauge("memory_heap_size", heap::get);

    assertThat(gauge.value()).isEqualTo(100.0);
    heap.set(250);
    assertThat(gauge.value()).isEqualTo(250.0);
    assertThat(gauge.used()).isTrue();
  }

  @Test
  void aThrowingSupplierReadsAsNaN() {
    SuppliedGauge gauge = store.rootScope().fractionalGauge("broken", () -> {
      throw new IllegalStateException("gone");
    });

    assertThat(gauge.value()).isNaN();
  }
}
