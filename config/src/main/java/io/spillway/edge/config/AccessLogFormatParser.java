package io.spillway.edge.config;

import io.spillway.edge.config.AccessLogConfig.Argument;
import io.spillway.edge.config.AccessLogConfig.Command;
import io.spillway.edge.config.AccessLogConfig.FormatToken;
import io.spillway.edge.config.AccessLogConfig.Literal;
import io.spillway.edge.config.AccessLogConfig.Operator;
import io.spillway.edge.config.AccessLogConfig.TimePart;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Envoy's format strings: literal text and command operators {@code %NAME%},
 * {@code %NAME(ARG)%}, {@code %NAME(ARG):N%}, parsed once at load. A {@code %} that does not start a
 * well-formed command, an unknown operator, an operator the edge cannot fill and a bad argument
 * are errors at the field's path, naming the operator.
 */
final class AccessLogFormatParser {

  private AccessLogFormatParser() {}

  /** Envoy's default START_TIME format: {@code %Y-%m-%dT%H:%M:%E3SZ}, in UTC. */
  static final List<TimePart> DEFAULT_START_TIME = List.of(
      field('Y'), lit("-"), field('m'), lit("-"), field('d'), lit("T"), field('H'), lit(":"), field('M'), lit(":"),
      new TimePart('S', 3, ""), lit("Z"));

  static List<FormatToken> parse(String format, FieldPath path) throws ConfigException {
    List<FormatToken> tokens = new ArrayList<>();
    StringBuilder literal = new StringBuilder();
    int i = 0;
    int n = format.length();
    while (i < n) {
      char c = format.charAt(i);
      if (c != '%') {
        literal.append(c);
        i++;
        continue;
      }
      int start = i;
      int j = i + 1;
      while (j < n && isNameChar(format.charAt(j))) {
        j++;
      }
      String name = format.substring(i + 1, j);
      String arg = null;
      if (j < n && format.charAt(j) == '(') {
        int close = format.indexOf(')', j + 1);
        if (close < 0) {
          throw new ConfigException(path, "unterminated command operator at position " + start
              + ": no ')' after %" + name + "(");
        }
        arg = format.substring(j + 1, close);
        j = close + 1;
      }
      int maxLength = -1;
      if (j < n && format.charAt(j) == ':') {
        int k = j + 1;
        while (k < n && Character.isDigit(format.charAt(k))) {
          k++;
        }
        if (k == j + 1) {
          throw new ConfigException(path, "command operator %" + name + "% at position " + start
              + ": ':' must be followed by a maximum length");
        }
        try {
          maxLength = Integer.parseInt(format.substring(j + 1, k));
        } catch (NumberFormatException e) {
          throw new ConfigException(path, "command operator %" + name + "%: maximum length too large");
        }
        j = k;
      }
      if (name.isEmpty() || j >= n || format.charAt(j) != '%') {
        throw new ConfigException(path, "no valid command operator at position " + start
            + " (write %NAME%, %NAME(ARG)% or %NAME(ARG):N%)");
      }
      if (!literal.isEmpty()) {
        tokens.add(new Literal(literal.toString()));
        literal.setLength(0);
      }
      tokens.add(command(name, arg, maxLength, path));
      i = j + 1;
    }
    if (!literal.isEmpty()) {
      tokens.add(new Literal(literal.toString()));
    }
    return tokens;
  }

  private static boolean isNameChar(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }

  private static Command command(String name, String arg, int maxLength, FieldPath path) throws ConfigException {
    Operator op;
    try {
      op = Operator.valueOf(name);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(path, "unknown or unsupported command operator %" + name + "%");
    }
    return switch (op.argument()) {
      case NONE -> {
        if (arg != null) {
          throw new ConfigException(path, "command operator %" + name + "% takes no argument");
        }
        yield new Command(op, "", "", maxLength, List.of());
      }
      case HEADER -> {
        if (arg == null || arg.isEmpty()) {
          throw new ConfigException(path, "command operator %" + name + "% needs a header name: %" + name + "(X)%");
        }
        String[] names = arg.split("\\?", -1);
        if (names.length > 2) {
          throw new ConfigException(path, "command operator %" + name + "(" + arg
              + ")%: more than one alternative header");
        }
        for (String h : names) {
          if (h.isEmpty() || h.chars().anyMatch(ch -> ch <= ' ' || ch == 0x7f)) {
            throw new ConfigException(path, "command operator %" + name + "(" + arg + ")%: invalid header name");
          }
        }
        yield new Command(op, names[0].toLowerCase(Locale.ROOT), names.length == 2
            ? names[1].toLowerCase(Locale.ROOT) : "", maxLength, List.of());
      }
      case KEY -> {
        if (arg == null || arg.isEmpty()) {
          throw new ConfigException(path, "command operator %" + name + "% needs an argument: %" + name + "(KEY)%");
        }
        String key = arg;
        if (op == Operator.FILTER_STATE) {
          int colon = arg.lastIndexOf(':');
          if (colon >= 0) {
            String kind = arg.substring(colon + 1);
            if (!kind.equals("PLAIN") && !kind.equals("TYPED")) {
              throw new ConfigException(path, "command operator %FILTER_STATE(" + arg
                  + ")%: the serialization must be PLAIN or TYPED");
            }
            key = arg.substring(0, colon);
          }
        }
        yield new Command(op, key, "", maxLength, List.of());
      }
      case METADATA_PATH -> {
        if (arg == null || arg.isEmpty() || arg.startsWith(":")) {
          throw new ConfigException(path, "command operator %" + name + "% needs a namespace: %" + name
              + "(NAMESPACE:KEY*)%");
        }
        List<String> parts = List.of(arg.split(":", -1));
        yield new Command(op, parts.get(0), "", maxLength, List.of(), parts.subList(1, parts.size()));
      }
      case OPTIONAL_TIME_FORMAT -> new Command(op, arg == null ? "" : arg, "", maxLength,
          arg == null || arg.isEmpty() ? DEFAULT_START_TIME : timeFormat(arg, path));
    };
  }

