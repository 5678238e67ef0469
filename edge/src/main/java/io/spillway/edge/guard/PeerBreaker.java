package io.spillway.edge.guard;

import io.spillway.policy.EffectivePolicy;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.DoubleSupplier;

/**
 * The circuit breaker of one peer. The phase lives in one immutable {@link State} swapped by CAS
 * (allocation only on transitions and probe bookkeeping, never on the closed path); call outcomes
 * go to a {@link SecondsRing} of one-second buckets ({@code a} = calls, {@code b} = failures).
 *
 * <p>Every transition starts a new {@code generation}; a probe remembers the generation it was
 * admitted in, so the outcome of a probe from an earlier half-open phase is ignored.
 */
final class PeerBreaker {

  /** {@link #acquire} answer: not a probe, go on. */
  static final long NORMAL = -1;
  /** {@link #acquire} answer: refused. */
  static final long REFUSE = -2;

  static final int MAX_WINDOW_SECONDS = 300;
  /** Re-open back-off cap, as a multiple of {@code openSeconds}. */
  static final int MAX_BACKOFF_FACTOR = 10;
  /** The jittered open time is in [JITTER_FLOOR, 1] × the doubled open time. */
  static final double JITTER_FLOOR = 0.8;

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  /**
   * @param phase the phase
   * @param generation bumped on every transition
   * @param openUntilNanos when OPEN ends
   * @param reopens failed half-open rounds since the breaker last closed (drives the back-off)
   * @param issued probe slots reserved in this HALF_OPEN phase
   * @param succeeded probes that succeeded in this HALF_OPEN phase
   * @param countFromSecond the window counts only seconds from here (the last close)
   */
  record State(BreakerState phase, long generation, long openUntilNanos, int reopens, int issued, int succeeded,
      long countFromSecond) {}

  private final AtomicReference<State> state = new AtomicReference<>(new State(BreakerState.CLOSED, 0, 0, 0, 0, 0, 0));
  private final SecondsRing window = new SecondsRing(MAX_WINDOW_SECONDS + 1);
  private final DoubleSupplier random;

  PeerBreaker(DoubleSupplier random) {
    this.random = random;
  }

  BreakerState phase() {
    return state.get().phase();
  }

  State state() {
    return state.get();
  }

  /**
   * Decides for one call: {@link #NORMAL}, {@link #REFUSE}, or a probe slot reserved atomically
   * (the generation, ≥ 0). An OPEN breaker whose time is up turns HALF_OPEN here.
   */
  long acquire(EffectivePolicy.Breaker settings, long now) {
    for (;;) {
      State s = state.get();
      switch (s.phase()) {
        case CLOSED -> {
          return NORMAL;
        }
        case OPEN -> {
          if (now - s.openUntilNanos() < 0) {
            return REFUSE;
          }
          state.compareAndSet(s, new State(BreakerState.HALF_OPEN, s.generation() + 1, 0, s.reopens(), 0, 0,
              s.countFromSecond()));
        }
        case HALF_OPEN -> {
          if (s.issued() >= settings.probeCalls()) {
            return REFUSE;
          }
          if (state.compareAndSet(s, new State(BreakerState.HALF_OPEN, s.generation(), 0, s.reopens(), s.issued() + 1,
              s.succeeded(), s.countFromSecond()))) {
            return s.generation();
          }
        }
      }
    }
  }

  /** Gives back a probe slot whose call never went out (queue timeout, cancel, queue full). */
  void abandonProbe(long generation) {
    for (;;) {
      State s = state.get();
      if (s.phase() != BreakerState.HALF_OPEN || s.generation() != generation || s.issued() == 0) {
        return;
      }
      if (state.compareAndSet(s, new State(BreakerState.HALF_OPEN, s.generation(), 0, s.reopens(), s.issued() - 1,
          s.succeeded(), s.countFromSecond()))) {
        return;
      }
    }
  }

  /** Records the outcome of a call admitted as {@link #NORMAL} ({@code probe < 0}) or as a probe. */
  void onOutcome(EffectivePolicy.Breaker settings, Outcome outcome, long probe, long now, long second) {
    if (probe >= 0) {
      onProbeOutcome(settings, outcome, probe, now, second);
      return;
    }
    if (!outcome.counted()) {
      return;
    }
    window.add(second, 1, outcome.failure() ? 1 : 0);
    if (!outcome.failure()) {
      return;
    }
    State s = state.get();
    if (s.phase() != BreakerState.CLOSED) {
      return;
    }
    long sum = window.sum(second, settings.windowSeconds(), s.countFromSecond());
    long calls = SecondsRing.sumA(sum);
    long failures = SecondsRing.sumB(sum);
    if (calls >= settings.minCalls() && failures >= settings.failureRatio() * calls) {
      state.compareAndSet(s, new State(BreakerState.OPEN, s.generation() + 1,
          now + settings.openSeconds() * NANOS_PER_SECOND, 0, 0, 0, s.countFromSecond()));
    }
  }

  private void onProbeOutcome(EffectivePolicy.Breaker settings, Outcome outcome, long generation, long now,
      long second) {
    if (!outcome.counted()) {
      abandonProbe(generation);
      return;
    }
    for (;;) {
      State s = state.get();
      if (s.phase() != BreakerState.HALF_OPEN || s.generation() != generation) {
        return;
      }
      State next;
      if (outcome.failure()) {
        int reopens = s.reopens() + 1;
        next = new State(BreakerState.OPEN, s.generation() + 1, now + reopenNanos(settings, reopens), reopens, 0, 0,
            s.countFromSecond());
      } else if (s.succeeded() + 1 >= settings.probeCalls()) {
        next = new State(BreakerState.CLOSED, s.generation() + 1, 0, 0, 0, 0, second);
      } else {
        next = new State(BreakerState.HALF_OPEN, s.generation(), 0, s.reopens(), s.issued(), s.succeeded() + 1,
            s.countFromSecond());
      }
      if (state.compareAndSet(s, next)) {
        return;
      }
    }
  }

  /**
   * The open time after the {@code reopens}-th failed half-open round in a row: openSeconds ×
   * 2^reopens, capped at {@value #MAX_BACKOFF_FACTOR} × openSeconds, times a jitter in
   * [{@value #JITTER_FLOOR}, 1) so a fleet of edges does not probe in lock-step.
   */
  long reopenNanos(EffectivePolicy.Breaker settings, int reopens) {
    long base = settings.openSeconds() * NANOS_PER_SECOND;
    double factor = Math.min(MAX_BACKOFF_FACTOR, Math.pow(2, Math.min(reopens, 30)));
    double jitter = JITTER_FLOOR + (1 - JITTER_FLOOR) * Math.clamp(random.getAsDouble(), 0.0, 1.0);
    return (long) (base * factor * jitter);
  }

  /** Back to CLOSED with an empty window (the breaker was disabled). */
  void reset(long second) {
    State s = state.get();
    state.set(new State(BreakerState.CLOSED, s.generation() + 1, 0, 0, 0, 0, second));
  }
}
