package io.spillway.edge.admin;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@code /logging} (POST): lists the active loggers and their levels, and changes them, on the
 * Logback backend.
 *
 * <p>The active loggers are {@code root}, {@code io.spillway}, {@code io.netty}, Spillway's
 * package loggers ({@code io.spillway.edge.upstream}, ...) and any logger whose level was set
 * explicitly. {@code ?level=<level>} sets all of them; {@code ?paths=<logger>:<level>,...} sets the
 * named ones, which must be existing loggers (a typo is a 400, not a new logger). Levels are
 * Envoy's: trace, debug, info, warning (or warn), error, critical (Logback's ERROR) and off. Every
 * name and level is checked before anything changes. The answer lists the loggers afterwards.
 */
final class LoggingEndpoint implements AdminEndpoint {
  private static final String SPILLWAY = "io.spillway";
  private static final String NETTY = "io.netty";

  private final LoggerContext loggers;

  LoggingEndpoint(LoggerContext loggers) {
    this.loggers = loggers;
  }

  @Override
  public String help() {
    return "query/change logging levels; ?level=<level> sets all, ?paths=<logger>:<level>,... sets some";
  }

  @Override
  public boolean mutating() {
    return true;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    Map<Logger, Level> changes = new LinkedHashMap<>();
    String all = request.param("level");
    if (all != null) {
      Level level = level(all);
      if (level == null) {
        return unknownLevel(all);
      }
      for (Logger logger : active()) {
        changes.put(logger, level);
      }
    }
    String paths = request.param("paths");
    if (paths != null) {
      for (String entry : paths.split(",")) {
        if (entry.isBlank()) {
          continue;
        }
        int colon = entry.lastIndexOf(':');
        if (colon <= 0) {
          return AdminResponse.badRequest("invalid paths entry '" + entry + "': expected <logger>:<level>");
        }
        String name = entry.substring(0, colon).trim();
        String levelName = entry.substring(colon + 1).trim();
        Level level = level(levelName);
        if (level == null) {
          return unknownLevel(levelName);
        }
        Logger logger = name.equals("root") || name.equals(Logger.ROOT_LOGGER_NAME)
            ? loggers.getLogger(Logger.ROOT_LOGGER_NAME)
            : loggers.exists(name);
        if (logger == null) {
          return AdminResponse.badRequest("unknown logger '" + name + "'");
        }
        changes.put(logger, level);
      }
    }
    changes.forEach(Logger::setLevel);
    return AdminResponse.text(200, list());
  }

  /** Envoy's {@code active loggers:} listing, one {@code   <name>: <effective level>} line each. */
  private String list() {
    StringBuilder out = new StringBuilder("active loggers:\n");
    for (Logger logger : active()) {
      out.append("  ").append(displayName(logger)).append(": ").append(levelName(logger.getEffectiveLevel()))
          .append('\n');
    }
    return out.toString();
  }

  /** root first, then the other active loggers sorted by name. */
  private List<Logger> active() {
    TreeSet<String> names = new TreeSet<>(List.of(SPILLWAY, NETTY));
    for (Logger logger : loggers.getLoggerList()) {
      String name = logger.getName();
      if (name.equals(Logger.ROOT_LOGGER_NAME)) {
        continue;
      }
      if (logger.getLevel() != null || isSpillwayPackage(name)) {
        names.add(name);
      }
    }
    List<Logger> active = new ArrayList<>();
    active.add(loggers.getLogger(Logger.ROOT_LOGGER_NAME));
    for (String name : names) {
      active.add(loggers.getLogger(name));
    }
    return active;
  }

  /** {@code io.spillway.<module>.<package>}: package loggers, not class loggers. */
  private static boolean isSpillwayPackage(String name) {
    if (!name.startsWith(SPILLWAY + ".")) {
      return false;
    }
    String[] parts = name.split("\\.");
    return parts.length <= 4 && Character.isLowerCase(parts[parts.length - 1].charAt(0));
  }

  private static String displayName(Logger logger) {
    return logger.getName().equals(Logger.ROOT_LOGGER_NAME) ? "root" : logger.getName();
  }

  private static Level level(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "trace" -> Level.TRACE;
      case "debug" -> Level.DEBUG;
      case "info" -> Level.INFO;
      case "warning", "warn" -> Level.WARN;
      case "error", "critical" -> Level.ERROR;
      case "off" -> Level.OFF;
      default -> null;
    };
  }

  private static String levelName(Level level) {
    if (level.equals(Level.WARN)) {
      return "warning";
    }
    return level.toString().toLowerCase(Locale.ROOT);
  }

  private static AdminResponse unknownLevel(String level) {
    return AdminResponse.badRequest(
        "unknown level '" + level + "': use trace, debug, info, warning, error, critical or off");
  }
}
