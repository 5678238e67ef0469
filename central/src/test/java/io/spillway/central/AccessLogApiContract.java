package io.spillway.central;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * The {@code accessLog} section follows the PATCH rules of {@code overload} (SPEC §6): replaced
 * entirely, {@code null} deletes it, unknown fields ignored, 400 with no body and the first problem
 * logged with its path, {@code expectedRevisions} → 409, {@code dryRun}, every change audited.
 */
abstract class AccessLogApiContract extends PolicyApiFixture {

  static final String TO_FILE = "{\"format\": \"%REQ(:METHOD)% %REQ(:PATH)% %RESPONSE_CODE%\", "
      + "\"filters\": {\"statusCode\": {\"op\": \">=\", \"value\": 400}, \"notHealthCheck\": true}, "
      + "\"destination\": {\"file\": \"edge/access.log\"}}";
  static final String JSON_TO_STDERR = "{\"json\": {\"code\": \"%RESPONSE_CODE%\", \"ms\": \"%DURATION%\"}, "
      + "\"filters\": {\"duration\": {\"op\": \">=\", \"millis\": 100}, \"responseFlags\": [\"UH\", \"UF\"]}, "
      + "\"destination\": \"stderr\"}";

  AccessLogApiContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @Test
  void aSectionIsStoredReadBackAndReplacedEntirely() {
    String edge = newEdge();
    HttpResponse<String> first = patch(edge, "{\"accessLog\": " + TO_FILE + "}");
    assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
    assertThat(ApiClient.parse(first).get("accessLog")).isEqualTo(ApiClient.parse(TO_FILE));
    HttpResponse<String> second = patch(edge, "{\"accessLog\": " + JSON_TO_STDERR + "}");
    assertThat(second.statusCode()).as(second.body()).isEqualTo(200);
    JsonNode state = policies(edge);
    assertThat(state.get("accessLog")).isEqualTo(ApiClient.parse(JSON_TO_STDERR));
    assertThat(state.get("revisions").get("accessLog").asLong()).isEqualTo(2);
    assertThat(state.get("overload").isNull()).isTrue();
    assertThat(state.get("rateLimits").isNull()).isTrue();
  }

  @Test
  void unknownFieldsAreDropped() {
    String edge = newEdge();
    HttpResponse<String> response = patch(edge, "{\"accessLog\": {\"future\": 1, \"format\": \"%DURATION%\", "
        + "\"filters\": {\"sample\": 0.5}, \"destination\": {\"file\": \"a.log\", \"mode\": \"0600\"}}}");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(policies(edge).get("accessLog")).isEqualTo(
        ApiClient.parse("{\"format\": \"%DURATION%\", \"filters\": {}, \"destination\": {\"file\": \"a.log\"}}"));
  }

