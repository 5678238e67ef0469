package io.spillway.central;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.spillway.central.api.Json;
import io.spillway.central.console.ConsoleApi;
import io.spillway.central.edges.EdgeStore;
import io.spillway.central.policy.PoliciesApi;
import io.spillway.central.store.Database;
import io.spillway.policy.DeploymentDefaults;
import io.spillway.policy.CrossFieldRule;
import io.spillway.policy.FieldType;
import io.spillway.policy.PolicyField;
import io.spillway.policy.PolicySchema;
import java.math.BigDecimal;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * The API rules of issue 6, run in-process over real HTTP against one database; subclasses pick
 * the embedded H2 or PostgreSQL. One central per class; each test registers its own edges.
 */
abstract class CentralApiContract extends PolicyApiFixture {

  static final String SEED_EXAMPLE =
      "{\"overload\": {\"inbound\": {\"mode\": \"enforce\", \"adaptive\": {\"maxLimit\": 1536}}, \"outbound\": {\"mode\": \"shadow\"}}}";

  CentralApiContract(TestDatabase.Kind kind) {
    super(kind);
  }

  // ---- the policy API ----

  @Test
  void seedExamplePatchIsStoredAndReadBack() {
    String edge = newEdge();
    HttpResponse<String> response = patch(edge, SEED_EXAMPLE);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode expected = ApiClient.parse(SEED_EXAMPLE).get("overload");
    assertThat(ApiClient.parse(response).get("overload")).isEqualTo(expected);
    JsonNode state = policies(edge);
    assertThat(state.get("overload")).isEqualTo(expected);
    assertThat(state.get("revisions").get("overload").asLong()).isEqualTo(1);
  }

  @Test
  void overloadSectionIsReplacedEntirely() {
    String edge = newEdge();
    assertThat(patch(edge, "{\"overload\": {\"inbound\": {\"mode\": \"enforce\", \"maxInFlight\": 100}}}").statusCode()).isEqualTo(200);
    assertThat(patch(edge, "{\"overload\": {\"outbound\": {\"mode\": \"off\"}}}").statusCode()).isEqualTo(200);
    JsonNode state = policies(edge);
    assertThat(state.get("overload")).isEqualTo(ApiClient.parse("{\"outbound\": {\"mode\": \"off\"}}"));
    assertThat(state.get("revisions").get("overload").asLong()).isEqualTo(2);
  }

