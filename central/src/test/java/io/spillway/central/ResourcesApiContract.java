package io.spillway.central;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spillway.central.resources.EffectiveResources;
import io.spillway.central.resources.Fixtures;
import io.spillway.central.resources.ResourceType;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The resource and endpoint API rules (issue 6 item 5), run in-process over real HTTP against one
 * database; subclasses pick the embedded H2 or PostgreSQL.
 */
abstract class ResourcesApiContract extends ResourcesApiFixture {

  ResourcesApiContract(TestDatabase.Kind kind) {
    super(kind);
  }


  @Test
  void putGetDeleteEachType() {
    String edge = newEdge("{}");
    String[][] resources = {
        {"clusters", "backend", Fixtures.cluster("backend")},
        {"endpoints", "backend", Fixtures.endpoints("backend", "10.0.0.1", 8080)},
        {"listeners", "ingress", Fixtures.listener("ingress", 10000, "backend")},
        {"routes", "main", Fixtures.routes("main", "backend", true)},
        {"runtimes", "ops", Fixtures.runtime("ops", "{envoy: {resource_limits: {listener: {main: {connection_limit: 5}}}}}")}};
    for (String[] r : resources) {
      HttpResponse<String> created = put(r[0], r[1], edge(edge), r[2]);
      assertStatus(created, 201);
      JsonNode body = ApiClient.parse(created);
      assertThat(body.get("revision").asLong()).isEqualTo(1);
      assertThat(body.get("edgeId").asText()).isEqualTo(edge);
      assertThat(body.get("dryRun").asBoolean()).isFalse();
      HttpResponse<String> read = get(r[0], r[1], edge(edge));
      assertStatus(read, 200);
      assertThat(ApiClient.parse(read).get("resource")).isEqualTo(body.get("resource"));
      assertThat(ApiClient.parse(read).get("updatedBy").asText()).isEqualTo("admin");
    }
    // canonical JSON: snake_case proto3 JSON whatever was sent
    assertThat(ApiClient.parse(get("clusters", "backend", edge(edge))).get("resource").get("connect_timeout").asText()).isEqualTo("1s");
    // the same resource as JSON: unchanged, revision stays
    String canonical = ApiClient.parse(get("clusters", "backend", edge(edge))).get("resource").toString();
    HttpResponse<String> again = api.send("PUT", "/configuration/resources/clusters/backend?" + edge(edge), ADMIN_TOKEN,
        "application/json", canonical.getBytes(StandardCharsets.UTF_8));
    assertStatus(again, 200);
    assertThat(ApiClient.parse(again).get("revision").asLong()).isEqualTo(1);
    JsonNode all = effective(edge);
    for (ResourceType type : ResourceType.values()) {
      assertThat(all.get(type.jsonName())).as(type.jsonName()).hasSize(1);
    }
    EffectiveResources effective = store.effectiveFor(edge).orElseThrow();
    assertThat(effective.clusters()).containsOnlyKeys("backend");
    assertThat(effective.endpoints().get("backend").getEndpoints(0).getLbEndpoints(0).getEndpoint().getAddress()
        .getSocketAddress().getPortValue()).isEqualTo(8080);
    assertThat(effective.listeners()).containsOnlyKeys("ingress");
    assertThat(effective.routes().get("main").getValidateClusters().getValue()).isTrue();
    assertThat(effective.runtimes().get("ops").getLayer().getFieldsOrThrow("envoy").hasStructValue()).isTrue();
    assertThat(all.get("versions").get("clusters").asText()).isEqualTo(effective.version(ResourceType.CLUSTERS));
    // delete in an order that keeps the edge's set valid
    for (String[] r : new String[][] {resources[4], resources[2], resources[3], resources[1], resources[0]}) {
      HttpResponse<String> deleted = delete(r[0], r[1], edge(edge));
      assertStatus(deleted, 200);
      assertThat(ApiClient.parse(deleted).get("resource").isNull()).isTrue();
      assertThat(ApiClient.parse(deleted).get("revision").asLong()).isEqualTo(2);
      assertStatus(get(r[0], r[1], edge(edge)), 404);
      assertStatus(delete(r[0], r[1], edge(edge)), 404);
    }
    assertThat(store.effectiveFor(edge).orElseThrow().clusters()).isEmpty();
    // revisions keep growing after a delete
    assertThat(ApiClient.parse(put("clusters", "backend", edge(edge), Fixtures.cluster("backend"))).get("revision").asLong()).isEqualTo(3);
  }

