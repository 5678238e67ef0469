package io.spillway.edge.overload;

import io.spillway.edge.config.OverloadConfig;

/** Envoy's trigger formulas: pressure in, action state in [0, 1] out. */
final class Triggers {

  private Triggers() {}

  /** The state {@code trigger} gives at {@code pressure}. */
  static double state(OverloadConfig.Trigger trigger, double pressure) {
    return switch (trigger) {
      case OverloadConfig.ThresholdTrigger t -> threshold(t.value(), pressure);
      case OverloadConfig.ScaledTrigger s -> scaled(s.scalingThreshold(), s.saturationThreshold(), pressure);
    };
  }

  /** 1 when {@code pressure >= value}, else 0. */
  static double threshold(double value, double pressure) {
    return pressure >= value ? 1.0 : 0.0;
  }

  /** 0 at or below {@code scaling}, 1 at or above {@code saturation}, linear in between. */
  static double scaled(double scaling, double saturation, double pressure) {
    if (pressure <= scaling) {
      return 0.0;
    }
    if (pressure >= saturation) {
      return 1.0;
    }
    return (pressure - scaling) / (saturation - scaling);
  }
}
