package io.spillway.edge.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.stats.Stat;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.stats.SuppliedGauge;
import io.spillway.policy.EffectivePolicy;
import io.spillway.policy.Mode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AdmissionControllerTest {

  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final StatsStore stats = new StatsStore();

  private AdmissionController controller(EffectivePolicy.Inbound inbound) {
    return new AdmissionController(inbound, stats, clock::get);
  }

  @Test
  void tierSharesWithTheDefaults() {
    AdmissionController admission = controller(Policies.defaults(Mode.ENFORCE));

    assertThat(admission.limit()).isEqualTo(256);
    assertThat(admission.tierBound(Tier.START)).isEqualTo(166);
    assertThat(admission.tierBound(Tier.CONTINUATION)).isEqualTo(217);
    assertThat(admission.tierBound(Tier.PROXY)).isEqualTo(256);
    assertThat(admission.retryAfterSeconds()).isEqualTo(1);
  }

  @Test
  void enforceRefusesAboveEachTiersShare() {
    AdmissionController admission = controller(Policies.defaults(Mode.ENFORCE));
    List<AdmissionPermit> held = new ArrayList<>();

    assertThat(fill(admission, Tier.START, held)).isEqualTo(166);
    assertThat(admission.tryAcquire(Tier.START).refused()).isTrue();
    assertThat(fill(admission, Tier.CONTINUATION, held)).isEqualTo(217 - 166);
    assertThat(fill(admission, Tier.PROXY, held)).isEqualTo(256 - 217);
    assertThat(admission.inFlight()).isEqualTo(256);
    assertThat(admission.tryAcquire(Tier.PROXY).refused()).isTrue();
    assertThat(admission.tryAcquire(Tier.EXEMPT).admitted()).isTrue();
    assertThat(admission.inFlight()).isEqualTo(256);

    assertThat(admission.refused(Tier.START, Mode.ENFORCE)).isEqualTo(2);
    assertThat(admission.refused(Tier.CONTINUATION, Mode.ENFORCE)).isEqualTo(1);
    assertThat(admission.refused(Tier.PROXY, Mode.ENFORCE)).isEqualTo(2);
    assertThat(admission.refused(Tier.START, Mode.SHADOW)).isZero();

    held.forEach(p -> p.release(1_000_000, true));
    assertThat(admission.inFlight()).isZero();
    assertThat(admission.tryAcquire(Tier.START).admitted()).isTrue();
  }

  private static int fill(AdmissionController admission, Tier tier, List<AdmissionPermit> held) {
    int admitted = 0;
    for (;;) {
      AdmissionPermit permit = admission.tryAcquire(tier);
      if (permit.refused()) {
        return admitted;
      }
      held.add(permit);
      admitted++;
    }
  }

  @Test
  void offCountsNothing() {
    AdmissionController admission = controller(Policies.defaults(Mode.OFF));
    List<AdmissionPermit> held = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      AdmissionPermit permit = admission.tryAcquire(Tier.values()[i % 4]);
      assertThat(permit.admitted()).isTrue();
      assertThat(permit.counted()).isFalse();
      held.add(permit);
    }
    assertThat(admission.inFlight()).isZero();
    assertThat(admission.inFlightPeakSinceLastRead()).isZero();
    for (AdmissionPermit permit : held) {
      clock.addAndGet(1_000_000);
      permit.release(10_000_000_000L, true);
    }
    admission.onExecutorLag(5_000_000_000L);
    clock.addAndGet(1_000_000_000L);
    admission.onExecutorLag(5_000_000_000L);
    assertThat(admission.limit()).isEqualTo(256);
    for (Tier tier : Tier.values()) {
      assertThat(admission.refused(tier, Mode.SHADOW)).isZero();
      assertThat(admission.refused(tier, Mode.ENFORCE)).isZero();
    }
    assertThat(admission.adaptiveLimit().baselineNanos()).isZero();
  }

  /**
   * The same deterministic arrival/departure sequence through enforce and shadow. A request shadow
   * would refuse takes no in-flight slot (as in enforce, where it is refused), so both see the same
   * in-flight history and count the same refusals per tier, and shadow admits everything.
   */
  @Test
  void shadowCountsExactlyWhatEnforceRefuses() {
    Run enforce = runSequence(Mode.ENFORCE);
    Run shadow = runSequence(Mode.SHADOW);

    assertThat(enforce.refused().get(Tier.START)).isPositive();
    assertThat(enforce.refused().get(Tier.CONTINUATION)).isPositive();
    assertThat(enforce.refused().get(Tier.PROXY)).isPositive();
    assertThat(shadow.refused()).isEqualTo(enforce.refused());
    assertThat(shadow.inFlightHistory()).isEqualTo(enforce.inFlightHistory());
  }

  private record Run(Map<Tier, Long> refused, List<Integer> inFlightHistory) {}

  private static Run runSequence(Mode mode) {
    StatsStore store = new StatsStore();
    AdmissionController admission = new AdmissionController(Policies.inbound(mode, 40, 16, 1024), store, () -> 0L);
    SplittableRandom random = new SplittableRandom(7);
    Deque<AdmissionPermit> held = new ArrayDeque<>();
    List<AdmissionPermit> shadowRefused = new ArrayList<>();
    List<Integer> history = new ArrayList<>();
    for (int step = 0; step < 20_000; step++) {
      if (random.nextInt(100) < 65) {
        Tier tier = Tier.values()[random.nextInt(4)];
        AdmissionPermit permit = admission.tryAcquire(tier);
        if (mode == Mode.SHADOW) {
          assertThat(permit.admitted()).isTrue();
        }
        if (permit.shadowRefused()) {
          shadowRefused.add(permit); // in flight for real, but not in enforce's count
        } else if (permit.admitted() && permit.counted()) {
          held.addLast(permit);
        }
      } else if (!held.isEmpty()) {
        (random.nextBoolean() ? held.pollFirst() : held.pollLast()).release(0, false);
      }
      history.add(admission.inFlight());
    }
    shadowRefused.forEach(p -> p.release(0, true));
    held.forEach(p -> p.release(0, true));
    assertThat(admission.inFlight()).isZero();
    Map<Tier, Long> refused = new EnumMap<>(Tier.class);
    for (Tier tier : Tier.values()) {
      refused.put(tier, admission.refused(tier, mode));
      assertThat(admission.refused(tier, mode == Mode.SHADOW ? Mode.ENFORCE : Mode.SHADOW)).isZero();
    }
    return new Run(refused, history);
  }

  @Test
  void shadowNeverRefusesAndCountsInFlightAsEnforceWould() {
    AdmissionController admission = controller(Policies.inbound(Mode.SHADOW, 20, 16, 1024));
    List<AdmissionPermit> permits = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      AdmissionPermit permit = admission.tryAcquire(Tier.START);
      assertThat(permit.admitted()).isTrue();
      assertThat(permit.shadowRefused()).isEqualTo(i >= 13);
      permits.add(permit);
    }
    assertThat(admission.inFlight()).isEqualTo(13);
    permits.get(99).release(1, true);
    assertThat(admission.inFlight()).isEqualTo(13);
    permits.get(0).release(1, true);
    permits.get(0).release(1, true);
    assertThat(admission.inFlight()).isEqualTo(12);
    assertThat(admission.refused(Tier.START, Mode.SHADOW)).isEqualTo(100 - 13);
    assertThat(admission.refused(Tier.START, Mode.ENFORCE)).isZero();
  }

  @Test
  void releaseIsExactlyOnce() {
    AdmissionController admission = controller(Policies.defaults(Mode.ENFORCE));
    AdmissionPermit first = admission.tryAcquire(Tier.PROXY);
    AdmissionPermit second = admission.tryAcquire(Tier.PROXY);
    assertThat(admission.inFlight()).isEqualTo(2);

    first.release(1_000_000, true);
    first.release(1_000_000, true);
    first.release(1_000_000, false);
    assertThat(admission.inFlight()).isEqualTo(1);

    AdmissionPermit.REFUSED.release(1, true);
    admission.tryAcquire(Tier.EXEMPT).release(1, true);
    assertThat(admission.inFlight()).isEqualTo(1);
    second.release(1_000_000, true);
    assertThat(admission.inFlight()).isZero();
  }

  @Test
  void releaseAfterModeSwitch() {
    AdmissionController admission = controller(Policies.defaults(Mode.ENFORCE));
    AdmissionPermit counted = admission.tryAcquire(Tier.START);
    admission.applyPolicy(Policies.defaults(Mode.OFF));
    AdmissionPermit uncounted = admission.tryAcquire(Tier.START);
    assertThat(admission.inFlight()).isEqualTo(1);

    admission.applyPolicy(Policies.defaults(Mode.SHADOW));
    uncounted.release(1_000_000, true);
    assertThat(admission.inFlight()).isEqualTo(1);
    counted.release(1_000_000, true);
    counted.release(1_000_000, true);
    assertThat(admission.inFlight()).isZero();
    assertThat(admission.mode()).isEqualTo(Mode.SHADOW);
  }

  @Test
  void applyPolicyKeepsTheLearnedLimitUnlessOutOfRange() {
    AdmissionController admission = controller(Policies.defaults(Mode.SHADOW));
    admission.applyPolicy(Policies.inbound(Mode.ENFORCE, 999, 16, 2048));
    assertThat(admission.limit()).isEqualTo(256);
    assertThat(admission.mode()).isEqualTo(Mode.ENFORCE);
    assertThat(admission.limitRatio()).isEqualTo(256.0 / 2048);

    admission.applyPolicy(Policies.inbound(Mode.ENFORCE, 999, 16, 100));
    assertThat(admission.limit()).isEqualTo(100);
    admission.applyPolicy(Policies.inbound(Mode.ENFORCE, 1, 300, 1024));
    assertThat(admission.limit()).isEqualTo(300);
  }

  @Test
  void startingLimitIsClamped() {
    assertThat(controller(Policies.inbound(Mode.SHADOW, 4, 16, 1024)).limit()).isEqualTo(16);
    assertThat(new AdmissionController(Policies.inbound(Mode.SHADOW, 5000, 16, 1024), new StatsStore(), clock::get)
        .limit()).isEqualTo(1024);
  }

  @Test
  void peakResetsOnRead() {
    AdmissionController admission = controller(Policies.defaults(Mode.ENFORCE));
    List<AdmissionPermit> held = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      held.add(admission.tryAcquire(Tier.PROXY));
    }
    for (int i = 0; i < 7; i++) {
      held.get(i).release(1, true);
    }
    assertThat(admission.inFlightPeakSinceLastRead()).isEqualTo(10);
    assertThat(admission.inFlightPeakSinceLastRead()).isEqualTo(3);
  }

  @Test
  void registersTheSpecMetrics() {
    AdmissionController admission = controller(Policies.defaults(Mode.SHADOW));
    for (int i = 0; i < 200; i++) {
      admission.tryAcquire(Tier.START);
    }
    admission.onExecutorLag(20_000_000L);

    assertThat(stat("http_admission_refused_total.mode.shadow.tier.start").statName().prometheusName())
        .isEqualTo("http_admission_refused_total");
    assertThat(counter("http_admission_refused_total.mode.shadow.tier.start")).isEqualTo(200 - 166);
    assertThat(counter("http_admission_refused_total.mode.enforce.tier.proxy")).isZero();
    assertThat(gauge("http_admission_in_flight")).isEqualTo(166);
    assertThat(gauge("http_admission_in_flight_peak")).isEqualTo(166);
    assertThat(gauge("http_admission_limit")).isEqualTo(256);
    assertThat(gauge("http_admission_adaptive_limit_ratio")).isEqualTo(0.25);
    assertThat(gauge("http_executor_lag_seconds")).isEqualTo(0.02);
    for (Tier tier : List.of(Tier.START, Tier.CONTINUATION, Tier.PROXY)) {
      assertThat(gauge("http_admission_rtt_seconds.tier." + tier.metadataName())).isZero();
    }
  }

  private Stat stat(String flatName) {
    return stats.find(flatName).orElseThrow(() -> new AssertionError("no stat " + flatName));
  }

  private long counter(String flatName) {
    return ((io.spillway.edge.stats.Counter) stat(flatName)).value();
  }

  private double gauge(String flatName) {
    return ((SuppliedGauge) stat(flatName)).value();
  }

  @Test
  void enforceNeverExceedsTheLimitUnderConcurrency() throws Exception {
    int limit = 8;
    AdmissionController admission = new AdmissionController(
        Policies.inbound(Mode.ENFORCE, limit, limit, limit), stats, System::nanoTime);
    int threads = 4;
    int iterations = 100_000;
    AtomicInteger worst = new AtomicInteger();
    AtomicInteger admittedTotal = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int seed = t;
        done.add(pool.submit(() -> {
          SplittableRandom random = new SplittableRandom(seed);
          start.await();
          for (int i = 0; i < iterations; i++) {
            Tier tier = Tier.values()[random.nextInt(3)];
            AdmissionPermit permit = admission.tryAcquire(tier);
            int seen = admission.inFlight();
            worst.accumulateAndGet(seen, Math::max);
            if (permit.admitted()) {
              admittedTotal.incrementAndGet();
              permit.release(random.nextInt(1000), true);
              if (random.nextInt(4) == 0) {
                permit.release(1, true);
              }
            }
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(worst.get()).isLessThanOrEqualTo(limit);
    assertThat(admission.inFlightPeakSinceLastRead()).isLessThanOrEqualTo(limit);
    assertThat(admission.inFlight()).isZero();
    assertThat(admission.limit()).isEqualTo(limit);
    assertThat(admittedTotal.get()).isPositive();
    long refused = 0;
    for (Tier tier : Tier.values()) {
      refused += admission.refused(tier, Mode.ENFORCE);
    }
    assertThat(admittedTotal.get() + refused).isEqualTo((long) threads * iterations);
  }
}
