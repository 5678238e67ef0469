package io.spillway.edge.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.spillway.edge.config.PressureConfig.Dimensions;
import io.spillway.edge.config.PressureConfig.Normalization;
import io.spillway.edge.upstream.lb.OrcaLoadReport;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PressureScoreTest {
  private static final double NAN = Double.NaN;

  private static OrcaLoadReport cpu(double cpu) {
    return new OrcaLoadReport(cpu, 0, 0, 0, 0, Map.of("queue", 0.5), Map.of(), Map.of());
  }

  @Test
  void maxNeverAveragesASaturatedResourceAway() {
    Dimensions w = new Dimensions(1, 0, 0, Map.of(), 1, 0, 0);
    // 20 % CPU, 100 of 100 requests in flight: MAX says 1.0, the weighted sum 0.6
    assertThat(PressureScore.raw(w, Normalization.MAX, cpu(0.2), 100, 100, NAN, NAN, NAN)).isEqualTo(1.0);
    assertThat(PressureScore.raw(w, Normalization.WEIGHTED_SUM, cpu(0.2), 100, 100, NAN, NAN, NAN))
        .isCloseTo(0.6, within(1e-12));
  }

  @Test
  void weightedSumIsTheSeedsFormulaOverTheDimensionsThatHaveData() {
    Dimensions w = new Dimensions(0.4, 0, 0, Map.of("queue", 0.2), 0.3, 0, 0.1);
    // 0.4*0.5 + 0.2*0.5 + 0.3*0.1 + 0.1*0.0 over 1.0
    assertThat(PressureScore.raw(w, Normalization.WEIGHTED_SUM, cpu(0.5), 10, 100, NAN, NAN, 0.0))
        .isCloseTo(0.33, within(1e-12));
    // without a report (none fresh) the ORCA dimensions are left out, not read as 0: 0.3*0.1 / 0.4
    assertThat(PressureScore.raw(w, Normalization.WEIGHTED_SUM, null, 10, 100, NAN, NAN, 0.0))
        .isCloseTo(0.075, within(1e-12));
  }

  @Test
  void presetsWeighTheDimensions() {
    OrcaLoadReport hot = cpu(0.9);
    // CPU-bound: a 90 % CPU reads 0.9; gateway: CPU weighs 0.3, so 0.27
    assertThat(PressureScore.raw(Dimensions.COMPUTE_BOUND, Normalization.MAX, hot, 0, 100, NAN, NAN, NAN))
        .isCloseTo(0.9, within(1e-12));
    assertThat(PressureScore.raw(Dimensions.GATEWAY, Normalization.MAX, hot, 0, 100, NAN, NAN, NAN))
        .isCloseTo(0.27, within(1e-12));
    // I/O-bound: 80 of 100 in flight dominate
    assertThat(PressureScore.raw(Dimensions.IO_BOUND, Normalization.MAX, hot, 80, 100, NAN, NAN, NAN))
        .isCloseTo(0.8, within(1e-12));
  }

  @Test
  void latencyIsRelativeToTheFastestHostAboveAFloor() {
    assertThat(PressureScore.latency(20e6, 2e6)).isCloseTo(0.9, within(1e-12));
    assertThat(PressureScore.latency(0.6e6, 0.2e6)).isZero(); // both under 1 ms: noise, not pressure
    Dimensions w = new Dimensions(0, 0, 0, Map.of(), 0, 1, 0);
    assertThat(PressureScore.raw(w, Normalization.MAX, null, 0, 100, 20e6, 2e6, NAN)).isCloseTo(0.9, within(1e-12));
    assertThat(PressureScore.raw(w, Normalization.MAX, null, 0, 100, NAN, 2e6, NAN)).isNaN();
  }

  @Test
  void weightIsOneMinusTheScoreWithAFloor() {
    assertThat(PressureScore.weight(0.25)).isEqualTo(0.75);
    assertThat(PressureScore.weight(1.0)).isEqualTo(PressureScore.MIN_WEIGHT);
  }
}