  @Test
  void invalidResourceIs400WithTheTranslatorsMessageAndNothingStored() {
    String edge = newEdge("{}");
    HttpResponse<String> unsupported = put("clusters", "backend", edge(edge), Fixtures.cluster("backend") + "lb_policy: CLUSTER_PROVIDED\n");
    assertStatus(unsupported, 400);
    assertThat(error(unsupported)).isEqualTo("cluster \"backend\".lb_policy: CLUSTER_PROVIDED is not supported");
    HttpResponse<String> unknownField = put("clusters", "backend", edge(edge), Fixtures.cluster("backend") + "no_such_field: 1\n");
    assertStatus(unknownField, 400);
    assertThat(error(unknownField)).startsWith("cluster \"backend\".").contains("no_such_field");
    // refused while it is parsed, it is named like the translator names it
    HttpResponse<String> unknownType = put("listeners", "ingress", edge(edge), """
        name: ingress
        address: {socket_address: {address: 127.0.0.1, port_value: 10009}}
        filter_chains:
        - filters:
          - name: acme
            typed_config: {"@type": type.googleapis.com/acme.Filter}
        """);
    assertStatus(unknownType, 400);
    assertThat(error(unknownType)).isEqualTo("listener \"ingress\".filter_chains[0].filters[0].typed_config: "
        + "unknown @type \"type.googleapis.com/acme.Filter\" (not an extension Spillway supports)");
    HttpResponse<String> wrongName = put("clusters", "other", edge(edge), Fixtures.cluster("backend"));
    assertStatus(wrongName, 400);
    assertThat(error(wrongName)).isEqualTo("cluster \"backend\".name: must be the name in the path, \"other\"");
    assertStatus(get("clusters", "backend", edge(edge)), 404);
    assertStatus(get("clusters", "other", edge(edge)), 404);
    assertThat(audit("edgeId=" + edge)).isEmpty();
    // a cluster's own problem reads the same for a selector, whichever edges it reaches
    String label = unique("bad");
    newEdge("{\"team\": \"" + label + "\"}");
    HttpResponse<String> viaSelector = put("clusters", "backend", selector("team=" + label), Fixtures.cluster("backend") + "lb_policy: CLUSTER_PROVIDED\n");
    assertStatus(viaSelector, 400);
    assertThat(error(viaSelector)).isEqualTo("cluster \"backend\".lb_policy: CLUSTER_PROVIDED is not supported");
    assertStatus(api.get("/configuration/resources/clusters/backend?" + selector("team=" + label), ADMIN_TOKEN), 404);
  }

  @Test
  void aRouteOrListenerNamingAnUnknownClusterIs400() {
    String edge = newEdge("{}");
    HttpResponse<String> listener = put("listeners", "ingress", edge(edge), Fixtures.listener("ingress", 10001, "nowhere"));
    assertStatus(listener, 400);
    assertThat(error(listener)).startsWith("listener \"ingress\".").contains("nowhere");
    HttpResponse<String> routes = put("routes", "main", edge(edge), Fixtures.routes("main", "nowhere", true));
    assertStatus(routes, 400);
    assertThat(error(routes)).startsWith("route_configuration \"main\".").contains("nowhere");
    // without validate_clusters a route may name a cluster that comes later, as in Envoy
    assertStatus(put("routes", "lenient", edge(edge), Fixtures.routes("lenient", "nowhere", false)), 201);
    // a cluster another edge has does not count
    String other = newEdge("{}");
    assertStatus(put("clusters", "nowhere", edge(other), Fixtures.cluster("nowhere")), 201);
    assertStatus(put("listeners", "ingress", edge(edge), Fixtures.listener("ingress", 10001, "nowhere")), 400);
    // deleting a cluster a listener uses is refused too
    assertStatus(put("clusters", "nowhere", edge(edge), Fixtures.cluster("nowhere")), 201);
    assertStatus(put("listeners", "ingress", edge(edge), Fixtures.listener("ingress", 10001, "nowhere")), 201);
    HttpResponse<String> deleteUsed = delete("clusters", "nowhere", edge(edge));
    assertStatus(deleteUsed, 400);
    assertThat(error(deleteUsed)).startsWith("listener \"ingress\".");
    assertStatus(get("clusters", "nowhere", edge(edge)), 200);
  }

