package io.spillway.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Envoy's log-format flags rendered by a real logback context into a real file. */
class EdgeLoggingTest {

  @TempDir
  Path dir;

  private final LoggerContext context = new LoggerContext();

  {
    context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
  }

  @AfterEach
  void stop() {
    context.stop();
  }

  private List<String> render(String envoyFormat, boolean escaped, Runnable logging) throws Exception {
    Path file = dir.resolve("edge-" + System.nanoTime() + ".log");
    EdgeLogging.install(context, EnvoyLogFormat.toLogbackPattern(envoyFormat, escaped), Optional.of(file));
    logging.run();
    return Files.readAllLines(file, StandardCharsets.UTF_8);
  }

  @Test
  void envoysDefaultFormatPrintsEnvoysLevelNamesAndTheComponent() throws Exception {
    List<String> lines = render("[%Y-%m-%d %T.%e][%t][%l][%n] %v", false, () -> {
      context.getLogger("io.spillway.edge.upstream.Http1Pool").warn("pool {} is full", "backend");
      context.getLogger("io.netty.channel.X").info("netty says");
    });
    assertThat(lines).hasSize(2);
    String thread = Thread.currentThread().getName();
    assertThat(lines.get(0)).matches("\\[\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\]\\["
        + java.util.regex.Pattern.quote(thread) + "\\]\\[warning\\]\\[upstream\\] pool backend is full");
    assertThat(lines.get(1)).endsWith("[info][io.netty.channel.X] netty says");
  }

  @Test
  void shortLevelPidEpochSecondsAndLiteralsThatLogbackWouldParse() throws Exception {
    long before = System.currentTimeMillis() / 1000;
    List<String> lines = render("%L %P %E (100%%) a\\b %v", false,
        () -> context.getLogger("io.spillway.edge.xds.AdsClient").error("gone"));
    long after = System.currentTimeMillis() / 1000;
    String[] parts = lines.get(0).split(" ");
    assertThat(parts[0]).isEqualTo("E");
    assertThat(parts[1]).isEqualTo(Long.toString(ProcessHandle.current().pid()));
    assertThat(Long.parseLong(parts[2])).isBetween(before, after);
    assertThat(lines.get(0)).endsWith(" (100%) a\\b gone");
  }

  @Test
  void jsonFlagEscapesQuotesControlCharactersAndTheStackTraceOntoOneLine() throws Exception {
    List<String> lines = render("{\"level\":\"%l\",\"msg\":\"%j\"}", false,
        () -> context.getLogger("io.spillway.edge.http.X").error("a \"quoted\"\nline\u0001", new IllegalStateException("boom")));
    assertThat(lines).hasSize(1);
    var node = new com.fasterxml.jackson.databind.ObjectMapper().readTree(lines.get(0));
    assertThat(node.get("level").asText()).isEqualTo("error");
    assertThat(node.get("msg").asText()).startsWith("a \"quoted\"\nline\u0001 java.lang.IllegalStateException: boom")
        .contains("at io.spillway.edge.server.EdgeLoggingTest");
  }

  @Test
  void escapedFormatKeepsEveryEntryOnOneLine() throws Exception {
    List<String> plain = render("%v", false, () -> context.getLogger("x").info("one\ntwo\tthree"));
    assertThat(plain).containsExactly("one", "two\tthree");
    List<String> escaped = render("%v", true,
        () -> context.getLogger("x").info("one\ntwo", new RuntimeException("r")));
    assertThat(escaped).hasSize(1);
    assertThat(escaped.get(0)).startsWith("one\\ntwo java.lang.RuntimeException: r\\n\\tat ");
    assertThat(render("%_", false, () -> context.getLogger("x").info("a\rb"))).containsExactly("a\\rb");
  }

  @Test
  void dateFlagsMergeIntoOneDateAndKeepTrailingSeparators() {
    assertThat(EnvoyLogFormat.toLogbackPattern("[%Y-%m-%d %T.%e] %v", false))
        .isEqualTo("[%d{yyyy-MM-dd HH:mm:ss.SSS}] %msg%n");
    assertThat(EnvoyLogFormat.toLogbackPattern("%H:%M: %v", false)).isEqualTo("%d{HH:mm}: %msg%n");
    assertThat(EnvoyLogFormat.toLogbackPattern("%Y,%m", false)).isEqualTo("%d{yyyy},%d{MM}%n");
  }

  @Test
  void anUnsupportedFlagOrALonePercentIsRefusedByName() {
    assertThatThrownBy(() -> EnvoyLogFormat.toLogbackPattern("[%k] %v", false))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--log-format: flag %k is not supported");
    assertThatThrownBy(() -> EnvoyLogFormat.toLogbackPattern("%v 100%", false))
        .hasMessageContaining("lone %");
  }

  @Test
  void reopenWritesToTheFileAtThePathAfterLogrotateMovedIt() throws Exception {
    Path file = dir.resolve("edge.log");
    Path rotated = dir.resolve("edge.log.1");
    EdgeLogging.install(context, "%msg%n", Optional.of(file));
    context.getLogger("x").info("before");
    Files.move(file, rotated);
    context.getLogger("x").info("still the old file");
    EdgeLogging.reopen(context);
    context.getLogger("x").info("after");
    assertThat(Files.readAllLines(rotated)).containsExactly("before", "still the old file");
    assertThat(Files.readAllLines(file)).containsExactly("after");
  }

  @Test
  void aLogPathThatCannotBeOpenedIsAnError() throws Exception {
    Path notADirectory = Files.writeString(dir.resolve("plain-file"), "x");
    assertThatThrownBy(() -> EdgeLogging.install(context, "%msg%n", Optional.of(notADirectory.resolve("edge.log"))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("plain-file/edge.log cannot be opened");
  }

  @Test
  void componentLevelsNameEdgePackagesOrLoggersAndEveryEntryIsChecked() {
    assertThat(EdgeLogging.componentLevels("upstream:debug, http:trace,io.netty:warning,xds:critical"))
        .containsExactly(
            java.util.Map.entry("io.spillway.edge.upstream", Level.DEBUG),
            java.util.Map.entry("io.spillway.edge.http", Level.TRACE),
            java.util.Map.entry("io.netty", Level.WARN),
            java.util.Map.entry("io.spillway.edge.xds", Level.ERROR));
    assertThatThrownBy(() -> EdgeLogging.componentLevels("nosuchthing:debug"))
        .hasMessageContaining("no component 'nosuchthing'");
    assertThatThrownBy(() -> EdgeLogging.componentLevels("upstream:loud")).hasMessageContaining("unknown level 'loud'");
    assertThatThrownBy(() -> EdgeLogging.componentLevels("upstream")).hasMessageContaining("'upstream' is not <component>:<level>");
    assertThatThrownBy(() -> EdgeLogging.componentLevels("upstream:")).hasMessageContaining("is not <component>:<level>");
  }
}
