package io.spillway.edge.runtime;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One published view of the runtime: each layer's values, lowest first, and the merged values in
 * which a later layer wins. Immutable; lookups are one hash-map read and never allocate except for
 * the {@link Optional} of {@link #get}.
 *
 * <p>Lookups follow Envoy's rules: an integer lookup takes only values that are unsigned whole
 * numbers, a boolean lookup only {@code true} / {@code false}, and anything else answers the
 * caller's default.
 */
public final class RuntimeSnapshot {
  /** No layers: every lookup answers its default. */
  public static final RuntimeSnapshot EMPTY = new RuntimeSnapshot(List.of(), List.of());

  private final List<String> layerNames;
  private final List<Map<String, String>> layerValues;
  private final Map<String, String> values;

  /**
   * @param layerNames the layers' names, lowest first
   * @param layerValues each layer's values, in the same order
   */
  public RuntimeSnapshot(List<String> layerNames, List<Map<String, String>> layerValues) {
    if (layerNames.size() != layerValues.size()) {
      throw new IllegalArgumentException("one value map per layer");
    }
    this.layerNames = List.copyOf(layerNames);
    this.layerValues = layerValues.stream().map(Map::copyOf).toList();
    Map<String, String> merged = new LinkedHashMap<>();
    for (Map<String, String> layer : this.layerValues) {
      merged.putAll(layer);
    }
    this.values = Collections.unmodifiableMap(merged);
  }

  public List<String> layerNames() {
    return layerNames;
  }

  /** Each layer's own values, lowest first. */
  public List<Map<String, String>> layerValues() {
    return layerValues;
  }

  /** The merged values. */
  public Map<String, String> values() {
    return values;
  }

  public Optional<String> get(String key) {
    return Optional.ofNullable(values.get(key));
  }

  /** The key's value when it is an unsigned whole number, else {@code defaultValue}. */
  public long getInteger(String key, long defaultValue) {
    String v = values.get(key);
    if (v == null || v.isEmpty()) {
      return defaultValue;
    }
    long n = 0;
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c < '0' || c > '9' || n > (Long.MAX_VALUE - (c - '0')) / 10) {
        return defaultValue;
      }
      n = n * 10 + (c - '0');
    }
    return n;
  }

  /** The key's value when it is {@code true} or {@code false} (any case), else {@code defaultValue}. */
  public boolean getBoolean(String key, boolean defaultValue) {
    String v = values.get(key);
    if ("true".equalsIgnoreCase(v)) {
      return true;
    }
    if ("false".equalsIgnoreCase(v)) {
      return false;
    }
    return defaultValue;
  }

  /**
   * Envoy's {@code featureEnabled} for a {@code RuntimeFractionalPercent}: the key's fractional
   * percent ({@code numerator/denominator}), or its whole number read as a percentage, or the
   * default; true when {@code random % denominator < numerator}.
   *
   * @param random a uniformly random non-negative value
   */
  public boolean featureEnabled(String key, long defaultNumerator, long defaultDenominator, long random) {
    long numerator = defaultNumerator;
    long denominator = defaultDenominator;
    String v = key.isEmpty() ? null : values.get(key);
    if (v != null) {
      int slash = v.indexOf('/');
      if (slash > 0) {
        numerator = parseOr(v.substring(0, slash), defaultNumerator);
        denominator = parseOr(v.substring(slash + 1), defaultDenominator);
      } else {
        long percent = getInteger(key, -1);
        if (percent >= 0) {
          numerator = percent;
          denominator = 100;
        }
      }
    }
    if (numerator >= denominator) {
      return true;
    }
    return Math.floorMod(random, denominator) < numerator;
  }

  /**
   * {@link #featureEnabled(String, long, long, long)} for a default in parts per million, drawing
   * from {@code random}: the key's percentage or fractional percent, else the default.
   */
  public boolean featureEnabled(String key, int defaultPerMillion, java.util.random.RandomGenerator random) {
    long perMillion = defaultPerMillion;
    String v = key.isEmpty() ? null : values.get(key);
    if (v != null) {
      int slash = v.indexOf('/');
      if (slash > 0) {
        long numerator = parseOr(v.substring(0, slash), -1);
        long denominator = parseOr(v.substring(slash + 1), -1);
        if (numerator >= 0 && denominator > 0) {
          perMillion = Math.min(MILLION, numerator * (MILLION / denominator));
        }
      } else {
        long percent = getInteger(key, -1);
        if (percent >= 0) {
          perMillion = Math.min(MILLION, percent * (MILLION / 100));
        }
      }
    }
    if (perMillion >= MILLION) {
      return true;
    }
    return perMillion > 0 && random.nextInt(MILLION) < perMillion;
  }

  /** {@link #featureEnabled(String, int, java.util.random.RandomGenerator)} for a translated fraction. */
  public boolean featureEnabled(io.spillway.edge.config.RuntimeFraction fraction,
      java.util.random.RandomGenerator random) {
    return featureEnabled(fraction.runtimeKey(), fraction.defaultPerMillion(), random);
  }

  private static final int MILLION = io.spillway.edge.config.RuntimeFraction.MILLION;

  private static long parseOr(String s, long fallback) {
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      return fallback;
    }
  }
}
