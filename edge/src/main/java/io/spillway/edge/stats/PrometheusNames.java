package io.spillway.edge.stats;

import java.util.List;
import java.util.regex.Pattern;

/** Prometheus naming rules: sanitizing Envoy names, validating our own, escaping label values. */
final class PrometheusNames {

  private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

  private PrometheusNames() {}

  /** Replaces every character outside {@code [a-zA-Z0-9_:]} with {@code _}, as Envoy does. */
  static String sanitize(String name) {
    StringBuilder out = new StringBuilder(name.length());
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean valid = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '_' || c == ':';
      out.append(valid ? c : '_');
    }
    return out.toString();
  }

  static String requireMetricName(String name) {
    if (name == null || !METRIC_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("not a Prometheus metric name: " + name);
    }
    return name;
  }

  static String requireLabelName(String name) {
    if (name == null || !LABEL_NAME.matcher(name).matches() || name.startsWith("__")) {
      throw new IllegalArgumentException("not a Prometheus label name: " + name);
    }
    return name;
  }

  /** Appends {@code a="x",b="y"} (no braces), escaping backslash, double quote and newline. */
  static void appendLabels(StringBuilder out, List<Tag> tags) {
    for (int i = 0; i < tags.size(); i++) {
      if (i > 0) {
        out.append(',');
      }
      Tag tag = tags.get(i);
      out.append(tag.name()).append("=\"");
      String value = tag.value();
      for (int j = 0; j < value.length(); j++) {
        char c = value.charAt(j);
        switch (c) {
          case '\\' -> out.append("\\\\");
          case '"' -> out.append("\\\"");
          case '\n' -> out.append("\\n");
          default -> out.append(c);
        }
      }
      out.append('"');
    }
  }

  /** A sample value: integers without a fraction, {@code NaN}, {@code +Inf}, {@code -Inf}. */
  static String sampleValue(double value) {
    if (Double.isNaN(value)) {
      return "NaN";
    }
    if (Double.isInfinite(value)) {
      return value > 0 ? "+Inf" : "-Inf";
    }
    return DecimalText.format(value);
  }
}
