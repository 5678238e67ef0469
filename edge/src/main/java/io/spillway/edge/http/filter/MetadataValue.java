package io.spillway.edge.http.filter;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One value of a stream's dynamic metadata, with the kinds of protobuf's {@code google.protobuf.Value}
 * (what Envoy's {@code Metadata.filter_metadata} holds): a string, a number (a double), a bool,
 * null, a struct (string keys, kept sorted) or a list. Immutable. It writes itself as JSON the way
 * Envoy's formatter prints a {@code Value}: numbers without a fraction print as integers.
 */
public sealed interface MetadataValue {

  /** Appends this value as JSON. */
  void appendJson(StringBuilder out);

  /**
   * Appends this value as Envoy's text formats print it: a string as it is (unquoted), every other
   * kind as JSON.
   */
  default void appendText(StringBuilder out) {
    appendJson(out);
  }

  /** A string. */
  record StringValue(String value) implements MetadataValue {
    public StringValue {
      java.util.Objects.requireNonNull(value, "value");
    }

    @Override
    public void appendJson(StringBuilder out) {
      appendJsonString(out, value);
    }

    @Override
    public void appendText(StringBuilder out) {
      out.append(value);
    }
  }

  /** A number. */
  record NumberValue(double value) implements MetadataValue {
    @Override
    public void appendJson(StringBuilder out) {
      appendNumber(out, value);
    }
  }

  /** A boolean. */
  record BoolValue(boolean value) implements MetadataValue {
    @Override
    public void appendJson(StringBuilder out) {
      out.append(value);
    }
  }

  /** JSON null (protobuf's {@code null_value}, and a {@code Value} whose kind is not set). */
  enum NullValue implements MetadataValue {
    INSTANCE;

    @Override
    public void appendJson(StringBuilder out) {
      out.append("null");
    }
  }

  /** A struct: its fields, sorted by key. */
  record StructValue(Map<String, MetadataValue> fields) implements MetadataValue {
    public StructValue {
      fields = Collections.unmodifiableMap(new TreeMap<>(fields));
    }

    @Override
    public void appendJson(StringBuilder out) {
      appendJsonObject(out, fields);
    }
  }

  /** A list. */
  record ListValue(List<MetadataValue> values) implements MetadataValue {
    public ListValue {
      values = List.copyOf(values);
    }

    @Override
    public void appendJson(StringBuilder out) {
      out.append('[');
      for (int i = 0; i < values.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        values.get(i).appendJson(out);
      }
      out.append(']');
    }
  }

  /** Appends {@code fields} as a JSON object, in the map's order. */
  static void appendJsonObject(StringBuilder out, Map<String, MetadataValue> fields) {
    out.append('{');
    boolean first = true;
    for (Map.Entry<String, MetadataValue> e : fields.entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      appendJsonString(out, e.getKey());
      out.append(':');
      e.getValue().appendJson(out);
    }
    out.append('}');
  }

  /**
   * A double as protobuf's JSON printer writes a {@code number_value} (C's {@code %.15g}, or
   * {@code %.17g} when 15 digits do not read back): {@code 5}, {@code 0.25}, {@code 1e+21},
   * {@code 1.5e-07}. Infinities and NaN, which JSON cannot hold, print as strings, as protobuf
   * prints them.
   */
  static void appendNumber(StringBuilder out, double d) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      out.append('"').append(Double.isNaN(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity").append('"');
      return;
    }
    if (d == Math.rint(d) && Math.abs(d) < 1e15) {
      out.append((long) d == 0 && 1 / d < 0 ? "-0" : Long.toString((long) d));
      return;
    }
    String s = shortestG(d, 15);
    out.append(Double.parseDouble(s) == d ? s : shortestG(d, 17));
  }

  /** C's {@code %.<digits>g}: Java's {@code %g} with the trailing zeros of the fraction dropped. */
  private static String shortestG(double d, int digits) {
    String s = String.format(java.util.Locale.ROOT, "%." + digits + "g", d);
    int e = s.indexOf('e');
    String mantissa = e < 0 ? s : s.substring(0, e);
    if (mantissa.indexOf('.') >= 0) {
      int end = mantissa.length();
      while (mantissa.charAt(end - 1) == '0') {
        end--;
      }
      if (mantissa.charAt(end - 1) == '.') {
        end--;
      }
      mantissa = mantissa.substring(0, end);
    }
    return e < 0 ? mantissa : mantissa + s.substring(e);
  }

  /** Appends {@code s} as a JSON string (quotes, backslashes and control characters escaped). */
  static void appendJsonString(StringBuilder out, CharSequence s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append("\\u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xf, 16));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