  @Test
  void aListenerAddressIsUniquePerEdge() {
    String edge = newEdge("{}");
    assertStatus(put("clusters", "backend", edge(edge), Fixtures.cluster("backend")), 201);
    assertStatus(put("listeners", "a", edge(edge), Fixtures.listener("a", 10002, "backend")), 201);
    HttpResponse<String> clash = put("listeners", "b", edge(edge), Fixtures.listener("b", 10002, "backend"));
    assertStatus(clash, 400);
    assertThat(error(clash)).isEqualTo("listener \"b\".address: 0.0.0.0:10002 is already the address of listener \"a\"");
    String other = newEdge("{}");
    assertStatus(put("clusters", "backend", edge(other), Fixtures.cluster("backend")), 201);
    assertStatus(put("listeners", "b", edge(other), Fixtures.listener("b", 10002, "backend")), 201);
  }

  @Test
  void selectorResourcesReachMatchingEdgesAndEdgeSpecificOnesWin() {
    String label = unique("app");
    String web1 = newEdge("{\"app\": \"" + label + "\"}");
    String web2 = newEdge("{\"app\": \"" + label + "\"}");
    String db = newEdge("{\"app\": \"db-" + label + "\"}");
    String sel = selector("app=" + label);
    HttpResponse<String> shared = put("clusters", "backend", sel, Fixtures.cluster("backend"));
    assertStatus(shared, 201);
    assertThat(ApiClient.parse(shared).get("selector").asText()).isEqualTo("app=" + label);
    assertStatus(put("clusters", "backend", edge(web2), Fixtures.cluster("backend").replace("1s", "2s")), 201);
    assertThat(effective(web1).get("clusters").get(0).get("selector").asText()).isEqualTo("app=" + label);
    JsonNode own = effective(web2).get("clusters").get(0);
    assertThat(own.get("edgeId").asText()).isEqualTo(web2);
    assertThat(own.get("resource").get("connect_timeout").asText()).isEqualTo("2s");
    assertThat(effective(db).get("clusters")).isEmpty();
    assertThat(store.effectiveFor(web2).orElseThrow().clusters().get("backend").getConnectTimeout().getSeconds()).isEqualTo(2);
    // the selector's own listing, and the versions that differ with content
    JsonNode listing = ApiClient.parse(api.get("/configuration/resources?" + sel, ADMIN_TOKEN));
    assertThat(listing.get("clusters")).hasSize(1);
    assertThat(effective(web1).get("versions").get("clusters")).isNotEqualTo(effective(web2).get("versions").get("clusters"));
    // a selector listener is checked on every edge it reaches: db has no cluster "backend"
    HttpResponse<String> everywhere = put("listeners", "ingress", selector("app"), Fixtures.listener("ingress", 10003, "backend"));
    assertStatus(everywhere, 400);
    assertThat(error(everywhere)).contains("on edge ");
    // removing the edge's own copy falls back to the selector's
    assertStatus(delete("clusters", "backend", edge(web2)), 200);
    assertThat(effective(web2).get("clusters").get(0).get("selector").asText()).isEqualTo("app=" + label);
    // the change counter moves with every change
    long before = store.changeCounter();
    assertStatus(put("clusters", "more", sel, Fixtures.cluster("more")), 201);
    assertThat(store.changeCounter()).isGreaterThan(before);
  }

