package io.spillway.edge.overload;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.OverloadConfig;
import io.spillway.edge.config.OverloadNames;
import io.spillway.edge.overload.monitor.StandardMonitors;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.StatsStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The injected resource end to end: file → monitor → manager; a missing file keeps the last pressure. */
class InjectedResourceManagerTest {

  @TempDir
  Path dir;

  @Test
  void aMissingFileIsAFailedUpdateAndThePressureStays() throws Exception {
    Path file = dir.resolve("pressure");
    Files.writeString(file, "0.6");
    String name = OverloadNames.INJECTED_RESOURCE;
    OverloadConfig config = new OverloadConfig(Duration.ofSeconds(1),
        List.of(new OverloadConfig.ResourceMonitor(name, new OverloadConfig.InjectedResource(file.toString()))),
        List.of(new OverloadConfig.Action(OverloadNames.STOP_ACCEPTING_REQUESTS,
            List.of(new OverloadConfig.ThresholdTrigger(name, 0.5)), Optional.empty())),
        List.of(), OptionalInt.empty(), List.of());
    StatsStore stats = new StatsStore();
    StandardMonitors.Sources sources = new StandardMonitors.Sources(() -> 0, dir, dir, () -> 0, () -> 1, () -> 0,
        () -> 0, () -> 0, () -> 1);
    OverloadManager manager = OverloadManager.builder(config).stats(stats.rootScope()).nanoClock(() -> 0L)
        .monitors(new StandardMonitors(sources)).build();
    ActionIndex stop = manager.actionHandle(OverloadNames.STOP_ACCEPTING_REQUESTS);

    manager.refresh();
    assertThat(manager.describe().monitors().get(0).pressure()).isEqualTo(0.6);
    assertThat(manager.state().isSaturated(stop)).isTrue();

    Files.delete(file);
    manager.refresh();

    assertThat(((Counter) stats.find("overload." + name + ".failed_updates").orElseThrow()).value()).isEqualTo(1);
    assertThat(manager.describe().monitors().get(0).pressure()).isEqualTo(0.6);
    assertThat(manager.state().isSaturated(stop)).isTrue();

    Files.writeString(file, "0.1");
    manager.refresh();
    assertThat(manager.state().isActive(stop)).isFalse();
  }
}