  @Test
  void nullDeletesTheSectionAndLeavesTheOthersAsTheyAre() {
    String edge = newEdge();
    String overload = "{\"inbound\": {\"mode\": \"enforce\"}}";
    assertThat(patch(edge, "{\"overload\": " + overload + ", \"accessLog\": " + TO_FILE + "}").statusCode()).isEqualTo(200);
    HttpResponse<String> deleted = patch(edge, "{\"accessLog\": null}");
    assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);
    JsonNode state = policies(edge);
    assertThat(state.get("accessLog").isNull()).isTrue();
    assertThat(state.get("revisions").get("accessLog").asLong()).isEqualTo(2);
    assertThat(state.get("overload")).isEqualTo(ApiClient.parse(overload));
    assertThat(state.get("revisions").get("overload").asLong()).isEqualTo(1);
  }

  @Test
  void aBadFormatIs400WithNoBodyAndTheFirstProblemLogged() {
    String edge = newEdge();
    assertRejected(patch(edge, "{\"accessLog\": {\"format\": \"%RESPONSE_CODE% 100%\"}}"), edge, "accessLog.format",
        "accessLog.format has an unterminated command operator at position 19 (write %NAME%, %NAME(ARG)% or "
            + "%NAME(ARG):N%; every % opens a command operator)");
    policyLog.list.clear();
    assertRejected(patch(edge, "{\"accessLog\": {\"format\": \"%UPSTREAM_WHAT%\"}}"), edge, "accessLog.format",
        "accessLog.format names an unknown or unsupported command operator %UPSTREAM_WHAT% at position 0");
    policyLog.list.clear();
    assertRejected(patch(edge, "{\"accessLog\": {\"format\": \"%DURATION%\", \"json\": {\"d\": \"%DURATION%\"}}}"), edge,
        "accessLog.json", "accessLog.json cannot be set together with accessLog.format; set one of them");
    assertNothingStored(edge);
  }

  @Test
  void badFiltersAndDestinationsAreRefused() {
    String edge = newEdge();
    assertRejected(patch(edge, "{\"accessLog\": {\"filters\": {\"statusCode\": {\"op\": \">=\", \"value\": 600}}}}"), edge,
        "accessLog.filters.statusCode.value", "accessLog.filters.statusCode.value must be between 100 and 599");
    policyLog.list.clear();
    assertRejected(patch(edge, "{\"accessLog\": {\"filters\": {\"responseFlags\": [\"ZZ\"]}}}"), edge,
        "accessLog.filters.responseFlags", null);
    policyLog.list.clear();
    assertRejected(patch(edge, "{\"accessLog\": {\"destination\": {\"file\": \"../../etc/cron.d/x\"}}}"), edge,
        "accessLog.destination", "accessLog.destination.file must not contain '.' or '..' segments");
    policyLog.list.clear();
    assertRejected(patch(edge, "{\"accessLog\": {\"destination\": {\"file\": \"/var/log/edge.log\"}}}"), edge,
        "accessLog.destination", "accessLog.destination.file must be relative to the edge's access log directory, not absolute");
    policyLog.list.clear();
    assertRejected(patch(edge, "{\"accessLog\": \"on\"}"), edge, "accessLog", "accessLog must be an object");
    assertNothingStored(edge);
  }

  @Test
  void aStaleExpectedRevisionIsAConflict() {
    String edge = newEdge();
    assertThat(patch(edge, "{\"expectedRevisions\": {\"accessLog\": 0}, \"accessLog\": " + TO_FILE + "}").statusCode())
        .isEqualTo(200);
    HttpResponse<String> stale = patch(edge, "{\"expectedRevisions\": {\"accessLog\": 0}, \"accessLog\": " + JSON_TO_STDERR + "}");
    assertThat(stale.statusCode()).as(stale.body()).isEqualTo(409);
    assertThat(policies(edge).get("accessLog")).isEqualTo(ApiClient.parse(TO_FILE));
    assertThat(patch(edge, "{\"expectedRevisions\": {\"accessLog\": 1}, \"accessLog\": " + JSON_TO_STDERR + "}").statusCode())
        .isEqualTo(200);
  }

  @Test
  void dryRunValidatesAndSavesNothing() {
    String edge = newEdge();
    HttpResponse<String> response = patch(edge, "{\"dryRun\": true, \"accessLog\": " + TO_FILE + "}");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode wouldBe = ApiClient.parse(response);
    assertThat(wouldBe.get("dryRun").asBoolean()).isTrue();
    assertThat(wouldBe.get("accessLog")).isEqualTo(ApiClient.parse(TO_FILE));
    assertThat(wouldBe.get("revisions").get("accessLog").asLong()).isEqualTo(1);
    assertNothingStored(edge);
    assertRejected(patch(edge, "{\"dryRun\": true, \"accessLog\": {\"filters\": {\"duration\": {\"op\": \">\", \"millis\": 1}}}}"),
        edge, "accessLog.filters.duration.op", "accessLog.filters.duration.op must be one of >=, <=, =");
  }

  @Test
  void everyChangeIsAudited() {
    String edge = newEdge();
    assertThat(patch(edge, "{\"accessLog\": " + TO_FILE + "}").statusCode()).isEqualTo(200);
    assertThat(patch(edge, "{\"accessLog\": " + TO_FILE + "}").statusCode()).as("equal: no change").isEqualTo(200);
    assertThat(patch(edge, "{\"accessLog\": null}").statusCode()).isEqualTo(200);
    JsonNode entries = audit("edgeId=" + edge + "&section=accessLog");
    assertThat(entries).hasSize(2);
    assertThat(entries.get(0).get("before")).isEqualTo(ApiClient.parse(TO_FILE));
    assertThat(entries.get(0).get("after").isNull()).isTrue();
    assertThat(entries.get(0).get("revision").asLong()).isEqualTo(2);
    assertThat(entries.get(1).get("before").isNull()).isTrue();
    assertThat(entries.get(1).get("after")).isEqualTo(ApiClient.parse(TO_FILE));
    assertThat(entries.get(1).get("operator").asText()).isEqualTo("admin");
  }
}
