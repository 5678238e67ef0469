package io.spillway.edge.admission;

import io.spillway.policy.EffectivePolicy;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * The learned inbound limit: how many requests the edge lets be in flight before it refuses.
 *
 * <h2>Signals</h2>
 *
 * <ul>
 *   <li><b>Call time.</b> Every released permit reports its call time. Samples are summed per tier
 *       over a sampling window of {@value #WINDOW_MILLIS} ms (closed once it holds at least
 *       {@value #MIN_SAMPLES} samples; a window that is too thin is simply extended).
 *   <li><b>No-load baseline.</b> Falls at once to any window-mean call time below it. It rises
 *       only to the lowest mean of the application-limited windows (observed concurrency below
 *       half the limit) of the last {@value #BASELINE_HORIZON_MILLIS} ms, and only once at least
 *       {@value #BASELINE_MIN_BUCKETS} of that span's seconds had such windows — a slower world
 *       that lasts. An earlier version let it drift towards every application-limited window's
 *       mean; offered load near the backend's capacity then raised it with the backend's own
 *       queue (nothing is refused there, so every window is application-limited), and the next
 *       overload settled at tolerance × that inflated baseline (admitted calls 2–3 times the
 *       no-load time at 2× capacity in {@code bench/overload.sh}). Windows where the limit binds
 *       never raise it, so a long overload cannot creep it upwards. Two ways re-learn it when the
 *       backend itself got slower: during a congestion with the limit in use, when observed
 *       concurrency (smoothed over windows) has halved within a second of the congestion's start and the mean call time fell by less than half what a queue
 *       would give back ({@code 1 − 1/tolerance}), that call time is the new baseline; and when
 *       the limit has sat at {@code minLimit} with calls still too slow for
 *       {@value #REBASELINE_MILLIS} ms, the current call time becomes the baseline (the limit
 *       cannot shed that slowness).
 *   <li><b>Executor lag.</b> {@link #onExecutorLag(long, int)} feeds the lateness of a 10 ms timer. The
 *       worst value of the last second (ten 100 ms buckets) is what {@code http_executor_lag_seconds}
 *       shows; the learner uses the worst of the last 100–200 ms (current and previous bucket), so
 *       one stall is acted on for a few windows, not re-applied every window for a whole second.
 * </ul>
 *
 * <h2>Estimate</h2>
 *
 * Once per window one thread (whichever release wins a CAS on the window start) computes a new
 * estimate from the window's mean call time {@code rtt}, the observed concurrency {@code n} (by
 * Little's law: the summed call time of the window / the window length) and the baseline {@code b}:
 *
 * <ul>
 *   <li><b>Congested</b> ({@code rtt > a × b}, where the aim {@code a = 1 + (tolerance − 1) / 2}):
 *       {@code estimate = n × a × b / rtt}, at least {@code limit / 2}. This is the Vegas / BBR
 *       reading of the window: {@code n × b / rtt} is the throughput times the unloaded call time,
 *       i.e. the concurrency the server absorbs without queueing; the aim lets in flight exceed
 *       that until calls are {@code a} times slower than usual, half-way to {@code tolerance}, so
 *       that the admitted calls' median and tail stay within {@code tolerance ×} the no-load time
 *       (see {@link #aim(double)}). Only served calls are throughput: the estimate is scaled by the
 *       share of the window's calls that succeeded (a client that gave up, a slow 5xx, is a slow call
 *       but nothing delivered). In shadow it is at least {@code a × } {@link #capacity()}. Because it is computed from what was observed
 *       and not from the limit itself, it gives the same answer in {@code shadow} (where nothing is
 *       refused, so the server sees more concurrency and slower calls) as in {@code enforce}: the
 *       product throughput × unloaded call time does not depend on how far in flight overshoots.
 *   <li><b>Fast</b> ({@code rtt ≤ a × b}) and not application-limited: grow like Envoy's
 *       and Netflix Gradient2's gradient, {@code estimate = limit × min(2, a × b / rtt)},
 *       at least {@code limit + 1}. Growth is multiplicative while calls stay near the baseline,
 *       so the limit recovers in about a second after an event, and it slows to zero as calls
 *       approach the aim.
 *   <li><b>Application-limited</b> (observed concurrency below half the limit) and fast: hold. An
 *       idle edge does not inflate its limit to {@code maxLimit} only to need many windows to come
 *       back down when a storm starts (Gradient2 does the same).
 *   <li><b>Idle</b> (observed concurrency below {@value #MIN_QUEUEING_CONCURRENCY}): hold, however
 *       slow the calls. Less than one request in flight cannot queue behind itself, so slow calls
 *       then say nothing about the edge's load (JIT warm-up at start-up, a cold backend); without
 *       this a trickle of slow calls halved the limit of an idle edge every few windows.
 *   <li><b>Executor stall</b> (worst lag of the last second above {@code lagTargetMillis}) under
 *       load (at least {@value #MIN_QUEUEING_CONCURRENCY} request in flight, or that concurrency
 *       observed): the estimate is at most {@code limit × max(0.5, lagTarget / lag)} and never
 *       grows — the edge itself is the bottleneck, whatever the call times say. A stall with
 *       nothing in flight holds the limit: the lag is then another process's or the JVM's.
 * </ul>
 *
 * Then {@code limit = (1 − smoothing) × limit + smoothing × estimate}, clamped into [minLimit,
 * maxLimit]. In the linear-queue model (call time = base × max(1, in flight / C)) both branches
 * have the single fixed point {@code limit = a × C}, approached geometrically with ratio
 * {@code 1 − smoothing}, so there is no limit cycle: the only variance at steady state is the
 * measurement noise scaled by {@code smoothing}.
 *
 * <p>Why not plain Gradient2: its long-window RTT average drifts up with the queueing delay it
 * should detect (the limit creeps) and, used in shadow, its estimate collapses to minLimit
 * because in flight is not capped. Why not Envoy's gradient controller as is: it measures the
 * baseline by periodically pinning concurrency to a minimum, which refuses real traffic in
 * enforce. Known limit of this design: an edge started straight into overload never sees an
 * unloaded window, so its baseline is too high until the safety valve or a quiet period fixes it.
 *
 * <p>Thread safety: lock-free. Samples go to atomic per-tier sums; the window is claimed by CAS;
 * the limit is a double in an {@link AtomicLong} updated by CAS; settings are one immutable object
 * behind a volatile. Nothing is allocated per sample.
 */
public final class AdaptiveLimit {

  /** Length of a sampling window. */
  public static final long WINDOW_MILLIS = 25;
  /** Samples a window needs before it is used (a stall shrinks the limit even without samples). */
  public static final int MIN_SAMPLES = 16;
  /**
   * How far back the baseline looks when it rises: it rises only to the lowest window-mean call
   * time of the application-limited windows of this span.
   */
  public static final long BASELINE_HORIZON_MILLIS = 10_000;
  /** Of the horizon's one-second buckets, how many must hold application-limited windows for a rise. */
  public static final int BASELINE_MIN_BUCKETS = 8;
  /**
   * Observed concurrency below which slow calls are not read as congestion: with less than one
   * request in flight on average nothing queues behind the edge's own traffic, so a slow call at
   * idle (JIT warm-up, a cold cache, a slow backend) must not shrink the limit.
   */
  public static final double MIN_QUEUEING_CONCURRENCY = 1.0;
  /**
   * How long the limit may sit at minLimit with calls still too slow before the baseline is
   * re-learned: the limit cannot go lower, so the slowness is not something it can shed.
   */
  public static final long REBASELINE_MILLIS = 2_000;

  /** Where in [1, tolerance] the limit aims the call-time ratio; see {@link #aim(double)}. */
  static final double AIM_SHARE = 0.5;

  /**
   * How long a congestion's first window stays the reference of the slower-backend rule before the
   * current window replaces it: the limit halves in flight within a few hundred ms, and an older
   * reference (a burst at the start of a step, the end of an earlier phase) is no longer about the
   * same queue.
   */
  private static final long CONGESTION_REFERENCE_NANOS = 1_000_000_000L;
  /** The share of a window's concurrency in the smoothed one the slower-backend rule reads. */
  private static final double CONCURRENCY_SMOOTHING = 0.3;

  private static final long WINDOW_NANOS = WINDOW_MILLIS * 1_000_000L;
  private static final long LAG_BUCKET_NANOS = 100_000_000L;
  private static final int LAG_BUCKETS = 10;
  private static final int TIERS = 3; // START, CONTINUATION, PROXY; EXEMPT is never sampled

  private final LongSupplier nanoTime;
  private volatile EffectivePolicy.Adaptive settings;

  private final AtomicLong limitBits;
  private volatile int intLimit;

  private final AtomicLong windowStart;
  private final AtomicLongArray sums = new AtomicLongArray(TIERS);
  private final AtomicLongArray counts = new AtomicLongArray(TIERS);
  private final AtomicLongArray meanRttNanos = new AtomicLongArray(TIERS);
  private final AtomicLong failures = new AtomicLong();
  private final ServedRate served = new ServedRate();
  /** Whether the limit is enforced: in shadow it does not bound what is in flight. */
  private volatile boolean enforcing = true;

  private static final long FLOOR_BUCKET_NANOS = 1_000_000_000L;
  private static final int FLOOR_BUCKETS = (int) (BASELINE_HORIZON_MILLIS / 1000);
  /** Per second of the horizon: the lowest application-limited window mean (double bits), and its second. */
  private final AtomicLongArray floorStamps = new AtomicLongArray(FLOOR_BUCKETS);
  private final AtomicLongArray floorBits = new AtomicLongArray(FLOOR_BUCKETS);

  private final AtomicLongArray lagStamps = new AtomicLongArray(LAG_BUCKETS);
  private final AtomicLongArray lagMax = new AtomicLongArray(LAG_BUCKETS);

  // written only by the thread that owns the window being closed
  private volatile double baselineNanos;
  /** When the limit was first seen pinned at minLimit by slow calls, or 0. */
  private volatile long pinnedSince;
  /** Observed concurrency and call time of the first window of the current congestion, 0 outside one. */
  private volatile double congestionConcurrency;
  private volatile double congestionRtt;
  private volatile long congestionSince;
  /** Observed concurrency smoothed over windows ({@link #CONCURRENCY_SMOOTHING}), 0 before the first. */
  private volatile double smoothedConcurrency;
  /** See {@link #capacity()}. */
  private volatile double capacity;
  /** Requests in flight when the lag probe last fired (what a window without samples knows of load). */
  private volatile int inFlightAtLag;

  /**
   * @param adaptive the learning settings
   * @param startingLimit where the limit starts (clamped into [minLimit, maxLimit])
   * @param nanoTime the clock, {@code System::nanoTime} in production
   */
  public AdaptiveLimit(EffectivePolicy.Adaptive adaptive, int startingLimit, LongSupplier nanoTime) {
    this.settings = Objects.requireNonNull(adaptive, "adaptive");
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    double start = Math.clamp(startingLimit, adaptive.minLimit(), adaptive.maxLimit());
    this.limitBits = new AtomicLong(Double.doubleToRawLongBits(start));
    this.intLimit = (int) start;
    long now = nanoTime.getAsLong();
    this.windowStart = new AtomicLong(now);
    for (int i = 0; i < LAG_BUCKETS; i++) {
      lagStamps.set(i, Long.MIN_VALUE);
    }
    for (int i = 0; i < FLOOR_BUCKETS; i++) {
      floorStamps.set(i, Long.MIN_VALUE);
    }
  }

  /** The limit in force, in [minLimit, maxLimit]. */
  public int limit() {
    return intLimit;
  }

  /** The limit with its fraction, as the learner holds it. */
  public double exactLimit() {
    return Double.longBitsToDouble(limitBits.get());
  }

  /**
   * The concurrency the backend absorbs without queueing, by Little's law its throughput times the
   * unloaded call time: the most calls it served in one second of the last
   * {@value ServedRate#HORIZON_SECONDS} s ({@link ServedRate}) × the baseline; 0 before the first
   * window. What shadow's model of enforce drains at, and in shadow what a congested window's
   * estimate is taken from ({@code aim × capacity}).
   */
  public double capacity() {
    return capacity;
  }

  /**
   * Tells the learner whether its limit is enforced. In shadow nothing is refused, so in flight
   * does not follow the limit and the two ways of re-learning a slower backend (in flight halved
   * by the limit with calls as slow; the limit pinned at minLimit) would read any overload as a
   * slower backend: they apply in enforce only. In shadow the baseline still falls at once and
   * rises with lightly loaded windows.
   */
  public void enforcing(boolean enforced) {
    enforcing = enforced;
  }

  /** The settings in force. */
  public EffectivePolicy.Adaptive settings() {
    return settings;
  }

  /** The learned no-load call time, 0 before the first window. */
  public long baselineNanos() {
    return (long) baselineNanos;
  }

  /**
   * Swaps the settings atomically. The learned limit is kept, only clamped into the new
   * [minLimit, maxLimit].
   */
  public void applySettings(EffectivePolicy.Adaptive adaptive) {
    Objects.requireNonNull(adaptive, "adaptive");
    settings = adaptive;
    for (;;) {
      long bits = limitBits.get();
      double old = Double.longBitsToDouble(bits);
      double clamped = Math.clamp(old, adaptive.minLimit(), adaptive.maxLimit());
      if (clamped == old) {
        intLimit = (int) clamped;
        return;
      }
      if (limitBits.compareAndSet(bits, Double.doubleToRawLongBits(clamped))) {
        intLimit = (int) clamped;
        return;
      }
    }
  }

  /**
   * Feeds one call time (EXEMPT calls are ignored) and, when the sampling window is over, lets
   * this thread recompute the limit if it wins the window.
   */
  public void onSample(Tier tier, long callNanos) {
    onSample(tier, callNanos, true);
  }

  /**
   * Feeds one call time, saying whether the call succeeded: a failed call (a 5xx, a reset, a
   * client that gave up) tells how slow calls are, but it is not throughput the backend delivered,
   * so it does not count towards the concurrency the backend absorbs.
   */
  public void onSample(Tier tier, long callNanos, boolean success) {
    int index = tier.ordinal();
    if (index >= TIERS) {
      return;
    }
    long sample = Math.max(0, callNanos);
    sums.getAndAdd(index, sample);
    counts.getAndIncrement(index);
    if (success) {
      served.record(nanoTime.getAsLong());
    } else {
      failures.getAndIncrement();
    }
    maybeUpdate();
  }

  /**
   * Feeds how late a 10 ms timer fired. The worst lateness of the last second is the stall
   * signal (and {@code http_executor_lag_seconds}). It also closes a due window, so a stall shrinks
   * the limit even when no call completes — while requests are in flight: a late timer on an edge
   * with nothing to do is the machine's doing (another process, a GC at idle), not load the limit
   * could shed.
   *
   * @param inFlight requests counted in flight now
   */
  public void onExecutorLag(long lagNanos, int inFlight) {
    inFlightAtLag = inFlight;
    recordLag(lagNanos);
    maybeUpdate();
  }

  /** Records executor lag without learning from it (mode off). */
  void recordLag(long lagNanos) {
    long now = nanoTime.getAsLong();
    long stamp = Math.floorDiv(now, LAG_BUCKET_NANOS);
    int index = (int) Math.floorMod(stamp, (long) LAG_BUCKETS);
    long lag = Math.max(0, lagNanos);
    if (lagStamps.get(index) != stamp) {
      // a new bucket: one feeder thread in practice; a racing writer loses at most one sample
      lagMax.set(index, lag);
      lagStamps.set(index, stamp);
      return;
    }
    long current;
    while (lag > (current = lagMax.get(index))) {
      if (lagMax.compareAndSet(index, current, lag)) {
        return;
      }
    }
  }

  /** The worst executor lag over the last second. */
  public long executorLagNanos() {
    long stamp = Math.floorDiv(nanoTime.getAsLong(), LAG_BUCKET_NANOS);
    long worst = 0;
    for (int i = 0; i < LAG_BUCKETS; i++) {
      long s = lagStamps.get(i);
      if (s != Long.MIN_VALUE && s > stamp - LAG_BUCKETS && s <= stamp) {
        worst = Math.max(worst, lagMax.get(i));
      }
    }
    return worst;
  }

  /** The worst executor lag of the current and the previous 100 ms bucket: the learner's signal. */
  long recentLagNanos() {
    long stamp = Math.floorDiv(nanoTime.getAsLong(), LAG_BUCKET_NANOS);
    long worst = 0;
    for (long s = stamp - 1; s <= stamp; s++) {
      int index = (int) Math.floorMod(s, (long) LAG_BUCKETS);
      if (lagStamps.get(index) == s) {
        worst = Math.max(worst, lagMax.get(index));
      }
    }
    return worst;
  }

  /** Mean call time of the tier over the last window that had calls of it; 0 before any. */
  public double meanRttSeconds(Tier tier) {
    int index = tier.ordinal();
    return index >= TIERS ? 0 : meanRttNanos.get(index) / 1e9;
  }

  private void maybeUpdate() {
    long start = windowStart.get();
    long now = nanoTime.getAsLong();
    long elapsed = now - start;
    if (elapsed < WINDOW_NANOS) {
      return;
    }
    EffectivePolicy.Adaptive s = settings;
    long lag = recentLagNanos();
    boolean stalled = lag > s.lagTargetMillis() * 1_000_000L;
    long pending = counts.get(0) + counts.get(1) + counts.get(2);
    if (pending < MIN_SAMPLES && !stalled) {
      return;
    }
    if (!windowStart.compareAndSet(start, now)) {
      return;
    }
    long sum = 0;
    long count = 0;
    for (int i = 0; i < TIERS; i++) {
      long c = counts.getAndSet(i, 0);
      long t = sums.getAndSet(i, 0);
      if (c > 0) {
        meanRttNanos.set(i, t / c);
      }
      sum += t;
      count += c;
    }
    long failed = Math.min(count, failures.getAndSet(0));
    double limit = exactLimit();
    double estimate = limit;
    boolean congested = false;
    boolean loaded = inFlightAtLag >= MIN_QUEUEING_CONCURRENCY;
    if (count >= MIN_SAMPLES) {
      double rtt = (double) sum / count;
      double concurrency = (double) sum / elapsed;
      loaded |= concurrency >= MIN_QUEUEING_CONCURRENCY;
      boolean appLimited = concurrency < limit / 2;
      double baseline = baselineNanos;
      if (baseline <= 0 || rtt < baseline) {
        baseline = rtt;
      } else if (appLimited) {
        baseline = Math.max(baseline, recordFloor(now, rtt));
      }
      double aim = aim(s.tolerance());
      double gradient = aim * baseline / rtt;
      // one window's Little's-law concurrency swings by half with a burst of completions: the
      // slower-backend rule compares a smoothed one
      double smoothed = smoothedConcurrency <= 0 ? concurrency
          : smoothedConcurrency + CONCURRENCY_SMOOTHING * (concurrency - smoothedConcurrency);
      smoothedConcurrency = smoothed;
      if (gradient < 1 && concurrency >= MIN_QUEUEING_CONCURRENCY) {
        if (congestionConcurrency <= 0 || now - congestionSince > CONGESTION_REFERENCE_NANOS) {
          congestionConcurrency = smoothed;
          congestionRtt = rtt;
          congestionSince = now;
        } else if (enforcing && !appLimited && slowerNotQueueing(smoothed, rtt, s.tolerance())) {
          // the limit has halved in flight since the congestion began and the calls are as slow
          // as then: what slowed them is not a queue the limit could shorten, so it is the new
          // baseline. Only while the limit is in use: when a load ends, in flight falls by itself
          // while the last queued calls complete, still slow (this read that as a slower backend)
          baseline = rtt;
          gradient = aim;
          congestionConcurrency = 0;
        }
      } else {
        congestionConcurrency = 0;
      }
      double servedShare = count == 0 ? 1 : (double) (count - failed) / count;
      // the backend's capacity: the best served second of the horizon × the unloaded call time
      double shown = served.bestSecond(now) * baseline / 1e9;
      capacity = shown;
      if (gradient < 1 && concurrency >= MIN_QUEUEING_CONCURRENCY) {
        congested = true;
        // in shadow the backend also serves what enforce would refuse, and its clients give up on
        // its queue: what it delivers now can understate what it can, which its best second says
        double absorbed = concurrency * gradient * servedShare;
        if (!enforcing) {
          absorbed = Math.max(absorbed, aim * shown);
        }
        estimate = Math.max(limit / 2, absorbed);
      } else if (!appLimited && gradient > 1) {
        estimate = Math.max(limit + 1, limit * Math.min(2, gradient));
      }
      if (congested && enforcing && limit <= s.minLimit()) {
        if (pinnedSince == 0) {
          pinnedSince = now;
        } else if (now - pinnedSince >= REBASELINE_MILLIS * 1_000_000L) {
          baseline = rtt;
          pinnedSince = 0;
        }
      } else {
        pinnedSince = 0;
      }
      baselineNanos = baseline;
    }
    if (stalled && loaded) {
      double lagGradient = Math.max(0.5, s.lagTargetMillis() * 1_000_000.0 / lag);
      estimate = Math.min(Math.min(estimate, limit), limit * lagGradient);
    }
    for (;;) {
      long bits = limitBits.get();
      double current = Double.longBitsToDouble(bits);
      EffectivePolicy.Adaptive latest = settings;
      double next = (1 - latest.smoothing()) * current + latest.smoothing() * estimate;
      next = Math.clamp(next, latest.minLimit(), latest.maxLimit());
      if (limitBits.compareAndSet(bits, Double.doubleToRawLongBits(next))) {
        intLimit = (int) next;
        return;
      }
    }
  }

  /**
   * The call-time ratio the limit aims at, {@code 1 + AIM_SHARE × (tolerance − 1)}: a window
   * whose calls are slower than that times the baseline is congested, and one that is faster, not
   * application-limited, grows the limit. Aiming at {@code tolerance} itself put the fixed point
   * on the target's edge: half of the admitted calls then took longer than {@code tolerance ×} the
   * no-load time, and the baseline's own error (the edge's overhead, a backend's jitter) pushed
   * more over it.
   */
  static double aim(double tolerance) {
    return 1 + AIM_SHARE * (tolerance - 1);
  }

  /**
   * Records an application-limited window's mean call time and returns what the baseline may rise
   * to: the lowest such mean of the horizon once at least {@value #BASELINE_MIN_BUCKETS} of its
   * seconds hold one, else 0. A backend that is busy but not refused for (offered load near its
   * capacity) has windows with and without a queue; the lowest of them is still about the
   * unloaded call time, where a drift towards every window's mean took the queue in.
   */
  private double recordFloor(long now, double rtt) {
    long second = Math.floorDiv(now, FLOOR_BUCKET_NANOS);
    int index = (int) Math.floorMod(second, (long) FLOOR_BUCKETS);
    if (floorStamps.get(index) != second) {
      floorStamps.set(index, second);
      floorBits.set(index, Double.doubleToRawLongBits(rtt));
    } else if (rtt < Double.longBitsToDouble(floorBits.get(index))) {
      floorBits.set(index, Double.doubleToRawLongBits(rtt));
    }
    int buckets = 0;
    double lowest = Double.MAX_VALUE;
    for (int i = 0; i < FLOOR_BUCKETS; i++) {
      long stamp = floorStamps.get(i);
      if (stamp != Long.MIN_VALUE && stamp > second - FLOOR_BUCKETS) {
        buckets++;
        lowest = Math.min(lowest, Double.longBitsToDouble(floorBits.get(i)));
      }
    }
    return buckets >= BASELINE_MIN_BUCKETS ? lowest : 0;
  }

  /**
   * Whether a congested window says the backend got slower rather than queued: in flight is at
   * most half what it was when the congestion began while the mean call time fell by less than
   * half of what a queue would have given back. With a queue, call time is proportional to in
   * flight above capacity, so halving in flight from above {@code tolerance ×} capacity removes
   * at least {@code 1 − 1/tolerance} of the call time.
   */
  private boolean slowerNotQueueing(double concurrency, double rtt, double tolerance) {
    double expectedDrop = 1 - 1 / tolerance;
    return concurrency <= congestionConcurrency / 2 && rtt >= congestionRtt * (1 - expectedDrop / 2);
  }
}
