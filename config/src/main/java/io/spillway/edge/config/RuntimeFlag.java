package io.spillway.edge.config;

/**
 * Envoy's {@code RuntimeFeatureFlag}: on or off by its default, which the runtime's value of the key
 * ({@code true} / {@code false}) overrides.
 *
 * @param runtimeKey the key to look up; "" for none
 * @param defaultValue {@code default_value}
 */
public record RuntimeFlag(String runtimeKey, boolean defaultValue) {
  public static final RuntimeFlag ON = new RuntimeFlag("", true);
  public static final RuntimeFlag OFF = new RuntimeFlag("", false);

  public RuntimeFlag {
    java.util.Objects.requireNonNull(runtimeKey, "runtimeKey");
  }

  /** A flag without a runtime key. */
  public static RuntimeFlag of(boolean value) {
    return value ? ON : OFF;
  }
}
