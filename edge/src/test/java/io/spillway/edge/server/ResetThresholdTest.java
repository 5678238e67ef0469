package io.spillway.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** reset_high_memory_stream's memory classes, with Envoy's example: 2^20 = 1 MiB minimum, 8 classes. */
class ResetThresholdTest {

  @Test
  void justAboveTheScalingThresholdOnlyTheLastClassIsCleared() {
    assertThat(HighMemoryStreamResets.resetThresholdBytes(0.01, 20)).isEqualTo(128L << 20); // >= 128 MiB
  }

  @Test
  void eachGradationClearsOneMoreClass() {
    assertThat(HighMemoryStreamResets.resetThresholdBytes(0.125, 20)).isEqualTo(64L << 20);
    assertThat(HighMemoryStreamResets.resetThresholdBytes(0.25, 20)).isEqualTo(32L << 20);
    assertThat(HighMemoryStreamResets.resetThresholdBytes(0.874, 20)).isEqualTo(2L << 20);
  }

  @Test
  void saturatedEveryTrackedStreamIsEligible() {
    assertThat(HighMemoryStreamResets.resetThresholdBytes(0.875, 20)).isEqualTo(1L << 20);
    assertThat(HighMemoryStreamResets.resetThresholdBytes(1.0, 20)).isEqualTo(1L << 20);
  }
}
