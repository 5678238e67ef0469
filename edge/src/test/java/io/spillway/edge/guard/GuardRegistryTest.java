package io.spillway.edge.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.stats.StatsStore;
import io.spillway.policy.Mode;
import java.util.List;
import org.junit.jupiter.api.Test;

class GuardRegistryTest {

  private final FakeLoop loop = new FakeLoop();
  private final StatsStore stats = new StatsStore();

  @Test
  void oneGuardPerPeerAndNoneForUnguardedPeers() {
    GuardRegistry registry = GuardRegistry.build(List.of("auth", "api", "auth"), Outbounds.defaults(Mode.SHADOW), stats,
        loop::now, () -> 0.5);

    assertThat(registry.guards()).containsOnlyKeys("auth", "api");
    assertThat(registry.guard("auth").peer()).isEqualTo("auth");
    assertThat(registry.guard("central")).isNull();
    assertThat(stats.find("http_client_guard_in_flight.peer.api")).isPresent();
  }

  @Test
  void applyPolicyReachesEveryGuardAndKeepsInFlight() {
    GuardRegistry registry = GuardRegistry.build(List.of("auth", "api"), Outbounds.defaults(Mode.SHADOW), stats,
        loop::now, () -> 0.5);
    Permit held = (Permit) registry.guard("api").tryAcquire(loop, RecordingCallback.unused());

    registry.applyPolicy(Outbounds.defaults(Mode.ENFORCE));

    assertThat(registry.guard("auth").mode()).isEqualTo(Mode.ENFORCE);
    assertThat(registry.guard("api").mode()).isEqualTo(Mode.ENFORCE);
    assertThat(registry.guard("api").inFlight()).isEqualTo(1);
    held.release(Outcome.SUCCESS);
    assertThat(registry.guard("api").inFlight()).isZero();
  }

  @Test
  void nextKeepsTheGuardsOfPeersThatStay() {
    GuardRegistry first = GuardRegistry.build(List.of("auth", "api"), Outbounds.defaults(Mode.SHADOW), stats,
        loop::now, () -> 0.5);
    first.applyPolicy(Outbounds.defaults(Mode.ENFORCE));
    GuardRegistry second = first.next(List.of("api", "billing"));

    assertThat(second.guard("api")).isSameAs(first.guard("api"));
    assertThat(second.guard("auth")).isNull();
    assertThat(second.guard("billing").mode()).isEqualTo(Mode.ENFORCE);
  }
}
