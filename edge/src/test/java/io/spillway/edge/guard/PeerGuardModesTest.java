package io.spillway.edge.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.stats.StatsStore;
import io.spillway.policy.EffectivePolicy;
import io.spillway.policy.Mode;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PeerGuardModesTest {

  /** Small limits, breaker and budget so one short sequence hits every refusal reason. */
  private static EffectivePolicy.Outbound policy(Mode mode) {
    EffectivePolicy.Outbound o = Outbounds.limits(mode, 2, 1, 100);
    o = Outbounds.withBreaker(o, 0.5, 4, 10, 5, 1);
    return Outbounds.withBudget(o, 0.0, 1);
  }

  /** What one run of {@link #scenario} saw. */
  private record Run(Map<Refusal, Long> enforce, Map<Refusal, Long> shadow, List<Class<?>> answers,
      BreakerState breaker, int inFlight, int waiting, List<Boolean> retries) {}

  /**
   * A fixed sequence of calls, outcomes, time and retries. Every call enforce would not have made
   * is still released in shadow (the call really happened there).
   */
  private static Run scenario(Mode mode) {
    FakeLoop loop = new FakeLoop();
    PeerGuard guard = new PeerGuard("p", policy(mode), new StatsStore(), loop::now, () -> 0.5);
    List<Admission> calls = new ArrayList<>();
    List<Boolean> retries = new ArrayList<>();
    for (int i = 0; i < 4; i++) { // 2 admitted, 1 queued, 1 queue full
      calls.add(guard.tryAcquire(loop, RecordingCallback.unused()));
    }
    loop.advanceMillis(150); // the queued call times out
    finish(calls.get(2), Outcome.SUCCESS);
    finish(calls.get(3), Outcome.SUCCESS);
    finish(calls.get(0), Outcome.SUCCESS);
    finish(calls.get(1), Outcome.HTTP_503);
    for (int i = 0; i < 2; i++) { // two more failures: 4 calls, 3 failed → open
      Admission a = guard.tryAcquire(loop, RecordingCallback.unused());
      calls.add(a);
      finish(a, i == 0 ? Outcome.TRANSPORT_ERROR : Outcome.TIMEOUT);
    }
    Admission whileOpen = guard.tryAcquire(loop, RecordingCallback.unused());
    calls.add(whileOpen);
    finish(whileOpen, Outcome.SUCCESS);
    retries.add(guard.canRetry());
    retries.add(guard.canRetry());
    loop.advanceMillis(5_000); // half-open: one probe, the next call is refused
    Admission probe = guard.tryAcquire(loop, RecordingCallback.unused());
    Admission second = guard.tryAcquire(loop, RecordingCallback.unused());
    calls.add(probe);
    calls.add(second);
    finish(second, Outcome.SUCCESS);
    finish(probe, Outcome.SUCCESS); // closes
    List<Class<?>> answers = calls.stream().<Class<?>>map(Object::getClass).toList();
    Map<Refusal, Long> enforce = new EnumMap<>(Refusal.class);
    Map<Refusal, Long> shadow = new EnumMap<>(Refusal.class);
    for (Refusal r : Refusal.values()) {
      enforce.put(r, guard.rejected(Mode.ENFORCE, r));
      shadow.put(r, guard.rejected(Mode.SHADOW, r));
    }
    return new Run(enforce, shadow, answers, guard.breakerState(), guard.inFlight(), guard.waiting(), retries);
  }

  private static void finish(Admission a, Outcome outcome) {
    if (a instanceof Permit p) {
      p.release(outcome);
    }
  }

  @Test
  void shadowCountsExactlyWhatEnforceRefusesAndRefusesNothing() {
    Run enforce = scenario(Mode.ENFORCE);
    Run shadow = scenario(Mode.SHADOW);

    assertThat(enforce.enforce()).containsEntry(Refusal.QUEUE_FULL, 1L).containsEntry(Refusal.QUEUE_TIMEOUT, 1L)
        .containsEntry(Refusal.BREAKER_OPEN, 2L).containsEntry(Refusal.RETRY_BUDGET, 1L);
    assertThat(enforce.shadow()).allSatisfy((r, n) -> assertThat(n).isZero());
    assertThat(enforce.answers()).contains(Refusal.class, Ticket.class);
    assertThat(enforce.retries()).containsExactly(true, false);

    assertThat(shadow.shadow()).isEqualTo(enforce.enforce());
    assertThat(shadow.enforce()).allSatisfy((r, n) -> assertThat(n).isZero());
    assertThat(shadow.answers()).allMatch(c -> c == Permit.class);
    assertThat(shadow.retries()).containsExactly(true, true);

    assertThat(shadow.breaker()).isEqualTo(enforce.breaker()).isEqualTo(BreakerState.CLOSED);
    assertThat(shadow.inFlight()).isEqualTo(enforce.inFlight()).isZero();
    assertThat(shadow.waiting()).isEqualTo(enforce.waiting()).isZero();
  }

  @Test
  void shadowWouldQueueAndThenHoldTheFreedSlot() {
    FakeLoop loop = new FakeLoop();
    PeerGuard guard = new PeerGuard("p", Outbounds.limits(Mode.SHADOW, 1, 2, 1000), new StatsStore(), loop::now,
        () -> 0.5);
    Permit first = (Permit) guard.tryAcquire(loop, RecordingCallback.unused());
    Permit second = (Permit) guard.tryAcquire(loop, RecordingCallback.unused());
    assertThat(second.shadowQueued()).isTrue();
    assertThat(guard.inFlight()).isEqualTo(1);
    assertThat(guard.waiting()).isEqualTo(1);

    first.release(Outcome.SUCCESS);
    assertThat(guard.inFlight()).as("the would-be waiter takes the slot").isEqualTo(1);
    assertThat(guard.waiting()).isZero();
    second.release(Outcome.SUCCESS);
    assertThat(guard.inFlight()).isZero();

    Permit third = (Permit) guard.tryAcquire(loop, RecordingCallback.unused());
    Permit fourth = (Permit) guard.tryAcquire(loop, RecordingCallback.unused());
    fourth.release(Outcome.SUCCESS); // finished while enforce would still have had it waiting
    assertThat(guard.waiting()).isZero();
    third.release(Outcome.SUCCESS);
    assertThat(guard.inFlight()).isZero();
    assertThat(loop.liveTimers()).isZero();
  }

  @Test
  void offCountsNothingAndRefusesNothing() {
    FakeLoop loop = new FakeLoop();
    StatsStore stats = new StatsStore();
    EffectivePolicy.Outbound off = Outbounds.withBudget(
        Outbounds.withBreaker(Outbounds.limits(Mode.OFF, 1, 1, 100), 0.01, 1, 10, 5, 1), 0.0, 0);
    PeerGuard guard = new PeerGuard("p", off, stats, loop::now, () -> 0.5);

    for (int i = 0; i < 100; i++) {
      Admission a = guard.tryAcquire(loop, RecordingCallback.unused());
      assertThat(a).isSameAs(Permit.UNCOUNTED);
      assertThat(((Permit) a).counted()).isFalse();
      ((Permit) a).release(Outcome.TRANSPORT_ERROR);
      assertThat(guard.canRetry()).isTrue();
    }
    loop.advanceMillis(1000);

    assertThat(guard.inFlight()).isZero();
    assertThat(guard.waiting()).isZero();
    assertThat(guard.breakerState()).isEqualTo(BreakerState.CLOSED);
    for (Refusal r : Refusal.values()) {
      assertThat(guard.rejected(Mode.SHADOW, r)).isZero();
      assertThat(guard.rejected(Mode.ENFORCE, r)).isZero();
    }
    assertThat(loop.liveTimers()).isZero();
  }
}
