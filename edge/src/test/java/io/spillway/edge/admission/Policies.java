package io.spillway.edge.admission;

import io.spillway.policy.EffectivePolicy;
import io.spillway.policy.Mode;

/** Inbound policies for the admission tests, defaults as in SPEC §3.2. */
final class Policies {

  private Policies() {}

  static EffectivePolicy.Inbound defaults(Mode mode) {
    return inbound(mode, 256, 16, 1024);
  }

  static EffectivePolicy.Inbound inbound(Mode mode, int startingLimit, int minLimit, int maxLimit) {
    return new EffectivePolicy.Inbound(mode, startingLimit, 0.85, 0.65, 1,
        new EffectivePolicy.Adaptive(minLimit, maxLimit, 1.5, 0.2, 50));
  }

  static EffectivePolicy.Inbound withMode(EffectivePolicy.Inbound inbound, Mode mode) {
    return new EffectivePolicy.Inbound(mode, inbound.maxInFlight(), inbound.continuationShare(), inbound.startShare(),
        inbound.retryAfterSeconds(), inbound.adaptive());
  }
}
