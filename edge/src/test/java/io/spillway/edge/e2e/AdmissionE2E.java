package io.spillway.edge.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.EdgeProcess;
import io.spillway.testkit.FreePorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged edge's overload policy at start-up: the deployment baseline from
 * HTTP_ADMISSION_* / HTTP_CLIENT_GUARD_* (an invalid value is a start-up error naming the
 * variable) and --overload-policy (an invalid policy names the field and the rule).
 */
class AdmissionE2E {

  @TempDir
  static Path dir;
  private static Path bootstrap;

  @BeforeAll
  static void write() throws Exception {
    bootstrap = BootstrapYaml.withAdmin(FreePorts.pick())
        .listener(BootstrapYaml.Listener.named("main", FreePorts.pick()).routes("""
            - match: { prefix: "/" }
              route: { cluster: backend }
            """))
        .staticCluster("backend", "", 8080)
        .writeTo(dir, "edge.yaml");
  }

  private static EdgeProcess.Result validate(String envName, String envValue, String... extra) {
    EdgeProcess.Builder b = EdgeProcess.builder();
    if (envName != null) {
      b.environment(envName, envValue);
    }
    String[] args = new String[4 + extra.length];
    args[0] = "-c";
    args[1] = bootstrap.toString();
    args[2] = "--mode";
    args[3] = "validate";
    System.arraycopy(extra, 0, args, 4, extra.length);
    return b.args(args).run(Duration.ofSeconds(60));
  }

  @Test
  void aValidBaselineAndPolicyPass() throws Exception {
    Path policy = dir.resolve("ok.json");
    Files.writeString(policy, "{\"inbound\": {\"mode\": \"enforce\", \"adaptive\": {\"maxLimit\": 1536}}, \"unknown\": 1}");
    EdgeProcess.Result r = validate("HTTP_ADMISSION_MODE", "shadow", "--overload-policy", policy.toString());
    assertThat(r.exitCode()).as(r.stderr()).isZero();
  }

  @Test
  void anInvalidEnvironmentValueIsAStartupErrorNamingTheVariable() {
    EdgeProcess.Result r = validate("HTTP_ADMISSION_START_SHARE", "1.5");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.stderr()).contains("HTTP_ADMISSION_START_SHARE").contains("between 0.01 and 1");
    EdgeProcess.Result mode = validate("HTTP_CLIENT_GUARD_MODE", "sometimes");
    assertThat(mode.exitCode()).isEqualTo(1);
    assertThat(mode.stderr()).contains("HTTP_CLIENT_GUARD_MODE");
  }

  @Test
  void anInvalidPolicyFileNamesTheFieldAndTheRule() throws Exception {
    Path policy = dir.resolve("bad.json");
    Files.writeString(policy, "{\"inbound\": {\"startShare\": 0.9}}");
    EdgeProcess.Result r = validate(null, null, "--overload-policy", policy.toString());
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.stderr()).contains("inbound.startShare (0.9) must not exceed inbound.continuationShare (0.85)");
  }

  @Test
  void aChangedPolicyFileTakesEffectAndABadOneChangesNothing() throws Exception {
    Path policy = dir.resolve("live-policy.json");
    Files.writeString(policy, "{\"inbound\": {\"mode\": \"shadow\"}}");
    try (EdgeProcess edge = EdgeProcess.start(bootstrap, "--overload-policy", policy.toString())) {
      AdminClient admin = new AdminClient(edge);
      assertThat(admin.get("/overload").body()).contains("\"mode\" : \"shadow\"");

      Files.writeString(policy, "{\"inbound\": {\"mode\": \"enforce\"}}");
      awaitBody(admin, "/overload", "\"mode\" : \"enforce\"");
      assertThat(admin.stat("policy_file.reload_success")).isEqualTo(1);

      Files.writeString(policy, "{\"inbound\": {\"startShare\": 2}}");
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (admin.stat("policy_file.reload_rejected") < 1 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(admin.stat("policy_file.reload_rejected")).isEqualTo(1);
      assertThat(admin.get("/overload").body()).contains("\"mode\" : \"enforce\"");
      assertThat(edge.logTail()).contains("inbound.startShare");
    }
  }

  private static void awaitBody(AdminClient admin, String path, String expected) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    String body = admin.get(path).body();
    while (!body.contains(expected) && System.nanoTime() < deadline) {
      Thread.sleep(50);
      body = admin.get(path).body();
    }
    assertThat(body).contains(expected);
  }
}