  @Test
  void labelsThatWouldGiveAnEdgeClashingResourcesAreRefused() {
    String u = unique("v");
    String a = newEdge("{\"front\": \"" + u + "\"}");
    String b = newEdge("{\"back\": \"" + u + "\"}");
    for (String key : new String[] {"front", "back"}) {
      assertStatus(put("clusters", "backend", selector(key + "=" + u), Fixtures.cluster("backend")), 201);
      assertStatus(put("listeners", key, selector(key + "=" + u), Fixtures.listener(key, 10007, "backend")), 201);
    }
    // Both selectors at once: two listeners on one address.
    HttpResponse<String> registered = api.json("POST", "/configuration/edges", ADMIN_TOKEN,
        "{\"id\": \"both-" + u + "\", \"labels\": {\"front\": \"" + u + "\", \"back\": \"" + u + "\"}}");
    assertStatus(registered, 409);
    assertThat(error(registered)).contains("both-" + u).contains("is already the address of listener");
    assertStatus(api.get("/configuration/edges/both-" + u, ADMIN_TOKEN), 404);
    HttpResponse<String> relabelled = api.json("PATCH", "/configuration/edges/" + a, ADMIN_TOKEN,
        "{\"labels\": {\"front\": \"" + u + "\", \"back\": \"" + u + "\"}}");
    assertStatus(relabelled, 409);
    JsonNode unchanged = ApiClient.parse(api.get("/configuration/edges/" + a, ADMIN_TOKEN));
    assertThat(unchanged.get("labels").size()).isEqualTo(1);
    assertThat(effective(a).get("listeners")).hasSize(1);
    // A relabel that keeps the edge's resources whole goes through.
    assertStatus(api.json("PATCH", "/configuration/edges/" + b, ADMIN_TOKEN,
        "{\"labels\": {\"back\": \"" + u + "\", \"zone\": \"z1\"}}"), 200);
  }

  @Test
  void staleExpectedRevisionIs409() {
    String edge = newEdge("{}");
    String path = "/configuration/resources/clusters/backend?" + edge(edge);
    byte[] body = Fixtures.cluster("backend").getBytes(StandardCharsets.UTF_8);
    assertStatus(api.send("PUT", path + "&expectedRevision=1", ADMIN_TOKEN, YAML, body), 409);
    assertStatus(api.send("PUT", path + "&expectedRevision=0", ADMIN_TOKEN, YAML, body), 201);
    assertStatus(api.send("PUT", path + "&expectedRevision=0", ADMIN_TOKEN, YAML, body), 409);
    byte[] changed = Fixtures.cluster("backend").replace("1s", "3s").getBytes(StandardCharsets.UTF_8);
    assertStatus(api.send("PUT", path + "&expectedRevision=1", ADMIN_TOKEN, YAML, changed), 200);
    HttpResponse<String> stale = api.send("PUT", path + "&expectedRevision=1", ADMIN_TOKEN, YAML, body);
    assertStatus(stale, 409);
    assertThat(error(stale)).contains("revision 2");
    assertStatus(api.send("DELETE", path + "&expectedRevision=1", ADMIN_TOKEN, null, null), 409);
    assertStatus(api.send("DELETE", path + "&expectedRevision=2", ADMIN_TOKEN, null, null), 200);
    assertStatus(api.send("PUT", path + "&expectedRevision=x", ADMIN_TOKEN, YAML, body), 400);
  }

  @Test
  void dryRunValidatesAndStoresNothing() {
    String edge = newEdge("{}");
    String path = "/configuration/resources/clusters/backend?" + edge(edge) + "&dryRun=true";
    HttpResponse<String> dry = api.send("PUT", path, ADMIN_TOKEN, YAML, Fixtures.cluster("backend").getBytes(StandardCharsets.UTF_8));
    assertStatus(dry, 200);
    assertThat(ApiClient.parse(dry).get("dryRun").asBoolean()).isTrue();
    assertThat(ApiClient.parse(dry).get("revision").asLong()).isEqualTo(1);
    assertThat(ApiClient.parse(dry).get("resource").get("name").asText()).isEqualTo("backend");
    assertStatus(api.send("PUT", path, ADMIN_TOKEN, YAML,
        (Fixtures.cluster("backend") + "lb_policy: CLUSTER_PROVIDED\n").getBytes(StandardCharsets.UTF_8)), 400);
    assertStatus(get("clusters", "backend", edge(edge)), 404);
    assertStatus(put("clusters", "backend", edge(edge), Fixtures.cluster("backend")), 201);
    assertStatus(api.send("DELETE", path, ADMIN_TOKEN, null, null), 200);
    assertStatus(get("clusters", "backend", edge(edge)), 200);
    assertStatus(api.json("POST", "/configuration/clusters/backend/endpoints?" + edge(edge) + "&dryRun=true", ADMIN_TOKEN,
        "{\"address\": \"10.0.0.9\", \"port\": 80}"), 200);
    assertStatus(get("endpoints", "backend", edge(edge)), 404);
    assertThat(audit("edgeId=" + edge)).hasSize(1);
  }

