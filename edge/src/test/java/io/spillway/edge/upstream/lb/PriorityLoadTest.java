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

  /** One level of 100 hosts of weight 1 with {@code healthy} healthy and {@code degraded} degraded hosts. */
  private static PriorityLoad.Level percent(int healthy, int degraded) {
    return new PriorityLoad.Level(healthy, degraded, 100, healthy, degraded, 100);
  }

  /**
   * The table of Envoy's architecture overview "Degraded endpoints" (one level; P=0
   * healthy/degraded/unhealthy → traffic to its healthy / its degraded hosts), panic left out as
   * the table does: 71 % healthy is 99 (71 × 1.4) and 29 % degraded 40, so the healthy hosts take 99
   * and the degraded ones the 1 left; 25/65/10 is 35 and 91 (capped with the 35 at 100): 35 / 65.
   */
  @Test
  void envoysDegradedEndpointsTable() {
    int[][] rows = {{100, 0, 100, 0}, {71, 0, 100, 0}, {71, 29, 99, 1}, {25, 65, 35, 65}, {5, 0, 100, 0}};
    for (int[] row : rows) {
      PriorityLoad p = PriorityLoad.compute(new PriorityLoad.Level[] {percent(row[0], row[1])}, FACTOR, false, 0);
      assertThat(p.load()).as("%d/%d healthy/degraded", row[0], row[1]).containsExactly(row[2]);
      assertThat(p.degradedLoad()).as("%d/%d healthy/degraded", row[0], row[1]).containsExactly(row[3]);
    }
  }

  /**
   * The example in the comment of Envoy's {@code recalculatePerPriorityState}: three levels with
   * health 10 / 20 / 10 and degraded availability 20 / 10 / 0 (a factor of 100 makes them the host
   * percents) get 16 / 28 / 14 healthy and 28 / 14 / 0 degraded load: 70 in all, so 14, 28, 14 and
   * then 28, 14, 0 of the 44 left, and the 2 integer division leaves go to P0's healthy hosts.
   */
  @Test
  void healthyLoadFirstThenDegradedAsInEnvoysExample() {
    PriorityLoad p = PriorityLoad.compute(new PriorityLoad.Level[] {percent(10, 20), percent(20, 10),
        percent(10, 0)}, 100, false, 0);
    assertThat(p.load()).containsExactly(16, 28, 14);
    assertThat(p.degradedLoad()).containsExactly(28, 14, 0);
  }

  @Test
  void degradedHostsTakeLoadOnlyAfterTheHealthyHostsOfEveryLevel() {
    // P0 all degraded, P1 healthy: P1's healthy hosts take everything, P0's degraded none.
    PriorityLoad allToP1 = PriorityLoad.compute(new PriorityLoad.Level[] {percent(0, 100), percent(100, 0)}, FACTOR,
        false, 50);
    assertThat(allToP1.load()).containsExactly(0, 100);
    assertThat(allToP1.degradedLoad()).containsExactly(0, 0);
    // P0 half degraded (70), P1 half healthy (70): P1's healthy hosts take 70 before P0's degraded ones take 30.
    PriorityLoad spill = PriorityLoad.compute(new PriorityLoad.Level[] {percent(0, 50), percent(50, 0)}, FACTOR,
        false, 50);
    assertThat(spill.load()).containsExactly(0, 70);
    assertThat(spill.degradedLoad()).containsExactly(30, 0);
    assertThat(spill.panic()).containsExactly(false, false);
    // Slots walk every healthy load first, then every degraded load: 0-69 to P1 healthy (1), 70-99 to
    // P0 degraded (levels + 0 = 2).
    int[] slots = spill.slots();
    for (int s = 0; s < 100; s++) {
      assertThat(slots[s]).as("slot %d", s).isEqualTo(s < 70 ? 1 : 2);
    }
  }

  @Test
  void aLevelWithOnlyDegradedHostsTakesTheLoadOnItsDegradedHosts() {
    PriorityLoad p = PriorityLoad.compute(new PriorityLoad.Level[] {new PriorityLoad.Level(0, 1, 1, 0, 1, 1)}, FACTOR,
        false, 50);
    assertThat(p.load()).containsExactly(0);
    assertThat(p.degradedLoad()).containsExactly(100);
    assertThat(p.panic()).containsExactly(false);
    assertThat(p.slots()).containsOnly(1);
  }

  @Test
  void panicCountsHealthyAndDegradedHostsAsEnvoysIsHostSetInPanic() {
    // 10 healthy + 40 degraded of 100: 50 % is not below a threshold of 50 (healthy alone would be), and
    // the normalized total is 14 + 56 = 70, below 100, so the rule decides.
    PriorityLoad notInPanic = PriorityLoad.compute(new PriorityLoad.Level[] {percent(10, 40)}, FACTOR, false, 50);
    assertThat(notInPanic.panic()).containsExactly(false);
    assertThat(notInPanic.load()).containsExactly(20);
    assertThat(notInPanic.degradedLoad()).containsExactly(80);
    // 10 + 39 = 49 %: panic, every level in panic: the load by host counts, none of it degraded.
    PriorityLoad inPanic = PriorityLoad.compute(new PriorityLoad.Level[] {percent(10, 39)}, FACTOR, false, 50);
    assertThat(inPanic.panic()).containsExactly(true);
    assertThat(inPanic.load()).containsExactly(100);
    assertThat(inPanic.degradedLoad()).containsExactly(0);
  }

  @Test
  void weightedPriorityHealthWeighsDegradedHostsToo() {
    // Weights: healthy 1, degraded 3, total 4: health 35, degraded availability 105 → 100; normalized 100.
    PriorityLoad p = PriorityLoad.compute(new PriorityLoad.Level[] {new PriorityLoad.Level(1, 1, 2, 1, 3, 4)},
        FACTOR, true, 0);
    assertThat(p.load()).containsExactly(35);
    assertThat(p.degradedLoad()).containsExactly(65);
  }
}
