package io.spillway.edge.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.stats.SuppliedGauge;
import io.spillway.policy.EffectivePolicy;
import io.spillway.policy.Mode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PeerGuardQueueTest {

  private final FakeLoop loop = new FakeLoop();
  private final StatsStore stats = new StatsStore();
  private final List<String> log = new ArrayList<>();

  private PeerGuard guard(EffectivePolicy.Outbound outbound) {
    return new PeerGuard("backend", outbound, stats, loop::now, () -> 0.5);
  }

  private RecordingCallback cb(String name) {
    return new RecordingCallback(log, name);
  }

  @Test
  void admitsUpToMaxConcurrentThenQueuesFifoAndRefusesOneMoreAtOnce() {
    PeerGuard guard = guard(Outbounds.limits(Mode.ENFORCE, 2, 3, 1000));

    Admission a1 = guard.tryAcquire(loop, cb("a1"));
    Admission a2 = guard.tryAcquire(loop, cb("a2"));
    RecordingCallback c1 = cb("q1");
    RecordingCallback c2 = cb("q2");
    RecordingCallback c3 = cb("q3");
    Admission q1 = guard.tryAcquire(loop, c1);
    Admission q2 = guard.tryAcquire(loop, c2);
    Admission q3 = guard.tryAcquire(loop, c3);
    Admission full = guard.tryAcquire(loop, cb("full"));

    assertThat(a1).isInstanceOf(Permit.class);
    assertThat(a2).isInstanceOf(Permit.class);
    assertThat(q1).isInstanceOf(Ticket.class);
    assertThat(q2).isInstanceOf(Ticket.class);
    assertThat(q3).isInstanceOf(Ticket.class);
    assertThat(full).isEqualTo(Refusal.QUEUE_FULL);
    assertThat(guard.inFlight()).isEqualTo(2);
    assertThat(guard.waiting()).isEqualTo(3);
    assertThat(guard.rejected(Mode.ENFORCE, Refusal.QUEUE_FULL)).isEqualTo(1);
    assertThat(guard.rejected(Mode.SHADOW, Refusal.QUEUE_FULL)).isZero();

    ((Permit) a2).release(Outcome.SUCCESS);
    assertThat(log).as("callbacks run on the loop, never inline").isEmpty();
    loop.runPending();
    assertThat(log).containsExactly("q1:admitted");
    assertThat(guard.inFlight()).isEqualTo(2);
    assertThat(guard.waiting()).isEqualTo(2);

    ((Permit) a1).release(Outcome.SUCCESS);
    c1.permit.release(Outcome.SUCCESS);
    loop.runPending();
    assertThat(log).containsExactly("q1:admitted", "q2:admitted", "q3:admitted");
    assertThat(guard.waiting()).isZero();
    assertThat(loop.liveTimers()).as("queue timers cancelled on admission").isZero();

    c2.permit.release(Outcome.SUCCESS);
    c3.permit.release(Outcome.SUCCESS);
    assertThat(guard.inFlight()).isZero();
  }

  @Test
  void aQueuedCallTimesOutAfterQueueTimeout() {
    PeerGuard guard = guard(Outbounds.limits(Mode.ENFORCE, 1, 4, 100));
    Permit held = (Permit) guard.tryAcquire(loop, cb("held"));
    RecordingCallback waiter = cb("w");
    assertThat(guard.tryAcquire(loop, waiter)).isInstanceOf(Ticket.class);

    loop.advanceMillis(99);
    assertThat(log).isEmpty();
    assertThat(guard.waiting()).isEqualTo(1);

    loop.advanceMillis(1);
    assertThat(log).containsExactly("w:queue_timeout");
    assertThat(waiter.refusal).isEqualTo(Refusal.QUEUE_TIMEOUT);
    assertThat(guard.waiting()).isZero();
    assertThat(guard.rejected(Mode.ENFORCE, Refusal.QUEUE_TIMEOUT)).isEqualTo(1);

    held.release(Outcome.SUCCESS);
    loop.runPending();
    assertThat(log).containsExactly("w:queue_timeout");
    assertThat(guard.inFlight()).isZero();
  }

  @Test
  void cancelWithdrawsAWaitingCallAndIsFalseOnceAdmitted() {
    PeerGuard guard = guard(Outbounds.limits(Mode.ENFORCE, 1, 4, 1000));
    Permit held = (Permit) guard.tryAcquire(loop, cb("held"));
    Ticket gone = (Ticket) guard.tryAcquire(loop, cb("gone"));
    RecordingCallback stays = cb("stays");
    Ticket kept = (Ticket) guard.tryAcquire(loop, stays);

    assertThat(gone.cancel()).isTrue();
    assertThat(gone.cancel()).isFalse();
    assertThat(guard.waiting()).isEqualTo(1);

    held.release(Outcome.SUCCESS);
    loop.runPending();
    assertThat(log).containsExactly("stays:admitted");
    assertThat(kept.cancel()).isFalse();
    stays.permit.release(Outcome.SUCCESS);
    loop.advanceMillis(2000);
    assertThat(log).containsExactly("stays:admitted");
    assertThat(guard.inFlight()).isZero();
    assertThat(guard.rejected(Mode.ENFORCE, Refusal.QUEUE_TIMEOUT)).isZero();
  }

  @Test
  void releaseIsExactlyOnce() {
    PeerGuard guard = guard(Outbounds.limits(Mode.ENFORCE, 1, 4, 1000));
    Permit first = (Permit) guard.tryAcquire(loop, cb("first"));
    RecordingCallback queued = cb("queued");
    guard.tryAcquire(loop, queued);

    assertThat(first.release(Outcome.SUCCESS)).isTrue();
    assertThat(first.release(Outcome.SUCCESS)).isFalse();
    assertThat(first.release(Outcome.TRANSPORT_ERROR)).isFalse();
    loop.runPending();
    assertThat(guard.inFlight()).as("the queued call holds the freed slot").isEqualTo(1);

    assertThat(queued.permit.release(Outcome.SUCCESS)).isTrue();
    assertThat(queued.permit.release(Outcome.SUCCESS)).isFalse();
    assertThat(guard.inFlight()).isZero();

    Permit again = (Permit) guard.tryAcquire(loop, cb("again"));
    first.release(Outcome.SUCCESS);
    assertThat(guard.inFlight()).as("a late second release does not free the next call's slot").isEqualTo(1);
    again.release(Outcome.SUCCESS);
    assertThat(guard.inFlight()).isZero();
  }

  @Test
  void applyPolicyKeepsCountsAndARaisedLimitAdmitsWaitingCalls() {
    EffectivePolicy.Outbound one = Outbounds.limits(Mode.ENFORCE, 1, 4, 1000);
    PeerGuard guard = guard(one);
    Permit held = (Permit) guard.tryAcquire(loop, cb("held"));
    RecordingCallback waiter = cb("w");
    guard.tryAcquire(loop, waiter);

    guard.applyPolicy(Outbounds.withMaxConcurrent(one, 3));
    loop.runPending();
    assertThat(log).containsExactly("w:admitted");
    assertThat(guard.inFlight()).isEqualTo(2);
    Admission x = guard.tryAcquire(loop, cb("x"));
    assertThat(x).isInstanceOf(Permit.class);
    ((Permit) x).release(Outcome.SUCCESS);

    guard.applyPolicy(Outbounds.withMaxConcurrent(one, 1));
    assertThat(guard.inFlight()).isEqualTo(2);
    assertThat(guard.tryAcquire(loop, cb("y"))).isInstanceOf(Ticket.class);
    held.release(Outcome.SUCCESS);
    loop.runPending();
    assertThat(log).as("still above the lowered limit").containsExactly("w:admitted");
    waiter.permit.release(Outcome.SUCCESS);
    loop.runPending();
    assertThat(log).containsExactly("w:admitted", "y:admitted");
  }

  @Test
  void requestTimeoutIsArmedOnlyInEnforce() {
    PeerGuard guard = guard(Outbounds.defaults(Mode.ENFORCE));
    assertThat(guard.requestTimeoutMillis()).hasValue(10_000);
    guard.applyPolicy(Outbounds.defaults(Mode.SHADOW));
    assertThat(guard.requestTimeoutMillis()).isEmpty();
    guard.applyPolicy(Outbounds.defaults(Mode.OFF));
    assertThat(guard.requestTimeoutMillis()).isEmpty();
  }

  @Test
  void metricsCarryTheSpecNamesAndThePeer() {
    PeerGuard guard = guard(Outbounds.withBreaker(Outbounds.limits(Mode.ENFORCE, 1, 1, 1000), 0.5, 1, 10, 5, 1));
    guard.tryAcquire(loop, cb("a"));
    guard.tryAcquire(loop, cb("b"));
    guard.tryAcquire(loop, cb("c"));

    assertThat(gauge("http_client_guard_in_flight.peer.backend")).isEqualTo(1);
    assertThat(gauge("http_client_guard_waiting.peer.backend")).isEqualTo(1);
    assertThat(gauge("http_client_guard_breaker_state.peer.backend")).isZero();
    assertThat(counter("http_client_guard_rejected_total.mode.enforce.peer.backend.reason.queue_full")).isEqualTo(1);
    assertThat(counter("http_client_guard_rejected_total.mode.shadow.peer.backend.reason.queue_full")).isZero();
    assertThat(stats.find("http_client_guard_rejected_total.mode.enforce.peer.backend.reason.retry_budget")).isPresent();
  }

  private double gauge(String name) {
    return ((SuppliedGauge) stats.find(name).orElseThrow()).value();
  }

  private long counter(String name) {
    return ((Counter) stats.find(name).orElseThrow()).value();
  }
}
