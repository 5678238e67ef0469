package io.spillway.edge.admission;

import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.CustomScope;
import io.spillway.edge.stats.StatsStore;
import io.spillway.policy.EffectivePolicy;
import io.spillway.policy.Mode;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Inbound admission of one edge (SPEC §3.2), shared by all workers: decides per request whether it
 * may proceed, from the request's {@link Tier}, the number of requests in flight and the learned
 * {@link AdaptiveLimit}.
 *
 * <ul>
 *   <li>{@code off}: every request gets an uncounted permit; nothing is counted or learned.
 *   <li>{@code shadow}: every request is admitted; when {@code enforce} would have refused it,
 *       {@code http_admission_refused_total{tier,mode="shadow"}} counts it and, as in enforce, it
 *       takes no slot of the in-flight count ({@link AdmissionPermit#shadowRefused()}), so the in-flight
 *       count is the one enforce would have had and the would-refuse counts stay faithful under a
 *       sustained overload (counting every request would make shadow "refuse" 100 % once in flight
 *       passes the limit). Once a baseline is learned, the tier's bound is compared not with that
 *       count but with {@link ShadowQueue}'s model of the in-flight count enforce would have: with
 *       nothing refused the backend is slower than under enforce and each request stays in flight
 *       longer than it would there. Its call time is learned: the call really happens. The limit is learned
 *       as in enforce.
 *   <li>{@code enforce}: a request is admitted while in flight is below its tier's bound —
 *       {@code floor(limit × startShare)} for start, {@code floor(limit × continuationShare)} for
 *       continuation, the limit for proxy (each at least 1) — else refused and counted with
 *       {@code mode="enforce"}. Admission is a CAS loop on the in-flight counter, so in flight
 *       never exceeds the bound of the tier that admitted it.
 * </ul>
 *
 * {@link Tier#EXEMPT} requests are never counted and never refused. Lock-free; a decision allocates
 * nothing except the admitted permit (see {@link AdmissionPermit}).
 *
 * <p>A mode switch applies to new requests; permits taken before it release normally (a permit
 * counted in shadow/enforce is uncounted when released under off; permits taken under off are never
 * counted, so right after off → shadow/enforce in flight briefly undercounts).
 */
public final class AdmissionController {

  private static final int TIERS = 3;

  /** Mode and shares in force; one immutable object so a policy swap is atomic. */
  private record Settings(Mode mode, double startShare, double continuationShare, int retryAfterSeconds,
      int maxLimit) {}

  private volatile Settings settings;
  private final AdaptiveLimit limit;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final ShadowQueue shadow = new ShadowQueue();
  private final LongSupplier nanoTime;
  private final AtomicInteger peak = new AtomicInteger();
  private final Counter[] refusedShadow = new Counter[TIERS];
  private final Counter[] refusedEnforce = new Counter[TIERS];

  /** With the system clock. */
  public AdmissionController(EffectivePolicy.Inbound inbound, StatsStore stats) {
    this(inbound, stats, System::nanoTime);
  }

  /**
   * @param inbound the resolved inbound policy
   * @param stats where the {@code http_admission_*} metrics are registered
   * @param nanoTime the clock
   */
  public AdmissionController(EffectivePolicy.Inbound inbound, StatsStore stats, LongSupplier nanoTime) {
    Objects.requireNonNull(inbound, "inbound");
    Objects.requireNonNull(stats, "stats");
    this.settings = settingsOf(inbound);
    this.nanoTime = nanoTime;
    this.limit = new AdaptiveLimit(inbound.adaptive(), inbound.startingLimit(), nanoTime);
    limit.enforcing(inbound.mode() == Mode.ENFORCE);
    CustomScope scope = stats.customScope();
    for (Tier tier : Tier.values()) {
      if (tier == Tier.EXEMPT) {
        continue;
      }
      String name = tier.metadataName();
      refusedShadow[tier.ordinal()] = scope.counter("http_admission_refused_total", Map.of("tier", name, "mode", "shadow"));
      refusedEnforce[tier.ordinal()] = scope.counter("http_admission_refused_total", Map.of("tier", name, "mode", "enforce"));
      scope.fractionalGauge("http_admission_rtt_seconds", Map.of("tier", name), () -> limit.meanRttSeconds(tier));
    }
    scope.gauge("http_admission_in_flight", Map.of(), inFlight::get);
    scope.gauge("http_admission_in_flight_peak", Map.of(), this::inFlightPeakSinceLastRead);
    scope.gauge("http_admission_limit", Map.of(), limit::limit);
    scope.fractionalGauge("http_admission_capacity", Map.of(), limit::capacity);
    scope.fractionalGauge("http_admission_adaptive_limit_ratio", Map.of(), this::limitRatio);
    scope.fractionalGauge("http_executor_lag_seconds", Map.of(), () -> limit.executorLagNanos() / 1e9);
  }

  private static Settings settingsOf(EffectivePolicy.Inbound inbound) {
    return new Settings(inbound.mode(), inbound.startShare(), inbound.continuationShare(),
        inbound.retryAfterSeconds(), inbound.adaptive().maxLimit());
  }

  /**
   * Admits or refuses one request. An admitted permit must be {@link AdmissionPermit#release released}
   * when the request ends.
   */
  public AdmissionPermit tryAcquire(Tier tier) {
    Settings s = settings;
    if (s.mode() == Mode.OFF || tier == Tier.EXEMPT) {
      return AdmissionPermit.UNCOUNTED;
    }
    int bound = bound(tier, s, limit.limit());
    if (s.mode() == Mode.ENFORCE) {
      for (;;) {
        int current = inFlight.get();
        if (current >= bound) {
          refusedEnforce[tier.ordinal()].inc();
          return AdmissionPermit.REFUSED;
        }
        if (inFlight.compareAndSet(current, current + 1)) {
          notePeak(current + 1);
          return new AdmissionPermit(this, tier, true, false);
        }
      }
    }
    // shadow: the model of enforce decides once a baseline is known, the count before that
    double baseline = limit.baselineNanos();
    boolean modelled = baseline > 0;
    if (modelled && !shadow.tryAdmit(bound, nanoTime.getAsLong(), baseline, limit.capacity())) {
      refusedShadow[tier.ordinal()].inc();
      return new AdmissionPermit(this, tier, true, true);
    }
    for (;;) {
      int current = inFlight.get();
      if (!modelled && current >= bound) {
        refusedShadow[tier.ordinal()].inc();
        return new AdmissionPermit(this, tier, true, true);
      }
      if (inFlight.compareAndSet(current, current + 1)) {
        notePeak(current + 1);
        return new AdmissionPermit(this, tier, true, false);
      }
    }
  }

  /** The in-flight bound of a tier under a limit: its share of the limit, floored, at least 1. */
  static int bound(Tier tier, double startShare, double continuationShare, int limit) {
    return switch (tier) {
      case START -> Math.max(1, (int) (limit * startShare));
      case CONTINUATION -> Math.max(1, (int) (limit * continuationShare));
      default -> limit;
    };
  }

  private static int bound(Tier tier, Settings s, int limit) {
    return bound(tier, s.startShare(), s.continuationShare(), limit);
  }

  /** The in-flight bound of a tier under the current limit and shares. */
  public int tierBound(Tier tier) {
    if (tier == Tier.EXEMPT) {
      return Integer.MAX_VALUE;
    }
    return bound(tier, settings, limit.limit());
  }

  void onRelease(Tier tier, long durationNanos, boolean success, boolean holdsSlot) {
    if (holdsSlot) {
      inFlight.decrementAndGet();
    }
    if (settings.mode() == Mode.OFF) {
      return;
    }
    if (success || durationNanos > limit.baselineNanos() * limit.settings().tolerance()) {
      limit.onSample(tier, durationNanos, success);
    }
  }

  private void notePeak(int value) {
    int current;
    while (value > (current = peak.get())) {
      if (peak.compareAndSet(current, value)) {
        return;
      }
    }
  }

  /**
   * Feeds how late a 10 ms timer fired on the executor (from the edge's lag probe). Learned from
   * unless the mode is off; always shown as {@code http_executor_lag_seconds}.
   */
  public void onExecutorLag(long lagNanos) {
    if (settings.mode() == Mode.OFF) {
      limit.recordLag(lagNanos);
    } else {
      limit.onExecutorLag(lagNanos, inFlight.get());
    }
  }

  /**
   * Swaps mode, shares, Retry-After and learning settings atomically. The learned limit is kept
   * (clamped into a new [minLimit, maxLimit]).
   */
  public void applyPolicy(EffectivePolicy.Inbound inbound) {
    Objects.requireNonNull(inbound, "inbound");
    limit.applySettings(inbound.adaptive());
    limit.enforcing(inbound.mode() == Mode.ENFORCE);
    settings = settingsOf(inbound);
  }

  /** Requests counted in flight now. */
  public int inFlight() {
    return inFlight.get();
  }

  /** The highest in-flight count since the previous call (the scrape), then restarts from now. */
  public int inFlightPeakSinceLastRead() {
    int now = inFlight.get();
    return Math.max(peak.getAndSet(now), now);
  }

  /** The learned limit in force. */
  public int limit() {
    return limit.limit();
  }

  /** The learned limit / maxLimit. */
  public double limitRatio() {
    return (double) limit.limit() / settings.maxLimit();
  }

  /** The mode in force. */
  public Mode mode() {
    return settings.mode();
  }

  /** The {@code Retry-After} seconds of a refusal. */
  public int retryAfterSeconds() {
    return settings.retryAfterSeconds();
  }

  /** Refusals counted for a tier in shadow or enforce (0 for off and exempt). */
  public long refused(Tier tier, Mode mode) {
    if (tier == Tier.EXEMPT || mode == Mode.OFF) {
      return 0;
    }
    return (mode == Mode.SHADOW ? refusedShadow : refusedEnforce)[tier.ordinal()].value();
  }

  /** The learner, for the edge's diagnostics and tests. */
  public AdaptiveLimit adaptiveLimit() {
    return limit;
  }
}
