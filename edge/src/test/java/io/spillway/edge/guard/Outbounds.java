package io.spillway.edge.guard;

import io.spillway.policy.EffectivePolicy;
import io.spillway.policy.Mode;

/** Outbound policies for the guard tests; defaults as in SPEC §3.3 unless changed. */
final class Outbounds {

  private Outbounds() {}

  static final EffectivePolicy.Breaker BREAKER_OFF = new EffectivePolicy.Breaker(false, 0.5, 20, 10, 5, 3);
  static final EffectivePolicy.RetryBudget BUDGET = new EffectivePolicy.RetryBudget(0.1, 5);

  static EffectivePolicy.Outbound defaults(Mode mode) {
    return limits(mode, 128, 256, 1000);
  }

  static EffectivePolicy.Outbound limits(Mode mode, int maxConcurrent, int maxQueue, int queueTimeoutMillis) {
    return new EffectivePolicy.Outbound(mode, maxConcurrent, maxQueue, queueTimeoutMillis, 10_000, BREAKER_OFF, BUDGET);
  }

  static EffectivePolicy.Outbound withBreaker(EffectivePolicy.Outbound o, double failureRatio, int minCalls,
      int windowSeconds, int openSeconds, int probeCalls) {
    return new EffectivePolicy.Outbound(o.mode(), o.maxConcurrent(), o.maxQueue(), o.queueTimeoutMillis(),
        o.requestTimeoutMillis(), new EffectivePolicy.Breaker(true, failureRatio, minCalls, windowSeconds, openSeconds,
            probeCalls), o.retryBudget());
  }

  static EffectivePolicy.Outbound withBudget(EffectivePolicy.Outbound o, double ratio, int minPerSecond) {
    return new EffectivePolicy.Outbound(o.mode(), o.maxConcurrent(), o.maxQueue(), o.queueTimeoutMillis(),
        o.requestTimeoutMillis(), o.breaker(), new EffectivePolicy.RetryBudget(ratio, minPerSecond));
  }

  static EffectivePolicy.Outbound withMode(EffectivePolicy.Outbound o, Mode mode) {
    return new EffectivePolicy.Outbound(mode, o.maxConcurrent(), o.maxQueue(), o.queueTimeoutMillis(),
        o.requestTimeoutMillis(), o.breaker(), o.retryBudget());
  }

  static EffectivePolicy.Outbound withMaxConcurrent(EffectivePolicy.Outbound o, int maxConcurrent) {
    return new EffectivePolicy.Outbound(o.mode(), maxConcurrent, o.maxQueue(), o.queueTimeoutMillis(),
        o.requestTimeoutMillis(), o.breaker(), o.retryBudget());
  }
}
