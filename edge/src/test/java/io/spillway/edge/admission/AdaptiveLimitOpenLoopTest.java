package io.spillway.edge.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.policy.Mode;
import org.junit.jupiter.api.Test;

/**
 * The learned limit against an open-loop load on a FIFO backend of {@code C} = 20 slots × 50 ms
 * (400 req/s), the shape of {@code bench/overload.sh}: the targets of SPEC §8 are about the call
 * time of what is admitted, so these tests check the limit against the aim ({@code 1.25 × C} for the
 * default tolerance 1.5) and the admitted call time against {@code tolerance ×} the no-load call
 * time.
 */
class AdaptiveLimitOpenLoopTest {

  private static final int SLOTS = 20;
  private static final double SERVICE_MS = 50;
  private static final double C = SLOTS * 1000 / SERVICE_MS;
  private static final double AIM = AdaptiveLimit.aim(1.5);

  /**
   * SPEC §8 at every overload level, on a backend whose service time barely varies (±5 %, like
   * the benchmark's), so the learned baseline is the mean call time and gives the limit no margin
   * of its own: admitted p50 within tolerance × the no-load call time, p99 within 1.5 × the p99 at
   * 0.8 C, goodput at least 95 % of C. Aiming at tolerance itself failed the p99 (87 ms against
   * 79.5 at 2×).
   */
  @Test
  void atEveryOverloadLevelTheAdmittedCallsStayWithinTheTargets() {
    OpenLoopModel m = new OpenLoopModel(SLOTS, SERVICE_MS, 0.05, Policies.defaults(Mode.ENFORCE), Tier.PROXY);
    m.rate(0.8 * C);
    m.run(10_000);
    m.resetCounts();
    m.run(10_000);
    double p99AtLowLoad = m.callMillis.getValueAtPercentile(99);
    for (double level : new double[] {2, 3, 4, 10}) {
      m.rate(0);
      m.run(3_000);
      m.rate(level * C);
      m.run(5_000); // convergence
      m.resetCounts();
      m.run(10_000);
      assertThat((double) m.callMillis.getValueAtPercentile(50)).as("p50 at %s×", level)
          .isLessThanOrEqualTo(1.5 * SERVICE_MS);
      assertThat((double) m.callMillis.getValueAtPercentile(99)).as("p99 at %s×", level)
          .isLessThanOrEqualTo(1.5 * p99AtLowLoad);
      assertThat(m.callMillis.getTotalCount() / (10.0 * C)).as("goodput at %s×", level).isGreaterThan(0.95);
    }
  }

  @Test
  void aBusyButUnrefusedBackendDoesNotRaiseTheBaselineSoTheLimitHoldsToleranceAtTwiceCapacity() {
    OpenLoopModel m = new OpenLoopModel(SLOTS, SERVICE_MS, Policies.defaults(Mode.ENFORCE), Tier.PROXY);
    // the benchmark's levels: 0.8 C, a pause, exactly C (the backend's queue wanders; nothing is
    // refused), a pause, then 2 C
    m.rate(0.8 * C);
    m.run(10_000);
    long unloaded = m.admission.adaptiveLimit().baselineNanos();
    m.rate(0);
    m.run(3_000);
    m.rate(C);
    m.run(10_000);
    // exactly at capacity the queue wanders up and down: a few are refused when it runs long
    assertThat(m.refused * 1.0 / m.offered).isLessThan(0.02);
    // exactly at capacity the backend queues: the baseline must not take that queueing in
    assertThat((double) m.admission.adaptiveLimit().baselineNanos()).isLessThan(unloaded * 1.1);
    m.rate(0);
    m.run(3_000);
    m.rate(2 * C);
    m.run(5_000); // convergence
    m.resetCounts();
    int limit = m.runSamplingLimit(5_000);
    assertThat((double) limit).isBetween(AIM * SLOTS * 0.85, AIM * SLOTS * 1.15);
    // admitted call time: median within tolerance × the no-load call time (about 50 ms)
    assertThat((double) m.callMillis.getValueAtPercentile(50)).isLessThanOrEqualTo(1.5 * SERVICE_MS);
    assertThat(m.admitted * 1.0 / m.offered).isBetween(0.45, 0.55);
  }

  @Test
  void aBackendThatTurnsSlowerAtLowLoadIsLearnedInsteadOfRefusedFor() {
    OpenLoopModel m = new OpenLoopModel(SLOTS, SERVICE_MS, Policies.defaults(Mode.ENFORCE), Tier.PROXY);
    m.rate(0.4 * C);
    m.run(10_000);
    // every call now takes twice as long; the backend is at 80 % of its new capacity, not overloaded
    m.serviceMillis(2 * SERVICE_MS);
    m.resetCounts();
    m.run(10_000);
    // what the slow-down costs: a few hundred ms of refusals while the limit learns it
    assertThat(m.refused * 1.0 / m.offered).isLessThan(0.05);
    m.resetCounts();
    m.run(10_000);
    assertThat(m.refused).isZero();
    assertThat((double) m.admission.adaptiveLimit().baselineNanos() / OpenLoopModel.MS).isBetween(90.0, 130.0);
  }

  @Test
  void aLongOverloadDoesNotLetTheLimitCreep() {
    OpenLoopModel m = new OpenLoopModel(SLOTS, SERVICE_MS, Policies.defaults(Mode.ENFORCE), Tier.PROXY);
    m.rate(0.5 * C);
    m.run(10_000);
    m.rate(3 * C);
    m.run(5_000);
    int early = m.runSamplingLimit(10_000);
    m.run(100_000);
    int late = m.runSamplingLimit(10_000);
    assertThat((double) late).isBetween(early * 0.9, early * 1.1);
    assertThat((double) late).isBetween(AIM * SLOTS * 0.85, AIM * SLOTS * 1.15);
  }

  @Test
  void theSlowLastCallsOfAnEndingOverloadAreNotTakenForASlowerBackend() {
    OpenLoopModel m = new OpenLoopModel(SLOTS, SERVICE_MS, Policies.defaults(Mode.ENFORCE), Tier.PROXY);
    m.rate(0.5 * C);
    m.run(10_000);
    long unloaded = m.admission.adaptiveLimit().baselineNanos();
    m.rate(3 * C);
    m.run(5_000);
    // the load stops: in flight falls while the queued calls finish as slowly as under the overload
    m.rate(0.05 * C);
    m.run(3_000);
    assertThat((double) m.admission.adaptiveLimit().baselineNanos()).isLessThan(unloaded * 1.1);
    m.rate(2 * C);
    m.run(5_000);
    assertThat((double) m.runSamplingLimit(5_000)).isBetween(AIM * SLOTS * 0.85, AIM * SLOTS * 1.15);
  }
}
