package io.spillway.central;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spillway.central.resources.Fixtures;
import io.spillway.central.resources.ResourceType;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Runtime layers (RTDS, {@code /configuration/resources/runtimes/<name>}) follow every rule of the
 * other resource types — revisions, {@code expectedRevision}, {@code dryRun}, audit, per-edge and
 * selector targets with the edge's own winning, permissions — and a layer the edge would NACK is
 * 400 with the edge's message and changes nothing. In-process over real HTTP against one database;
 * subclasses pick the embedded H2 or PostgreSQL.
 */
abstract class RuntimesApiContract extends ResourcesApiFixture {

  private static final String LIMIT_5 = "{envoy: {resource_limits: {listener: {main: {connection_limit: 5}}}}}";
  private static final String VALUE_RULE =
      "a runtime value is a string, number, boolean or fractional percent ({numerator, denominator}), not ";

  RuntimesApiContract(TestDatabase.Kind kind) {
    super(kind);
  }

  private static JsonNode layer(HttpResponse<String> response) {
    return ApiClient.parse(response).get("resource").get("layer");
  }

  @Test
  void aLayerIsStoredRevisedAuditedAndDeleted() {
    String edge = newEdge("{}");
    HttpResponse<String> created = put("runtimes", "ops", edge(edge), Fixtures.runtime("ops", LIMIT_5));
    assertStatus(created, 201);
    assertThat(ApiClient.parse(created).get("type").asText()).isEqualTo("runtimes");
    assertThat(ApiClient.parse(created).get("revision").asLong()).isEqualTo(1);
    assertThat(layer(created).at("/envoy/resource_limits/listener/main/connection_limit").asInt()).isEqualTo(5);
    assertThat(ApiClient.parse(get("runtimes", "ops", edge(edge))).get("resource")).isEqualTo(ApiClient.parse(created).get("resource"));

    JsonNode all = effective(edge);
    assertThat(all.get("runtimes")).hasSize(1);
    String version1 = all.get("versions").get("runtimes").asText();
    assertThat(version1).isEqualTo(store.effectiveFor(edge).orElseThrow().version(ResourceType.RUNTIMES));
    assertThat(store.effectiveFor(edge).orElseThrow().runtimes()).containsOnlyKeys("ops");

    // JSON in, the same layer changed: revision 2, a new version
    HttpResponse<String> changed = api.send("PUT", "/configuration/resources/runtimes/ops?" + edge(edge) + "&expectedRevision=1",
        ADMIN_TOKEN, "application/json", "{\"name\": \"ops\", \"layer\": {\"routing\": {\"shift\": 40}}}".getBytes(StandardCharsets.UTF_8));
    assertStatus(changed, 200);
    assertThat(ApiClient.parse(changed).get("revision").asLong()).isEqualTo(2);
    assertThat(layer(changed).at("/routing/shift").asDouble()).isEqualTo(40); // a Struct's numbers are doubles: 40.0
    assertThat(effective(edge).get("versions").get("runtimes").asText()).isNotEqualTo(version1);
    assertStatus(api.send("PUT", "/configuration/resources/runtimes/ops?" + edge(edge) + "&expectedRevision=1", ADMIN_TOKEN, YAML,
        Fixtures.runtime("ops", LIMIT_5).getBytes(StandardCharsets.UTF_8)), 409);
    // dry run: validated, answered, not stored
    HttpResponse<String> dry = api.send("PUT", "/configuration/resources/runtimes/ops?" + edge(edge) + "&dryRun=true", ADMIN_TOKEN,
        YAML, Fixtures.runtime("ops", LIMIT_5).getBytes(StandardCharsets.UTF_8));
    assertStatus(dry, 200);
    assertThat(ApiClient.parse(dry).get("dryRun").asBoolean()).isTrue();
    assertThat(ApiClient.parse(dry).get("revision").asLong()).isEqualTo(3);
    assertThat(layer(get("runtimes", "ops", edge(edge))).at("/routing/shift").asDouble()).isEqualTo(40);

    HttpResponse<String> deleted = delete("runtimes", "ops", edge(edge));
    assertStatus(deleted, 200);
    assertThat(ApiClient.parse(deleted).get("revision").asLong()).isEqualTo(3);
    assertStatus(get("runtimes", "ops", edge(edge)), 404);
    assertThat(effective(edge).get("runtimes")).isEmpty();
    assertThat(store.effectiveFor(edge).orElseThrow().runtimes()).isEmpty();

    JsonNode entries = audit("edgeId=" + edge + "&section=resources/runtimes/ops");
    assertThat(entries).hasSize(3);
    assertThat(entries.get(0).get("after").isNull()).isTrue();
    assertThat(entries.get(0).get("before").at("/layer/routing/shift").asDouble()).isEqualTo(40);
    assertThat(entries.get(2).get("before").isNull()).isTrue();
  }

