package io.spillway.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

class EdgeLogConfiguratorTest {

  @Test
  void logbackFindsTheConfiguratorThroughServiceLoader() {
    assertThat(ServiceLoader.load(Configurator.class).stream().map(ServiceLoader.Provider::type))
        .contains(EdgeLogConfigurator.class);
  }

  @Test
  void configuresOneStderrAppenderWithTheEdgeFormatRootAtInfoAndNettyAtWarn() {
    LoggerContext context = new LoggerContext();
    var status = new EdgeLogConfigurator().configure(context);

    assertThat(status).isEqualTo(Configurator.ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);
    var root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    assertThat(root.getLevel()).isEqualTo(Level.INFO);
    assertThat(context.getLogger("io.netty").getLevel()).isEqualTo(Level.WARN);
    assertThat(context.getLogger("io.netty.channel").getEffectiveLevel()).isEqualTo(Level.WARN);
    var appender = (ConsoleAppender<?>) root.getAppender(EdgeLogging.APPENDER);
    assertThat(appender.isStarted()).isTrue();
    assertThat(appender.getTarget()).isEqualTo("System.err");
    var layout = (PatternLayout) ((LayoutWrappingEncoder<?>) appender.getEncoder()).getLayout();
    assertThat(layout.getPattern()).isEqualTo(EdgeLogConfigurator.PATTERN);
    context.stop();
  }

  @Test
  void stepsAsideForAnOperatorsOwnConfigurationFile() {
    LoggerContext context = new LoggerContext();
    String before = System.getProperty(EdgeLogConfigurator.CONFIGURATION_FILE_PROPERTY);
    System.setProperty(EdgeLogConfigurator.CONFIGURATION_FILE_PROPERTY, "/etc/spillway/logback.xml");
    try {
      var status = new EdgeLogConfigurator().configure(context);
      assertThat(status).isEqualTo(Configurator.ExecutionStatus.INVOKE_NEXT_IF_ANY);
      assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).iteratorForAppenders().hasNext()).isFalse();
    } finally {
      if (before == null) {
        System.clearProperty(EdgeLogConfigurator.CONFIGURATION_FILE_PROPERTY);
      } else {
        System.setProperty(EdgeLogConfigurator.CONFIGURATION_FILE_PROPERTY, before);
      }
      context.stop();
    }
  }
}
