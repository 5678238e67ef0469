package io.spillway.central;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * The {@code rateLimits} section follows the PATCH rules of {@code overload} (SPEC §6): replaced
 * entirely, {@code null} deletes it, unknown fields ignored, 400 with no body and the first problem
 * logged with its path, {@code expectedRevisions} → 409, {@code dryRun}, every change audited.
 */
abstract class RateLimitsApiContract extends PolicyApiFixture {

  static final String PER_KEY = "{\"name\": \"per-key\", \"key\": \"header:x-api-key\", \"rate\": 5, \"burst\": 5, "
      + "\"mode\": \"enforce\"}";
  static final String PER_CLIENT = "{\"name\": \"per-client\", \"key\": \"clientAddress\", \"rate\": 100, \"burst\": 200, "
      + "\"exempt\": [\"10.0.0.0/8\"], \"maxKeys\": 5000}";

  RateLimitsApiContract(TestDatabase.Kind kind) {
    super(kind);
  }

  static String section(String... limits) {
    return "{\"limits\": [" + String.join(", ", limits) + "]}";
  }

  @Test
  void aSectionIsStoredReadBackAndReplacedEntirely() {
    String edge = newEdge();
    HttpResponse<String> first = patch(edge, "{\"rateLimits\": " + section(PER_KEY, PER_CLIENT) + "}");
    assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
    assertThat(ApiClient.parse(first).get("rateLimits")).isEqualTo(ApiClient.parse(section(PER_KEY, PER_CLIENT)));
    HttpResponse<String> second = patch(edge, "{\"rateLimits\": " + section(PER_CLIENT) + "}");
    assertThat(second.statusCode()).as(second.body()).isEqualTo(200);
    JsonNode state = policies(edge);
    assertThat(state.get("rateLimits")).isEqualTo(ApiClient.parse(section(PER_CLIENT)));
    assertThat(state.get("revisions").get("rateLimits").asLong()).isEqualTo(2);
    assertThat(state.get("overload").isNull()).isTrue();
  }

  @Test
  void unknownFieldsAreDropped() {
    String edge = newEdge();
    HttpResponse<String> response = patch(edge, "{\"rateLimits\": {\"future\": 1, \"limits\": [{\"name\": \"a\", "
        + "\"key\": \"route\", \"rate\": 1, \"burst\": 1, \"window\": \"1m\"}]}}");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(policies(edge).get("rateLimits"))
        .isEqualTo(ApiClient.parse("{\"limits\": [{\"name\": \"a\", \"key\": \"route\", \"rate\": 1, \"burst\": 1}]}"));
  }

