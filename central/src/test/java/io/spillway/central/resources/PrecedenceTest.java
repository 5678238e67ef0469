package io.spillway.central.resources;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which stored resources an edge receives. */
class PrecedenceTest {

  private static StoredResource row(ResourceType type, Target target, String name, String json) {
    return new StoredResource(type, target, name, json, 1, 1, Instant.EPOCH, "test");
  }

  @Test
  void edgeSpecificWinsOverSelectorAndSelectorsOnlyReachMatchingEdges() {
    List<StoredResource> rows = List.of(
        row(ResourceType.CLUSTERS, Target.selector("env=prod"), "backend", "{\"from\":\"selector\"}"),
        row(ResourceType.CLUSTERS, Target.edge("e1"), "backend", "{\"from\":\"edge\"}"),
        row(ResourceType.CLUSTERS, Target.selector("env=prod"), "shared", "{}"),
        row(ResourceType.CLUSTERS, Target.selector("env=dev"), "dev-only", "{}"),
        row(ResourceType.CLUSTERS, Target.edge("e2"), "other-edge", "{}"),
        row(ResourceType.CLUSTERS, Target.selector(""), "everywhere", "{}"),
        row(ResourceType.CLUSTERS, Target.selector("env=prod"), "deleted", null));
    Map<ResourceType, Map<String, StoredResource>> winners = Precedence.winners(rows, "e1", Map.of("env", "prod"));
    assertThat(winners.get(ResourceType.CLUSTERS).keySet()).containsExactly("backend", "everywhere", "shared");
    assertThat(winners.get(ResourceType.CLUSTERS).get("backend").json()).isEqualTo("{\"from\":\"edge\"}");
    assertThat(winners.get(ResourceType.LISTENERS)).isEmpty();
  }

  @Test
  void betweenTwoSelectorsTheOneSortingFirstWins() {
    List<StoredResource> rows = List.of(
        row(ResourceType.ROUTES, Target.selector("zone=a"), "main", "{\"z\":1}"),
        row(ResourceType.ROUTES, Target.selector("env=prod"), "main", "{\"e\":1}"));
    assertThat(Precedence.winners(rows, "e1", Map.of("env", "prod", "zone", "a")).get(ResourceType.ROUTES).get("main").json())
        .isEqualTo("{\"e\":1}");
  }

  @Test
  void selectorsAreCanonical() {
    assertThat(Target.selector(" zone = a , env=prod,env=prod")).isEqualTo(Target.selector("env=prod,zone=a"));
    assertThat(Target.selector("!canary, tier!=web, gpu").selector()).isEqualTo("!canary,gpu,tier!=web");
  }

  @Test
  void versionsFollowContentOnly() {
    Map<String, StoredResource> a = Map.of("x", row(ResourceType.CLUSTERS, Target.edge("e1"), "x", "{\"a\":1}"));
    Map<String, StoredResource> sameContentOtherRevision = Map.of("x",
        new StoredResource(ResourceType.CLUSTERS, Target.selector("env=prod"), "x", "{\"a\":1}", 7, 9, Instant.EPOCH, "other"));
    Map<String, StoredResource> b = Map.of("x", row(ResourceType.CLUSTERS, Target.edge("e1"), "x", "{\"a\":2}"));
    Map<ResourceType, Map<String, StoredResource>> one = Map.of(ResourceType.CLUSTERS, a);
    assertThat(ResourceStore.versions(one)).isEqualTo(ResourceStore.versions(Map.of(ResourceType.CLUSTERS, sameContentOtherRevision)));
    assertThat(ResourceStore.versions(one)).isNotEqualTo(ResourceStore.versions(Map.of(ResourceType.CLUSTERS, b)));
  }
}
