package io.spillway.edge.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.spillway.edge.config.OverloadConfig;
import org.junit.jupiter.api.Test;

/** Envoy's trigger formulas, at and around their boundaries. */
class TriggersTest {

  @Test
  void aThresholdTriggerIsOneAtOrAboveItsValueAndZeroBelow() {
    OverloadConfig.Trigger trigger = new OverloadConfig.ThresholdTrigger("heap", 0.92);

    assertThat(Triggers.state(trigger, 0.0)).isZero();
    assertThat(Triggers.state(trigger, 0.9199999)).isZero();
    assertThat(Triggers.state(trigger, 0.92)).isEqualTo(1.0);
    assertThat(Triggers.state(trigger, 0.99)).isEqualTo(1.0);
    assertThat(Triggers.state(trigger, 1.0)).isEqualTo(1.0);
    // A threshold of 0 is always saturated.
    assertThat(Triggers.threshold(0.0, 0.0)).isEqualTo(1.0);
  }

  @Test
  void aScaledTriggerIsLinearBetweenItsThresholds() {
    OverloadConfig.Trigger trigger = new OverloadConfig.ScaledTrigger("heap", 0.85, 0.95);

    assertThat(Triggers.state(trigger, 0.5)).isZero();
    assertThat(Triggers.state(trigger, 0.85)).isZero();
    assertThat(Triggers.state(trigger, 0.9)).isCloseTo(0.5, within(1e-12));
    assertThat(Triggers.state(trigger, 0.92)).isCloseTo(0.7, within(1e-12));
    assertThat(Triggers.state(trigger, 0.95)).isEqualTo(1.0);
    assertThat(Triggers.state(trigger, 1.0)).isEqualTo(1.0);
    assertThat(Triggers.scaled(0.25, 0.75, 0.5)).isEqualTo(0.5);
    assertThat(Triggers.scaled(0.0, 1.0, 0.3)).isEqualTo(0.3);
  }

  @Test
  void aScaledTriggerNeedsScalingBelowSaturation() {
    assertThatThrownBy(() -> new OverloadConfig.ScaledTrigger("heap", 0.9, 0.9))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("scaling_threshold must be less than saturation_threshold");
  }
}
