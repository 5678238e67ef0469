package io.spillway.central;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The packaged jar as a process: an accepted change survives kill -9, and SIGTERM stops cleanly. */
class CentralDurabilityE2E {

  private static final String TOKEN = "e2e-admin-token-0123456789abcdef";
  private static final String SEED_EXAMPLE =
      "{\"overload\": {\"inbound\": {\"mode\": \"enforce\", \"adaptive\": {\"maxLimit\": 1536}}, \"outbound\": {\"mode\": \"shadow\"}}}";

  @TempDir
  Path work;

  @Test
  void acceptedChangeSurvivesKillNine() throws Exception {
    Path dataDir = work.resolve("data");
    survivesKillNine(List.of("--data-dir", dataDir.toString()));
    assertThat(Files.exists(dataDir.resolve("central.mv.db"))).isTrue();
  }

  @Test
  void acceptedChangeSurvivesKillNineOnPostgres() throws Exception {
    try (TestDatabase database = TestDatabase.create(TestDatabase.Kind.POSTGRESQL)) {
      survivesKillNine(List.of("--data-dir", work.resolve("unused").toString(), "--database-url", database.url(),
          "--database-user", database.user()));
    }
  }

  private void survivesKillNine(List<String> args) throws Exception {
    Map<String, String> env = Map.of("SPILLWAY_ADMIN_TOKEN", TOKEN);
    try (CentralProcess first = CentralProcess.start(work, args, env)) {
      ApiClient api = new ApiClient(first.port());
      assertThat(api.json("POST", "/configuration/edges", TOKEN, "{\"id\": \"edge-1\", \"labels\": {\"env\": \"e2e\"}}").statusCode())
          .isEqualTo(201);
      HttpResponse<String> patched = api.json("PATCH", "/configuration/edges/policies?edgeId=edge-1", TOKEN, SEED_EXAMPLE);
      assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
      first.kill();
      assertThat(first.log() + first.stdout()).doesNotContain(TOKEN);
    }
    try (CentralProcess second = CentralProcess.start(work, args, env)) {
      ApiClient api = new ApiClient(second.port());
      HttpResponse<String> read = api.get("/configuration/edges/policies?edgeId=edge-1", TOKEN);
      assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
      assertThat(ApiClient.parse(read).get("overload")).isEqualTo(ApiClient.parse(SEED_EXAMPLE).get("overload"));
      assertThat(ApiClient.parse(read).get("revisions").get("overload").asLong()).isEqualTo(1);
      assertThat(ApiClient.parse(api.get("/configuration/audit?edgeId=edge-1", TOKEN)).get("entries")).hasSize(1);
      assertThat(second.stop()).as("SIGTERM exits cleanly").isIn(0, 143);
      assertThat(second.log()).contains("central stopped");
    }
  }

  @Test
  void firstStartPrintsAGeneratedTokenOnceAndOnlyOnStdout() throws Exception {
    Path dataDir = work.resolve("fresh");
    try (CentralProcess central = CentralProcess.start(work, List.of("--data-dir", dataDir.toString()), Map.of())) {
      String token = central.stdout().lines().filter(line -> line.startsWith("spw_")).findFirst().orElseThrow();
      ApiClient api = new ApiClient(central.port());
      assertThat(api.get("/configuration/operators", token).statusCode()).isEqualTo(200);
      assertThat(central.stdout().lines().filter(line -> line.contains(token)).count()).isEqualTo(1);
      assertThat(central.log()).as("the log never shows the token").doesNotContain(token).contains("printed once on standard output");
      central.kill();
    }
    try (CentralProcess again = CentralProcess.start(work, List.of("--data-dir", dataDir.toString()), Map.of())) {
      assertThat(again.stdout()).as("no second token").doesNotContain("spw_");
    }
  }
}
