package io.spillway.edge.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ShadowQueueTest {
  private static final double MS = 1_000_000;

  @Test
  void aboveCapacityTheLevelDrainsAtTheBackendsThroughputThenDecays() {
    // capacity 10 at 50 ms: 200 per second, so 20 above capacity take 100 ms
    assertThat(ShadowQueue.drained(30, 50 * MS, 50 * MS, 10)).isCloseTo(20, within(1e-9));
    assertThat(ShadowQueue.drained(30, 100 * MS, 50 * MS, 10)).isCloseTo(10, within(1e-9));
    assertThat(ShadowQueue.drained(30, 150 * MS, 50 * MS, 10)).isCloseTo(10 * Math.exp(-1), within(1e-9));
    // below capacity, or with no capacity known, each request leaves after about the baseline
    assertThat(ShadowQueue.drained(5, 50 * MS, 50 * MS, 10)).isCloseTo(5 * Math.exp(-1), within(1e-9));
    assertThat(ShadowQueue.drained(30, 50 * MS, 50 * MS, 0)).isCloseTo(30 * Math.exp(-1), within(1e-9));
    assertThat(ShadowQueue.drained(3, 0, 50 * MS, 10)).isEqualTo(3);
  }

  @Test
  void admitsUntilTheBoundAndAgainOnceTheModelHasDrained() {
    ShadowQueue q = new ShadowQueue();
    long now = 1_000_000_000L;
    int admitted = 0;
    for (int i = 0; i < 20; i++) {
      admitted += q.tryAdmit(12, now, 50 * MS, 10) ? 1 : 0;
    }
    assertThat(admitted).isEqualTo(12);
    assertThat(q.level(now, 50 * MS, 10)).isCloseTo(12, within(0.01));
    // 10 ms later, 2 above capacity have drained at 200/s
    assertThat(q.level(now + 10_000_000L, 50 * MS, 10)).isCloseTo(10, within(0.01));
    assertThat(q.tryAdmit(12, now + 10_000_000L, 50 * MS, 10)).isTrue();
  }
}
