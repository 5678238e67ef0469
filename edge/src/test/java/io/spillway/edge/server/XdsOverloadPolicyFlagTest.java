package io.spillway.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintStream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --xds-overload-policy} takes auto, true or false; anything else is a usage error. */
class XdsOverloadPolicyFlagTest {

  @Test
  void anUnknownValueIsRefusedWithExitCode2() {
    PrintStream err = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
    int code;
    try {
      code = new CommandLine(new EdgeMain()).execute("--config-yaml", "{}", "--xds-overload-policy", "sometimes");
    } finally {
      System.setErr(err);
    }
    assertThat(code).isEqualTo(2);
    assertThat(captured.toString(java.nio.charset.StandardCharsets.UTF_8))
        .contains("--xds-overload-policy: must be auto, true or false, not 'sometimes'");
  }

  @Test
  void autoIsTheDefault() {
    EdgeMain main = new EdgeMain();
    new CommandLine(main).parseArgs("--config-yaml", "{}");
    assertThat(main.xdsOverloadPolicy).isEqualTo("auto");
  }
}
