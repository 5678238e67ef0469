package io.spillway.edge.server;

import java.util.Map;

/**
 * Envoy's {@code --log-format} (spdlog's pattern flags plus Envoy's {@code %_} and {@code %j})
 * translated once, at start-up, into a logback pattern. Dates are rendered by logback's
 * {@code %d} (consecutive date flags and the separators between them become one date converter);
 * the level, component and escaped-message flags by {@link LogConverters}. A flag the edge cannot
 * render is refused with its name, rather than printed literally.
 *
 * <p>Differences from Envoy, by necessity: {@code %t} is the thread's name (the worker threads are
 * named {@code spillway-worker-N}) rather than the OS thread id; the source-location flags
 * ({@code %s}, {@code %g}, {@code %#}, {@code %@}, {@code %!}) ask logback for caller data, which
 * walks the stack on every line, so they belong in debugging sessions, not in production.
 */
final class EnvoyLogFormat {

  /** The edge's built-in line format in Envoy's flags (logger names are printed by their simple name there). */
  static final String EDGE_DEFAULT = "[%Y-%m-%d %T.%e][%t][%l][%n] %v";

  /** Date flags: the {@link java.time.format.DateTimeFormatter} letters they stand for. */
  private static final Map<Character, String> DATE = Map.ofEntries(
      Map.entry('Y', "yyyy"), Map.entry('y', "yy"), Map.entry('m', "MM"), Map.entry('d', "dd"),
      Map.entry('H', "HH"), Map.entry('I', "hh"), Map.entry('M', "mm"), Map.entry('S', "ss"),
      Map.entry('e', "SSS"), Map.entry('f', "SSSSSS"), Map.entry('F', "SSSSSSSSS"), Map.entry('p', "a"),
      Map.entry('T', "HH:mm:ss"), Map.entry('D', "MM/dd/yy"), Map.entry('R', "HH:mm"),
      Map.entry('r', "hh:mm:ss a"), Map.entry('z', "XXX"), Map.entry('a', "EEE"), Map.entry('A', "EEEE"),
      Map.entry('b', "MMM"), Map.entry('h', "MMM"), Map.entry('B', "MMMM"), Map.entry('c', "EEE MMM dd HH:mm:ss yyyy"));

  /** Separators that may sit inside one merged date pattern (a comma would end logback's option). */
  private static final String DATE_SEPARATORS = " -:./";

  private EnvoyLogFormat() {}

  /**
   * The logback pattern for an Envoy log format, a line break appended (spdlog adds one; Envoy's
   * formats never end with one).
   *
   * @param escaped {@code --log-format-escaped}: {@code %v} escapes control characters as {@code %_} does,
   *     and a stack trace is escaped onto the same line
   * @throws IllegalArgumentException naming the flag that is not supported
   */
  static String toLogbackPattern(String format, boolean escaped) {
    StringBuilder out = new StringBuilder();
    StringBuilder date = null; // the open date run, in DateTimeFormatter letters
    boolean throwableInMessage = false; // an escaping message converter writes the stack trace itself
    int i = 0;
    while (i < format.length()) {
      char c = format.charAt(i);
      if (c == '%' && i + 1 < format.length() && format.charAt(i + 1) != '%') {
        char flag = format.charAt(i + 1);
        i += 2;
        String dateLetters = DATE.get(flag);
        if (dateLetters != null) {
          date = date == null ? new StringBuilder() : date;
          date.append(dateLetters);
          continue;
        }
        closeDate(out, date);
        date = null;
        String converted = switch (flag) {
          case 'v' -> escaped ? "%" + LogConverters.ESCAPED_MESSAGE : "%msg";
          case '_' -> "%" + LogConverters.ESCAPED_MESSAGE;
          case 'j' -> "%" + LogConverters.JSON_MESSAGE;
          case 't' -> "%thread";
          case 'P' -> "%" + LogConverters.PROCESS_ID;
          case 'n' -> "%" + LogConverters.COMPONENT;
          case 'l' -> "%" + LogConverters.LEVEL;
          case 'L' -> "%" + LogConverters.SHORT_LEVEL;
          case 'E' -> "%" + LogConverters.EPOCH_SECONDS;
          case 's' -> "%file";
          case 'g' -> "%class";
          case '#' -> "%line";
          case '@' -> "%file:%line";
          case '!' -> "%method";
          default -> throw new IllegalArgumentException("--log-format: flag %" + flag
              + " is not supported (supported: %v %_ %j %t %P %n %l %L %E %s %g %# %@ %! %% and the date flags "
              + "%Y %y %m %d %H %I %M %S %e %f %F %p %T %D %R %r %z %a %A %b %h %B %c)");
        };
        throwableInMessage |= flag == '_' || flag == 'j' || flag == 'v' && escaped;
        out.append(converted);
        continue;
      }
      if (c == '%') {
        if (i + 1 >= format.length()) {
          throw new IllegalArgumentException("--log-format: a lone % at the end (write %% for a percent sign)");
        }
        i += 2; // "%%"
      } else {
        i += 1;
      }
      if (date != null && DATE_SEPARATORS.indexOf(c) >= 0) {
        date.append(c);
        continue;
      }
      closeDate(out, date);
      date = null;
      literal(out, c);
    }
    closeDate(out, date);
    if (throwableInMessage) {
      out.append("%nopex");
    }
    return out.append("%n").toString();
  }

  /** Ends a date run: trailing separators go back out as literal text. */
  private static void closeDate(StringBuilder out, StringBuilder date) {
    if (date == null) {
      return;
    }
    int end = date.length();
    while (end > 0 && DATE_SEPARATORS.indexOf(date.charAt(end - 1)) >= 0) {
      end--;
    }
    out.append("%d{").append(date, 0, end).append('}');
    for (int k = end; k < date.length(); k++) {
      literal(out, date.charAt(k));
    }
  }

  /** A literal character, escaped where logback's pattern syntax gives it a meaning. */
  private static void literal(StringBuilder out, char c) {
    if (c == '%' || c == '(' || c == ')' || c == '\\') {
      out.append('\\');
    }
    out.append(c);
  }
}
