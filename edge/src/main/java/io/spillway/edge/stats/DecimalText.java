package io.spillway.edge.stats;

import java.math.BigDecimal;

/** Doubles as Envoy prints them: shortest round-trip digits, no exponent, integers bare, {@code nan}. */
public final class DecimalText {

  private static final double EXACT_LONG_LIMIT = 0x1p53;

  private DecimalText() {}

  public static String format(double value) {
    if (Double.isNaN(value)) {
      return "nan";
    }
    if (Double.isInfinite(value)) {
      return value > 0 ? "inf" : "-inf";
    }
    if (value == Math.rint(value) && Math.abs(value) < EXACT_LONG_LIMIT) {
      return Long.toString((long) value);
    }
    return new BigDecimal(Double.toString(value)).stripTrailingZeros().toPlainString();
  }
}
