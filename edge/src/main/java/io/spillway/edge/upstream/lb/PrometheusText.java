package io.spillway.edge.upstream.lb;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads the few samples a metrics poller wants from a body in the Prometheus text exposition format
 * 0.0.4: lines separated by {@code \n}, tokens by blanks or tabs; {@code #} lines are comments
 * except {@code # TYPE name type} (read, so counters, histograms and summaries are not taken for
 * gauges) and {@code # HELP} (ignored); a sample is {@code name[{label="value",...}] value
 * [timestamp]} with label values escaped as {@code \\}, {@code \"} and {@code \n}.
 *
 * <p>Only gauge and untyped samples count. Every line is read fully, and a line that breaks the
 * format (a bad name, an unterminated or badly escaped label value, a duplicate label, a value that
 * is not a float, a timestamp that is not an integer, more tokens, or a line longer than {@link
 * #MAX_LINE_CHARS}) is counted and skipped; nothing in the body is fatal. A hand-written reader:
 * the Prometheus Java client in the build only writes this format.
 */
public final class PrometheusText {
  /** A line longer than this is malformed (no exporter writes one; it is skipped unread). */
  public static final int MAX_LINE_CHARS = 64 * 1024;
  /** A float as the format writes one (Go's ParseFloat, decimal forms); NaN and infinities are handled apart. */
  private static final Pattern DECIMAL = Pattern.compile("[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?");
  private static final Set<String> TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped");

  private PrometheusText() {}

  /**
   * Which samples a value is taken from: this metric name, carrying each of these labels with
   * exactly this value (other labels may be there too).
   */
  public record Selector(String name, Map<String, String> labels) {
    public Selector {
      labels = Map.copyOf(labels);
    }
  }

  /**
   * What a body gave.
   *
   * @param values per selector, the largest value of the gauge or untyped samples it matched (NaN
   *     samples left out); NaN when none matched
   * @param malformedLines lines skipped because they break the format
   */
  public record Result(double[] values, int malformedLines) {}

  /** Reads {@code body} for {@code selectors}. */
  public static Result read(CharSequence body, List<Selector> selectors) {
    Set<String> wanted = new HashSet<>();
    for (Selector s : selectors) {
      wanted.add(s.name());
    }
    double[] values = new double[selectors.size()];
    java.util.Arrays.fill(values, Double.NaN);
    Map<String, String> types = new HashMap<>();
    Line line = new Line(body);
    int malformed = 0;
    int n = body.length();
    int start = 0;
    while (start < n) {
      int end = indexOf(body, '\n', start);
      if (end - start > MAX_LINE_CHARS) {
        malformed++;
      } else if (!line.read(start, end, wanted, types, selectors, values)) {
        malformed++;
      }
      start = end + 1;
    }
    return new Result(values, malformed);
  }

  private static int indexOf(CharSequence s, char c, int from) {
    int n = s.length();
    for (int i = from; i < n; i++) {
      if (s.charAt(i) == c) {
        return i;
      }
    }
    return n;
  }

  /** A cursor over one line. */
  private static final class Line {
    private final CharSequence body;
    private int at;
    private int end;

    Line(CharSequence body) {
      this.body = body;
    }

    /** Reads the line {@code [from, to)}; false when it is malformed. */
    boolean read(int from, int to, Set<String> wanted, Map<String, String> types, List<Selector> selectors,
        double[] values) {
      at = from;
      end = to;
      while (end > at && isBlank(body.charAt(end - 1), true)) {
        end--;
      }
      skipBlanks();
      if (at == end) {
        return true; // empty lines are ignored
      }
      if (body.charAt(at) == '#') {
        return comment(types, wanted);
      }
      return sample(wanted, types, selectors, values);
    }

    private boolean comment(Map<String, String> types, Set<String> wanted) {
      at++;
      skipBlanks();
      String keyword = token();
      if (!keyword.equals("TYPE")) {
        return true; // HELP and plain comments are ignored
      }
      skipBlanks();
      String name = token();
      skipBlanks();
      String type = token();
      skipBlanks();
      if (!validMetricName(name) || !TYPES.contains(type) || at != end) {
        return false;
      }
      if (wanted.contains(name)) {
        types.put(name, type);
      }
      return true;
    }

    private boolean sample(Set<String> wanted, Map<String, String> types, List<Selector> selectors, double[] values) {
      int nameStart = at;
      if (!isNameStart(body.charAt(at))) {
        return false;
      }
      at++;
      while (at < end && isNameChar(body.charAt(at))) {
        at++;
      }
      String name = body.subSequence(nameStart, at).toString();
      boolean interesting = wanted.contains(name);
      skipBlanks();
      Map<String, String> labels = Map.of();
      if (at < end && body.charAt(at) == '{') {
        at++;
        labels = labels();
        if (labels == null) {
          return false;
        }
      }
      if (at == end || !isBlank(body.charAt(at - 1), false) && body.charAt(at - 1) != '}') {
        return false; // no value, or the name ran into something that is not a name character
      }
      skipBlanks();
      double value;
      try {
        value = parseFloat(token());
      } catch (NumberFormatException e) {
        return false;
      }
      skipBlanks();
      if (at < end) {
        String timestamp = token();
        skipBlanks();
        if (!validTimestamp(timestamp) || at != end) {
          return false;
        }
      }
      if (!interesting || Double.isNaN(value)) {
        return true;
      }
      String type = types.getOrDefault(name, "untyped");
      if (!type.equals("gauge") && !type.equals("untyped")) {
        return true;
      }
      for (int i = 0; i < selectors.size(); i++) {
        Selector s = selectors.get(i);
        if (s.name().equals(name) && matches(s.labels(), labels)) {
          values[i] = Double.isNaN(values[i]) ? value : Math.max(values[i], value);
        }
      }
      return true;
    }

    /** The label set after {@code {}, up to and including {@code }}; null when malformed. */
    private Map<String, String> labels() {
      Map<String, String> labels = new HashMap<>();
      StringBuilder value = new StringBuilder();
      while (true) {
        skipBlanks();
        if (at < end && body.charAt(at) == '}') {
          at++;
          return labels;
        }
        int nameStart = at;
        if (at == end || !isLabelStart(body.charAt(at))) {
          return null;
        }
        while (at < end && isLabelChar(body.charAt(at))) {
          at++;
        }
        String label = body.subSequence(nameStart, at).toString();
        skipBlanks();
        if (at == end || body.charAt(at) != '=') {
          return null;
        }
        at++;
        skipBlanks();
        if (at == end || body.charAt(at) != '"') {
          return null;
        }
        at++;
        value.setLength(0);
        boolean closed = false;
        while (at < end) {
          char c = body.charAt(at++);
          if (c == '"') {
            closed = true;
            break;
          }
          if (c == '\\') {
            if (at == end) {
              return null;
            }
            char e = body.charAt(at++);
            switch (e) {
              case '\\' -> value.append('\\');
              case '"' -> value.append('"');
              case 'n' -> value.append('\n');
              default -> {
                return null; // only \\, \" and \n are escapes
              }
            }
          } else {
            value.append(c);
          }
        }
        if (!closed) {
          return null;
        }
        if (labels.put(label, value.toString()) != null) {
          return null; // a label twice
        }
        skipBlanks();
        if (at < end && body.charAt(at) == ',') {
          at++;
        } else if (at == end || body.charAt(at) != '}') {
          return null;
        }
      }
    }

    private String token() {
      int from = at;
      while (at < end && !isBlank(body.charAt(at), false)) {
        at++;
      }
      return body.subSequence(from, at).toString();
    }

    private void skipBlanks() {
      while (at < end && isBlank(body.charAt(at), false)) {
        at++;
      }
    }
  }

  /**
   * A sample value: a decimal float, {@code NaN}, {@code [+-]Inf} (case-insensitive, as Go reads them).
   *
   * @throws NumberFormatException when the token is none of these
   */
  static double parseFloat(String token) {
    String t = token.toLowerCase(java.util.Locale.ROOT);
    switch (t) {
      case "nan" -> {
        return Double.NaN;
      }
      case "inf", "+inf", "infinity", "+infinity" -> {
        return Double.POSITIVE_INFINITY;
      }
      case "-inf", "-infinity" -> {
        return Double.NEGATIVE_INFINITY;
      }
      default -> {
        // Java would also take "1d", "0x1p3" or "Infinity" spelled its own way: only the decimal form counts.
        if (!DECIMAL.matcher(token).matches()) {
          throw new NumberFormatException("not a sample value");
        }
        return Double.parseDouble(token);
      }
    }
  }

  /** An int64 of milliseconds, optionally signed. */
  private static boolean validTimestamp(String t) {
    int i = t.startsWith("-") || t.startsWith("+") ? 1 : 0;
    if (i == t.length() || t.length() - i > 19) {
      return false;
    }
    for (; i < t.length(); i++) {
      if (t.charAt(i) < '0' || t.charAt(i) > '9') {
        return false;
      }
    }
    try {
      Long.parseLong(t);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static boolean matches(Map<String, String> wanted, Map<String, String> labels) {
    for (Map.Entry<String, String> e : wanted.entrySet()) {
      if (!e.getValue().equals(labels.get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }

  static boolean validMetricName(String s) {
    if (s.isEmpty() || !isNameStart(s.charAt(0))) {
      return false;
    }
    for (int i = 1; i < s.length(); i++) {
      if (!isNameChar(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** A blank or tab; at the end of a line also a carriage return (a CRLF body). */
  private static boolean isBlank(char c, boolean trailing) {
    return c == ' ' || c == '\t' || trailing && c == '\r';
  }

  private static boolean isNameStart(char c) {
    return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':';
  }

  private static boolean isNameChar(char c) {
    return isNameStart(c) || c >= '0' && c <= '9';
  }

  private static boolean isLabelStart(char c) {
    return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_';
  }

  private static boolean isLabelChar(char c) {
    return isLabelStart(c) || c >= '0' && c <= '9';
  }
}