  @Test
  void everyChangeIsAudited() {
    String edge = newEdge("{}");
    assertStatus(put("clusters", "backend", edge(edge), Fixtures.cluster("backend")), 201);
    assertStatus(delete("clusters", "backend", edge(edge)), 200);
    JsonNode entries = audit("edgeId=" + edge + "&section=resources/clusters/backend");
    assertThat(entries).hasSize(2);
    JsonNode deleted = entries.get(0);
    assertThat(deleted.get("operator").asText()).isEqualTo("admin");
    assertThat(deleted.get("section").asText()).isEqualTo("resources/clusters/backend");
    assertThat(deleted.get("revision").asLong()).isEqualTo(2);
    assertThat(deleted.get("after").isNull()).isTrue();
    assertThat(deleted.get("before").get("name").asText()).isEqualTo("backend");
    assertThat(entries.get(1).get("before").isNull()).isTrue();
    assertThat(entries.get(1).get("at").asText()).isEqualTo("2030-01-01T00:00:00Z");
    String label = unique("audit");
    assertStatus(put("clusters", "backend", selector("team=" + label), Fixtures.cluster("backend")), 201);
    JsonNode selectorRow = audit("section=resources/clusters/backend&limit=1").get(0);
    assertThat(selectorRow.get("selector").asText()).isEqualTo("team=" + label);
    assertThat(selectorRow.get("edgeId").isNull()).isTrue();
  }

  @Test
  void credentialsPermissionsAndUnknownThings() {
    String edge = newEdge("{}");
    String reader = tokenFor(unique("reader"), "[\"edges:read\"]");
    String nobody = tokenFor(unique("nobody"), "[]");
    String path = "/configuration/resources/clusters/backend?" + edge(edge);
    byte[] body = Fixtures.cluster("backend").getBytes(StandardCharsets.UTF_8);
    assertStatus(api.send("PUT", path, null, YAML, body), 401);
    assertStatus(api.send("PUT", path, "spw_wrong", YAML, body), 401);
    assertStatus(api.get(path, null), 401);
    assertStatus(api.send("PUT", path, reader, YAML, body), 403);
    assertStatus(api.send("DELETE", path, reader, null, null), 403);
    assertStatus(api.json("POST", "/configuration/clusters/backend/endpoints?" + edge(edge), reader,
        "{\"address\": \"10.0.0.1\", \"port\": 80}"), 403);
    assertStatus(api.get(path, nobody), 403);
    assertStatus(api.get("/configuration/resources?" + edge(edge), nobody), 403);
    assertStatus(api.get(path, reader), 404);
    assertStatus(api.get("/configuration/resources?" + edge(edge), reader), 200);
    assertStatus(api.send("PUT", "/configuration/resources/clusters/backend?edgeId=no-such-edge", ADMIN_TOKEN, YAML, body), 404);
    assertStatus(api.get("/configuration/resources?edgeId=no-such-edge", ADMIN_TOKEN), 404);
    assertStatus(api.get("/configuration/resources/secrets/x?" + edge(edge), ADMIN_TOKEN), 404);
    assertStatus(api.json("POST", "/configuration/clusters/backend/endpoints?edgeId=no-such-edge", ADMIN_TOKEN,
        "{\"address\": \"10.0.0.1\", \"port\": 80}"), 404);
    assertStatus(api.get("/configuration/resources/clusters/backend", ADMIN_TOKEN), 400);
    assertStatus(api.get("/configuration/resources/clusters/backend?" + edge(edge) + "&" + selector("a=b"), ADMIN_TOKEN), 400);
    assertStatus(api.get("/configuration/resources/clusters/backend?selector=" + URLEncoder.encode("=bad", StandardCharsets.UTF_8),
        ADMIN_TOKEN), 400);
    assertThat(audit("edgeId=" + edge)).isEmpty();
  }

