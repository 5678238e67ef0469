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
 * One central over real HTTP against one database (the embedded H2 or PostgreSQL, picked by the
 * subclass), the log of the policy API captured, and the helpers the policy API tests share.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PolicyApiFixture {

  static final String ADMIN_TOKEN = "test-admin-token-" + UUID.randomUUID();

  final TestDatabase.Kind kind;
  TestDatabase database;
  CentralServer central;
  final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
  ApiClient api;
  ListAppender<ILoggingEvent> policyLog;
  Database sideDoor;

  PolicyApiFixture(TestDatabase.Kind kind) {
    this.kind = kind;
  }

  @BeforeAll
  void startCentral() throws Exception {
    database = TestDatabase.create(kind);
    CentralConfig config = CentralConfig.defaults(database.dataDir(), database.url(), database.user(), ADMIN_TOKEN);
    central = CentralServer.start(config, clock, new SecureRandom(), System.out);
    api = new ApiClient(central.httpPort());
  }

  @AfterAll
  void stopCentral() throws Exception {
    if (sideDoor != null) {
      sideDoor.close();
    }
    if (central != null) {
      central.close();
    }
    if (database != null) {
      database.close();
    }
  }

  @BeforeEach
  void captureLog() {
    policyLog = new ListAppender<>();
    policyLog.start();
    ((Logger) LoggerFactory.getLogger(PoliciesApi.class)).addAppender(policyLog);
  }

  @AfterEach
  void releaseLog() {
    ((Logger) LoggerFactory.getLogger(PoliciesApi.class)).detachAppender(policyLog);
  }

  // ---- helpers ----

  /** Records deployment defaults as the xDS server will when an edge reports them (no API sets them). */
  void reportDefaults(String edge, Map<String, String> variables) {
    if (sideDoor == null) {
      String url = database.url() != null ? database.url() : Database.embeddedUrl(database.dataDir());
      sideDoor = Database.open(url, database.user(), null);
    }
    assertThat(new EdgeStore(sideDoor, new Json(), clock).reportDefaults(edge, DeploymentDefaults.fromEnvironment(variables))).isTrue();
  }

  String newEdge(String labelsJson) {
    String id = "edge-" + UUID.randomUUID().toString().substring(0, 8);
    HttpResponse<String> response = api.json("POST", "/configuration/edges", ADMIN_TOKEN,
        "{\"id\": \"" + id + "\", \"labels\": " + labelsJson + "}");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
    return id;
  }

  String newEdge() {
    return newEdge("{}");
  }

  HttpResponse<String> patch(String edge, String body) {
    return api.json("PATCH", "/configuration/edges/policies?edgeId=" + edge, ADMIN_TOKEN, body);
  }

  JsonNode policies(String edge) {
    HttpResponse<String> response = api.get("/configuration/edges/policies?edgeId=" + edge, ADMIN_TOKEN);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return ApiClient.parse(response);
  }

  JsonNode audit(String query) {
    HttpResponse<String> response = api.get("/configuration/audit?" + query, ADMIN_TOKEN);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return ApiClient.parse(response).get("entries");
  }

  String tokenFor(String operator, String permissionsJson) {
    HttpResponse<String> created = api.json("POST", "/configuration/operators", ADMIN_TOKEN,
        "{\"name\": \"" + operator + "\", \"permissions\": " + permissionsJson + "}");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    HttpResponse<String> token = api.json("POST", "/configuration/tokens", ADMIN_TOKEN, "{\"operator\": \"" + operator + "\"}");
    assertThat(token.statusCode()).as(token.body()).isEqualTo(201);
    return ApiClient.parse(token).get("token").asText();
  }

  static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  List<String> warnings() {
    return policyLog.list.stream().filter(e -> e.getLevel().toString().equals("WARN")).map(ILoggingEvent::getFormattedMessage).toList();
  }

  void assertRejected(HttpResponse<String> response, String edge, String field, String message) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
    assertThat(response.body()).isEmpty();
    assertThat(response.headers().firstValue("Content-Type")).as("no body, no media type").isEmpty();
    assertThat(warnings()).as("the first problem is logged at WARN").hasSize(1);
    String line = warnings().get(0);
    assertThat(line).contains(edge).contains("field " + field);
    if (message != null) {
      assertThat(line).endsWith(message);
    }
  }

  void assertNothingStored(String edge) {
    JsonNode state = policies(edge);
    for (String section : List.of("overload", "accessLog", "rateLimits")) {
      assertThat(state.get(section).isNull()).as(section).isTrue();
      assertThat(state.get("revisions").get(section).asLong()).as(section).isZero();
    }
    assertThat(audit("edgeId=" + edge)).isEmpty();
  }
}