  @Test
  void aLayerTheEdgeWouldRefuseIs400WithItsMessageAndChangesNothing() {
    String edge = newEdge("{}");
    assertStatus(put("runtimes", "ops", edge(edge), Fixtures.runtime("ops", LIMIT_5)), 201);
    String[][] bad = {
        {"{envoy: {keys: [1, 2]}}", "runtime \"ops\".layer.envoy.keys: " + VALUE_RULE + "list_value"},
        {"{envoy: {flag: null}}", "runtime \"ops\".layer.envoy.flag: " + VALUE_RULE + "null_value"},
        {"{envoy: {}}", "runtime \"ops\".layer.envoy: an empty object is not a runtime value"},
        {"{shift: {numerator: 1.5}}", "runtime \"ops\".layer.shift.numerator: must be a whole number from 0 to 4294967295"}};
    for (String[] b : bad) {
      HttpResponse<String> refused = put("runtimes", "ops", edge(edge), Fixtures.runtime("ops", b[0]));
      assertStatus(refused, 400);
      assertThat(error(refused)).as(b[0]).isEqualTo(b[1]);
      HttpResponse<String> viaDryRun = api.send("PUT", "/configuration/resources/runtimes/ops?" + edge(edge) + "&dryRun=true",
          ADMIN_TOKEN, YAML, Fixtures.runtime("ops", b[0]).getBytes(StandardCharsets.UTF_8));
      assertStatus(viaDryRun, 400);
    }
    HttpResponse<String> stored = get("runtimes", "ops", edge(edge));
    assertThat(ApiClient.parse(stored).get("revision").asLong()).isEqualTo(1);
    assertThat(layer(stored).at("/envoy/resource_limits/listener/main/connection_limit").asInt()).isEqualTo(5);
    assertThat(audit("edgeId=" + edge + "&section=resources/runtimes/ops")).hasSize(1);

    HttpResponse<String> wrongName = put("runtimes", "other", edge(edge), Fixtures.runtime("ops", LIMIT_5));
    assertStatus(wrongName, 400);
    assertThat(error(wrongName)).isEqualTo("runtime \"ops\".name: must be the name in the path, \"other\"");
    HttpResponse<String> unknownField = put("runtimes", "ops", edge(edge), Fixtures.runtime("ops", LIMIT_5) + "layers: 1\n");
    assertStatus(unknownField, 400);
    assertThat(error(unknownField)).startsWith("runtime \"ops\"").contains("layers");
    // the same rule for a selector, whichever edges it reaches
    String label = unique("rt-bad");
    newEdge("{\"team\": \"" + label + "\"}");
    HttpResponse<String> viaSelector = put("runtimes", "ops", selector("team=" + label), Fixtures.runtime("ops", "{k: [x]}"));
    assertStatus(viaSelector, 400);
    assertThat(error(viaSelector)).isEqualTo("runtime \"ops\".layer.k: " + VALUE_RULE + "list_value");
    assertStatus(get("runtimes", "ops", selector("team=" + label)), 404);
  }

  @Test
  void aSelectorsLayerReachesMatchingEdgesAndAnEdgesOwnWins() {
    String label = unique("rt");
    String plain = newEdge("{\"team\": \"" + label + "\"}");
    String special = newEdge("{\"team\": \"" + label + "\"}");
    String elsewhere = newEdge("{\"team\": \"other\"}");
    assertStatus(put("runtimes", "ops", selector("team=" + label), Fixtures.runtime("ops", "{shift: 10}")), 201);
    assertStatus(put("runtimes", "ops", edge(special), Fixtures.runtime("ops", "{shift: 90}")), 201);
    assertThat(store.effectiveFor(plain).orElseThrow().runtimes().get("ops").getLayer().getFieldsOrThrow("shift").getNumberValue())
        .isEqualTo(10);
    JsonNode own = effective(special).get("runtimes");
    assertThat(own).hasSize(1);
    assertThat(own.get(0).get("edgeId").asText()).isEqualTo(special);
    assertThat(own.get(0).get("resource").get("layer").get("shift").asInt()).isEqualTo(90);
    assertThat(effective(elsewhere).get("runtimes")).isEmpty();
    assertThat(ApiClient.parse(api.get("/configuration/resources?" + selector("team=" + label), ADMIN_TOKEN)).get("runtimes"))
        .hasSize(1);
  }

  @Test
  void permissionsAndTheTypeList() {
    String edge = newEdge("{}");
    String reader = tokenFor(unique("rt-reader"), "[\"edges:read\"]");
    String path = "/configuration/resources/runtimes/ops?" + edge(edge);
    byte[] body = Fixtures.runtime("ops", LIMIT_5).getBytes(StandardCharsets.UTF_8);
    assertStatus(api.send("PUT", path, null, YAML, body), 401);
    assertStatus(api.send("PUT", path, reader, YAML, body), 403);
    assertStatus(api.send("PUT", path, ADMIN_TOKEN, YAML, body), 201);
    assertStatus(api.get(path, reader), 200);
    assertStatus(api.send("DELETE", path, reader, null, null), 403);
    HttpResponse<String> unknown = api.get("/configuration/resources/secrets/x?" + edge(edge), ADMIN_TOKEN);
    assertStatus(unknown, 404);
    assertThat(error(unknown)).isEqualTo("no resource type 'secrets': use clusters, endpoints, listeners, routes or runtimes");
  }
}