  /** strftime conversions and Envoy's {@code %s}, {@code %<n>f} and {@code %E<n>S}; anything else is an error. */
  static List<TimePart> timeFormat(String format, FieldPath path) throws ConfigException {
    List<TimePart> parts = new ArrayList<>();
    StringBuilder literal = new StringBuilder();
    for (int i = 0; i < format.length(); i++) {
      char c = format.charAt(i);
      if (c != '%') {
        literal.append(c);
        continue;
      }
      if (i + 1 >= format.length()) {
        throw new ConfigException(path, "START_TIME format \"" + format + "\" ends with '%'");
      }
      char s = format.charAt(++i);
      int digits = -1;
      boolean extended = false;
      if (s == 'E') {
        extended = true;
        if (i + 1 >= format.length()) {
          throw new ConfigException(path, "START_TIME format \"" + format + "\": incomplete %E");
        }
        s = format.charAt(++i);
      }
      if (Character.isDigit(s)) {
        digits = s - '0';
        if (i + 1 >= format.length()) {
          throw new ConfigException(path, "START_TIME format \"" + format + "\": incomplete %" + s);
        }
        s = format.charAt(++i);
      }
      if (extended) {
        if (s == 'S' && digits > 0) {
          flush(parts, literal);
          parts.add(new TimePart('S', digits, ""));
          continue;
        }
        if (s == 'f' && digits < 0) {
          flush(parts, literal);
          parts.add(new TimePart('f', 9, ""));
          continue;
        }
        throw new ConfigException(path, "START_TIME format \"" + format + "\": unsupported %E conversion");
      }
      if (digits >= 0) {
        if (s != 'f' || digits == 0) {
          throw new ConfigException(path, "START_TIME format \"" + format + "\": %" + digits + s
              + " is not supported (only %1f to %9f)");
        }
        flush(parts, literal);
        parts.add(new TimePart('f', digits, ""));
        continue;
      }
      switch (s) {
        case '%' -> literal.append('%');
        case 'n' -> literal.append('\n');
        case 't' -> literal.append('\t');
        case 'f' -> {
          flush(parts, literal);
          parts.add(new TimePart('f', 9, ""));
        }
        case 'Y', 'y', 'C', 'm', 'd', 'e', 'H', 'I', 'M', 'S', 'j', 'b', 'h', 'B', 'a', 'A', 'p', 'z', 'Z', 's',
            'u', 'w' -> {
          flush(parts, literal);
          parts.add(field(s == 'h' ? 'b' : s));
        }
        case 'T' -> {
          flush(parts, literal);
          parts.addAll(List.of(field('H'), lit(":"), field('M'), lit(":"), field('S')));
        }
        case 'R' -> {
          flush(parts, literal);
          parts.addAll(List.of(field('H'), lit(":"), field('M')));
        }
        case 'F' -> {
          flush(parts, literal);
          parts.addAll(List.of(field('Y'), lit("-"), field('m'), lit("-"), field('d')));
        }
        case 'D' -> {
          flush(parts, literal);
          parts.addAll(List.of(field('m'), lit("/"), field('d'), lit("/"), field('y')));
        }
        default -> throw new ConfigException(path, "START_TIME format \"" + format + "\": %" + s
            + " is not supported");
      }
    }
    flush(parts, literal);
    return parts;
  }

  private static void flush(List<TimePart> parts, StringBuilder literal) {
    if (!literal.isEmpty()) {
      parts.add(lit(literal.toString()));
      literal.setLength(0);
    }
  }

  private static TimePart field(char c) {
    return new TimePart(c, 0, "");
  }

  private static TimePart lit(String text) {
    return new TimePart((char) 0, 0, text);
  }
}
