package io.spillway.edge.admission;

import io.spillway.edge.stats.StatsStore;
import io.spillway.policy.EffectivePolicy;
import java.util.ArrayDeque;
import java.util.SplittableRandom;

/**
 * A deterministic open-loop model of an edge in front of a server, stepped in 1 ms ticks, shaped
 * like {@code bench/overload.sh}'s backend: {@code slots} workers take admitted requests in FIFO
 * order, each for {@code serviceMillis} ± {@code jitter} (20 % unless given; seeded); requests arrive at a set rate whatever
 * happens to the earlier ones (a refused request is gone). The call time an admitted request
 * reports is its queueing plus service time, as the edge sees it.
 */
final class OpenLoopModel {

  static final long MS = 1_000_000L;

  final int slots;
  final AdmissionController admission;
  private final SplittableRandom random = new SplittableRandom(7);
  private Tier[] tiers;
  private long arrivals;
  private long clientTimeoutNanos;
  private boolean servesAbandoned;
  private long now = 1_000 * MS;
  private double serviceMillis;
  private final double jitter;
  private double ratePerSecond;
  private double arrivalCredit;

  private final ArrayDeque<Request> waiting = new ArrayDeque<>();
  private final Request[] busy;

  long offered;
  /** Offered requests per tier (by ordinal), since the last reset. */
  final long[] offeredByTier = new long[Tier.values().length];
  long admitted;
  long refused;
  /** Admitted requests their client gave up on while they waited ({@link #clientTimeout}). */
  long timedOut;
  /** Call times of the admitted requests that completed since the last reset, in ms. */
  final org.HdrHistogram.Histogram callMillis = new org.HdrHistogram.Histogram(60_000, 3);

  private static final class Request {
    final AdmissionPermit permit;
    final long arrivedNanos;
    double remaining;
    boolean abandoned;
    boolean started;

    Request(AdmissionPermit permit, long arrivedNanos, double remaining) {
      this.permit = permit;
      this.arrivedNanos = arrivedNanos;
      this.remaining = remaining;
    }
  }

  /** Admitted requests in arrival order, for the client timeout. */
  private final ArrayDeque<Request> byArrival = new ArrayDeque<>();

  OpenLoopModel(int slots, double serviceMillis, EffectivePolicy.Inbound inbound, Tier tier) {
    this(slots, serviceMillis, 0.2, inbound, tier);
  }

  /** @param jitter each service time is {@code serviceMillis × (1 ± jitter)}, uniformly */
  OpenLoopModel(int slots, double serviceMillis, double jitter, EffectivePolicy.Inbound inbound, Tier tier) {
    this.slots = slots;
    this.jitter = jitter;
    this.serviceMillis = serviceMillis;
    this.tiers = new Tier[] {tier};
    this.busy = new Request[slots];
    this.admission = new AdmissionController(inbound, new StatsStore(), () -> now);
  }

  /** The tiers of the arriving requests from now on, in turn (one tier unless set). */
  void tiers(Tier... cycle) {
    tiers = cycle.clone();
  }

  /**
   * From now on a request still waiting for a slot after {@code millis} is given up by its client:
   * it leaves the queue and its permit is released as failed (0: clients wait for ever).
   */
  void clientTimeout(long millis) {
    clientTimeoutNanos = millis * MS;
  }

  /**
   * Whether the backend still serves a request its client gave up on (a queue that does not
   * notice a closed connection): the request keeps its place and takes its service time.
   */
  void servesAbandoned(boolean serves) {
    servesAbandoned = serves;
  }

  /** Requests per second from now on. */
  void rate(double perSecond) {
    ratePerSecond = perSecond;
  }

  /** Service time of the requests that arrive from now on (the backend got slower or faster). */
  void serviceMillis(double millis) {
    serviceMillis = millis;
  }

  /** The server's capacity in requests per second at the current service time. */
  double capacity() {
    return slots * 1000.0 / serviceMillis;
  }

  void resetCounts() {
    offered = 0;
    java.util.Arrays.fill(offeredByTier, 0);
    admitted = 0;
    refused = 0;
    timedOut = 0;
    callMillis.reset();
  }

  int limit() {
    return admission.limit();
  }

  long nowNanos() {
    return now;
  }

  void tick() {
    now += MS;
    for (int i = 0; i < slots; i++) {
      Request r = busy[i];
      if (r != null && (r.remaining -= 1) <= 0) {
        if (!r.abandoned) {
          long took = now - r.arrivedNanos;
          r.permit.release(took, true);
          callMillis.recordValue(Math.max(1, took / MS));
        }
        busy[i] = null;
      }
      if (busy[i] == null && !waiting.isEmpty()) {
        busy[i] = waiting.poll();
        busy[i].started = true;
      }
    }
    if (clientTimeoutNanos > 0) {
      giveUp();
    }
    arrivalCredit += ratePerSecond / 1000.0;
    while (arrivalCredit >= 1) {
      arrivalCredit -= 1;
      offered++;
      Tier tier = tiers[(int) (arrivals++ % tiers.length)];
      offeredByTier[tier.ordinal()]++;
      AdmissionPermit permit = admission.tryAcquire(tier);
      if (permit.refused()) {
        refused++;
        continue;
      }
      admitted++;
      Request r = new Request(permit, now, serviceMillis * (1 - jitter + 2 * jitter * random.nextDouble()));
      if (clientTimeoutNanos > 0) {
        byArrival.add(r);
      }
      int free = freeSlot();
      if (free >= 0) {
        busy[free] = r;
        r.started = true;
      } else {
        waiting.add(r);
      }
    }
  }

  /** Clients give up on the requests that waited too long; the backend may still serve them. */
  private void giveUp() {
    while (!byArrival.isEmpty() && now - byArrival.peek().arrivedNanos >= clientTimeoutNanos) {
      Request r = byArrival.poll();
      if (r.started) {
        continue; // done, or being served: the answer comes in time
      }
      r.abandoned = true;
      r.permit.release(now - r.arrivedNanos, false);
      timedOut++;
      if (!servesAbandoned) {
        waiting.remove(r);
      }
    }
  }

  private int freeSlot() {
    for (int i = 0; i < slots; i++) {
      if (busy[i] == null) {
        return i;
      }
    }
    return -1;
  }

  void run(long millis) {
    for (long i = 0; i < millis; i++) {
      tick();
    }
  }

  /** Runs and returns the median of the limit sampled every 50 ms. */
  int runSamplingLimit(long millis) {
    int[] samples = new int[(int) (millis / 50)];
    for (int s = 0; s < samples.length; s++) {
      run(50);
      samples[s] = limit();
    }
    run(millis % 50);
    java.util.Arrays.sort(samples);
    return samples.length == 0 ? limit() : samples[samples.length / 2];
  }
}
