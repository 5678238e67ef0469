package io.spillway.edge.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.RuntimeConfig;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.StatsStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiskLayerTest {
  @TempDir
  Path dir;

  private final StatsStore stats = new StatsStore();

  private long counter(String name) {
    return stats.find(name).map(s -> ((Counter) s).value()).orElse(0L);
  }

  private Path tree(String name, Map<String, String> files) throws Exception {
    Path root = dir.resolve(name);
    for (Map.Entry<String, String> f : files.entrySet()) {
      Path file = root.resolve(f.getKey());
      Files.createDirectories(file.getParent());
      Files.writeString(file, f.getValue());
    }
    return root;
  }

  @Test
  void eachFileIsAKeyNamedByItsPathWithoutCommentsOrTrailingSpace() throws Exception {
    Path root = tree("v1", Map.of(
        "envoy/health_check/min_interval", "5\n",
        "envoy/upstream/healthy_panic_threshold", "# lowered for the migration\n25  \n",
        "envoy/note", "two\nlines\n"));

    assertThat(DiskLayerReader.read(root.resolve("envoy"))).containsExactlyInAnyOrderEntriesOf(Map.of(
        "health_check.min_interval", "5",
        "upstream.healthy_panic_threshold", "25",
        "note", "two\nlines"));
  }

  @Test
  void aMissingDirectoryIsAnEmptyLayer() throws Exception {
    assertThat(DiskLayerReader.read(dir.resolve("absent"))).isEmpty();
  }

  @Test
  void reloadingFollowsTheSwappedLinkAndAppendsTheServiceCluster() throws Exception {
    tree("v1", Map.of("envoy/k", "1", "envoy/edges/k", "cluster-1"));
    tree("v2", Map.of("envoy/k", "2", "envoy/edges/k", "cluster-2"));
    Path link = dir.resolve("current");
    Files.createSymbolicLink(link, dir.resolve("v1"));
    Runtime runtime = new Runtime(new RuntimeConfig(List.of(
        new RuntimeConfig.DiskLayer("disk", link.toString(), "envoy", false),
        new RuntimeConfig.DiskLayer("override", link.toString(), "envoy", true))), "edges",
        stats.rootScope().scope("runtime"));
    assertThat(runtime.snapshot().layerValues().get(1)).containsEntry("k", "cluster-1");
    assertThat(runtime.snapshot().get("k")).contains("cluster-1");

    Path next = dir.resolve("next");
    Files.createSymbolicLink(next, dir.resolve("v2"));
    Files.move(next, link, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    runtime.reloadDiskLayers();

    assertThat(runtime.snapshot().layerValues().get(0)).containsEntry("k", "2");
    assertThat(runtime.snapshot().get("k")).contains("cluster-2");
    assertThat(counter("runtime.load_success")).isEqualTo(4);
    assertThat(counter("runtime.override_dir_exists")).isEqualTo(4);
  }

  @Test
  void aLayerThatCannotBeReadKeepsItsValuesAndCountsAnError() throws Exception {
    Path root = tree("v1", Map.of("k", "1"));
    Runtime runtime = new Runtime(new RuntimeConfig(List.of(
        new RuntimeConfig.DiskLayer("disk", root.toString(), "", false))), "", stats.rootScope().scope("runtime"));
    Files.writeString(root.resolve("huge"), "x".repeat((int) DiskLayerReader.MAX_FILE_BYTES + 1));

    runtime.reloadDiskLayers();

    assertThat(runtime.snapshot().values()).containsExactly(Map.entry("k", "1"));
    assertThat(counter("runtime.load_error")).isEqualTo(1);
  }
}
