package io.spillway.edge.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class HistogramTest {

  private final StatsStore store = new StatsStore();
  private final Histogram histogram = store.rootScope()
      .taggedScope("cluster", "backend", Tag.CLUSTER_NAME)
      .histogram("upstream_rq_time", Histogram.Unit.MILLISECONDS);

  @Test
  void quantilesOfOneToHundred() {
    for (int v = 1; v <= 100; v++) {
      histogram.record(v);
    }

    HistogramSnapshot snapshot = histogram.snapshot();

    // P0 P25 P50 P75 P90 P95 P99 P99.5 P99.9 P100, nearest rank.
    double[] expected = {1, 25, 50, 75, 90, 95, 99, 100, 100, 100};
    for (int i = 0; i < expected.length; i++) {
      assertThat(snapshot.intervalQuantile(i)).as("interval P%s", HistogramSnapshot.SUPPORTED_QUANTILES.get(i))
          .isEqualTo(expected[i]);
      assertThat(snapshot.cumulativeQuantile(i)).isEqualTo(expected[i]);
    }
    assertThat(snapshot.sampleCount()).isEqualTo(100);
    assertThat(snapshot.intervalCount()).isEqualTo(100);
    assertThat(snapshot.sampleSum()).isEqualTo(5050.0);
    assertThat(histogram.used()).isTrue();
  }

  @Test
  void intervalHoldsValuesSinceThePreviousSnapshotAndCumulativeAll() {
    histogram.record(10);
    histogram.snapshot();
    histogram.record(30);
    histogram.record(30);

    HistogramSnapshot second = histogram.snapshot();
    assertThat(second.intervalQuantile(0)).isEqualTo(30.0);
    assertThat(second.cumulativeQuantile(0)).isEqualTo(10.0);
    assertThat(second.cumulativeQuantile(9)).isEqualTo(30.0);
    assertThat(second.sampleCount()).isEqualTo(3);

    HistogramSnapshot third = histogram.snapshot();
    assertThat(third.intervalCount()).isZero();
    assertThat(third.intervalQuantile(2)).isNaN();
    assertThat(third.cumulativeQuantile(2)).isEqualTo(30.0);
  }

  @Test
  void emptyHistogramHasNaNQuantilesAndZeroBuckets() {
    HistogramSnapshot snapshot = histogram.snapshot();

    assertThat(histogram.used()).isFalse();
    assertThat(snapshot.sampleCount()).isZero();
    assertThat(snapshot.intervalQuantile(0)).isNaN();
    assertThat(snapshot.cumulativeQuantile(9)).isNaN();
    assertThat(snapshot.cumulativeBucketCount(HistogramSnapshot.BUCKETS.size() - 1)).isZero();
  }

  @Test
  void bucketsAreCumulativeAndInclusive() {
    histogram.record(0);     // <= 0.5
    histogram.record(1);     // <= 1
    histogram.record(5);     // <= 5
    histogram.record(7);     // <= 10
    histogram.record(4_000_000); // above every bucket

    HistogramSnapshot snapshot = histogram.snapshot();

    assertThat(snapshot.cumulativeBucketCount(0)).isEqualTo(1); // 0.5
    assertThat(snapshot.cumulativeBucketCount(1)).isEqualTo(2); // 1
    assertThat(snapshot.cumulativeBucketCount(2)).isEqualTo(3); // 5
    assertThat(snapshot.cumulativeBucketCount(3)).isEqualTo(4); // 10
    assertThat(snapshot.cumulativeBucketCount(HistogramSnapshot.BUCKETS.size() - 1)).isEqualTo(4); // 3600000
    assertThat(snapshot.sampleCount()).isEqualTo(5);
  }

  @Test
  void largeValuesAreWithinOnePercent() {
    histogram.record(123_456);

    HistogramSnapshot snapshot = histogram.snapshot();

    assertThat(snapshot.cumulativeQuantile(9)).isCloseTo(123_456, within(1_234.0));
    assertThat(snapshot.sampleSum()).isCloseTo(123_456, within(1_234.0));
  }

  @Test
  void negativeValuesCountAsZero() {
    histogram.record(-3);

    assertThat(histogram.snapshot().cumulativeQuantile(0)).isZero();
  }

  @Test
  void percentValuesRenderAsFractions() {
    Histogram pressure = store.rootScope().scope("overload").histogram("pressure", Histogram.Unit.PERCENT);
    pressure.record(Histogram.PERCENT_SCALE / 4); // 0.25
    pressure.record(Histogram.PERCENT_SCALE / 4);

    HistogramSnapshot snapshot = pressure.snapshot();

    assertThat(snapshot.cumulativeQuantile(2)).isCloseTo(0.25, within(0.0025));
    assertThat(snapshot.sampleSum()).isCloseTo(0.5, within(0.005));
    assertThat(snapshot.cumulativeBucketCount(0)).isEqualTo(2); // le 0.5
  }

  @Test
  void resetDropsValuesButKeepsRecording() {
    histogram.record(5);
    histogram.snapshot();
    histogram.record(6);

    store.resetCounters();

    assertThat(histogram.snapshot().sampleCount()).isZero();
    histogram.record(7);
    HistogramSnapshot snapshot = histogram.snapshot();
    assertThat(snapshot.sampleCount()).isEqualTo(1);
    assertThat(snapshot.cumulativeQuantile(0)).isEqualTo(7.0);
    assertThat(histogram.used()).isTrue();
  }

  @Test
  void concurrentRecordsAreAllCountedWhileAReaderSnapshots() throws InterruptedException {
    int threads = 4;
    int perThread = 20_000;
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread worker = new Thread(() -> {
        CounterTest.awaitUninterruptibly(start);
        for (int i = 0; i < perThread; i++) {
          histogram.record(i % 200);
        }
      });
      worker.start();
      workers.add(worker);
    }
    Thread reader = new Thread(() -> {
      CounterTest.awaitUninterruptibly(start);
      for (int i = 0; i < 50; i++) {
        histogram.snapshot();
      }
    });
    reader.start();

    start.countDown();
    for (Thread worker : workers) {
      worker.join();
    }
    reader.join();

    assertThat(histogram.snapshot().sampleCount()).isEqualTo((long) threads * perThread);
  }

  @Test
  void latchHoldsTheValuesSinceThePreviousLatchWithoutClosingTheRenderingsInterval() {
    histogram.record(7);
    histogram.record(7);
    histogram.record(3);
    assertThat(histogram.snapshot().intervalCount()).isEqualTo(3);
    histogram.record(300);

    HistogramValues values = histogram.latch();

    assertThat(values.total()).isEqualTo(4);
    assertThat(values.size()).isEqualTo(3);
    assertThat(values.value(0)).isEqualTo(3);
    assertThat(values.count(0)).isEqualTo(1);
    assertThat(values.value(1)).isEqualTo(7);
    assertThat(values.count(1)).isEqualTo(2);
    assertThat(values.value(2)).as("the middle of its 2-wide bucket").isEqualTo(301);
    assertThat(histogram.latch().isEmpty()).isTrue();
    HistogramSnapshot next = histogram.snapshot();
    assertThat(next.intervalCount()).as("the latch took nothing from the rendering's interval").isEqualTo(1);
    assertThat(next.sampleCount()).isEqualTo(4);
  }

  @Test
  void resetDropsWhatTheLatchHasNotTaken() {
    histogram.record(5);
    store.resetCounters();
    histogram.record(6);

    HistogramValues values = histogram.latch();

    assertThat(values.total()).isEqualTo(1);
    assertThat(values.value(0)).isEqualTo(6);
  }
}
