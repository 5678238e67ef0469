package io.spillway.edge.config;

/**
 * Envoy's {@code RuntimeFractionalPercent}: a share of requests, which the runtime key (when set
 * and present in the runtime) overrides — with a whole number read as a percentage, or a fractional
 * percent.
 *
 * @param runtimeKey the key to look up; "" for none
 * @param defaultPerMillion {@code default_value} in parts per million (at most one million)
 */
public record RuntimeFraction(String runtimeKey, int defaultPerMillion) {
  public static final int MILLION = 1_000_000;

  /** Never: Envoy's default where a fraction is unset. */
  public static final RuntimeFraction NEVER = new RuntimeFraction("", 0);
  /** Always. */
  public static final RuntimeFraction ALWAYS = new RuntimeFraction("", MILLION);

  public RuntimeFraction {
    java.util.Objects.requireNonNull(runtimeKey, "runtimeKey");
    if (defaultPerMillion < 0 || defaultPerMillion > MILLION) {
      throw new IllegalArgumentException("defaultPerMillion out of 0..1000000: " + defaultPerMillion);
    }
  }

  /** A fraction without a runtime key. */
  public static RuntimeFraction of(int perMillion) {
    return new RuntimeFraction("", perMillion);
  }
}
