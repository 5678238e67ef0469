package io.spillway.edge.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.stats.StatsStore;
import io.spillway.policy.EffectivePolicy;
import io.spillway.policy.Mode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PeerGuardBreakerTest {

  private final FakeLoop loop = new FakeLoop();
  private double random = 0.5;

  private PeerGuard guard(EffectivePolicy.Outbound outbound) {
    return new PeerGuard("p", outbound, new StatsStore(), loop::now, () -> random);
  }

  /** failureRatio 0.5, minCalls 10, window 10 s, open 5 s, 3 probes; limits out of the way. */
  private static EffectivePolicy.Outbound breaker(Mode mode) {
    return Outbounds.withBreaker(Outbounds.limits(mode, 1000, 1000, 1000), 0.5, 10, 10, 5, 3);
  }

  private void call(PeerGuard guard, Outcome outcome) {
    Admission a = guard.tryAcquire(loop, RecordingCallback.unused());
    assertThat(a).isInstanceOf(Permit.class);
    ((Permit) a).release(outcome);
  }

  private void calls(PeerGuard guard, int n, Outcome outcome) {
    for (int i = 0; i < n; i++) {
      call(guard, outcome);
    }
  }

  private void open(PeerGuard guard) {
    calls(guard, 10, Outcome.HTTP_502);
    assertThat(guard.breakerState()).isEqualTo(BreakerState.OPEN);
  }

  @Test
  void opensAtTheRatioOnlyOnceMinCallsAreInTheWindow() {
    PeerGuard guard = guard(breaker(Mode.ENFORCE));
    calls(guard, 5, Outcome.SUCCESS);
    calls(guard, 4, Outcome.TRANSPORT_ERROR);
    assertThat(guard.breakerState()).as("9 calls < minCalls").isEqualTo(BreakerState.CLOSED);
    call(guard, Outcome.HTTP_504);
    assertThat(guard.breakerState()).as("10 calls, 5 failed = 0.5").isEqualTo(BreakerState.OPEN);
  }

  @Test
  void staysClosedBelowTheRatioAndForgetsCallsOutsideTheWindow() {
    PeerGuard guard = guard(breaker(Mode.ENFORCE));
    calls(guard, 6, Outcome.SUCCESS);
    calls(guard, 4, Outcome.TIMEOUT);
    assertThat(guard.breakerState()).as("0.4 < 0.5").isEqualTo(BreakerState.CLOSED);

    loop.advanceMillis(10_000); // the window moved past all of them
    calls(guard, 9, Outcome.TIMEOUT);
    assertThat(guard.breakerState()).as("only 9 calls in the window").isEqualTo(BreakerState.CLOSED);
    call(guard, Outcome.TIMEOUT);
    assertThat(guard.breakerState()).isEqualTo(BreakerState.OPEN);
  }

  @Test
  void abandonedCallsAndOwnRefusalsNeverCountAsPeerFailures() {
    EffectivePolicy.Outbound o = Outbounds.withBudget(
        Outbounds.withBreaker(Outbounds.limits(Mode.ENFORCE, 1, 1, 10), 0.01, 1, 10, 5, 1), 0.0, 0);
    PeerGuard guard = guard(o);
    Permit held = (Permit) guard.tryAcquire(loop, RecordingCallback.unused());
    for (int i = 0; i < 50; i++) {
      assertThat(guard.tryAcquire(loop, RecordingCallback.unused())).isInstanceOf(Ticket.class);
      assertThat(guard.tryAcquire(loop, RecordingCallback.unused())).isEqualTo(Refusal.QUEUE_FULL);
      loop.advanceMillis(10);
      assertThat(guard.canRetry()).isFalse();
    }
    assertThat(guard.rejected(Mode.ENFORCE, Refusal.QUEUE_FULL)).isEqualTo(50);
    assertThat(guard.rejected(Mode.ENFORCE, Refusal.QUEUE_TIMEOUT)).isEqualTo(50);
    assertThat(guard.rejected(Mode.ENFORCE, Refusal.RETRY_BUDGET)).isEqualTo(50);
    held.release(Outcome.ABANDONED);
    assertThat(guard.breakerState()).isEqualTo(BreakerState.CLOSED);

    call(guard, Outcome.HTTP_503);
    assertThat(guard.breakerState()).as("a real failure does open it").isEqualTo(BreakerState.OPEN);
  }

  @Test
  void openRefusesForOpenSecondsThenHalfOpenAdmitsExactlyProbeCallsAcrossRacingThreads() throws Exception {
    PeerGuard guard = guard(breaker(Mode.ENFORCE));
    open(guard);
    assertThat(guard.tryAcquire(loop, RecordingCallback.unused())).isEqualTo(Refusal.BREAKER_OPEN);
    loop.advanceMillis(4_999);
    assertThat(guard.tryAcquire(loop, RecordingCallback.unused())).isEqualTo(Refusal.BREAKER_OPEN);
    loop.advanceMillis(1);

    ConcurrentLinkedQueue<Permit> probes = new ConcurrentLinkedQueue<>();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        done.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < 2_000; i++) {
            Admission a = guard.tryAcquire(loop, RecordingCallback.unused());
            if (a instanceof Permit p) {
              probes.add(p);
            } else {
              assertThat(a).isEqualTo(Refusal.BREAKER_OPEN);
            }
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(probes).hasSize(3).allMatch(Permit::probe);
    assertThat(guard.breakerState()).isEqualTo(BreakerState.HALF_OPEN);
    assertThat(guard.inFlight()).isEqualTo(3);

    List<Permit> list = new ArrayList<>(probes);
    list.get(0).release(Outcome.SUCCESS);
    list.get(1).release(Outcome.SUCCESS);
    assertThat(guard.breakerState()).isEqualTo(BreakerState.HALF_OPEN);
    assertThat(guard.tryAcquire(loop, RecordingCallback.unused())).as("no 4th probe").isEqualTo(Refusal.BREAKER_OPEN);
    list.get(2).release(Outcome.SUCCESS);
    assertThat(guard.breakerState()).isEqualTo(BreakerState.CLOSED);
    call(guard, Outcome.SUCCESS);
  }

  @Test
  void aProbeThatNeverGoesOutGivesItsSlotBack() {
    EffectivePolicy.Outbound two = Outbounds.withBreaker(Outbounds.limits(Mode.ENFORCE, 2, 1, 100), 0.5, 1, 10, 5, 1);
    PeerGuard guard = guard(two);
    Permit held = (Permit) guard.tryAcquire(loop, RecordingCallback.unused());
    call(guard, Outcome.TRANSPORT_ERROR);
    assertThat(guard.breakerState()).isEqualTo(BreakerState.OPEN);
    guard.applyPolicy(Outbounds.withMaxConcurrent(two, 1)); // the held call now fills the peer
    loop.advanceMillis(5_000);

    RecordingCallback timesOut = RecordingCallback.unused();
    assertThat(guard.tryAcquire(loop, timesOut)).as("the probe waits").isInstanceOf(Ticket.class);
    loop.advanceMillis(100);
    assertThat(timesOut.refusal).isEqualTo(Refusal.QUEUE_TIMEOUT);
    Ticket cancelled = (Ticket) guard.tryAcquire(loop, RecordingCallback.unused());
    assertThat(cancelled.cancel()).isTrue();
    held.release(Outcome.ABANDONED);

    Permit probe = (Permit) guard.tryAcquire(loop, RecordingCallback.unused());
    assertThat(probe.probe()).isTrue();
    probe.release(Outcome.ABANDONED);
    Permit again = (Permit) guard.tryAcquire(loop, RecordingCallback.unused());
    assertThat(again.probe()).as("an abandoned probe gives its slot back").isTrue();
    assertThat(guard.breakerState()).isEqualTo(BreakerState.HALF_OPEN);
    again.release(Outcome.HTTP_503);
    assertThat(guard.breakerState()).isEqualTo(BreakerState.OPEN);
  }

  @Test
  void aFailedProbeReopensWithADoublingJitteredCappedOpenTime() {
    PeerGuard guard = guard(breaker(Mode.ENFORCE));
    random = 0.5; // jitter factor 0.8 + 0.2 × 0.5 = 0.9
    open(guard);
    assertThat(guard.breakerOpenNanosLeft()).isEqualTo(5_000_000_000L);

    long[] expectedMillis = {9_000, 18_000, 36_000, 45_000, 45_000};
    for (long expected : expectedMillis) {
      loop.advanceMillis(guard.breakerOpenNanosLeft() / 1_000_000);
      Permit probe = (Permit) guard.tryAcquire(loop, RecordingCallback.unused());
      assertThat(probe.probe()).isTrue();
      probe.release(Outcome.TRANSPORT_ERROR);
      assertThat(guard.breakerState()).isEqualTo(BreakerState.OPEN);
      assertThat(guard.breakerOpenNanosLeft()).isEqualTo(expected * 1_000_000L);
      loop.advanceMillis(expected - 1);
      assertThat(guard.tryAcquire(loop, RecordingCallback.unused())).isEqualTo(Refusal.BREAKER_OPEN);
      loop.advanceMillis(1);
      // next round re-enters at the top of the loop with 0 left
      assertThat(guard.breakerOpenNanosLeft()).isZero();
    }

    random = 0.999_999;
    Permit probe = (Permit) guard.tryAcquire(loop, RecordingCallback.unused());
    probe.release(Outcome.HTTP_503);
    assertThat(guard.breakerOpenNanosLeft()).as("never above 10 × openSeconds")
        .isLessThanOrEqualTo(50_000_000_000L).isGreaterThan(49_000_000_000L);

    loop.advanceMillis(50_000);
    for (int i = 0; i < 3; i++) {
      Permit p = (Permit) guard.tryAcquire(loop, RecordingCallback.unused());
      p.release(Outcome.SUCCESS);
    }
    assertThat(guard.breakerState()).isEqualTo(BreakerState.CLOSED);
    open(guard);
    assertThat(guard.breakerOpenNanosLeft()).as("back-off restarts after closing").isEqualTo(5_000_000_000L);
  }

  @Test
  void twoEdgesWithDifferentRandomsReopenAtDifferentTimes() {
    random = 0.0;
    PeerGuard a = guard(breaker(Mode.ENFORCE));
    open(a);
    loop.advanceMillis(5_000);
    ((Permit) a.tryAcquire(loop, RecordingCallback.unused())).release(Outcome.TIMEOUT);
    long left = a.breakerOpenNanosLeft();
    assertThat(left).isEqualTo(8_000_000_000L);
    random = 0.9;
    PeerGuard b = guard(breaker(Mode.ENFORCE));
    open(b);
    loop.advanceMillis(5_000);
    ((Permit) b.tryAcquire(loop, RecordingCallback.unused())).release(Outcome.TIMEOUT);
    assertThat(b.breakerOpenNanosLeft()).isEqualTo(9_800_000_000L).isNotEqualTo(left);
  }

  @Test
  void shadowCountsTheBreakersRefusalsButAdmits() {
    PeerGuard guard = guard(breaker(Mode.SHADOW));
    open(guard);
    Admission a = guard.tryAcquire(loop, RecordingCallback.unused());
    assertThat(a).isInstanceOf(Permit.class);
    assertThat(((Permit) a).shadowRefused()).isTrue();
    ((Permit) a).release(Outcome.SUCCESS);
    assertThat(guard.rejected(Mode.SHADOW, Refusal.BREAKER_OPEN)).isEqualTo(1);
    assertThat(guard.rejected(Mode.ENFORCE, Refusal.BREAKER_OPEN)).isZero();
    assertThat(guard.breakerState()).isEqualTo(BreakerState.OPEN);
  }

  @Test
  void disablingTheBreakerResetsIt() {
    EffectivePolicy.Outbound on = breaker(Mode.ENFORCE);
    PeerGuard guard = guard(on);
    open(guard);
    guard.applyPolicy(Outbounds.limits(Mode.ENFORCE, 1000, 1000, 1000));
    assertThat(guard.breakerState()).isEqualTo(BreakerState.CLOSED);
    call(guard, Outcome.SUCCESS);
    guard.applyPolicy(on);
    assertThat(guard.breakerState()).isEqualTo(BreakerState.CLOSED);
    assertThat(guard.tryAcquire(loop, RecordingCallback.unused())).isInstanceOf(Permit.class);
  }

  @Test
  void aProbeReleasedUnderModeOffFreesItsSlot() {
    EffectivePolicy.Outbound on = Outbounds.withBreaker(Outbounds.limits(Mode.ENFORCE, 10, 10, 1000), 0.5, 1, 10, 5, 1);
    PeerGuard guard = guard(on);
    call(guard, Outcome.TIMEOUT);
    loop.advanceMillis(5_000);
    Permit probe = (Permit) guard.tryAcquire(loop, RecordingCallback.unused());
    assertThat(probe.probe()).isTrue();

    guard.applyPolicy(Outbounds.withMode(on, Mode.OFF));
    probe.release(Outcome.SUCCESS);
    guard.applyPolicy(on);

    Permit next = (Permit) guard.tryAcquire(loop, RecordingCallback.unused());
    assertThat(next.probe()).isTrue();
    next.release(Outcome.SUCCESS);
    assertThat(guard.breakerState()).isEqualTo(BreakerState.CLOSED);
  }
}
