package io.spillway.central.resources;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import io.spillway.central.api.Json;
import io.spillway.central.edges.EdgeStore;
import io.spillway.central.store.Database;
import io.spillway.edge.config.BootstrapLoader;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The store's contract for the xDS server, on an in-memory H2 migrated by the one Flyway history. */
class ResourceStoreIT {

  private final Clock clock = Clock.fixed(Instant.parse("2030-01-01T00:00:00Z"), ZoneOffset.UTC);
  private Database database;
  private ResourceStore store;
  private final List<Target> changes = new ArrayList<>();

  @BeforeEach
  void open() {
    database = Database.open("jdbc:h2:mem:" + UUID.randomUUID() + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH;DB_CLOSE_DELAY=-1",
        null, null);
    EdgeStore edges = new EdgeStore(database, new Json(), clock);
    edges.register("e1", Map.of("env", "prod"), "0".repeat(64));
    edges.register("e2", Map.of("env", "dev"), "1".repeat(64));
    store = new ResourceStore(database, clock);
    store.onChange(changes::add);
  }

  @AfterEach
  void close() {
    database.close();
  }

  private Message cluster(String yaml) throws Exception {
    return store.codec().parse(yaml, BootstrapLoader.Format.YAML, ResourceType.CLUSTERS);
  }

  private ResourceStore.Result put(Target target, String name, Message resource, boolean dryRun) {
    return store.change(ResourceType.CLUSTERS, target, name, current -> resource, null, dryRun, "test");
  }

  @Test
  void effectiveForGivesProtoMessagesAVersionPerTypeAndTheCounter() throws Exception {
    assertThat(store.effectiveFor("nobody")).isEmpty();
    EffectiveResources empty = store.effectiveFor("e1").orElseThrow();
    assertThat(empty.clusters()).isEmpty();
    assertThat(empty.changeCounter()).isZero();
    assertThat(put(Target.selector("env=prod"), "backend", cluster(Fixtures.cluster("backend")), false))
        .isInstanceOf(ResourceStore.Done.class);
    EffectiveResources one = store.effectiveFor("e1").orElseThrow();
    assertThat(one.clusters().get("backend").getConnectTimeout().getSeconds()).isEqualTo(1);
    assertThat(one.changeCounter()).isEqualTo(1);
    assertThat(store.changeCounter()).isEqualTo(1);
    assertThat(one.version(ResourceType.CLUSTERS)).isNotEqualTo(empty.version(ResourceType.CLUSTERS));
    assertThat(one.version(ResourceType.LISTENERS)).isEqualTo(empty.version(ResourceType.LISTENERS));
    assertThat(store.effectiveFor("e2").orElseThrow().clusters()).isEmpty();
    // the same content for the edge itself: the edge's copy wins, the version stays (content-only)
    put(Target.edge("e1"), "backend", cluster(Fixtures.cluster("backend")), false);
    EffectiveResources own = store.effectiveFor("e1").orElseThrow();
    assertThat(own.version(ResourceType.CLUSTERS)).isEqualTo(one.version(ResourceType.CLUSTERS));
    assertThat(own.changeCounter()).isEqualTo(2);
  }

  @Test
  void readingManyEdgesAtOnceGivesWhatReadingEachGives() throws Exception {
    put(Target.selector("env=prod"), "backend", cluster(Fixtures.cluster("backend")), false);
    put(Target.selector(""), "everyone", cluster(Fixtures.cluster("everyone")), false);
    put(Target.edge("e2"), "backend", cluster(Fixtures.cluster("backend").replace("1s", "2s")), false);
    Map<String, EffectiveResources> all = store.effectiveFor(List.of("e1", "e2", "nobody"));
    assertThat(all).containsOnlyKeys("e1", "e2");
    for (String edge : List.of("e1", "e2")) {
      assertThat(all.get(edge)).as(edge).isEqualTo(store.effectiveFor(edge).orElseThrow());
    }
    assertThat(all.get("e2").clusters().get("backend").getConnectTimeout().getSeconds()).isEqualTo(2);
    assertThat(all.get("e1").clusters()).containsOnlyKeys("backend", "everyone");
  }

  @Test
  void aRelabelledEdgeCanBeCheckedForClashesBetweenSelectors() throws Exception {
    Message backend = cluster(Fixtures.cluster("backend"));
    store.change(ResourceType.CLUSTERS, Target.selector(""), "backend", current -> backend, null, false, "t");
    for (String[] listener : new String[][] {{"env=prod", "a"}, {"tier=web", "b"}}) {
      Message parsed = store.codec().parse(Fixtures.listener(listener[1], 10000, "backend"), BootstrapLoader.Format.YAML, ResourceType.LISTENERS);
      assertThat(store.change(ResourceType.LISTENERS, Target.selector(listener[0]), listener[1], current -> parsed, null, false, "t"))
          .isInstanceOf(ResourceStore.Done.class);
    }
    assertThat(store.problem("e1")).isEmpty();
    new EdgeStore(database, new Json(), clock).relabel("e1", Map.of("env", "prod", "tier", "web"));
    assertThat(store.problem("e1")).hasValue("listener \"b\".address: 0.0.0.0:10000 is already the address of listener \"a\"");
    assertThat(store.problem("nobody")).isEmpty();
  }

  @Test
  void listenersHearCommittedChangesOnly() throws Exception {
    Message backend = cluster(Fixtures.cluster("backend"));
    put(Target.edge("e1"), "backend", backend, true);
    assertThat(changes).isEmpty();
    assertThat(put(Target.edge("e1"), "backend", cluster(Fixtures.cluster("backend") + "lb_policy: CLUSTER_PROVIDED\n"), false))
        .isInstanceOf(ResourceStore.Invalid.class);
    assertThat(changes).isEmpty();
    assertThat(store.changeCounter()).isZero();
    put(Target.edge("e1"), "backend", backend, false);
    put(Target.edge("e1"), "backend", backend, false); // unchanged
    put(Target.selector("env = dev"), "backend", backend, false);
    assertThat(changes).containsExactly(Target.edge("e1"), Target.selector("env=dev"));
  }
}
