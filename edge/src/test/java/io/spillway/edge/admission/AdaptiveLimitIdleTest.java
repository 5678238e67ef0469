package io.spillway.edge.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.policy.Mode;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * An edge without load must keep its starting limit: a trickle of requests whose call times vary
 * (JIT warm-up, a cold cache, a slow first connection) is not congestion, because with less than
 * one request in flight on average nothing can be queueing behind the edge's own traffic.
 */
class AdaptiveLimitIdleTest {

  private static final long MS = 1_000_000L;

  private final AtomicLong clock = new AtomicLong(1_000_000 * MS);
  private final AdaptiveLimit limit = new AdaptiveLimit(Policies.defaults(Mode.ENFORCE).adaptive(), 256, clock::get);

  /** One request every {@code gapMs}, taking {@code callMs}. */
  private void trickle(int requests, long gapMs, long callMs) {
    for (int i = 0; i < requests; i++) {
      clock.addAndGet(gapMs * MS);
      limit.onSample(Tier.PROXY, callMs * MS);
    }
  }

  @Test
  void warmUpAndSlowCallsAtIdleDoNotShrinkTheLimit() {
    trickle(32, 200, 2);     // fast first calls: the baseline is learned at 2 ms
    trickle(64, 150, 40);    // then 20 times slower, but about 0.27 in flight
    trickle(64, 1_000, 300); // and a very slow backend at one call a second: 0.3 in flight
    assertThat(limit.limit()).isEqualTo(256);
  }

  @Test
  void aLateTimerWithNothingInFlightIsNotLoadButUnderLoadItShrinksTheLimit() {
    trickle(32, 200, 2);
    for (int i = 0; i < 200; i++) { // 2 s of 150 ms lag on an edge with nothing to do
      clock.addAndGet(10 * MS);
      limit.onExecutorLag(150 * MS, 0);
    }
    assertThat(limit.limit()).isEqualTo(256);
    for (int i = 0; i < 20; i++) { // the same lag with requests in flight
      clock.addAndGet(10 * MS);
      limit.onExecutorLag(150 * MS, 40);
    }
    assertThat(limit.limit()).isLessThan(256);
  }

  @Test
  void anIdleEdgeThatTurnsBusyStillShrinksWhenCallsQueue() {
    trickle(32, 200, 2);
    // 400 calls in flight on average over 25 ms windows, each 10 times slower than the baseline
    for (int window = 0; window < 40; window++) {
      for (int i = 0; i < 50; i++) {
        clock.addAndGet(MS / 2);
        limit.onSample(Tier.PROXY, 20 * MS * 10); // 200 ms calls: 50 × 200 ms / 25 ms = 400 in flight
      }
    }
    assertThat(limit.limit()).isLessThan(256);
  }
}
