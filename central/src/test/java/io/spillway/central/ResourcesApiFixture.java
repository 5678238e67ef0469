package io.spillway.central;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spillway.central.resources.ResourceStore;
import io.spillway.central.store.Database;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * Central in-process on one database (the embedded H2 or PostgreSQL, as a subclass picks) with an
 * API client and a store on a second connection pool, and the calls the resource API tests share.
 * Each test registers its own edges and uses its own selector labels, so tests never see each
 * other's resources.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ResourcesApiFixture {

  static final String ADMIN_TOKEN = "test-admin-token-" + UUID.randomUUID();
  static final String YAML = "application/yaml";

  private final TestDatabase.Kind kind;
  private TestDatabase database;
  private CentralServer central;
  private Database sideDoor;
  ResourceStore store;
  final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
  ApiClient api;

  ResourcesApiFixture(TestDatabase.Kind kind) {
    this.kind = kind;
  }

  @BeforeAll
  void startCentral() throws Exception {
    database = TestDatabase.create(kind);
    CentralConfig config = CentralConfig.defaults(database.dataDir(), database.url(), database.user(), ADMIN_TOKEN);
    central = CentralServer.start(config, clock, new SecureRandom(), System.out);
    api = new ApiClient(central.httpPort());
    String url = database.url() != null ? database.url() : Database.embeddedUrl(database.dataDir());
    sideDoor = Database.open(url, database.user(), null);
    store = new ResourceStore(sideDoor, clock);
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

  // ---- helpers ----

  static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  String newEdge(String labelsJson) {
    String id = unique("edge");
    HttpResponse<String> response = api.json("POST", "/configuration/edges", ADMIN_TOKEN,
        "{\"id\": \"" + id + "\", \"labels\": " + labelsJson + "}");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
    return id;
  }

  static String edge(String id) {
    return "edgeId=" + id;
  }

  static String selector(String selector) {
    return "selector=" + URLEncoder.encode(selector, StandardCharsets.UTF_8);
  }

  HttpResponse<String> put(String type, String name, String target, String yaml) {
    return api.send("PUT", "/configuration/resources/" + type + "/" + name + "?" + target, ADMIN_TOKEN, YAML,
        yaml.getBytes(StandardCharsets.UTF_8));
  }

  HttpResponse<String> get(String type, String name, String target) {
    return api.get("/configuration/resources/" + type + "/" + name + "?" + target, ADMIN_TOKEN);
  }

  HttpResponse<String> delete(String type, String name, String target) {
    return api.send("DELETE", "/configuration/resources/" + type + "/" + name + "?" + target, ADMIN_TOKEN, null, null);
  }

  JsonNode effective(String edge) {
    HttpResponse<String> response = api.get("/configuration/resources?" + edge(edge), ADMIN_TOKEN);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return ApiClient.parse(response);
  }

  JsonNode audit(String query) {
    HttpResponse<String> response = api.get("/configuration/audit?" + query, ADMIN_TOKEN);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return ApiClient.parse(response).get("entries");
  }

  static void assertStatus(HttpResponse<String> response, int status) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
  }

  static String error(HttpResponse<String> response) {
    return ApiClient.parse(response).path("error").asText();
  }

  String tokenFor(String operator, String permissionsJson) {
    HttpResponse<String> created = api.json("POST", "/configuration/operators", ADMIN_TOKEN,
        "{\"name\": \"" + operator + "\", \"permissions\": " + permissionsJson + "}");
    assertStatus(created, 201);
    HttpResponse<String> token = api.json("POST", "/configuration/tokens", ADMIN_TOKEN, "{\"operator\": \"" + operator + "\"}");
    assertStatus(token, 201);
    return ApiClient.parse(token).get("token").asText();
  }
}
