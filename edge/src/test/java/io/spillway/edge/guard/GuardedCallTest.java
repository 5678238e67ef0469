package io.spillway.edge.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.stats.StatsStore;
import io.spillway.policy.EffectivePolicy;
import io.spillway.policy.Mode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A side-service call through the guard: made at once without a guard or with a slot (the guard's
 * request timeout capping the deadline in enforce), queued until a slot frees, refused, withdrawn
 * when the request goes away, and its permit released exactly once.
 */
class GuardedCallTest {

  private final FakeLoop loop = new FakeLoop();
  private final StatsStore stats = new StatsStore();
  private final List<String> log = new ArrayList<>();

  private PeerGuard guard(int maxConcurrent, int maxQueue, int requestTimeoutMillis) {
    EffectivePolicy.Outbound o = Outbounds.limits(Mode.ENFORCE, maxConcurrent, maxQueue, 1000);
    o = new EffectivePolicy.Outbound(o.mode(), o.maxConcurrent(), o.maxQueue(), o.queueTimeoutMillis(),
        requestTimeoutMillis, o.breaker(), o.retryBudget());
    return new PeerGuard("rls", o, stats, loop::now, () -> 0.5);
  }

  private GuardedCall call(PeerGuard guard, Duration timeout, String name) {
    return new GuardedCall(guard, timeout, new GuardedCall.Steps() {
      @Override
      public void call(Duration deadline) {
        log.add(name + ":call " + deadline.toMillis());
      }

      @Override
      public void refused(Refusal reason) {
        log.add(name + ":refused " + reason.label());
      }
    });
  }

  @Test
  void withoutAGuardTheCallIsMadeAtOnceWithItsOwnDeadline() {
    call(null, Duration.ofMillis(20), "a").start(loop);
    assertThat(log).containsExactly("a:call 20");
  }

  @Test
  void theGuardsRequestTimeoutCapsTheDeadline() {
    PeerGuard guard = guard(4, 4, 15);
    call(guard, Duration.ofMillis(20), "short").start(loop);
    call(guard, Duration.ZERO, "none").start(loop);
    call(guard, Duration.ofMillis(10), "shorter").start(loop);
    assertThat(log).containsExactly("short:call 15", "none:call 15", "shorter:call 10");
  }

  @Test
  void aQueuedCallWaitsForASlotAndAFullQueueRefuses() {
    PeerGuard guard = guard(1, 1, 10_000);
    GuardedCall first = call(guard, Duration.ofMillis(20), "first");
    first.start(loop);
    call(guard, Duration.ofMillis(20), "queued").start(loop);
    call(guard, Duration.ofMillis(20), "full").start(loop);
    assertThat(log).containsExactly("first:call 20", "full:refused queue_full");

    first.release(Outcome.SUCCESS);
    first.release(Outcome.SUCCESS); // once only
    loop.runPending();
    assertThat(log).containsExactly("first:call 20", "full:refused queue_full", "queued:call 20");
    assertThat(guard.inFlight()).isEqualTo(1);
  }

  @Test
  void abandoningGivesTheSlotBackAndWithdrawsAWaitingCall() {
    PeerGuard guard = guard(1, 1, 10_000);
    GuardedCall first = call(guard, Duration.ofMillis(20), "first");
    first.start(loop);
    GuardedCall waiting = call(guard, Duration.ofMillis(20), "waiting");
    waiting.start(loop);
    assertThat(guard.waiting()).isEqualTo(1);

    waiting.abandon();
    assertThat(guard.waiting()).isZero();
    first.abandon();
    loop.runPending();
    assertThat(guard.inFlight()).isZero();
    assertThat(log).containsExactly("first:call 20");
  }
}