  @Test
  void endpointsRegisterAndDeregister() {
    String edge = newEdge("{}");
    assertStatus(put("clusters", "svc", edge(edge), Fixtures.edsCluster("svc")), 201);
    String base = "/configuration/clusters/svc/endpoints";
    HttpResponse<String> first = api.json("POST", base + "?" + edge(edge), ADMIN_TOKEN, "{\"address\": \"10.0.0.1\", \"port\": 8080}");
    assertStatus(first, 201);
    assertThat(ApiClient.parse(first).get("type").asText()).isEqualTo("endpoints");
    assertStatus(api.json("POST", base + "?" + edge(edge), ADMIN_TOKEN, "{\"address\": \"10.0.0.2\", \"port\": 8080, \"weight\": 5}"), 201);
    // registering again is idempotent; a new weight updates it
    assertStatus(api.json("POST", base + "?" + edge(edge), ADMIN_TOKEN, "{\"address\": \"10.0.0.1\", \"port\": 8080}"), 200);
    assertStatus(api.json("POST", base + "?" + edge(edge), ADMIN_TOKEN, "{\"address\": \"10.0.0.1\", \"port\": 8080, \"weight\": 3}"), 201);
    var assignment = store.effectiveFor(edge).orElseThrow().endpoints().get("svc");
    assertThat(assignment.getEndpoints(0).getLbEndpointsList()).hasSize(2);
    assertThat(assignment.getEndpoints(0).getLbEndpoints(0).getLoadBalancingWeight().getValue()).isEqualTo(3);
    // the locality is weighted (1 by default), as proxyless gRPC clients need; localityWeight sets it
    assertThat(assignment.getEndpoints(0).getLoadBalancingWeight().getValue()).isEqualTo(1);
    assertStatus(api.json("POST", base + "?" + edge(edge), ADMIN_TOKEN,
        "{\"address\": \"10.0.0.2\", \"port\": 8080, \"localityWeight\": 4}"), 201);
    assignment = store.effectiveFor(edge).orElseThrow().endpoints().get("svc");
    assertThat(assignment.getEndpoints(0).getLoadBalancingWeight().getValue()).isEqualTo(4);
    assertThat(assignment.getEndpoints(0).getLbEndpoints(1).getLoadBalancingWeight().getValue()).isEqualTo(5);
    assertStatus(api.json("POST", base + "?" + edge(edge), ADMIN_TOKEN,
        "{\"address\": \"10.0.0.2\", \"port\": 8080, \"localityWeight\": 0}"), 400);
    // the translator's rules hold: EDS endpoints are IP addresses
    HttpResponse<String> name = api.json("POST", base + "?" + edge(edge), ADMIN_TOKEN, "{\"address\": \"backend.example\", \"port\": 80}");
    assertStatus(name, 400);
    assertThat(error(name)).startsWith("cluster_load_assignment \"svc\".endpoints[0].lb_endpoints[2].endpoint.address");
    assertStatus(api.json("POST", base + "?" + edge(edge), ADMIN_TOKEN, "{\"address\": \"10.0.0.3\", \"port\": 0}"), 400);
    assertStatus(api.json("POST", base + "?" + edge(edge), ADMIN_TOKEN, "{\"address\": \"10.0.0.3\"}"), 400);
    assertStatus(api.json("POST", base + "?" + edge(edge), ADMIN_TOKEN, "[1]"), 400);
    // deregister
    assertStatus(api.send("DELETE", base + "/10.0.0.1:8080?" + edge(edge), ADMIN_TOKEN, null, null), 200);
    assertStatus(api.send("DELETE", base + "/10.0.0.1:8080?" + edge(edge), ADMIN_TOKEN, null, null), 404);
    assertStatus(api.send("DELETE", base + "/10.0.0.1?" + edge(edge), ADMIN_TOKEN, null, null), 400);
    assertStatus(api.send("DELETE", "/configuration/clusters/none/endpoints/10.0.0.1:80?" + edge(edge), ADMIN_TOKEN, null, null), 404);
    assignment = store.effectiveFor(edge).orElseThrow().endpoints().get("svc");
    assertThat(assignment.getEndpoints(0).getLbEndpointsList()).extracting(e -> e.getEndpoint().getAddress().getSocketAddress().getAddress())
        .containsExactly("10.0.0.2");
    assertThat(audit("edgeId=" + edge + "&section=resources/endpoints/svc")).hasSize(5);
    // IPv6: [address]:port in the path, URL-encoded
    assertStatus(api.json("POST", base + "?" + edge(edge), ADMIN_TOKEN, "{\"address\": \"2001:db8::7\", \"port\": 8080}"), 201);
    assertStatus(api.send("DELETE", base + "/%5B2001%3Adb8%3A%3A7%5D%3A8080?" + edge(edge), ADMIN_TOKEN, null, null), 200);
  }

