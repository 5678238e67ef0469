package io.spillway.edge.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.spillway.edge.xds.LastKnownGoodStore.StoredResource;
import io.spillway.edge.xds.LastKnownGoodStore.StoredType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LastKnownGoodStoreTest {

  private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

  @TempDir
  Path dir;

  private static Map<XdsResourceType, StoredType> state() {
    Map<String, StoredResource> clusters = new LinkedHashMap<>();
    clusters.put("b", new StoredResource("", Any.pack(Cluster.newBuilder().setName("b").build())));
    clusters.put("a", new StoredResource("", Any.pack(Cluster.newBuilder().setName("a").build())));
    return Map.of(
        XdsResourceType.CLUSTER, new StoredType("v7", clusters),
        XdsResourceType.LISTENER, new StoredType("l1",
            Map.of("ingress", new StoredResource("r3", Any.pack(Listener.newBuilder().setName("ingress").build())))),
        XdsResourceType.ROUTE, new StoredType("", Map.of()));
  }

  @Test
  void roundTripsEveryTypeVersionAndResourceInOrder() throws IOException {
    LastKnownGoodStore store = new LastKnownGoodStore(dir.resolve("state"));

    store.save(state(), NOW);
    Map<XdsResourceType, StoredType> loaded = new LastKnownGoodStore(dir.resolve("state")).load();

    assertThat(loaded).isEqualTo(state());
    assertThat(loaded.get(XdsResourceType.CLUSTER).resources().keySet()).containsExactly("b", "a");
    assertThat(store.file()).isEqualTo(dir.resolve("state").resolve("xds-state.pb"));
  }

  @Test
  void aSaveReplacesThePreviousStateAndLeavesNoTemporaryFile() throws IOException {
    LastKnownGoodStore store = new LastKnownGoodStore(dir);
    store.save(state(), NOW);

    Map<XdsResourceType, StoredType> next = Map.of(XdsResourceType.CLUSTER, new StoredType("v8", Map.of()));
    store.save(next, NOW.plusSeconds(1));

    assertThat(store.load()).isEqualTo(next);
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("xds-state.pb");
    }
  }

  @Test
  void noFileIsEmpty() {
    assertThat(new LastKnownGoodStore(dir.resolve("missing")).load()).isEmpty();
  }

  @Test
  void aTruncatedFileIsIgnored() throws IOException {
    LastKnownGoodStore store = new LastKnownGoodStore(dir);
    store.save(state(), NOW);
    byte[] bytes = Files.readAllBytes(store.file());

    for (int length : new int[] {0, 5, 16, bytes.length / 2, bytes.length - 1}) {
      Files.write(store.file(), Arrays.copyOf(bytes, length));
      assertThat(store.load()).as("truncated to %d bytes", length).isEmpty();
    }
  }

  @Test
  void aCorruptFileIsIgnored() throws IOException {
    LastKnownGoodStore store = new LastKnownGoodStore(dir);
    store.save(state(), NOW);
    byte[] bytes = Files.readAllBytes(store.file());
    bytes[bytes.length - 3] ^= 0x5a;
    Files.write(store.file(), bytes);

    assertThat(store.load()).isEmpty();

    Files.writeString(store.file(), "not a state file at all");
    assertThat(store.load()).isEmpty();
  }

  @Test
  void anUnreadableFileIsIgnored() throws IOException {
    LastKnownGoodStore store = new LastKnownGoodStore(dir);
    Files.createDirectories(store.file()); // a directory where the file should be

    assertThat(store.load()).isEmpty();
  }
}
