package io.spillway.edge.guard;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SecondsRingTest {

  @Test
  void countsPerSecondAndForgetsSecondsThatLeftTheRing() {
    SecondsRing ring = new SecondsRing(4);
    ring.add(0, 1, 0);
    ring.add(1, 2, 1);
    ring.add(3, 4, 2);
    long sum = ring.sum(3, 4, 0);
    assertThat(SecondsRing.sumA(sum)).isEqualTo(7);
    assertThat(SecondsRing.sumB(sum)).isEqualTo(3);

    ring.add(4, 1, 1); // reuses second 0's cell, resetting it by CAS
    sum = ring.sum(4, 4, 0);
    assertThat(SecondsRing.sumA(sum)).isEqualTo(7);
    assertThat(SecondsRing.sumB(sum)).isEqualTo(4);
    assertThat(SecondsRing.sumA(ring.sum(4, 4, 3))).as("counting from second 3").isEqualTo(5);
  }

  @Test
  void aLateSampleForAnOlderSecondIsDropped() {
    SecondsRing ring = new SecondsRing(2);
    ring.add(5, 3, 0);
    ring.add(3, 1, 1); // same cell, older second
    assertThat(SecondsRing.sumA(ring.sum(5, 1, 0))).isEqualTo(3);
    assertThat(SecondsRing.sumB(ring.sum(5, 1, 0))).isZero();
  }

  @Test
  void countsSaturateInsteadOfOverflowingIntoTheTag() {
    SecondsRing ring = new SecondsRing(1);
    ring.add(7, SecondsRing.COUNT_MAX, 0);
    ring.add(7, 10, 1);
    long sum = ring.sum(7, 1, 0);
    assertThat(SecondsRing.sumA(sum)).isEqualTo(SecondsRing.COUNT_MAX);
    assertThat(SecondsRing.sumB(sum)).isEqualTo(1);
  }
}
