package io.spillway.edge.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.stats.StatsStore;
import io.spillway.policy.EffectivePolicy;
import io.spillway.policy.Mode;
import org.junit.jupiter.api.Test;

class PeerGuardRetryBudgetTest {

  private final FakeLoop loop = new FakeLoop();

  private PeerGuard guard(Mode mode, double ratio, int minPerSecond) {
    EffectivePolicy.Outbound o = Outbounds.withBudget(Outbounds.limits(mode, 1000, 1000, 1000), ratio, minPerSecond);
    return new PeerGuard("p", o, new StatsStore(), loop::now, () -> 0.5);
  }

  /** Asks for {@code attempts} retries; each allowed one makes its call, as the router would. */
  private int allowed(PeerGuard guard, int attempts) {
    int allowed = 0;
    for (int i = 0; i < attempts; i++) {
      if (guard.canRetry()) {
        allowed++;
        if (guard.mode() != Mode.SHADOW) {
          calls(guard, 1);
        }
      }
    }
    return allowed;
  }

  private void calls(PeerGuard guard, int n) {
    for (int i = 0; i < n; i++) {
      ((Permit) guard.tryAcquire(loop, RecordingCallback.unused())).release(Outcome.SUCCESS);
    }
  }

  @Test
  void minPerSecondIsAlwaysAllowedEvenWithoutCalls() {
    PeerGuard guard = guard(Mode.ENFORCE, 0.0, 5);
    assertThat(allowed(guard, 8)).isEqualTo(5);
    assertThat(guard.rejected(Mode.ENFORCE, Refusal.RETRY_BUDGET)).isEqualTo(3);
    loop.advanceMillis(999);
    assertThat(guard.canRetry()).isFalse();
    loop.advanceMillis(1);
    assertThat(allowed(guard, 8)).isEqualTo(5);
  }

  @Test
  void ratioOfCallsInTheLastTenSeconds() {
    PeerGuard guard = guard(Mode.ENFORCE, 0.1, 0);
    assertThat(guard.canRetry()).isFalse();
    calls(guard, 100);
    assertThat(allowed(guard, 20)).isEqualTo(10);

    loop.advanceMillis(5_000);
    assertThat(guard.canRetry()).as("still spent within the window").isFalse();
    loop.advanceMillis(5_000);
    assertThat(guard.canRetry()).as("the calls left the window").isFalse();
    calls(guard, 50);
    assertThat(allowed(guard, 20)).isEqualTo(5);
  }

  @Test
  void floorAndRatioAddUp() {
    PeerGuard guard = guard(Mode.ENFORCE, 0.5, 2);
    calls(guard, 10);
    // the floor covers the first 2 of this second; the ratio allows 5 in the window in all
    assertThat(allowed(guard, 20)).isEqualTo(5);
    loop.advanceMillis(1_000);
    assertThat(allowed(guard, 20)).as("a new second: the floor again").isEqualTo(2);
  }

  @Test
  void retriesFollowedByTheirCallsDoNotFundThemselves() {
    PeerGuard guard = guard(Mode.ENFORCE, 0.5, 0);
    calls(guard, 4);
    int retries = 0;
    while (guard.canRetry()) {
      calls(guard, 1); // the retry's own attempt
      retries++;
      assertThat(retries).isLessThan(100);
    }
    assertThat(retries).isEqualTo(2);
  }

  @Test
  void shadowAllowsEveryRetryAndCountsTheRefusals() {
    PeerGuard guard = guard(Mode.SHADOW, 0.0, 1);
    assertThat(allowed(guard, 4)).isEqualTo(4);
    assertThat(guard.rejected(Mode.SHADOW, Refusal.RETRY_BUDGET)).isEqualTo(3);
    assertThat(guard.rejected(Mode.ENFORCE, Refusal.RETRY_BUDGET)).isZero();
  }
}
