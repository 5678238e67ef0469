package io.spillway.policy;

import java.math.BigDecimal;

/**
 * How values are written in messages and in canonical environment text. Modes in their JSON
 * spelling; numbers as the shortest decimal that reads back as the same value, with no exponent and
 * no trailing zeros ({@code 1}, {@code 0.01}, {@code 100000}) — what JavaScript's {@code String(n)}
 * prints for these ranges, so the console's messages match central's.
 */
final class ValueText {

  private ValueText() {}

  static String format(Object value) {
    if (value instanceof Double d) {
      if (d.isNaN() || d.isInfinite()) {
        return d.toString();
      }
      return BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
    }
    if (value instanceof Mode mode) {
      return mode.jsonName();
    }
    return String.valueOf(value);
  }
}
