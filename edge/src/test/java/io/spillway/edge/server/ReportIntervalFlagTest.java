package io.spillway.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintStream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --report-interval} takes 0 to 3600 seconds; anything else is a usage error. */
class ReportIntervalFlagTest {

  private static String errorOf(String value) {
    PrintStream err = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
    int code;
    try {
      code = new CommandLine(new EdgeMain()).execute("--config-yaml", "{}", "--report-interval", value);
    } finally {
      System.setErr(err);
    }
    assertThat(code).isEqualTo(2);
    return captured.toString(java.nio.charset.StandardCharsets.UTF_8);
  }

  @Test
  void aValueThatIsNotZeroToAnHourOfSecondsIsRefusedWithExitCode2() {
    for (String value : new String[] {"soon", "-1", "3601", "5s"}) {
      assertThat(errorOf(value)).contains("--report-interval: must be a number of seconds from 0 to 3600, not '" + value + "'");
    }
  }

  @Test
  void fiveSecondsIsTheDefault() {
    EdgeMain main = new EdgeMain();
    new CommandLine(main).parseArgs("--config-yaml", "{}");
    assertThat(main.reportInterval).isEqualTo("5");
    assertThat(ServerOptions.defaults().reportInterval()).isEqualTo(java.time.Duration.ofSeconds(5));
  }
}
