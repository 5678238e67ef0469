package io.spillway.edge.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.EdgeProcess;
import io.spillway.testkit.FreePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged edge's own log with Envoy's flags: {@code --log-path} instead of stderr,
 * {@code --log-format}, {@code --component-log-level}, reopened by {@code POST /reopen_logs}
 * after logrotate moved the file; a bad flag is a usage error (exit 2) naming it.
 */
class ProcessLogE2E {

  @TempDir
  Path dir;

  private static List<String> lines(Path file) {
    try {
      return Files.exists(file) ? Files.readAllLines(file) : List.of();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void logsToTheLogPathInEnvoysFormatAndReopensAfterLogrotate() throws Exception {
    int[] ports = FreePorts.pick(2);
    Path bootstrap = BootstrapYaml.withAdmin(ports[1])
        .listener(BootstrapYaml.Listener.named("web", ports[0]).routes("""
            - match: { prefix: "/" }
              direct_response: { status: 200 }
            """))
        .writeTo(dir, "log.yaml");
    Path log = dir.resolve("edge.log");
    Path rotated = dir.resolve("edge.log.1");
    try (EdgeProcess edge = EdgeProcess.start(bootstrap, ports[1], "--log-path", log.toString(),
        "--log-format", "%L|%l|%n|%j", "--component-log-level", "admin:debug,io.netty:error")) {
      List<String> startup = lines(log);
      assertThat(startup).anyMatch(l -> l.matches("I\\|info\\|server\\|admin listener on /127\\.0\\.0\\.1:" + ports[1]));
      assertThat(edge.logTail()).doesNotContain("admin listener on");

      Files.move(log, rotated);
      assertThat(new AdminClient(edge).post("/reopen_logs").statusCode()).isEqualTo(200);
      assertThat(edge.stop()).isZero();
    }
    assertThat(lines(rotated)).anyMatch(l -> l.contains("admin listener on"));
    assertThat(lines(log)).as("lines after the reopen go to a new file at the path")
        .anyMatch(l -> l.equals("I|info|server|draining for up to 600 s"))
        .noneMatch(l -> l.contains("admin listener on"));
  }

  @Test
  void anUnsupportedFlagOrComponentIsAUsageError() {
    EdgeProcess.Result badFlag = EdgeProcess.run(Duration.ofSeconds(30), "--config-yaml", "{}", "--log-format", "%k %v");
    assertThat(badFlag.exitCode()).isEqualTo(2);
    assertThat(badFlag.stderr()).contains("--log-format: flag %k is not supported");
    EdgeProcess.Result badComponent = EdgeProcess.run(Duration.ofSeconds(30), "--config-yaml", "{}",
        "--component-log-level", "upstream:debug,nosuch:trace");
    assertThat(badComponent.exitCode()).isEqualTo(2);
    assertThat(badComponent.stderr()).contains("no component 'nosuch'");
  }
}