  @Test
  void nullDeletesTheSectionAndLeavesOverloadAsItIs() {
    String edge = newEdge();
    String overload = "{\"inbound\": {\"mode\": \"enforce\"}}";
    assertThat(patch(edge, "{\"overload\": " + overload + ", \"rateLimits\": " + section(PER_KEY) + "}").statusCode()).isEqualTo(200);
    HttpResponse<String> deleted = patch(edge, "{\"rateLimits\": null}");
    assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);
    JsonNode state = policies(edge);
    assertThat(state.get("rateLimits").isNull()).isTrue();
    assertThat(state.get("revisions").get("rateLimits").asLong()).isEqualTo(2);
    assertThat(state.get("overload")).isEqualTo(ApiClient.parse(overload));
    assertThat(state.get("revisions").get("overload").asLong()).isEqualTo(1);
  }

  @Test
  void aValueOutOfRangeIs400WithNoBodyAndTheFirstProblemLogged() {
    String edge = newEdge();
    String bad = "{\"name\": \"b\", \"key\": \"route\", \"rate\": 0, \"burst\": 0}";
    assertRejected(patch(edge, "{\"rateLimits\": " + section(PER_KEY, bad) + "}"), edge, "rateLimits.limits[1].rate",
        "rateLimits.limits[1].rate must be between 0.001 and 1000000");
    assertNothingStored(edge);
  }

  @Test
  void duplicateNamesAndBadKeysAreRefused() {
    String edge = newEdge();
    assertRejected(patch(edge, "{\"rateLimits\": " + section(PER_KEY, PER_KEY) + "}"), edge, "rateLimits.limits[1].name",
        "rateLimits.limits[1].name \"per-key\" is already the name of rateLimits.limits[0]; names must be unique");
    policyLog.list.clear();
    assertRejected(patch(edge, "{\"rateLimits\": " + section("{\"name\": \"k\", \"key\": \"cookie\", \"rate\": 1, \"burst\": 1}") + "}"),
        edge, "rateLimits.limits[0].key", null);
    policyLog.list.clear();
    assertRejected(patch(edge, "{\"rateLimits\": []}"), edge, "rateLimits", "rateLimits must be an object");
    assertNothingStored(edge);
  }

  @Test
  void aStaleExpectedRevisionIsAConflict() {
    String edge = newEdge();
    assertThat(patch(edge, "{\"expectedRevisions\": {\"rateLimits\": 0}, \"rateLimits\": " + section(PER_KEY) + "}").statusCode())
        .isEqualTo(200);
    HttpResponse<String> stale = patch(edge, "{\"expectedRevisions\": {\"rateLimits\": 0}, \"rateLimits\": " + section(PER_CLIENT) + "}");
    assertThat(stale.statusCode()).as(stale.body()).isEqualTo(409);
    assertThat(policies(edge).get("rateLimits")).isEqualTo(ApiClient.parse(section(PER_KEY)));
    assertThat(patch(edge, "{\"expectedRevisions\": {\"rateLimits\": 1}, \"rateLimits\": " + section(PER_CLIENT) + "}").statusCode())
        .isEqualTo(200);
  }

  @Test
  void dryRunValidatesAndSavesNothing() {
    String edge = newEdge();
    HttpResponse<String> response = patch(edge, "{\"dryRun\": true, \"rateLimits\": " + section(PER_KEY) + "}");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode wouldBe = ApiClient.parse(response);
    assertThat(wouldBe.get("dryRun").asBoolean()).isTrue();
    assertThat(wouldBe.get("rateLimits")).isEqualTo(ApiClient.parse(section(PER_KEY)));
    assertThat(wouldBe.get("revisions").get("rateLimits").asLong()).isEqualTo(1);
    assertNothingStored(edge);
    assertRejected(patch(edge, "{\"dryRun\": true, \"rateLimits\": " + section("{\"name\": \"x\", \"key\": \"route\", \"rate\": 1, \"burst\": 1000001}") + "}"),
        edge, "rateLimits.limits[0].burst", "rateLimits.limits[0].burst must be between 1 and 1000000");
  }

  @Test
  void everyChangeIsAudited() {
    String edge = newEdge();
    assertThat(patch(edge, "{\"rateLimits\": " + section(PER_KEY) + "}").statusCode()).isEqualTo(200);
    assertThat(patch(edge, "{\"rateLimits\": " + section(PER_KEY) + "}").statusCode()).as("equal: no change").isEqualTo(200);
    assertThat(patch(edge, "{\"rateLimits\": null}").statusCode()).isEqualTo(200);
    JsonNode entries = audit("edgeId=" + edge + "&section=rateLimits");
    assertThat(entries).hasSize(2);
    assertThat(entries.get(0).get("before")).isEqualTo(ApiClient.parse(section(PER_KEY)));
    assertThat(entries.get(0).get("after").isNull()).isTrue();
    assertThat(entries.get(0).get("revision").asLong()).isEqualTo(2);
    assertThat(entries.get(1).get("before").isNull()).isTrue();
    assertThat(entries.get(1).get("after")).isEqualTo(ApiClient.parse(section(PER_KEY)));
    assertThat(entries.get(1).get("operator").asText()).isEqualTo("admin");
  }
}
