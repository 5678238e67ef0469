package io.spillway.edge.upstream.lb;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Envoy's priority load against the tables of its architecture overview ("Priority levels"): each
 * level has 100 hosts of weight 1, so "P=0 healthy endpoints 71 %" is 71 healthy hosts of 100.
 * The tables leave panic out, so they are reproduced with a panic threshold of 0; panic has its
 * own tests below.
 */
class PriorityLoadTest {
  private static final int FACTOR = 140;

  private static PriorityLoad.Level percent(int healthy) {
    return new PriorityLoad.Level(healthy, 100, healthy, 100);
  }

  private static int[] load(double panicThreshold, int... healthyPercents) {
    PriorityLoad.Level[] levels = new PriorityLoad.Level[healthyPercents.length];
    for (int i = 0; i < levels.length; i++) {
      levels[i] = percent(healthyPercents[i]);
    }
    return PriorityLoad.compute(levels, FACTOR, false, panicThreshold).load();
  }

  private static int[] load(int... healthyPercents) {
    return load(0, healthyPercents);
  }

  @Test
  void twoLevelsWithAFullyHealthyP1() {
    assertThat(load(100, 100)).containsExactly(100, 0);
    assertThat(load(72, 100)).containsExactly(100, 0);
    assertThat(load(71, 100)).containsExactly(99, 1);
    assertThat(load(50, 100)).containsExactly(70, 30);
    assertThat(load(25, 100)).containsExactly(35, 65);
    assertThat(load(0, 100)).containsExactly(0, 100);
  }

  @Test
  void twoLevelsNormalizedWhenTheirHealthAddsUpToLessThan100() {
    assertThat(load(100, 100)).containsExactly(100, 0);
    assertThat(load(72, 72)).containsExactly(100, 0);
    assertThat(load(71, 71)).containsExactly(99, 1);
    assertThat(load(50, 50)).containsExactly(70, 30);
    assertThat(load(25, 100)).containsExactly(35, 65);
    assertThat(load(25, 25)).containsExactly(50, 50);
  }

  @Test
  void threeLevels() {
    assertThat(load(100, 100, 100)).containsExactly(100, 0, 0);
    assertThat(load(72, 72, 100)).containsExactly(100, 0, 0);
    assertThat(load(71, 71, 100)).containsExactly(99, 1, 0);
    assertThat(load(50, 50, 100)).containsExactly(70, 30, 0);
    assertThat(load(25, 100, 100)).containsExactly(35, 65, 0);
    assertThat(load(25, 25, 100)).containsExactly(35, 35, 30);
    // The table's row says 36 / 36 / 28 (its exact shares are 35.7 / 35.7 / 28.6). Envoy divides in
    // integers (35 / 35 / 28) and gives the 2 left over to the first available level.
    assertThat(load(25, 25, 20)).containsExactly(37, 35, 28);
  }

  @Test
  void theOverprovisioningFactorScalesHealth() {
    PriorityLoad.Level[] levels = {percent(80), percent(100)};
    assertThat(PriorityLoad.compute(levels, 100, false, 0).load()).containsExactly(80, 20);
    assertThat(PriorityLoad.compute(levels, 200, false, 0).load()).containsExactly(100, 0);
    // 40 % healthy at 200 % is still whole.
    assertThat(PriorityLoad.compute(new PriorityLoad.Level[] {percent(50), percent(100)}, 200, false, 0).load())
        .containsExactly(100, 0);
  }

  @Test
  void weightedPriorityHealthCountsEndpointWeights() {
    // Five hosts, weights 10, 1, 1, 1, 1; the heavy one is unhealthy: 4 of 5 hosts (80 %) but 4 of
    // 14 weight (28.6 %).
    PriorityLoad.Level p0 = new PriorityLoad.Level(4, 5, 4, 14);
    PriorityLoad.Level p1 = new PriorityLoad.Level(2, 2, 2, 2);
    assertThat(PriorityLoad.compute(new PriorityLoad.Level[] {p0, p1}, FACTOR, false, 0).load())
        .containsExactly(100, 0);
    assertThat(PriorityLoad.compute(new PriorityLoad.Level[] {p0, p1}, FACTOR, true, 0).load())
        .containsExactly(40, 60);
  }

  @Test
  void panicOnlyWhileTheNormalizedTotalIsBelow100() {
    // P0 at 10 % healthy is below the 50 % threshold, but P1 makes the total whole: no panic.
    PriorityLoad whole = PriorityLoad.compute(new PriorityLoad.Level[] {percent(10), percent(100)}, FACTOR, false,
        50);
    assertThat(whole.load()).containsExactly(14, 86);
    assertThat(whole.panic()).containsExactly(false, false);
    // 40 % and 20 %: total 84, both below 50 %: every level in panic, load by host counts.
    PriorityLoad total = PriorityLoad.compute(new PriorityLoad.Level[] {percent(40),
        new PriorityLoad.Level(20, 300, 20, 300)}, FACTOR, false, 50);
    assertThat(total.panic()).containsExactly(true, true);
    assertThat(total.load()).containsExactly(25, 75);
    // 60 % and 0 %: total 84; only P1 is below the threshold, so only P1 is in panic and the load
    // stays the health's (P0 takes it all: 84 × 100 / 84).
    PriorityLoad partial = PriorityLoad.compute(new PriorityLoad.Level[] {percent(60), percent(0)}, FACTOR, false,
        50);
    assertThat(partial.panic()).containsExactly(false, true);
    assertThat(partial.load()).containsExactly(100, 0);
  }

  @Test
  void aSingleLevelAboveTheThresholdTimesTheFactorIsNotInPanic() {
    // A panic threshold of 80 %: 75 % healthy is below it, but 75 × 1.4 is whole, so no panic.
    PriorityLoad p = PriorityLoad.compute(new PriorityLoad.Level[] {percent(75)}, FACTOR, false, 80);
    assertThat(p.panic()).containsExactly(false);
    PriorityLoad q = PriorityLoad.compute(new PriorityLoad.Level[] {percent(70)}, FACTOR, false, 80);
    assertThat(q.panic()).containsExactly(true);
    assertThat(q.load()).containsExactly(100);
  }

  @Test
  void withoutPanicAndWithoutHealthyHostsP0TakesTheLoad() {
    PriorityLoad p = PriorityLoad.compute(new PriorityLoad.Level[] {percent(0), percent(0)}, FACTOR, false, 0);
    assertThat(p.load()).containsExactly(100, 0);
    assertThat(p.panic()).containsExactly(false, false);
  }

  @Test
  void anEmptyLevelTakesNoLoad() {
    PriorityLoad p = PriorityLoad.compute(new PriorityLoad.Level[] {percent(50), new PriorityLoad.Level(0, 0, 0, 0),
        percent(100)}, FACTOR, false, 50);
    assertThat(p.load()).containsExactly(70, 0, 30);
  }

  @Test
  void slotsFollowTheCumulativeLoad() {
    int[] slots = PriorityLoad.compute(new PriorityLoad.Level[] {percent(50), percent(100)}, FACTOR, false, 0).slots();
    for (int s = 0; s < 100; s++) {
      assertThat(slots[s]).as("slot %d", s).isEqualTo(s < 70 ? 0 : 1);
    }
    int[] allToP1 = PriorityLoad.compute(new PriorityLoad.Level[] {percent(0), percent(100)}, FACTOR, false, 0)
        .slots();
    assertThat(allToP1).containsOnly(1);
  }
}
