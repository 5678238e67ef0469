package io.spillway.edge.admission;

import static io.spillway.edge.admission.ClosedLoopModel.MS;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.policy.Mode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The learned limit in the closed-loop model of {@link ClosedLoopModel}: capacity C = 100 in
 * flight, base call time 20 ms, SPEC defaults (tolerance 1.5, smoothing 0.2, lag target 50 ms,
 * limits 16..1024, starting limit 256).
 *
 * <p>Expected steady state: with call time = base × in flight / C above capacity, the learner's
 * fixed point is in flight = tolerance × C (calls may be up to tolerance times slower than
 * unloaded before the limit shrinks), so at 3× load the limit must settle in [C, 1.2 × tolerance
 * × C] = [100, 180]: never below capacity (that would refuse work the server can do), and at most
 * the tolerated queueing plus 20 % for jitter and the limit's own headroom.
 */
class AdaptiveLimitSimulationTest {

  private static final int C = 100;
  private static final double BASE_MS = 20;

  @Test
  void convergesNearCapacityAtThreeTimesLoadAndStaysStable() {
    ClosedLoopModel model = new ClosedLoopModel(C, BASE_MS, Policies.defaults(Mode.ENFORCE),
        ClosedLoopModel.clients(3 * C, Tier.PROXY));
    model.activeClients(C);
    model.run(5_000);
    int beforeStep = model.admission.limit();

    model.activeClients(3 * C);
    List<Integer> limits = new ArrayList<>();
    List<Integer> inFlight = new ArrayList<>();
    for (int ms = 0; ms < 70_000; ms++) {
      model.tick();
      assertThat(model.admission.limit()).isBetween(16, 1024);
      if (ms % 10 == 0) {
        limits.add(model.admission.limit());
        inFlight.add(model.admission.inFlight());
      }
    }
    // steady state: the last 60 s
    List<Integer> steady = limits.subList(1_000, limits.size());
    double mean = mean(steady);
    double cv = stddev(steady, mean) / mean;
    double firstHalf = mean(steady.subList(0, steady.size() / 2));
    double secondHalf = mean(steady.subList(steady.size() / 2, steady.size()));
    double steadyInFlight = mean(inFlight.subList(1_000, inFlight.size()));
    int settleMs = settleMillis(inFlight, steadyInFlight);
    System.out.printf("[admission-sim] enforce 3x: limit before step %d, steady mean %.1f (C=%d), CV %.4f,"
        + " halves %.1f / %.1f, in flight %.1f, in flight within 10%% after %d ms, baseline %.2f ms%n",
        beforeStep, mean, C, cv, firstHalf, secondHalf, steadyInFlight, settleMs,
        model.admission.adaptiveLimit().baselineNanos() / 1e6);

    assertThat(mean).isBetween((double) C, 1.2 * 1.5 * C);
    assertThat(cv).isLessThan(0.10);
    assertThat(Math.abs(secondHalf - firstHalf) / mean).as("creep").isLessThan(0.03);
  }

  @Test
  void shrinksOnExecutorLagAndRecovers() {
    ClosedLoopModel model = new ClosedLoopModel(C, BASE_MS, Policies.defaults(Mode.ENFORCE),
        ClosedLoopModel.clients(3 * C, Tier.PROXY));
    model.activeClients(C);
    model.run(5_000);
    model.activeClients(3 * C);
    model.run(15_000);
    int before = model.admission.limit();

    int lowest = before;
    for (int ms = 0; ms < 1_000; ms++) {
      if (ms % 10 == 0) {
        model.admission.onExecutorLag(150 * MS);
      }
      model.tick();
      lowest = Math.min(lowest, model.admission.limit());
    }
    long endOfEvent = model.nowNanos();
    long recoveredAfter = -1;
    for (int ms = 0; ms < 10_000; ms++) {
      if (ms % 10 == 0) {
        model.admission.onExecutorLag(2 * MS);
      }
      model.tick();
      lowest = Math.min(lowest, model.admission.limit());
      if (recoveredAfter < 0 && model.admission.limit() >= 0.9 * before) {
        recoveredAfter = (model.nowNanos() - endOfEvent) / MS;
      }
    }
    System.out.printf("[admission-sim] lag 150 ms for 1 s: limit %d -> lowest %d, >= 90%% again %d ms after the"
        + " event, final %d%n", before, lowest, recoveredAfter, model.admission.limit());

    assertThat(lowest).isLessThan((int) (0.6 * before)).isGreaterThanOrEqualTo(16);
    assertThat(recoveredAfter).isBetween(0L, 5_000L);
  }

  @Test
  void oneStallShrinksTheLimitForAFewWindowsOnly() {
    ClosedLoopModel model = new ClosedLoopModel(C, BASE_MS, Policies.defaults(Mode.ENFORCE),
        ClosedLoopModel.clients(3 * C, Tier.PROXY));
    model.activeClients(C);
    model.run(5_000);
    model.activeClients(3 * C);
    model.run(15_000);
    int before = model.admission.limit();
    model.admission.onExecutorLag(150 * MS);
    assertThat(model.admission.adaptiveLimit().executorLagNanos()).isEqualTo(150 * MS);
    int lowest = before;
    long recoveredAfter = -1;
    for (int ms = 1; ms <= 5_000; ms++) {
      model.tick();
      lowest = Math.min(lowest, model.admission.limit());
      if (recoveredAfter < 0 && lowest < before && model.admission.limit() >= 0.9 * before) {
        recoveredAfter = ms;
      }
    }
    System.out.printf("[admission-sim] one 150 ms stall: limit %d -> lowest %d, >= 90%% again after %d ms%n",
        before, lowest, recoveredAfter);
    assertThat(lowest).isLessThan(before).isGreaterThan(before / 4);
    assertThat(recoveredAfter).isBetween(0L, 5_000L);
    assertThat(model.admission.adaptiveLimit().executorLagNanos()).isZero();
  }

