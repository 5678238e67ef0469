package io.spillway.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Runs on its own Logback context, so the test JVM's logging is untouched. */
class LoggingEndpointTest {
  private final LoggerContext loggers = new LoggerContext();
  private final LoggingEndpoint endpoint = new LoggingEndpoint(loggers);

  @BeforeEach
  void someLoggers() {
    loggers.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.INFO);
    loggers.getLogger("io.spillway.edge.upstream.ClusterManager");
    loggers.getLogger("io.spillway.edge.http.HttpConnectionManager");
    loggers.getLogger("io.netty.channel.DefaultChannelPipeline");
    loggers.getLogger("com.example.Noisy").setLevel(Level.ERROR);
  }

  @Test
  void withoutParametersListsTheActiveLoggers() {
    AdminResponse r = endpoint.handle(Requests.post("/logging"));

    assertThat(endpoint.mutating()).isTrue();
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.bodyText()).isEqualTo("""
        active loggers:
          root: info
          com.example.Noisy: error
          io.netty: info
          io.spillway: info
          io.spillway.edge: info
          io.spillway.edge.http: info
          io.spillway.edge.upstream: info
        """);
  }

  @Test
  void levelSetsEveryActiveLogger() {
    AdminResponse r = endpoint.handle(Requests.post("/logging?level=warning"));

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.bodyText().lines().skip(1)).allMatch(line -> line.endsWith(": warning"));
    assertThat(loggers.getLogger(Logger.ROOT_LOGGER_NAME).getLevel()).isEqualTo(Level.WARN);
    assertThat(loggers.getLogger("com.example.Noisy").getLevel()).isEqualTo(Level.WARN);
    assertThat(loggers.getLogger("io.spillway.edge.upstream.ClusterManager").getEffectiveLevel())
        .isEqualTo(Level.WARN);
  }

  @Test
  void pathsSetTheNamedLoggers() {
    AdminResponse r = endpoint.handle(Requests.post(
        "/logging?paths=io.spillway.edge.upstream:debug,io.netty.channel.DefaultChannelPipeline:trace,root:critical"));

    assertThat(r.status()).isEqualTo(200);
    assertThat(loggers.getLogger("io.spillway.edge.upstream.ClusterManager").getEffectiveLevel())
        .isEqualTo(Level.DEBUG);
    assertThat(loggers.getLogger("io.netty.channel.DefaultChannelPipeline").getLevel()).isEqualTo(Level.TRACE);
    assertThat(loggers.getLogger(Logger.ROOT_LOGGER_NAME).getLevel()).isEqualTo(Level.ERROR);
    assertThat(loggers.getLogger("io.spillway.edge.http").getEffectiveLevel()).isEqualTo(Level.ERROR);
    assertThat(r.bodyText()).contains("  io.spillway.edge.upstream: debug\n").contains("  root: error\n")
        .contains("  io.netty.channel.DefaultChannelPipeline: trace\n");
  }

  @Test
  void unknownLevelIsA400AndChangesNothing() {
    AdminResponse r = endpoint.handle(Requests.post("/logging?paths=io.spillway.edge.http:debug,io.netty:loud"));

    assertThat(r.status()).isEqualTo(400);
    assertThat(r.bodyText()).contains("unknown level 'loud'").contains("trace, debug, info, warning");
    assertThat(loggers.getLogger("io.spillway.edge.http").getLevel()).isNull();
    assertThat(endpoint.handle(Requests.post("/logging?level=verbose")).status()).isEqualTo(400);
  }

  @Test
  void unknownLoggerOrMalformedEntryIsA400() {
    AdminResponse unknown = endpoint.handle(Requests.post("/logging?paths=io.spillway.edge.upstrem:debug"));
    assertThat(unknown.status()).isEqualTo(400);
    assertThat(unknown.bodyText()).contains("unknown logger 'io.spillway.edge.upstrem'");
    assertThat(loggers.exists("io.spillway.edge.upstrem")).isNull();

    assertThat(endpoint.handle(Requests.post("/logging?paths=debug")).status()).isEqualTo(400);
  }
}
