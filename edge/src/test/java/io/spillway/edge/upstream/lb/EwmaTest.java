package io.spillway.edge.upstream.lb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class EwmaTest {
  private static final long S = 1_000_000_000L;

  @Test
  void alphaFollowsTheGapBetweenSamples() {
    Ewma e = new Ewma(10 * S, false);
    e.add(0, 0);
    // 1 s after: alpha = 1 - e^(-0.1) = 0.0952
    assertThat(e.add(1, S)).isCloseTo(1 - Math.exp(-0.1), within(1e-12));
    double before = e.value();
    // 20 s later the same sample moves it by 1 - e^(-2) = 0.8647 of the rest
    assertThat(e.add(1, 21 * S)).isCloseTo(before + (1 - Math.exp(-2)) * (1 - before), within(1e-12));
  }

  @Test
  void unevenSpacingForgetsAtTheSameRateAsEvenSpacing() {
    Ewma even = new Ewma(5 * S, false);
    Ewma uneven = new Ewma(5 * S, false);
    even.add(1, 0);
    uneven.add(1, 0);
    for (int i = 1; i <= 4; i++) {
      even.add(0, i * S);
    }
    uneven.add(0, 4 * S); // one sample after 4 s, as four after 1 s each
    assertThat(uneven.value()).isCloseTo(even.value(), within(1e-12)).isCloseTo(Math.exp(-0.8), within(1e-12));
  }

  @Test
  void peakSensitiveRisesAtOnceAndDecaysSmoothly() {
    Ewma e = new Ewma(10 * S, true);
    e.add(0.2, 0);
    assertThat(e.add(0.9, S)).isEqualTo(0.9);
    assertThat(e.add(0.1, 2 * S)).isCloseTo(0.9 - (1 - Math.exp(-0.1)) * 0.8, within(1e-12));
    Ewma plain = new Ewma(10 * S, false);
    plain.add(0.2, 0);
    assertThat(plain.add(0.9, S)).isLessThan(0.3);
  }

  @Test
  void aSampleAtTheSameInstantDoesNotMoveIt() {
    Ewma e = new Ewma(S, false);
    e.add(0.5, 7);
    assertThat(e.add(1, 7)).isEqualTo(0.5);
    e.reset();
    assertThat(e.value()).isNaN();
  }
}