  /**
   * Closed loop, shadow learns enforce's limit. Its would-refuse rate is not enforce's here, and
   * cannot be: the load itself differs between the modes (under enforce a refused client asks again
   * at once, so most attempts are refusals; under shadow every client waits for its slower answer,
   * so requests arrive at the backend's throughput and the model of enforce sees no excess). The
   * open-loop test compares the rates, on the same arrivals.
   */
  @Test
  void shadowLearnsTheSameLimit() {
    double[] enforce = steadyState(Mode.ENFORCE);
    double[] shadow = steadyState(Mode.SHADOW);
    System.out.printf("[admission-sim] 3x proxy load: enforce limit %.1f refused %.1f%%; shadow limit %.1f"
        + " would-refuse %.1f%%, refused 0%n", enforce[0], enforce[1], shadow[0], shadow[1]);
    assertThat(shadow[0]).isBetween(C * 1.0, 1.2 * 1.5 * C);
    assertThat(Math.abs(shadow[0] - enforce[0]) / enforce[0]).isLessThan(0.15);
    assertThat(shadow[1]).isLessThan(enforce[1]);
  }

  /** {limit mean, refused or would-refuse % of attempts} over 30 s of steady 3× load. */
  private static double[] steadyState(Mode mode) {
    ClosedLoopModel model = new ClosedLoopModel(C, BASE_MS, Policies.defaults(mode),
        ClosedLoopModel.clients(3 * C, Tier.PROXY));
    model.activeClients(C);
    model.run(5_000);
    model.activeClients(3 * C);
    model.run(10_000);
    model.resetCounts();
    long refusedBefore = model.admission.refused(Tier.PROXY, mode);
    double sum = 0;
    for (int ms = 0; ms < 30_000; ms++) {
      model.tick();
      sum += model.admission.limit();
    }
    long counted = model.admission.refused(Tier.PROXY, mode) - refusedBefore;
    if (mode == Mode.SHADOW) {
      assertThat(model.refused[Tier.PROXY.ordinal()]).isZero();
    }
    return new double[] {sum / 30_000, 100.0 * counted / model.attempts[Tier.PROXY.ordinal()]};
  }

  @Test
  void proxyIsStillAdmittedInAStartStorm() {
    Tier[] clients = new Tier[3 * C + 30];
    java.util.Arrays.fill(clients, 0, 3 * C, Tier.START);
    java.util.Arrays.fill(clients, 3 * C, 3 * C + 10, Tier.CONTINUATION);
    java.util.Arrays.fill(clients, 3 * C + 10, clients.length, Tier.PROXY);
    ClosedLoopModel model = new ClosedLoopModel(C, BASE_MS, Policies.defaults(Mode.ENFORCE), clients);
    model.run(10_000);
    model.resetCounts();
    double worstStartShare = 0;
    for (int ms = 0; ms < 30_000; ms++) {
      model.tick();
      worstStartShare = Math.max(worstStartShare,
          (double) model.inFlightAtServer(Tier.START) / model.admission.tierBound(Tier.START));
    }
    double proxySuccess = (double) model.admitted[Tier.PROXY.ordinal()] / model.attempts[Tier.PROXY.ordinal()];
    double continuationSuccess =
        (double) model.admitted[Tier.CONTINUATION.ordinal()] / model.attempts[Tier.CONTINUATION.ordinal()];
    double startSuccess = (double) model.admitted[Tier.START.ordinal()] / model.attempts[Tier.START.ordinal()];
    System.out.printf("[admission-sim] start storm: limit %d, proxy success %.4f, continuation %.4f, start %.4f, worst start in flight / start bound %.3f%n",
        model.admission.limit(), proxySuccess, continuationSuccess, startSuccess, worstStartShare);

    assertThat(proxySuccess).isGreaterThanOrEqualTo(0.999);
    assertThat(continuationSuccess).isGreaterThanOrEqualTo(0.99);
    assertThat(startSuccess).isLessThan(0.9);
    assertThat(model.refused[Tier.START.ordinal()]).isPositive();
    // START is capped at its share; only a shrinking limit can leave it briefly a little above
    assertThat(worstStartShare).isLessThanOrEqualTo(1.05);
  }

  @Test
  void offLearnsNothing() {
    ClosedLoopModel model = new ClosedLoopModel(C, BASE_MS, Policies.defaults(Mode.OFF),
        ClosedLoopModel.clients(3 * C, Tier.PROXY));
    model.run(10_000);
    assertThat(model.admission.limit()).isEqualTo(256);
    assertThat(model.admission.inFlight()).isZero();
  }

  private static double mean(List<Integer> values) {
    return values.stream().mapToDouble(Integer::doubleValue).average().orElseThrow();
  }

  private static double stddev(List<Integer> values, double mean) {
    double sq = values.stream().mapToDouble(v -> (v - mean) * (v - mean)).sum();
    return Math.sqrt(sq / values.size());
  }

  /** Ms after the step until the 50 ms average of in flight stays within ±10 % of its steady value. */
  private static int settleMillis(List<Integer> inFlightEvery10Ms, double steady) {
    int last = 0;
    for (int i = 5; i < inFlightEvery10Ms.size(); i++) {
      double avg = 0;
      for (int j = i - 5; j < i; j++) {
        avg += inFlightEvery10Ms.get(j);
      }
      avg /= 5;
      if (Math.abs(avg - steady) > 0.1 * steady) {
        last = i * 10;
      }
    }
    return last;
  }
}
