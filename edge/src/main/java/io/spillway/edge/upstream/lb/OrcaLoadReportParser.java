package io.spillway.edge.upstream.lb;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads the ORCA load report a backend sends on a response (gRPC's and Envoy's "endpoint load
 * metrics"): the {@code endpoint-load-metrics} header as {@code TEXT k=v,...} (also {@code k:v}),
 * {@code JSON {...}} (the proto's JSON form, snake_case or lowerCamelCase names) or {@code BIN
 * <base64>}, and the {@code endpoint-load-metrics-bin} header (base64 of the serialized
 * {@code xds.data.orca.v3.OrcaLoadReport}). The binary form is decoded from the protobuf wire
 * format here, so the hot path needs no protobuf runtime.
 *
 * <p>Malformed input throws {@link MalformedLoadReportException}; callers count it and go on.
 * Values are checked as the proto's validation rules have them: no negative value, {@code
 * mem_utilization} and {@code utilization} entries at most 1.
 */
public final class OrcaLoadReportParser {

  /** The text header. */
  public static final String HEADER = "endpoint-load-metrics";
  /** The binary header (base64 of the serialized proto). */
  public static final String BIN_HEADER = "endpoint-load-metrics-bin";

  private OrcaLoadReportParser() {}

  /** An unreadable or invalid load report. */
  public static final class MalformedLoadReportException extends RuntimeException {
    MalformedLoadReportException(String message) {
      super(message, null, false, false);
    }
  }

  /** Parses the value of {@code endpoint-load-metrics}. */
  public static OrcaLoadReport parseHeader(String value) {
    String v = value.strip();
    if (v.startsWith("TEXT ")) {
      return parseText(v.substring(5));
    }
    if (v.startsWith("JSON ")) {
      return new Json(v.substring(5)).report();
    }
    if (v.startsWith("BIN ")) {
      return parseBinary(v.substring(4));
    }
    throw new MalformedLoadReportException("endpoint-load-metrics must start with TEXT, JSON or BIN");
  }