  @Test
  void concurrentRegistrationsAllLand() throws Exception {
    String edge = newEdge("{}");
    int tools = 8;
    ExecutorService pool = Executors.newFixedThreadPool(tools);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> results = new ArrayList<>();
      for (int i = 0; i < tools; i++) {
        String body = "{\"address\": \"10.1.0." + (i + 1) + "\", \"port\": 9000}";
        results.add(pool.submit(() -> {
          start.await();
          return api.json("POST", "/configuration/clusters/svc/endpoints?" + edge(edge), ADMIN_TOKEN, body).statusCode();
        }));
      }
      start.countDown();
      for (Future<Integer> result : results) {
        assertThat(result.get()).isEqualTo(201);
      }
    } finally {
      pool.shutdownNow();
    }
    var assignment = store.effectiveFor(edge).orElseThrow().endpoints().get("svc");
    assertThat(assignment.getEndpoints(0).getLbEndpointsList()).hasSize(tools);
    assertThat(ApiClient.parse(get("endpoints", "svc", edge(edge))).get("revision").asLong()).isEqualTo(tools);
  }

  @Test
  void hostileBodiesAreRefusedAndStoreNothing() {
    String edge = newEdge("{}");
    String path = "/configuration/resources/clusters/backend?" + edge(edge);
    assertStatus(api.send("PUT", path, ADMIN_TOKEN, "application/json", "{\"name\": ".getBytes(StandardCharsets.UTF_8)), 400);
    assertStatus(api.send("PUT", path, ADMIN_TOKEN, "application/json", "".getBytes(StandardCharsets.UTF_8)), 400);
    assertStatus(api.send("PUT", path, ADMIN_TOKEN, YAML, "name: [unclosed".getBytes(StandardCharsets.UTF_8)), 400);
    String deep = "{\"metadata\": " + "{\"a\": ".repeat(500) + "1" + "}".repeat(500) + "}";
    assertStatus(api.send("PUT", path, ADMIN_TOKEN, "application/json", deep.getBytes(StandardCharsets.UTF_8)), 400);
    String deepYaml = "metadata: " + "[".repeat(500) + "]".repeat(500);
    assertStatus(api.send("PUT", path, ADMIN_TOKEN, YAML, deepYaml.getBytes(StandardCharsets.UTF_8)), 400);
    String bomb = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
        + "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n";
    assertStatus(api.send("PUT", path, ADMIN_TOKEN, YAML, bomb.getBytes(StandardCharsets.UTF_8)), 400);
    byte[] huge = ("name: backend\nalt_stat_name: " + "a".repeat(2 << 20) + "\n").getBytes(StandardCharsets.UTF_8);
    assertStatus(api.sendOversized("PUT", path, ADMIN_TOKEN, YAML, huge), 413);
    assertStatus(api.send("PUT", path, ADMIN_TOKEN, "text/plain", Fixtures.cluster("backend").getBytes(StandardCharsets.UTF_8)), 415);
    assertStatus(api.send("PUT", path, ADMIN_TOKEN, null, Fixtures.cluster("backend").getBytes(StandardCharsets.UTF_8)), 415);
    assertStatus(api.send("PUT", path, ADMIN_TOKEN, YAML, new byte[] {(byte) 0xff, (byte) 0xfe, 'a'}), 400);
    assertStatus(api.send("PUT", "/configuration/resources/clusters/" + "x".repeat(300) + "?" + edge(edge), ADMIN_TOKEN, YAML,
        Fixtures.cluster("backend").getBytes(StandardCharsets.UTF_8)), 400);
    assertStatus(api.send("POST", "/configuration/clusters/svc/endpoints?" + edge(edge), ADMIN_TOKEN, "application/json",
        "{\"address\": ".getBytes(StandardCharsets.UTF_8)), 400);
    assertStatus(get("clusters", "backend", edge(edge)), 404);
    assertThat(audit("edgeId=" + edge)).isEmpty();
  }

  @Test
  void deregisteringTheEdgeDropsItsResources() {
    String edge = newEdge("{}");
    assertStatus(put("clusters", "backend", edge(edge), Fixtures.cluster("backend")), 201);
    assertStatus(api.send("DELETE", "/configuration/edges/" + edge, ADMIN_TOKEN, null, null), 204);
    assertThat(store.effectiveFor(edge)).isEmpty();
  }
}