  @Test
  void nullDeletesOverloadAndLeavesOtherSectionsAsTheyAre() {
    String edge = newEdge();
    String accessLog = "{\"format\": \"%RESPONSE_CODE% %DURATION%\", \"destination\": \"stderr\"}";
    String rateLimits = "{\"limits\": [{\"name\": \"per-client\", \"key\": \"clientAddress\", \"rate\": 10, \"burst\": 20}]}";
    assertThat(patch(edge, "{\"accessLog\": " + accessLog + ", \"rateLimits\": " + rateLimits + ", "
        + SEED_EXAMPLE.substring(1)).statusCode()).isEqualTo(200);
    HttpResponse<String> deleted = patch(edge, "{\"overload\": null}");
    assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);
    JsonNode state = policies(edge);
    assertThat(state.get("overload").isNull()).isTrue();
    assertThat(state.get("revisions").get("overload").asLong()).isEqualTo(2);
    assertThat(state.get("accessLog")).isEqualTo(ApiClient.parse(accessLog));
    assertThat(state.get("rateLimits")).isEqualTo(ApiClient.parse(rateLimits));
    assertThat(state.get("revisions").get("accessLog").asLong()).isEqualTo(1);
    assertThat(state.get("revisions").get("rateLimits").asLong()).isEqualTo(1);
  }

  @Test
  void absentSectionsStayUntouched() {
    String edge = newEdge();
    assertThat(patch(edge, SEED_EXAMPLE).statusCode()).isEqualTo(200);
    assertThat(patch(edge, "{\"rateLimits\": {\"limits\": []}}").statusCode()).isEqualTo(200);
    JsonNode state = policies(edge);
    assertThat(state.get("overload")).isEqualTo(ApiClient.parse(SEED_EXAMPLE).get("overload"));
    assertThat(state.get("revisions").get("overload").asLong()).isEqualTo(1);
  }

  @Test
  void unknownFieldsAreIgnored() {
    String edge = newEdge();
    HttpResponse<String> response = patch(edge, "{\"somethingNew\": 1, \"overload\": {\"inbound\": {\"mode\": \"enforce\", "
        + "\"futureKnob\": 7, \"adaptive\": {\"maxLimit\": 2000, \"x\": {}}}, \"sidecar\": {\"mode\": \"on\"}}}");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(policies(edge).get("overload"))
        .isEqualTo(ApiClient.parse("{\"inbound\": {\"mode\": \"enforce\", \"adaptive\": {\"maxLimit\": 2000}}}"));
  }

  static Stream<Arguments> rangeEdges() {
    List<Arguments> cases = new ArrayList<>();
    for (PolicyField field : PolicyField.values()) {
      if (!field.type().isNumeric()) {
        continue;
      }
      boolean integer = field.type() == FieldType.INTEGER;
      double step = integer ? 1 : 0.001;
      cases.add(Arguments.of(field, field.min(), true));
      cases.add(Arguments.of(field, field.max(), true));
      cases.add(Arguments.of(field, number(field.min().doubleValue() - step, integer), false));
      cases.add(Arguments.of(field, number(field.max().doubleValue() + step, integer), false));
    }
    return cases.stream();
  }

  private static Number number(double value, boolean integer) {
    return integer ? (Number) (long) Math.round(value) : (Number) value;
  }

  /**
   * A policy setting {@code field} to {@code value} and, when {@code withPartner}, the other field
   * of its cross-field rule to the same value (so an in-range edge does not break the rule).
   */
  static String policyWith(PolicyField field, Number value, boolean withPartner) {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    set(root, field, value);
    for (CrossFieldRule rule : withPartner ? CrossFieldRule.values() : new CrossFieldRule[0]) {
      if (rule.lesser() == field) {
        set(root, rule.greater(), value);
      } else if (rule.greater() == field) {
        set(root, rule.lesser(), value);
      }
    }
    return "{\"overload\": " + root + "}";
  }

  private static void set(ObjectNode root, PolicyField field, Number value) {
    ObjectNode node = root;
    List<String> segments = field.segments();
    for (String segment : segments.subList(0, segments.size() - 1)) {
      node = node.has(segment) ? (ObjectNode) node.get(segment) : node.putObject(segment);
    }
    if (value instanceof Double d) {
      node.put(field.key(), new BigDecimal(String.format(Locale.ROOT, "%.3f", d)));
    } else {
      node.put(field.key(), value.longValue());
    }
  }

  @ParameterizedTest(name = "{0} = {1} accepted: {2}")
  @MethodSource("rangeEdges")
  void eachRangeEdge(PolicyField field, Number value, boolean accepted) {
    String edge = newEdge();
    HttpResponse<String> response = patch(edge, policyWith(field, value, accepted));
    if (accepted) {
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      assertThat(warnings()).isEmpty();
    } else {
      assertRejected(response, edge, "overload." + field.path(), field.rangeMessage());
      assertNothingStored(edge);
    }
  }

  @Test
  void wrongTypesAndUnknownModesAreRejected() {
    String edge = newEdge();
    assertRejected(patch(edge, "{\"overload\": {\"inbound\": {\"mode\": \"fast\"}}}"), edge, "overload.inbound.mode",
        PolicyField.INBOUND_MODE.typeMessage());
    policyLog.list.clear();
    assertRejected(patch(edge, "{\"overload\": {\"outbound\": {\"breaker\": {\"enabled\": \"yes\"}}}}"), edge,
        "overload.outbound.breaker.enabled", null);
    policyLog.list.clear();
    assertRejected(patch(edge, "{\"overload\": [1, 2]}"), edge, "overload", null);
    policyLog.list.clear();
    assertRejected(patch(edge, "{\"accessLog\": \"on\"}"), edge, "accessLog", null);
    policyLog.list.clear();
    assertRejected(patch(edge, "{\"expectedRevisions\": {\"overload\": -1}, \"overload\": {}}"), edge, "expectedRevisions.overload", null);
    policyLog.list.clear();
    assertRejected(patch(edge, "{\"dryRun\": \"yes\", \"overload\": {}}"), edge, "dryRun", null);
    assertNothingStored(edge);
  }

  @Test
  void crossFieldRulesAreCheckedOnEffectiveValues() {
    String edge = newEdge();
    assertRejected(patch(edge, "{\"overload\": {\"inbound\": {\"startShare\": 0.9, \"continuationShare\": 0.5}}}"), edge,
        "overload.inbound.startShare", "inbound.startShare (0.9) must not exceed inbound.continuationShare (0.5)");
    policyLog.list.clear();
    // maxLimit alone below the default minLimit (16) breaks the rule too
    assertRejected(patch(edge, "{\"overload\": {\"inbound\": {\"adaptive\": {\"maxLimit\": 10}}}}"), edge,
        "overload.inbound.adaptive.maxLimit", null);
    policyLog.list.clear();
    // startShare alone above the default continuationShare (0.85)
    assertRejected(patch(edge, "{\"overload\": {\"inbound\": {\"startShare\": 0.9}}}"), edge, "overload.inbound.startShare", null);
    assertNothingStored(edge);
    // equal is allowed
    assertThat(patch(edge, "{\"overload\": {\"inbound\": {\"adaptive\": {\"minLimit\": 50, \"maxLimit\": 50}}}}").statusCode()).isEqualTo(200);
  }

  @Test
  void crossFieldRulesUseTheDefaultsTheEdgeReported() {
    String edge = newEdge();
    reportDefaults(edge, Map.of("HTTP_ADMISSION_CONTINUATION_SHARE", "0.5", "HTTP_ADMISSION_START_SHARE", "0.4"));
    JsonNode record = ApiClient.parse(api.get("/configuration/edges/" + edge, ADMIN_TOKEN));
    assertThat(record.get("status").get("reportedDefaults").get("HTTP_ADMISSION_CONTINUATION_SHARE").asText()).isEqualTo("0.5");
    // 0.6 is fine against the built-in continuationShare (0.85) but not against this edge's 0.5
    assertRejected(patch(edge, "{\"overload\": {\"inbound\": {\"startShare\": 0.6}}}"), edge, "overload.inbound.startShare",
        "inbound.startShare (0.6) must not exceed inbound.continuationShare (0.5)");
    assertNothingStored(edge);
    assertThat(patch(edge, "{\"overload\": {\"inbound\": {\"startShare\": 0.45}}}").statusCode()).isEqualTo(200);
    String other = newEdge();
    assertThat(patch(other, "{\"overload\": {\"inbound\": {\"startShare\": 0.6}}}").statusCode()).isEqualTo(200);
  }

  @Test
  void onlyTheFirstProblemIsLogged() {
    String edge = newEdge();
    assertRejected(patch(edge, "{\"overload\": {\"inbound\": {\"maxInFlight\": 0, \"retryAfterSeconds\": 99}}}"), edge,
        "overload.inbound.maxInFlight", PolicyField.INBOUND_MAX_IN_FLIGHT.rangeMessage());
  }

  @Test
  void staleExpectedRevisionsAreAConflict() {
    String edge = newEdge();
    HttpResponse<String> first = patch(edge, "{\"expectedRevisions\": {\"overload\": 0}, " + SEED_EXAMPLE.substring(1));
    assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
    HttpResponse<String> stale = patch(edge, "{\"expectedRevisions\": {\"overload\": 0}, \"overload\": {\"inbound\": {\"mode\": \"off\"}}}");
    assertThat(stale.statusCode()).as(stale.body()).isEqualTo(409);
    assertThat(policies(edge).get("overload")).isEqualTo(ApiClient.parse(SEED_EXAMPLE).get("overload"));
    HttpResponse<String> fresh = patch(edge, "{\"expectedRevisions\": {\"overload\": 1}, \"overload\": {\"inbound\": {\"mode\": \"off\"}}}");
    assertThat(fresh.statusCode()).as(fresh.body()).isEqualTo(200);
    // a section not being changed can be pinned too
    assertThat(patch(edge, "{\"expectedRevisions\": {\"accessLog\": 3}, \"rateLimits\": {}}").statusCode()).isEqualTo(409);
    assertThat(policies(edge).get("revisions").get("rateLimits").asLong()).isZero();
  }

  @Test
  void dryRunValidatesAndSavesNothing() {
    String edge = newEdge();
    HttpResponse<String> response = patch(edge, "{\"dryRun\": true, " + SEED_EXAMPLE.substring(1));
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode wouldBe = ApiClient.parse(response);
    assertThat(wouldBe.get("dryRun").asBoolean()).isTrue();
    assertThat(wouldBe.get("overload")).isEqualTo(ApiClient.parse(SEED_EXAMPLE).get("overload"));
    assertThat(wouldBe.get("revisions").get("overload").asLong()).isEqualTo(1);
    assertNothingStored(edge);
    assertRejected(patch(edge, "{\"dryRun\": true, \"overload\": {\"inbound\": {\"maxInFlight\": 0}}}"), edge,
        "overload.inbound.maxInFlight", null);
  }

  @Test
  void everyChangeIsAudited() {
    String edge = newEdge();
    String operatorToken = tokenFor(unique("auditor"), "[\"edges:manage\"]");
    assertThat(patch(edge, SEED_EXAMPLE).statusCode()).isEqualTo(200);
    Instant afterFirst = clock.instant();
    clock.advance(Duration.ofMinutes(5));
    assertThat(api.json("PATCH", "/configuration/edges/policies?edgeId=" + edge, operatorToken,
        "{\"overload\": null, \"accessLog\": {\"destination\": \"stdout\"}}").statusCode()).isEqualTo(200);
    JsonNode all = audit("edgeId=" + edge);
    assertThat(all).hasSize(3);
    JsonNode newest = all.get(0);
    assertThat(newest.get("section").asText()).isEqualTo("accessLog");
    JsonNode deletion = all.get(1);
    assertThat(deletion.get("section").asText()).isEqualTo("overload");
    assertThat(deletion.get("operator").asText()).startsWith("auditor-");
    assertThat(deletion.get("before")).isEqualTo(ApiClient.parse(SEED_EXAMPLE).get("overload"));
    assertThat(deletion.get("after").isNull()).isTrue();
    assertThat(deletion.get("revision").asLong()).isEqualTo(2);
    JsonNode first = all.get(2);
    assertThat(first.get("operator").asText()).isEqualTo("admin");
    assertThat(first.get("before").isNull()).isTrue();
    assertThat(first.get("revision").asLong()).isEqualTo(1);
    assertThat(audit("edgeId=" + edge + "&section=overload")).hasSize(2);
    assertThat(audit("edgeId=" + edge + "&operator=admin")).hasSize(1);
    assertThat(audit("edgeId=" + edge + "&since=" + afterFirst.plusSeconds(1))).hasSize(2);
    assertThat(audit("edgeId=" + edge + "&limit=1")).hasSize(1);
    assertThat(api.get("/configuration/audit?limit=0", ADMIN_TOKEN).statusCode()).isEqualTo(400);
  }

  @Test
  void racingPatchesWithTheSameExpectedRevisionsHaveOneWinner() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 5; round++) {
        String edge = newEdge();
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Integer>> results = new ArrayList<>();
        for (String mode : List.of("enforce", "off")) {
          results.add(pool.submit(() -> {
            go.await();
            return patch(edge, "{\"expectedRevisions\": {\"overload\": 0}, \"overload\": {\"inbound\": {\"mode\": \"" + mode + "\"}}}")
                .statusCode();
          }));
        }
        go.countDown();
        List<Integer> statuses = new ArrayList<>();
        for (Future<Integer> result : results) {
          statuses.add(result.get());
        }
        assertThat(statuses).containsExactlyInAnyOrder(200, 409);
        assertThat(policies(edge).get("revisions").get("overload").asLong()).isEqualTo(1);
        assertThat(audit("edgeId=" + edge)).hasSize(1);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void hostileBodiesAreRefusedAndStoreNothing() {
    String edge = newEdge();
    String path = "/configuration/edges/policies?edgeId=" + edge;
    assertRejected(patch(edge, "{\"overload\": {\"inbound\": "), edge, "(body)", null);
    policyLog.list.clear();
    assertThat(patch(edge, "{\"overload\": {}} trailing").statusCode()).isEqualTo(400);
    String deep = "{\"accessLog\": " + "{\"a\": ".repeat(200) + "1" + "}".repeat(200) + "}";
    assertThat(patch(edge, deep).statusCode()).isEqualTo(400);
    byte[] huge = ("{\"accessLog\": {\"x\": \"" + "a".repeat(2 << 20) + "\"}}").getBytes(StandardCharsets.UTF_8);
    assertThat(api.sendOversized("PATCH", path, ADMIN_TOKEN, "application/json", huge).statusCode()).isEqualTo(413);
    assertThat(api.send("PATCH", path, ADMIN_TOKEN, "text/plain", SEED_EXAMPLE.getBytes(StandardCharsets.UTF_8)).statusCode())
        .isEqualTo(415);
    assertThat(api.send("PATCH", path, ADMIN_TOKEN, null, SEED_EXAMPLE.getBytes(StandardCharsets.UTF_8)).statusCode()).isEqualTo(415);
    assertThat(api.send("PATCH", path, ADMIN_TOKEN, "application/json", new byte[0]).statusCode()).isEqualTo(400);
    assertThat(patch(edge, "[]").statusCode()).isEqualTo(400);
    assertNothingStored(edge);
  }

  @Test
  void hugeChunkedBodyIsRefused() throws Exception {
    String edge = newEdge();
    byte[] huge = ("{\"accessLog\": {\"x\": \"" + "a".repeat(2 << 20) + "\"}}").getBytes(StandardCharsets.UTF_8);
    // an InputStream publisher has no length, so the client sends it chunked (no Content-Length)
    HttpRequest.Builder request = HttpRequest.newBuilder(api.uri("/configuration/edges/policies?edgeId=" + edge))
        .header("Authorization", "Bearer " + ADMIN_TOKEN).header("Content-Type", "application/json")
        .method("PATCH", HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(huge)));
    int status;
    try {
      status = api.send(request).statusCode();
    } catch (java.io.IOException e) {
      status = 413; // the server may close the connection while the client is still sending
    }
    assertThat(status).isEqualTo(413);
    assertNothingStored(edge);
  }

  // ---- authentication and permissions ----

  @Test
  void missingOrInvalidCredentialsAre401() {
    String edge = newEdge();
    HttpResponse<String> none = api.get("/configuration/edges/policies?edgeId=" + edge, null);
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
    assertThat(api.get("/configuration/edges/policies?edgeId=" + edge, "spw_wrong").statusCode()).isEqualTo(401);
    assertThat(api.json("PATCH", "/configuration/edges/policies?edgeId=" + edge, null, SEED_EXAMPLE).statusCode()).isEqualTo(401);
    assertThat(api.send("GET", "/configuration/edges", null, null, null).statusCode()).isEqualTo(401);
    assertNothingStored(edge);
  }

  @Test
  void missingPermissionIs403() {
    String edge = newEdge();
    String reader = tokenFor(unique("reader"), "[\"edges:read\"]");
    String nobody = tokenFor(unique("nobody"), "[]");
    assertThat(api.get("/configuration/edges/policies?edgeId=" + edge, reader).statusCode()).isEqualTo(200);
    assertThat(api.json("PATCH", "/configuration/edges/policies?edgeId=" + edge, reader, SEED_EXAMPLE).statusCode()).isEqualTo(403);
    assertThat(api.json("POST", "/configuration/edges", reader, "{\"id\": \"x1\"}").statusCode()).isEqualTo(403);
    assertThat(api.get("/configuration/edges/policies?edgeId=" + edge, nobody).statusCode()).isEqualTo(403);
    assertThat(api.get("/configuration/operators", reader).statusCode()).isEqualTo(403);
    assertThat(api.get("/configuration/tokens", reader).statusCode()).isEqualTo(403);
    assertNothingStored(edge);
  }

  @Test
  void unknownEdgeIs404() {
    assertThat(api.get("/configuration/edges/policies?edgeId=no-such-edge", ADMIN_TOKEN).statusCode()).isEqualTo(404);
    assertThat(patch("no-such-edge", SEED_EXAMPLE).statusCode()).isEqualTo(404);
    assertThat(api.get("/configuration/edges/no-such-edge", ADMIN_TOKEN).statusCode()).isEqualTo(404);
    assertThat(api.get("/configuration/edges/policies", ADMIN_TOKEN).statusCode()).isEqualTo(400);
    assertThat(audit("edgeId=no-such-edge")).isEmpty();
  }

  @Test
  void tokensAreShownOnceRevocableAndExpire() {
    String operator = unique("tok");
    String token = tokenFor(operator, "[\"edges:read\"]");
    assertThat(api.get("/configuration/edges", token).statusCode()).isEqualTo(200);
    HttpResponse<String> list = api.get("/configuration/tokens", ADMIN_TOKEN);
    assertThat(list.body()).doesNotContain(token).doesNotContain(ADMIN_TOKEN);
    String id = null;
    for (JsonNode t : ApiClient.parse(list).get("tokens")) {
      assertThat(t.has("token")).isFalse();
      if (t.get("operator").asText().equals(operator)) {
        id = t.get("id").asText();
      }
    }
    assertThat(api.send("DELETE", "/configuration/tokens/" + id, ADMIN_TOKEN, null, null).statusCode()).isEqualTo(204);
    assertThat(api.get("/configuration/edges", token).statusCode()).isEqualTo(401);

    HttpResponse<String> expiring = api.json("POST", "/configuration/tokens", ADMIN_TOKEN,
        "{\"operator\": \"" + operator + "\", \"expiresAt\": \"" + clock.instant().plus(Duration.ofHours(1)) + "\"}");
    assertThat(expiring.statusCode()).isEqualTo(201);
    String short1 = ApiClient.parse(expiring).get("token").asText();
    assertThat(api.get("/configuration/edges", short1).statusCode()).isEqualTo(200);
    clock.advance(Duration.ofHours(2));
    assertThat(api.get("/configuration/edges", short1).statusCode()).isEqualTo(401);
  }

  @Test
  void operatorsAreManagedByAdmins() {
    String name = unique("op");
    assertThat(api.json("POST", "/configuration/operators", ADMIN_TOKEN,
        "{\"name\": \"" + name + "\", \"permissions\": [\"edges:read\", \"bogus\"]}").statusCode()).isEqualTo(400);
    assertThat(api.json("POST", "/configuration/operators", ADMIN_TOKEN,
        "{\"name\": \"" + name + "\", \"permissions\": [\"edges:read\"], \"password\": \"short\"}").statusCode()).isEqualTo(400);
    String token = tokenFor(name, "[\"edges:read\"]");
    HttpResponse<String> list = api.get("/configuration/operators", ADMIN_TOKEN);
    assertThat(list.body()).contains(name).doesNotContain("pbkdf2");
    assertThat(api.json("POST", "/configuration/operators", ADMIN_TOKEN, "{\"name\": \"" + name + "\"}").statusCode()).isEqualTo(409);
    assertThat(api.send("DELETE", "/configuration/operators/" + name, ADMIN_TOKEN, null, null).statusCode()).isEqualTo(204);
    assertThat(api.get("/configuration/edges", token).statusCode()).isEqualTo(401);
    assertThat(api.send("DELETE", "/configuration/operators/admin", ADMIN_TOKEN, null, null).statusCode()).isEqualTo(409);
  }

  private void createConsoleOperator(String name, String permission, String password) {
    assertThat(api.json("POST", "/configuration/operators", ADMIN_TOKEN, "{\"name\": \"" + name
        + "\", \"permissions\": [\"" + permission + "\"], \"password\": \"" + password + "\"}").statusCode()).isEqualTo(201);
  }

  @Test
  void repeatedFailedLoginsAreRefusedWithRetryAfterUntilTheBackOffEnds() throws Exception {
    String name = unique("guessed");
    String password = "correct horse battery staple";
    createConsoleOperator(name, "edges:read", password);
    String wrong = "{\"username\": \"" + name + "\", \"password\": \"not the password\"}";
    for (int i = 0; i < 6; i++) {
      assertThat(api.json("POST", "/auth/login", null, wrong).statusCode()).as("failure %d", i + 1).isEqualTo(401);
    }
    // The sixth failure started a 1 s back-off (central's clock stands still here): refused
    // before the password is checked, even the right one.
    String right = "{\"username\": \"" + name + "\", \"password\": \"" + password + "\"}";
    for (String body : new String[] {wrong, right}) {
      HttpResponse<String> refused = api.json("POST", "/auth/login", null, body);
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
      assertThat(ApiClient.parse(refused).get("error").asText()).isEqualTo("too many failed logins; try again in 1 s");
    }
    // Once the back-off has passed, the right password logs in.
    clock.advance(java.time.Duration.ofSeconds(1));
    assertThat(api.json("POST", "/auth/login", null, right).statusCode()).isEqualTo(200);
  }

  @Test
  void consoleLoginUsesHttpOnlyStrictCookieAndCsrf() throws Exception {
    String name = unique("console");
    String password = "correct horse battery staple";
    createConsoleOperator(name, "edges:manage", password);
    assertThat(api.json("POST", "/auth/login", null, "{\"username\": \"" + name + "\", \"password\": \"wrong password!\"}").statusCode())
        .isEqualTo(401);
    HttpResponse<String> login = api.json("POST", "/auth/login", null, "{\"username\": \"" + name + "\", \"password\": \"" + password + "\"}");
    assertThat(login.statusCode()).as(login.body()).isEqualTo(200);
    String setCookie = login.headers().firstValue("Set-Cookie").orElseThrow();
    assertThat(setCookie).contains("HttpOnly").contains("SameSite=Strict");
    String cookie = setCookie.split(";", 2)[0];
    String csrf = ApiClient.parse(login).get("csrfToken").asText();
    String edge = newEdge();
    String path = "/configuration/edges/policies?edgeId=" + edge;
    assertThat(api.send(HttpRequest.newBuilder(api.uri(path)).header("Cookie", cookie).GET()).statusCode()).isEqualTo(200);
    HttpRequest.Builder noCsrf = HttpRequest.newBuilder(api.uri(path)).header("Cookie", cookie)
        .header("Content-Type", "application/json").method("PATCH", HttpRequest.BodyPublishers.ofString(SEED_EXAMPLE));
    assertThat(api.send(noCsrf).statusCode()).isEqualTo(403);
    assertNothingStored(edge);
    HttpRequest.Builder withCsrf = HttpRequest.newBuilder(api.uri(path)).header("Cookie", cookie).header("X-CSRF-Token", csrf)
        .header("Content-Type", "application/json").method("PATCH", HttpRequest.BodyPublishers.ofString(SEED_EXAMPLE));
    assertThat(api.send(withCsrf).statusCode()).isEqualTo(200);
    assertThat(audit("edgeId=" + edge).get(0).get("operator").asText()).isEqualTo(name);
    HttpRequest.Builder logout = HttpRequest.newBuilder(api.uri("/auth/logout")).header("Cookie", cookie)
        .POST(HttpRequest.BodyPublishers.noBody());
    assertThat(api.send(logout).statusCode()).isEqualTo(204);
    assertThat(api.send(HttpRequest.newBuilder(api.uri(path)).header("Cookie", cookie).GET()).statusCode()).isEqualTo(401);
  }

  @Test
  void theSessionEndpointAnswersTheCookiesOperatorAndCsrfTokenUntilLogout() throws Exception {
    String name = unique("returning");
    String password = "correct horse battery staple";
    createConsoleOperator(name, "edges:read", password);
    HttpResponse<String> login = api.json("POST", "/auth/login", null, "{\"username\": \"" + name + "\", \"password\": \"" + password + "\"}");
    String cookie = login.headers().firstValue("Set-Cookie").orElseThrow().split(";", 2)[0];
    HttpResponse<String> session = api.send(HttpRequest.newBuilder(api.uri("/auth/session")).header("Cookie", cookie).GET());
    assertThat(session.statusCode()).as(session.body()).isEqualTo(200);
    JsonNode answer = ApiClient.parse(session);
    assertThat(answer.get("operator").asText()).isEqualTo(name);
    assertThat(answer.get("permissions").toString()).isEqualTo("[\"edges:read\"]");
    assertThat(answer.get("csrfToken").asText()).isEqualTo(ApiClient.parse(login).get("csrfToken").asText());

    assertThat(api.get("/auth/session", null).statusCode()).as("no cookie").isEqualTo(401);
    assertThat(api.get("/auth/session", ADMIN_TOKEN).statusCode()).as("a bearer token is not a console session").isEqualTo(401);
    assertThat(api.send(HttpRequest.newBuilder(api.uri("/auth/session")).header("Cookie", "spillway_session=forged").GET())
        .statusCode()).isEqualTo(401);
    api.send(HttpRequest.newBuilder(api.uri("/auth/logout")).header("Cookie", cookie).POST(HttpRequest.BodyPublishers.noBody()));
    assertThat(api.send(HttpRequest.newBuilder(api.uri("/auth/session")).header("Cookie", cookie).GET()).statusCode())
        .as("after logout").isEqualTo(401);
  }

  // ---- the console ----

  @Test
  void theConsoleIsServedAtTheRootWithItsSecurityHeaders() {
    HttpResponse<String> page = api.get("/", null);
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type").map(t -> t.replace(" ", ""))).hasValue("text/html;charset=utf-8");
    assertThat(page.body()).contains("<script type=\"module\" src=\"/console/app.js\">");
    assertThat(page.headers().firstValue("Content-Security-Policy")).hasValue(ConsoleApi.CONTENT_SECURITY_POLICY);
    assertThat(page.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
    assertThat(page.headers().firstValue("X-Frame-Options")).hasValue("DENY");
    // HEAD answers as GET does, without the body (RFC 9110 §9.3.2).
    HttpResponse<String> head = api.send("HEAD", "/", null, null, null);
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.headers().firstValue("Content-Security-Policy")).hasValue(ConsoleApi.CONTENT_SECURITY_POLICY);
    assertThat(head.body()).isEmpty();
    assertThat(api.send("HEAD", "/configuration/edges", null, null, null).statusCode()).isEqualTo(401);

    HttpResponse<String> script = api.get("/console/app.js", null);
    assertThat(script.statusCode()).isEqualTo(200);
    assertThat(script.headers().firstValue("Content-Type").map(t -> t.replace(" ", ""))).hasValue("text/javascript;charset=utf-8");
    assertThat(script.headers().firstValue("Content-Security-Policy")).hasValue(ConsoleApi.CONTENT_SECURITY_POLICY);
    assertThat(api.get("/console/console.css", null).headers().firstValue("Content-Type").map(t -> t.replace(" ", "")))
        .hasValue("text/css;charset=utf-8");

    for (String missing : List.of("/console/nothing.js", "/console/index.html", "/console/..%2Fopenapi.yaml", "/console/logback.xml")) {
      assertThat(api.get(missing, null).statusCode()).as(missing).isEqualTo(404);
    }
    // The API's own answers are as they were: no console headers.
    HttpResponse<String> edges = api.get("/configuration/edges", ADMIN_TOKEN);
    assertThat(edges.statusCode()).isEqualTo(200);
    assertThat(edges.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(edges.headers().firstValue("Content-Security-Policy")).isEmpty();
  }

  @Test
  void theOverloadPolicyDescriptionIsTheSharedModulesAndPublic() {
    HttpResponse<String> described = api.get("/schemas/overload-policy.json", null);
    assertThat(described.statusCode()).isEqualTo(200);
    assertThat(described.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(ApiClient.parse(described)).isEqualTo(PolicySchema.describe());
  }

  @Test
  void theRateLimitsDescriptionIsTheSharedModulesAndPublic() {
    HttpResponse<String> described = api.get("/schemas/rate-limits-policy.json", null);
    assertThat(described.statusCode()).isEqualTo(200);
    assertThat(described.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(ApiClient.parse(described)).isEqualTo(io.spillway.policy.RateLimitSchema.describe());
  }

  @Test
  void theAccessLogDescriptionIsTheSharedModulesAndPublic() {
    HttpResponse<String> described = api.get("/schemas/access-log-policy.json", null);
    assertThat(described.statusCode()).isEqualTo(200);
    assertThat(described.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(ApiClient.parse(described)).isEqualTo(io.spillway.policy.AccessLogSchema.describe());
    // What the console's format check reads: the operators the edge fills, and central's templates.
    assertThat(ApiClient.parse(described).path("operators")).hasSize(io.spillway.policy.AccessLogFormat.OPERATORS.size());
    assertThat(ApiClient.parse(described).path("formatProblems").path("unknownOperator").asText())
        .isEqualTo("{path} names an unknown or unsupported command operator %{name}% at position {position}");
    HttpResponse<String> head = api.send("HEAD", "/schemas/access-log-policy.json", null, null, null);
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
  }

  @Test
  void secretsNeverReachTheLog() throws Exception {
    ListAppender<ILoggingEvent> all = new ListAppender<>();
    all.start();
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.addAppender(all);
    List<String> secrets = new ArrayList<>();
    try {
      String name = unique("secretive");
      String password = "never log this passphrase";
      secrets.add(password);
      assertThat(api.json("POST", "/configuration/operators", ADMIN_TOKEN, "{\"name\": \"" + name
          + "\", \"permissions\": [\"edges:manage\"], \"password\": \"" + password + "\"}").statusCode()).isEqualTo(201);
      HttpResponse<String> token = api.json("POST", "/configuration/tokens", ADMIN_TOKEN, "{\"operator\": \"" + name + "\"}");
      secrets.add(ApiClient.parse(token).get("token").asText());
      HttpResponse<String> login = api.json("POST", "/auth/login", null,
          "{\"username\": \"" + name + "\", \"password\": \"" + password + "\"}");
      secrets.add(ApiClient.parse(login).get("csrfToken").asText());
      secrets.add(login.headers().firstValue("Set-Cookie").orElseThrow().split(";", 2)[0].split("=", 2)[1]);
      api.json("POST", "/auth/login", null, "{\"username\": \"" + name + "\", \"password\": \"wrong " + password + "\"}");
      HttpResponse<String> edge = api.json("POST", "/configuration/edges", ADMIN_TOKEN, "{\"id\": \"" + unique("secret-edge") + "\"}");
      secrets.add(ApiClient.parse(edge).get("credential").asText());
      api.get("/configuration/edges", "spw_not_a_real_token_but_still_secret");
      secrets.add("spw_not_a_real_token_but_still_secret");
      secrets.add(ADMIN_TOKEN);
    } finally {
      root.detachAppender(all);
    }
    assertThat(all.list).isNotEmpty();
    for (ILoggingEvent event : all.list) {
      for (String secret : secrets) {
        assertThat(event.getFormattedMessage()).doesNotContain(secret);
      }
    }
  }

  // ---- edge registry ----

  @Test
  void edgeRegistryLifecycle() {
    String env = unique("env");
    String a = newEdge("{\"env\": \"" + env + "\", \"tier\": \"web\"}");
    String b = newEdge("{\"env\": \"" + env + "\"}");
    HttpResponse<String> duplicate = api.json("POST", "/configuration/edges", ADMIN_TOKEN, "{\"id\": \"" + a + "\"}");
    assertThat(duplicate.statusCode()).isEqualTo(409);
    assertThat(api.json("POST", "/configuration/edges", ADMIN_TOKEN, "{\"id\": \"bad id!\"}").statusCode()).isEqualTo(400);
    assertThat(api.json("POST", "/configuration/edges", ADMIN_TOKEN, "{\"id\": \"policies\"}").statusCode()).isEqualTo(400);

    JsonNode selected = ApiClient.parse(api.get("/configuration/edges?selector=env=" + env + ",tier=web", ADMIN_TOKEN)).get("edges");
    assertThat(selected).hasSize(1);
    assertThat(selected.get(0).get("id").asText()).isEqualTo(a);
    assertThat(ApiClient.parse(api.get("/configuration/edges?selector=env=" + env, ADMIN_TOKEN)).get("edges")).hasSize(2);
    assertThat(api.get("/configuration/edges?selector==x", ADMIN_TOKEN).statusCode()).isEqualTo(400);

    HttpResponse<String> one = api.get("/configuration/edges/" + a, ADMIN_TOKEN);
    assertThat(one.statusCode()).isEqualTo(200);
    JsonNode record = ApiClient.parse(one);
    assertThat(record.has("credential")).isFalse();
    assertThat(record.get("status").get("connected").asBoolean()).isFalse();
    assertThat(record.get("status").has("lastNack")).isTrue();

    HttpResponse<String> relabelled = api.json("PATCH", "/configuration/edges/" + b, ADMIN_TOKEN, "{\"labels\": {\"env\": \"other\"}}");
    assertThat(relabelled.statusCode()).as(relabelled.body()).isEqualTo(200);
    assertThat(ApiClient.parse(api.get("/configuration/edges?selector=env=" + env, ADMIN_TOKEN)).get("edges")).hasSize(1);

    HttpResponse<String> rotated = api.send("POST", "/configuration/edges/" + a + "/credential", ADMIN_TOKEN, null, null);
    assertThat(rotated.statusCode()).as(rotated.body()).isEqualTo(200);
    assertThat(ApiClient.parse(rotated).get("credential").asText()).startsWith("spe_");
    assertThat(api.send("POST", "/configuration/edges/nope/credential", ADMIN_TOKEN, null, null).statusCode()).isEqualTo(404);

    assertThat(patch(b, SEED_EXAMPLE).statusCode()).isEqualTo(200);
    assertThat(api.send("DELETE", "/configuration/edges/" + b, ADMIN_TOKEN, null, null).statusCode()).isEqualTo(204);
    assertThat(api.get("/configuration/edges/" + b, ADMIN_TOKEN).statusCode()).isEqualTo(404);
    assertThat(api.get("/configuration/edges/policies?edgeId=" + b, ADMIN_TOKEN).statusCode()).isEqualTo(404);
    assertThat(audit("edgeId=" + b)).as("the history outlives the edge").hasSize(1);
  }

  // ---- operations ----

  @Test
  void healthReadinessMetricsAndOpenApi() {
    assertThat(api.get("/healthz", null).statusCode()).isEqualTo(200);
    assertThat(api.get("/readyz", null).statusCode()).isEqualTo(200);
    newEdge();
    HttpResponse<String> metrics = api.get("/metrics", null);
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.body())
        .contains("central_http_requests_total{method=\"POST\",route=\"/configuration/edges\",status=\"201\"}")
        .contains("central_db_pool_connections{state=\"active\"}")
        .doesNotContain(ADMIN_TOKEN);
    HttpResponse<String> openApi = api.get("/openapi.yaml", null);
    assertThat(openApi.statusCode()).isEqualTo(200);
    assertThat(openApi.body()).contains("openapi: 3.1");
  }
}