  /** Parses the value of {@code endpoint-load-metrics-bin}. */
  public static OrcaLoadReport parseBinary(String base64) {
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(base64.strip());
    } catch (IllegalArgumentException e) {
      throw new MalformedLoadReportException("not base64: " + e.getMessage());
    }
    return new Wire(bytes).report();
  }

  // ---- TEXT ------------------------------------------------------------------------------------

  private static OrcaLoadReport parseText(String text) {
    Builder b = new Builder();
    for (String pair : text.split(",", -1)) {
      String p = pair.strip();
      if (p.isEmpty()) {
        throw new MalformedLoadReportException("empty entry in TEXT load report");
      }
      int eq = p.indexOf('=');
      int colon = p.indexOf(':');
      int sep = eq < 0 ? colon : colon < 0 ? eq : Math.min(eq, colon);
      if (sep <= 0 || sep == p.length() - 1) {
        throw new MalformedLoadReportException("TEXT entry is not key=value: " + p);
      }
      String key = p.substring(0, sep).strip();
      b.set(key, number(p.substring(sep + 1).strip(), key));
    }
    return b.build();
  }

  private static double number(String s, String key) {
    try {
      double d = Double.parseDouble(s);
      if (!Double.isFinite(d)) {
        throw new MalformedLoadReportException(key + " is not a finite number");
      }
      return d;
    } catch (NumberFormatException e) {
      throw new MalformedLoadReportException(key + " is not a number: " + s);
    }
  }

  /** Collects fields by their proto name (TEXT keys and JSON names) and validates them. */
  private static final class Builder {
    double cpu;
    double mem;
    double app;
    double rps;
    double eps;
    final Map<String, Double> named = new HashMap<>();
    final Map<String, Double> utilization = new HashMap<>();
    final Map<String, Double> cost = new HashMap<>();

    void set(String key, double value) {
      int dot = key.indexOf('.');
      if (dot > 0) {
        String map = key.substring(0, dot);
        String name = key.substring(dot + 1);
        if (name.isEmpty()) {
          throw new MalformedLoadReportException("empty metric name in " + key);
        }
        put(map, name, value);
        return;
      }
      switch (key) {
        case "cpu_utilization", "cpuUtilization" -> cpu = nonNegative(key, value);
        case "mem_utilization", "memUtilization" -> mem = fraction(key, value);
        case "application_utilization", "applicationUtilization" -> app = nonNegative(key, value);
        case "rps_fractional", "rpsFractional" -> rps = nonNegative(key, value);
        case "eps" -> eps = nonNegative(key, value);
        case "rps" -> {
          // deprecated integer field; rps_fractional wins when both are sent
          if (rps == 0) {
            rps = nonNegative(key, value);
          }
        }
        default -> throw new MalformedLoadReportException("unknown load report field " + key);
      }
    }

    static void checkMap(String map) {
      switch (map) {
        case "named_metrics", "namedMetrics", "utilization", "request_cost", "requestCost" -> { }
        default -> throw new MalformedLoadReportException("unknown load report map " + map);
      }
    }

    void put(String map, String name, double value) {
      switch (map) {
        case "named_metrics", "namedMetrics" -> named.put(name, value);
        case "utilization" -> utilization.put(name, fraction("utilization." + name, value));
        case "request_cost", "requestCost" -> cost.put(name, value);
        default -> throw new MalformedLoadReportException("unknown load report map " + map);
      }
    }

    private static double nonNegative(String key, double v) {
      if (!(v >= 0)) {
        throw new MalformedLoadReportException(key + " must not be negative");
      }
      return v;
    }

    private static double fraction(String key, double v) {
      if (!(v >= 0 && v <= 1)) {
        throw new MalformedLoadReportException(key + " must be within [0, 1]");
      }
      return v;
    }

    OrcaLoadReport build() {
      return new OrcaLoadReport(cpu, mem, app, rps, eps, named, utilization, cost);
    }
  }

  // ---- JSON: one object of numbers and objects of numbers ---------------------------------------

  private static final class Json {
    private final String s;
    private int i;
    private final Builder b = new Builder();

    Json(String s) {
      this.s = s;
    }

    OrcaLoadReport report() {
      skipSpace();
      expect('{');
      skipSpace();
      if (peek() == '}') {
        i++;
      } else {
        while (true) {
          String key = string();
          skipSpace();
          expect(':');
          skipSpace();
          if (peek() == '{') {
            i++;
            mapBody(key);
          } else {
            b.set(key, value(key));
          }
          skipSpace();
          if (peek() == ',') {
            i++;
            skipSpace();
            continue;
          }
          expect('}');
          break;
        }
      }
      skipSpace();
      if (i != s.length()) {
        throw new MalformedLoadReportException("trailing characters after the JSON load report");
      }
      return b.build();
    }

    private void mapBody(String map) {
      skipSpace();
      if (peek() == '}') {
        i++;
        Builder.checkMap(map);
        return;
      }
      while (true) {
        skipSpace();
        String name = string();
        if (name.isEmpty()) {
          throw new MalformedLoadReportException("empty metric name in " + map);
        }
        skipSpace();
        expect(':');
        skipSpace();
        b.put(map, name, value(map + "." + name));
        skipSpace();
        if (peek() == ',') {
          i++;
          continue;
        }
        expect('}');
        return;
      }
    }

    /** A number, or a quoted number (proto JSON writes 64-bit integers as strings). */
    private double value(String key) {
      if (peek() == '"') {
        return number(string(), key);
      }
      int start = i;
      while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
        i++;
      }
      if (start == i) {
        throw new MalformedLoadReportException(key + " is not a number");
      }
      return number(s.substring(start, i), key);
    }

    private String string() {
      expect('"');
      int start = i;
      while (i < s.length() && s.charAt(i) != '"') {
        if (s.charAt(i) == '\\') {
          throw new MalformedLoadReportException("escapes are not expected in load report names");
        }
        i++;
      }
      expect('"');
      return s.substring(start, i - 1);
    }

    private char peek() {
      if (i >= s.length()) {
        throw new MalformedLoadReportException("JSON load report ends early");
      }
      return s.charAt(i);
    }

    private void expect(char c) {
      if (peek() != c) {
        throw new MalformedLoadReportException("expected '" + c + "' at " + i + " of the JSON load report");
      }
      i++;
    }

    private void skipSpace() {
      while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
        i++;
      }
    }
  }

  // ---- BIN: the protobuf wire format of OrcaLoadReport ------------------------------------------

  private static final class Wire {
    private final byte[] buf;
    private int pos;
    private int limit;
    private final Builder b = new Builder();

    Wire(byte[] buf) {
      this.buf = buf;
      this.limit = buf.length;
    }

    OrcaLoadReport report() {
      while (pos < limit) {
        long tag = varint();
        int field = (int) (tag >>> 3);
        int type = (int) (tag & 7);
        switch (field) {
          case 1 -> b.set("cpu_utilization", fixed64(type, field));
          case 2 -> b.set("mem_utilization", fixed64(type, field));
          case 3 -> {
            require(type, 0, field);
            b.set("rps", varint());
          }
          case 4 -> entry("request_cost", type);
          case 5 -> entry("utilization", type);
          case 6 -> b.set("rps_fractional", fixed64(type, field));
          case 7 -> b.set("eps", fixed64(type, field));
          case 8 -> entry("named_metrics", type);
          case 9 -> b.set("application_utilization", fixed64(type, field));
          default -> skip(type);
        }
      }
      return b.build();
    }

    /** A map entry: a message with key = 1 (string) and value = 2 (double). */
    private void entry(String map, int type) {
      require(type, 2, 0);
      int length = length();
      int outer = limit;
      limit = pos + length;
      String key = "";
      double value = 0;
      while (pos < limit) {
        long tag = varint();
        int field = (int) (tag >>> 3);
        int t = (int) (tag & 7);
        if (field == 1) {
          require(t, 2, field);
          int n = length();
          key = new String(buf, pos, n, StandardCharsets.UTF_8);
          pos += n;
        } else if (field == 2) {
          value = fixed64(t, field);
        } else {
          skip(t);
        }
      }
      limit = outer;
      if (key.isEmpty()) {
        throw new MalformedLoadReportException("empty metric name in " + map);
      }
      b.put(map, key, value);
    }

    private double fixed64(int type, int field) {
      require(type, 1, field);
      if (limit - pos < 8) {
        throw truncated();
      }
      long bits = 0;
      for (int k = 7; k >= 0; k--) {
        bits = (bits << 8) | (buf[pos + k] & 0xFF);
      }
      pos += 8;
      double d = Double.longBitsToDouble(bits);
      if (!Double.isFinite(d)) {
        throw new MalformedLoadReportException("field " + field + " is not a finite number");
      }
      return d;
    }

    private long varint() {
      long result = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (pos >= limit) {
          throw truncated();
        }
        byte x = buf[pos++];
        result |= (long) (x & 0x7F) << shift;
        if (x >= 0) {
          return result;
        }
      }
      throw new MalformedLoadReportException("malformed varint");
    }

    private int length() {
      long n = varint();
      if (n < 0 || n > limit - pos) {
        throw truncated();
      }
      return (int) n;
    }

    private void skip(int type) {
      switch (type) {
        case 0 -> varint();
        case 1 -> advance(8);
        case 2 -> advance(length());
        case 5 -> advance(4);
        default -> throw new MalformedLoadReportException("unsupported wire type " + type);
      }
    }

    private void advance(int n) {
      if (limit - pos < n) {
        throw truncated();
      }
      pos += n;
    }

    private static void require(int type, int expected, int field) {
      if (type != expected) {
        throw new MalformedLoadReportException("field " + field + " has wire type " + type);
      }
    }

    private static MalformedLoadReportException truncated() {
      return new MalformedLoadReportException("truncated load report");
    }
  }
}
