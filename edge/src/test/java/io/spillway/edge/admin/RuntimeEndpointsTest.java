package io.spillway.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spillway.edge.config.RuntimeConfig;
import io.spillway.edge.runtime.Runtime;
import io.spillway.edge.stats.StatsStore;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RuntimeEndpointsTest {
  private final StatsStore stats = new StatsStore();
  private final Runtime runtime = new Runtime(new RuntimeConfig(List.of(
      new RuntimeConfig.StaticLayer("static_layer_0", Map.of("a.b", "1", "c", "x")),
      new RuntimeConfig.AdminLayer("admin"))), "", stats.rootScope().scope("runtime"));

  private JsonNode listing() throws Exception {
    AdminResponse r = new RuntimeEndpoint(runtime::snapshot).handle(Requests.get("/runtime"));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).isEqualTo("application/json");
    return new ObjectMapper().readTree(r.body());
  }

  @Test
  void listsEveryLayerAndEachKeysValuePerLayer() throws Exception {
    JsonNode doc = listing();

    assertThat(doc.get("layers")).extracting(JsonNode::asText).containsExactly("static_layer_0", "admin");
    assertThat(doc.at("/entries/a.b/final_value").asText()).isEqualTo("1");
    assertThat(doc.at("/entries/a.b/layer_values")).extracting(JsonNode::asText).containsExactly("1", "");
  }

  @Test
  void modifySetsAdminValuesOverTheLowerLayersAndAnEmptyValueRemovesThem() throws Exception {
    RuntimeModifyEndpoint modify = new RuntimeModifyEndpoint(runtime);
    assertThat(modify.mutating()).isTrue();

    AdminResponse set = modify.handle(Requests.post("/runtime_modify?a.b=7&new.key=on"));
    assertThat(set.status()).isEqualTo(200);
    assertThat(set.bodyText()).isEqualTo("OK\n");
    JsonNode doc = listing();
    assertThat(doc.at("/entries/a.b/final_value").asText()).isEqualTo("7");
    assertThat(doc.at("/entries/a.b/layer_values")).extracting(JsonNode::asText).containsExactly("1", "7");
    assertThat(doc.at("/entries/new.key/final_value").asText()).isEqualTo("on");
    assertThat(runtime.snapshot().getInteger("a.b", 0)).isEqualTo(7);
    assertThat(stats.find("runtime.admin_overrides_active").map(s -> ((io.spillway.edge.stats.Gauge) s).value()))
        .contains(1L);

    modify.handle(Requests.post("/runtime_modify?a.b=&new.key="));
    assertThat(runtime.snapshot().getInteger("a.b", 0)).isEqualTo(1);
    assertThat(runtime.snapshot().get("new.key")).isEmpty();
    assertThat(stats.find("runtime.admin_overrides_active").map(s -> ((io.spillway.edge.stats.Gauge) s).value()))
        .contains(0L);
  }

  @Test
  void modifyTakesAFormBodyToo() {
    AdminResponse r = new RuntimeModifyEndpoint(runtime)
        .handle(AdminRequest.of("POST", "/runtime_modify", "from.body=3"));

    assertThat(r.status()).isEqualTo(200);
    assertThat(runtime.snapshot().getInteger("from.body", 0)).isEqualTo(3);
  }

  @Test
  void modifyWithoutKeysIsABadRequestAndChangesNothing() {
    AdminResponse r = new RuntimeModifyEndpoint(runtime).handle(Requests.post("/runtime_modify"));

    assertThat(r.status()).isEqualTo(400);
    assertThat(runtime.snapshot().values()).containsOnlyKeys("a.b", "c");
  }

  @Test
  void modifyWithoutAnAdminLayerIs503() {
    Runtime noAdmin = new Runtime(new RuntimeConfig(List.of(
        new RuntimeConfig.StaticLayer("s", Map.of("k", "v")))), "", new StatsStore().rootScope().scope("runtime"));

    AdminResponse r = new RuntimeModifyEndpoint(noAdmin).handle(Requests.post("/runtime_modify?k=w"));

    assertThat(r.status()).isEqualTo(503);
    assertThat(noAdmin.snapshot().get("k")).contains("v");
  }

  @Test
  void anEdgeWithoutRuntimeListsNoLayers() throws Exception {
    AdminResponse r = new RuntimeEndpoint(Runtime.none(new StatsStore().rootScope())::snapshot)
        .handle(Requests.get("/runtime"));

    JsonNode doc = new ObjectMapper().readTree(r.body());
    assertThat(doc.get("layers")).isEmpty();
    assertThat(doc.get("entries").isObject()).isTrue();
    assertThat(doc.get("entries")).isEmpty();
  }
}
