package io.spillway.edge.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.pattern.DynamicConverter;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The logback converters behind Envoy's log-format flags that logback has no word for: Envoy's
 * level names, the component, escaped messages, the process id and epoch seconds. Registered on
 * the pattern layout by {@link EdgeLogging}; the conversion words are the constants below.
 */
final class LogConverters {
  static final String LEVEL = "envoyLevel";
  static final String SHORT_LEVEL = "envoyShortLevel";
  static final String COMPONENT = "envoyComponent";
  static final String ESCAPED_MESSAGE = "envoyEscapedMessage";
  static final String JSON_MESSAGE = "envoyJsonMessage";
  static final String PROCESS_ID = "envoyPid";
  static final String EPOCH_SECONDS = "envoyEpochSeconds";

  private static final String EDGE_PACKAGE = "io.spillway.edge.";

  private LogConverters() {}

  /** Conversion word → converter, for {@code PatternLayout.getInstanceConverterMap()}. */
  static Map<String, Supplier<DynamicConverter>> all() {
    return Map.of(
        LEVEL, EnvoyLevel::new,
        SHORT_LEVEL, ShortLevel::new,
        COMPONENT, Component::new,
        ESCAPED_MESSAGE, () -> new EscapedMessage(false),
        JSON_MESSAGE, () -> new EscapedMessage(true),
        PROCESS_ID, ProcessId::new,
        EPOCH_SECONDS, EpochSeconds::new);
  }

  /** Envoy's level names: trace, debug, info, warning, error. */
  static String envoyLevel(Level level) {
    return switch (level.toInt()) {
      case Level.TRACE_INT -> "trace";
      case Level.DEBUG_INT -> "debug";
      case Level.INFO_INT -> "info";
      case Level.WARN_INT -> "warning";
      case Level.ERROR_INT -> "error";
      default -> level.toString().toLowerCase(java.util.Locale.ROOT);
    };
  }

  /**
   * The component, as Envoy's {@code %n}: the edge package a logger belongs to
   * ({@code io.spillway.edge.upstream.Http1Pool} → {@code upstream}); other loggers by full name.
   */
  static String component(String loggerName) {
    if (!loggerName.startsWith(EDGE_PACKAGE)) {
      return loggerName;
    }
    int end = loggerName.indexOf('.', EDGE_PACKAGE.length());
    return end < 0 ? loggerName.substring(EDGE_PACKAGE.length()) : loggerName.substring(EDGE_PACKAGE.length(), end);
  }

  /**
   * Control characters as C escapes ({@code \n}, {@code \t}, {@code \x01}), so a line stays one
   * line; with {@code json}, also {@code "} and {@code \} as JSON needs (control characters as
   * {@code \\uXXXX}).
   */
  static void escape(CharSequence s, boolean json, StringBuilder out) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '"' -> out.append(json ? "\\\"" : "\"");
        case '\\' -> out.append(json ? "\\\\" : "\\");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            out.append(json ? String.format("\\u%04x", (int) c) : String.format("\\x%02x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
  }

  static final class EnvoyLevel extends ClassicConverter {
    @Override
    public String convert(ILoggingEvent event) {
      return envoyLevel(event.getLevel());
    }
  }

  static final class ShortLevel extends ClassicConverter {
    @Override
    public String convert(ILoggingEvent event) {
      return String.valueOf(Character.toUpperCase(envoyLevel(event.getLevel()).charAt(0)));
    }
  }

  static final class Component extends ClassicConverter {
    @Override
    public String convert(ILoggingEvent event) {
      return component(event.getLoggerName());
    }
  }

  /** The message (and the stack trace, if any) escaped onto one line. */
  static final class EscapedMessage extends ClassicConverter {
    private final boolean json;

    EscapedMessage(boolean json) {
      this.json = json;
    }

    @Override
    public String convert(ILoggingEvent event) {
      StringBuilder out = new StringBuilder();
      escape(event.getFormattedMessage(), json, out);
      IThrowableProxy thrown = event.getThrowableProxy();
      if (thrown != null) {
        out.append(' ');
        escape(ThrowableProxyUtil.asString(thrown), json, out);
      }
      return out.toString();
    }
  }

  static final class ProcessId extends ClassicConverter {
    private final String pid = Long.toString(ProcessHandle.current().pid());

    @Override
    public String convert(ILoggingEvent event) {
      return pid;
    }
  }

  static final class EpochSeconds extends ClassicConverter {
    @Override
    public String convert(ILoggingEvent event) {
      return Long.toString(event.getTimeStamp() / 1000);
    }
  }
}
