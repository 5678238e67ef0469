package io.spillway.edge.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The edge's process log (not the access log): one appender on the root logger, writing to stderr
 * or to {@code --log-path}, in a format given with Envoy's {@code --log-format} flags. Set up at
 * logback's start by {@link EdgeLogConfigurator} with the defaults, and again by {@link EdgeMain}
 * once the command line is read. {@link #reopen} reopens the file for logrotate ({@code /reopen_logs},
 * SIGUSR1), swapping the stream under the appender's own lock so no line is lost or torn.
 */
final class EdgeLogging {

  /** The appender's name on the root logger. */
  static final String APPENDER = "EDGE";

  private EdgeLogging() {}

  /**
   * Replaces the root's edge appender: to {@code path} (appended to, created when absent) or stderr.
   *
   * @param pattern a logback pattern; {@link EnvoyLogFormat} makes one from Envoy's flags
   * @throws IllegalArgumentException when the file cannot be opened
   */
  static void install(LoggerContext context, String pattern, Optional<Path> path) {
    PatternLayout layout = new PatternLayout();
    layout.setContext(context);
    layout.getInstanceConverterMap().putAll(LogConverters.all());
    layout.setPattern(pattern);
    layout.start();
    LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
    encoder.setContext(context);
    encoder.setLayout(layout);
    encoder.start();
    OutputStreamAppender<ILoggingEvent> appender;
    if (path.isPresent()) {
      FileAppender<ILoggingEvent> file = new FileAppender<>();
      file.setFile(path.get().toString());
      file.setAppend(true);
      appender = file;
    } else {
      ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
      stderr.setTarget("System.err");
      appender = stderr;
    }
    appender.setContext(context);
    appender.setName(APPENDER);
    appender.setEncoder(encoder);
    appender.start();
    if (!appender.isStarted()) {
      throw new IllegalArgumentException("--log-path: " + path.orElseThrow() + " cannot be opened for writing");
    }
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    var previous = root.getAppender(APPENDER);
    root.addAppender(appender);
    if (previous != null) {
      root.detachAppender(previous);
      previous.stop();
    }
  }

  /** Reopens the log file at its path (after logrotate moved it); nothing when logging to stderr. */
  static void reopen(LoggerContext context) {
    if (context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender(APPENDER) instanceof FileAppender<ILoggingEvent> file) {
      try {
        file.openFile(file.getFile());
      } catch (IOException e) {
        context.getLogger(EdgeLogging.class).warn("log file {} cannot be reopened: {}", file.getFile(), e.toString());
      }
    }
  }

  /**
   * Envoy's {@code --component-log-level}: {@code upstream:debug,http:trace}. A component is an edge
   * package ({@code upstream} is {@code io.spillway.edge.upstream}); a name with a dot is a logger name.
   *
   * @return logger name → level, every entry checked
   * @throws IllegalArgumentException naming the entry that is malformed, the unknown component or level
   */
  static Map<String, Level> componentLevels(String spec) {
    Map<String, Level> levels = new LinkedHashMap<>();
    for (String entry : spec.split(",")) {
      String e = entry.trim();
      int colon = e.lastIndexOf(':');
      if (colon <= 0 || colon == e.length() - 1) {
        throw new IllegalArgumentException("--component-log-level: '" + e + "' is not <component>:<level>");
      }
      String component = e.substring(0, colon).trim();
      Level level = level(e.substring(colon + 1).trim());
      if (level == null) {
        throw new IllegalArgumentException("--component-log-level: unknown level '" + e.substring(colon + 1).trim()
            + "' (trace, debug, info, warning, error, critical, off)");
      }
      levels.put(loggerName(component), level);
    }
    return levels;
  }

  private static String loggerName(String component) {
    if (component.contains(".")) {
      return component;
    }
    String name = "io.spillway.edge." + component;
    if (EdgeLogging.class.getClassLoader().getResource(name.replace('.', '/') + "/package-info.class") == null) {
      throw new IllegalArgumentException("--component-log-level: no component '" + component
          + "' (a package of the edge such as upstream, http, router, listener, xds, config, admin, "
          + "or a full logger name such as io.netty)");
    }
    return name;
  }

  /** Envoy's level names, case-insensitive; {@code critical} is logback's ERROR. Null when unknown. */
  static Level level(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "trace" -> Level.TRACE;
      case "debug" -> Level.DEBUG;
      case "info" -> Level.INFO;
      case "warn", "warning" -> Level.WARN;
      case "error", "critical" -> Level.ERROR;
      case "off" -> Level.OFF;
      default -> null;
    };
  }
}
