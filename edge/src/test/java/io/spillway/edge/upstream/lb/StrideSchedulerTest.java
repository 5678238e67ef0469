package io.spillway.edge.upstream.lb;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class StrideSchedulerTest {

  private static int[] counts(StrideScheduler s, long start, int picks) {
    int[] counts = new int[s.size()];
    long seq = start;
    for (int i = 0; i < picks; i++) {
      long accepted = s.next(seq);
      counts[s.endpoint(accepted)]++;
      seq = accepted + 1;
    }
    return counts;
  }

  @Test
  void picksFollowTheWeights() {
    StrideScheduler s = StrideScheduler.of(new double[] {400, 200, 100});
    long start = new SplittableRandom(42).nextLong() >>> 2;
    int[] c = counts(s, start, 70_000);
    // 4 : 2 : 1 within 1 % of all picks
    assertThat(c[0]).isBetween(39_300, 40_700);
    assertThat(c[1]).isBetween(19_300, 20_700);
    assertThat(c[2]).isBetween(9_300, 10_700);
  }

  @Test
  void heaviestEndpointIsNeverStarvedNorBunchedForLong() {
    StrideScheduler s = StrideScheduler.of(new double[] {1, 1, 1, 1});
    int[] c = counts(s, 7, 4000);
    assertThat(c).containsExactly(1000, 1000, 1000, 1000);
  }

  @Test
  void missingWeightsTakeTheMean() {
    StrideScheduler s = StrideScheduler.of(new double[] {300, 0, 100});
    int[] c = counts(s, 0, 60_000);
    assertThat(c[1]).isBetween(19_000, 21_000); // mean 200 of 600 in all
  }

  @Test
  void outliersAreCappedAtTenTimesTheMean() {
    StrideScheduler s = StrideScheduler.of(new double[] {1_000_000, 1, 1});
    // mean 333 334, cap 3 333 334: the cap is above every weight here, so only the floor applies
    assertThat(s.scaledWeight(0)).isEqualTo(StrideScheduler.MAX_WEIGHT);
    assertThat(s.scaledWeight(1)).isEqualTo(656); // 1 % of the largest
  }

  @Test
  void fewerThanTwoWeightsGiveNoSchedule() {
    assertThat(StrideScheduler.of(new double[] {})).isNull();
    assertThat(StrideScheduler.of(new double[] {5})).isNull();
    assertThat(StrideScheduler.of(new double[] {5, 0, 0})).isNull();
    assertThat(StrideScheduler.of(new double[] {5, 1})).isNotNull();
  }
}
