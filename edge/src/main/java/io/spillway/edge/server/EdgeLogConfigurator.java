package io.spillway.edge.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.core.spi.ContextAwareBase;
import org.slf4j.Logger;

/**
 * The edge's own logging set-up, found by logback through {@code ServiceLoader}: the stderr
 * appender of {@link EdgeLogging} with the edge's line format, the root at INFO and Netty at WARN. It is done in code
 * rather than with a {@code logback.xml} because reading XML loads logback's whole Joran
 * configuration model and the JDK's XML parser (about 600 classes, a few MiB of metaspace) in a
 * process that otherwise never parses XML.
 *
 * <p>An operator's own file still wins: with {@code -Dlogback.configurationFile=…} this
 * configurator steps aside and logback's default XML configurator reads that file.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
public final class EdgeLogConfigurator extends ContextAwareBase implements Configurator {

  /** The line format: time, thread, level, logger's simple name, message. */
  static final String PATTERN = "[%d{yyyy-MM-dd HH:mm:ss.SSS}][%thread][%level][%logger{0}] %msg%n";

  /** The system property logback reads an operator's configuration file from. */
  static final String CONFIGURATION_FILE_PROPERTY = "logback.configurationFile";

  /** Public and without arguments, as {@code ServiceLoader} needs. */
  public EdgeLogConfigurator() {}

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (System.getProperty(CONFIGURATION_FILE_PROPERTY) != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    EdgeLogging.install(context, PATTERN, java.util.Optional.empty());
    context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.INFO);
    context.getLogger("io.netty").setLevel(Level.WARN);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }
}
