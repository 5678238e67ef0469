package io.spillway.edge.guard;

import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.CustomScope;
import io.spillway.edge.stats.StatsStore;
import io.spillway.policy.EffectivePolicy;
import io.spillway.policy.Mode;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * The outbound guard of one upstream peer (SPEC §3.3), shared by all workers and lock-free (CAS on
 * atomics only; a queued call holds no thread — it waits as a {@link Ticket} with a callback).
 *
 * <h2>Per call</h2>
 *
 * <ol>
 *   <li>{@link #tryAcquire(GuardLoop, QueueCallback)} answers at once: a {@link Permit}, a
 *       {@link Refusal} ({@code 503}) or a {@link Ticket} (queued; the {@link QueueCallback} is
 *       called on the given loop when a slot frees, FIFO, or when {@code queueTimeoutMillis}
 *       passes).
 *   <li>The router arms the request timeout itself from {@link #requestTimeoutMillis()} (empty
 *       unless enforce) and answers {@code 504} when it fires before the response headers. The
 *       guard owns no request timer.
 *   <li>The router releases the permit exactly once with the {@link Outcome}.
 *   <li>Before retrying, the router asks {@link #canRetry()} (and then calls
 *       {@link #tryAcquire} again for the retry).
 * </ol>
 *
 * <h2>Modes</h2>
 *
 * <ul>
 *   <li>{@code off}: every call gets an uncounted permit; nothing is counted, learned or refused;
 *       {@link #canRetry()} is always true.
 *   <li>{@code shadow}: every call gets a permit; the same state machine as enforce runs (slots,
 *       a simulated FIFO queue with its timeout timers, the breaker, the retry budget) and what
 *       enforce would refuse is counted in {@code http_client_guard_rejected_total{mode="shadow"}}.
 *       A would-refused call takes no slot and its outcome is not fed to the breaker; a would-queued
 *       call holds a queue place, then a slot when one frees (or nothing once its simulated wait
 *       times out), so the counts follow what enforce would have done.
 *   <li>{@code enforce}: refuses and queues for real.
 * </ul>
 *
 * Permits taken in one mode release by what they hold after a mode switch. Own refusals (queue
 * full, queue timeout, breaker open, retry budget) are never fed to the breaker as peer failures.
 *
 * <h2>Order of checks</h2>
 *
 * PeerBreaker first (OPEN refuses; HALF_OPEN reserves one of {@code probeCalls} probe slots by CAS or
 * refuses), then the concurrency limit: a free slot admits (only when nobody waits, so waiting
 * calls are not overtaken), else the call queues if fewer than {@code maxQueue} wait, else it is
 * refused at once. A probe that never goes out (queue full, timeout, cancel) gives its slot back.
 */
public final class PeerGuard {

  private static final long NANOS_PER_SECOND = 1_000_000_000L;
  private static final String METRIC_REJECTED = "http_client_guard_rejected_total";

  /** Settings in force; one immutable object so a policy swap is atomic. */
  private record Settings(EffectivePolicy.Outbound outbound, OptionalInt requestTimeout) {
    Settings(EffectivePolicy.Outbound outbound) {
      this(outbound, outbound.mode() == Mode.ENFORCE ? OptionalInt.of(outbound.requestTimeoutMillis()) : OptionalInt.empty());
    }
  }

  private final String peer;
  private final LongSupplier nanoTime;
  private final long origin;
  private volatile Settings settings;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger waiting = new AtomicInteger();
  private final ConcurrentLinkedQueue<Ticket> queue = new ConcurrentLinkedQueue<>();
  private final PeerBreaker breaker;
  private final PeerRetryBudget retryBudget = new PeerRetryBudget();
  private final Counter[] rejectedShadow = new Counter[Refusal.values().length];
  private final Counter[] rejectedEnforce = new Counter[Refusal.values().length];

  /**
   * @param peer the peer (upstream cluster) name, the {@code peer} label
   * @param outbound the resolved outbound policy
   * @param stats where the {@code http_client_guard_*} metrics are registered
   * @param nanoTime the clock
   * @param random uniform in [0, 1), for the breaker's re-open jitter
   */
  public PeerGuard(String peer, EffectivePolicy.Outbound outbound, StatsStore stats, LongSupplier nanoTime,
      DoubleSupplier random) {
    this.peer = Objects.requireNonNull(peer, "peer");
    Objects.requireNonNull(outbound, "outbound");
    Objects.requireNonNull(stats, "stats");
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    this.breaker = new PeerBreaker(Objects.requireNonNull(random, "random"));
    this.origin = nanoTime.getAsLong();
    this.settings = new Settings(outbound);
    CustomScope scope = stats.customScope();
    for (Refusal reason : Refusal.values()) {
      rejectedShadow[reason.ordinal()] = scope.counter(METRIC_REJECTED,
          Map.of("mode", "shadow", "peer", peer, "reason", reason.label()));
      rejectedEnforce[reason.ordinal()] = scope.counter(METRIC_REJECTED,
          Map.of("mode", "enforce", "peer", peer, "reason", reason.label()));
    }
    Map<String, String> peerTag = Map.of("peer", peer);
    scope.gauge("http_client_guard_in_flight", peerTag, inFlight::get);
    scope.gauge("http_client_guard_waiting", peerTag, waiting::get);
    scope.gauge("http_client_guard_breaker_state", peerTag, () -> breakerState().code());
  }

  /**
   * Decides for one call (also for a retry, after {@link #canRetry()}). Never blocks and never
   * calls {@code callback} inline.
   *
   * @param loop the worker's loop: the queue timeout timer and the callback run there
   * @param callback told how a queued call ends (enforce only)
   */
  public Admission tryAcquire(GuardLoop loop, QueueCallback callback) {
    Objects.requireNonNull(loop, "loop");
    Objects.requireNonNull(callback, "callback");
    Settings s = settings;
    EffectivePolicy.Outbound o = s.outbound();
    if (o.mode() == Mode.OFF) {
      return Permit.UNCOUNTED;
    }
    boolean shadow = o.mode() == Mode.SHADOW;
    long now = nanoTime.getAsLong();
    long probe = PeerBreaker.NORMAL;
    if (o.breaker().enabled()) {
      probe = breaker.acquire(o.breaker(), now);
      if (probe == PeerBreaker.REFUSE) {
        return refuse(shadow, Refusal.BREAKER_OPEN);
      }
    }
    if (waiting.get() == 0 && reserve(inFlight, o.maxConcurrent())) {
      retryBudget.onCall(second(now));
      return new Permit(this, true, false, probe, null);
    }
    if (!reserve(waiting, o.maxQueue())) {
      if (probe >= 0) {
        breaker.abandonProbe(probe);
      }
      return refuse(shadow, Refusal.QUEUE_FULL);
    }
    retryBudget.onCall(second(now));
    Ticket ticket = new Ticket(this, loop, callback, shadow, probe);
    ticket.arm(o.queueTimeoutMillis());
    queue.offer(ticket);
    drain();
    return shadow ? new Permit(this, false, false, probe, ticket) : ticket;
  }

  private Admission refuse(boolean shadow, Refusal reason) {
    countRefusal(shadow, reason);
    return shadow ? new Permit(this, false, true, PeerBreaker.NORMAL, null) : reason;
  }

  /**
   * Whether a retry may be made now (Finagle-style budget, see {@link PeerRetryBudget}); an allowed
   * retry is withdrawn from the budget. A refused retry is counted as
   * {@code http_client_guard_rejected_total{reason="retry_budget"}} and is not a peer failure. In
   * shadow the answer is always true (a would-refuse is counted); in off always true, uncounted.
   * The router still spends a retry only inside the request's remaining deadline and on another
   * host than the one that just failed.
   */
  public boolean canRetry() {
    EffectivePolicy.Outbound o = settings.outbound();
    if (o.mode() == Mode.OFF) {
      return true;
    }
    if (retryBudget.tryWithdraw(o.retryBudget(), second(nanoTime.getAsLong()))) {
      return true;
    }
    boolean shadow = o.mode() == Mode.SHADOW;
    countRefusal(shadow, Refusal.RETRY_BUDGET);
    return shadow;
  }

  /** CAS-increments {@code counter} if below {@code bound}. */
  private static boolean reserve(AtomicInteger counter, int bound) {
    for (;;) {
      int current = counter.get();
      if (current >= bound) {
        return false;
      }
      if (counter.compareAndSet(current, current + 1)) {
        return true;
      }
    }
  }

  /**
   * Hands free slots to waiting tickets, FIFO. Run by whoever may have made progress possible
   * (a release, an enqueue, a policy change): each side writes first (decrement / enqueue) and
   * then looks at the other's, so a slot and a waiter never miss each other.
   */
  private void drain() {
    while (!queue.isEmpty()) {
      if (!reserve(inFlight, settings.outbound().maxConcurrent())) {
        return;
      }
      Ticket next;
      do {
        next = queue.poll();
      } while (next != null && !next.claim());
      if (next == null) {
        inFlight.decrementAndGet(); // nobody to give it to; look again
        continue;
      }
      next.deliver();
    }
  }

  void releaseSlot() {
    inFlight.decrementAndGet();
    drain();
  }

  void leftQueue() {
    waiting.decrementAndGet();
  }

  void unlink(Ticket ticket) {
    queue.remove(ticket);
  }

  void abandonProbe(long probe) {
    breaker.abandonProbe(probe);
  }

  void onOutcome(Outcome outcome, long probe) {
    EffectivePolicy.Outbound o = settings.outbound();
    if (o.mode() == Mode.OFF || !o.breaker().enabled()) {
      if (probe >= 0) {
        breaker.abandonProbe(probe); // never leave a probe slot taken by a call nobody judges
      }
      return;
    }
    long now = nanoTime.getAsLong();
    breaker.onOutcome(o.breaker(), outcome, probe, now, second(now));
  }

  void countRefusal(boolean shadow, Refusal reason) {
    (shadow ? rejectedShadow : rejectedEnforce)[reason.ordinal()].inc();
  }

  private long second(long now) {
    return Math.max(0, (now - origin) / NANOS_PER_SECOND);
  }

  /**
   * Swaps every setting atomically. In-flight and waiting counts are kept; a raised
   * {@code maxConcurrent} admits waiting calls at once, a lowered one admits nobody until in flight
   * falls below it. Disabling the breaker resets it to closed with an empty window.
   */
  public void applyPolicy(EffectivePolicy.Outbound outbound) {
    Objects.requireNonNull(outbound, "outbound");
    boolean wasEnabled = settings.outbound().breaker().enabled();
    settings = new Settings(outbound);
    if (wasEnabled && !outbound.breaker().enabled()) {
      breaker.reset(second(nanoTime.getAsLong()));
    }
    drain();
  }

  /**
   * The request timeout the router arms (until response headers; {@code 504} on expiry): present
   * only in enforce. The router owns that timer.
   */
  public OptionalInt requestTimeoutMillis() {
    return settings.requestTimeout();
  }

  /** The peer's name. */
  public String peer() {
    return peer;
  }

  /** The mode in force. */
  public Mode mode() {
    return settings.outbound().mode();
  }

  /** The policy in force. */
  public EffectivePolicy.Outbound policy() {
    return settings.outbound();
  }

  /** Calls holding a slot now. */
  public int inFlight() {
    return inFlight.get();
  }

  /** Calls waiting for a slot now (in shadow: calls enforce would have had waiting). */
  public int waiting() {
    return waiting.get();
  }

  /** The breaker's state ({@link BreakerState#CLOSED} while the breaker is disabled). */
  public BreakerState breakerState() {
    return settings.outbound().breaker().enabled() ? breaker.phase() : BreakerState.CLOSED;
  }

  /** Refusals counted for a reason in shadow or enforce (0 for off). */
  public long rejected(Mode mode, Refusal reason) {
    return switch (mode) {
      case OFF -> 0;
      case SHADOW -> rejectedShadow[reason.ordinal()].value();
      case ENFORCE -> rejectedEnforce[reason.ordinal()].value();
    };
  }

  /** The time the breaker stays open for (for diagnostics): nanos left, 0 unless open. */
  public long breakerOpenNanosLeft() {
    PeerBreaker.State s = breaker.state();
    return s.phase() == BreakerState.OPEN ? Math.max(0, s.openUntilNanos() - nanoTime.getAsLong()) : 0;
  }

  @Override
  public String toString() {
    return "PeerGuard[" + peer + ", " + mode() + ", inFlight=" + inFlight() + ", waiting=" + waiting() + ", breaker="
        + breakerState() + "]";
  }
}
