package io.spillway.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.stats.StatsStore;
import io.spillway.policy.DeploymentDefaults;
import io.spillway.policy.EffectivePolicy;
import io.spillway.policy.Mode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PolicyFileWatcherTest {

  private final StatsStore stats = new StatsStore();
  private final List<EffectivePolicy> applied = new ArrayList<>();

  @Test
  void appliesAChangedValidFileAndKeepsTheLastGoodOneOtherwise(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("policy.json");
    String initial = "{\"inbound\": {\"mode\": \"shadow\"}}";
    Files.writeString(file, initial);
    PolicyFileWatcher watcher = new PolicyFileWatcher(file, initial.getBytes(), DeploymentDefaults.builtIn(),
        applied::add, stats.rootScope().scope("policy_file"));

    watcher.run();
    assertThat(applied).as("unchanged content is not re-applied").isEmpty();

    Files.writeString(file, "{\"inbound\": {\"mode\": \"enforce\"}, \"outbound\": {\"mode\": \"enforce\"}}");
    watcher.run();
    assertThat(applied).hasSize(1);
    assertThat(applied.get(0).inbound().mode()).isEqualTo(Mode.ENFORCE);
    assertThat(applied.get(0).outbound().mode()).isEqualTo(Mode.ENFORCE);
    assertThat(counter("policy_file.reload_success")).isEqualTo(1);

    Files.writeString(file, "{\"inbound\": {\"maxInFlight\": -5}}");
    watcher.run();
    watcher.run();
    assertThat(applied).as("an invalid file changes nothing").hasSize(1);
    assertThat(counter("policy_file.reload_rejected")).as("counted once while the same problem stays").isEqualTo(1);

    Files.delete(file);
    watcher.run();
    assertThat(applied).hasSize(1);

    Files.writeString(file, "{\"inbound\": {\"mode\": \"off\"}}");
    watcher.run();
    assertThat(applied).hasSize(2);
    assertThat(applied.get(1).inbound().mode()).isEqualTo(Mode.OFF);
    assertThat(applied.get(1).outbound().mode()).as("unset fields fall back, not pinned").isEqualTo(Mode.SHADOW);
    assertThat(counter("policy_file.reload_rejected")).isEqualTo(2);
  }

  private long counter(String name) {
    return ((io.spillway.edge.stats.Counter) stats.find(name).orElseThrow()).value();
  }
}
