package io.spillway.edge.admission;

import io.spillway.edge.stats.StatsStore;
import io.spillway.policy.EffectivePolicy;
import java.util.SplittableRandom;

/**
 * A deterministic closed-loop model of an edge in front of a server, stepped in 1 ms ticks.
 *
 * <p>The server is processor-sharing with capacity {@code C}: with {@code n} requests in flight,
 * each progresses at {@code min(1, C / n)} of real time, so a request of work {@code w} takes
 * {@code w × max(1, n / C)} — call time = base × max(1, in flight / C). Work is {@code base} with
 * ±20 % seeded jitter. Each client sends its next request as soon as the previous one ends; a
 * refused client retries after 5–15 ms. The controller's clock is the model's clock.
 */
final class ClosedLoopModel {

  static final long MS = 1_000_000L;

  final int capacity;
  final double baseMillis;
  final AdmissionController admission;
  private final SplittableRandom random = new SplittableRandom(42);
  private long now = 1_000 * MS;

  private final Tier[] tiers;
  private final AdmissionPermit[] permits;
  private final double[] remaining;
  private final long[] started;
  private final long[] nextTry;
  private int active;

  final long[] attempts = new long[Tier.values().length];
  final long[] admitted = new long[Tier.values().length];
  final long[] refused = new long[Tier.values().length];

  ClosedLoopModel(int capacity, double baseMillis, EffectivePolicy.Inbound inbound, Tier[] clientTiers) {
    this.capacity = capacity;
    this.baseMillis = baseMillis;
    this.admission = new AdmissionController(inbound, new StatsStore(), () -> now);
    this.tiers = clientTiers.clone();
    this.permits = new AdmissionPermit[tiers.length];
    this.remaining = new double[tiers.length];
    this.started = new long[tiers.length];
    this.nextTry = new long[tiers.length];
    this.active = tiers.length;
  }

  /** Only the first {@code clients} clients send; the others finish what they have and stop. */
  void activeClients(int clients) {
    active = clients;
  }

  long nowNanos() {
    return now;
  }

  int inFlightAtServer() {
    int n = 0;
    for (AdmissionPermit p : permits) {
      n += p != null ? 1 : 0;
    }
    return n;
  }

  int inFlightAtServer(Tier tier) {
    int n = 0;
    for (int i = 0; i < permits.length; i++) {
      n += permits[i] != null && tiers[i] == tier ? 1 : 0;
    }
    return n;
  }

  void resetCounts() {
    java.util.Arrays.fill(attempts, 0);
    java.util.Arrays.fill(admitted, 0);
    java.util.Arrays.fill(refused, 0);
  }

  /** One millisecond: the server works, finished requests release, idle clients send. */
  void tick() {
    now += MS;
    int n = inFlightAtServer();
    double progress = n <= capacity ? 1.0 : (double) capacity / n;
    for (int i = 0; i < tiers.length; i++) {
      if (permits[i] == null) {
        continue;
      }
      remaining[i] -= progress;
      if (remaining[i] <= 0) {
        permits[i].release(now - started[i], true);
        permits[i] = null;
        nextTry[i] = now;
      }
    }
    for (int i = 0; i < active; i++) {
      if (permits[i] != null || nextTry[i] > now) {
        continue;
      }
      Tier tier = tiers[i];
      attempts[tier.ordinal()]++;
      AdmissionPermit permit = admission.tryAcquire(tier);
      if (permit.refused()) {
        refused[tier.ordinal()]++;
        nextTry[i] = now + (5 + random.nextInt(11)) * MS;
        continue;
      }
      admitted[tier.ordinal()]++;
      permits[i] = permit;
      started[i] = now;
      remaining[i] = baseMillis * (0.8 + 0.4 * random.nextDouble());
    }
  }

  void run(long millis) {
    for (long i = 0; i < millis; i++) {
      tick();
    }
  }

  static Tier[] clients(int count, Tier tier) {
    Tier[] t = new Tier[count];
    java.util.Arrays.fill(t, tier);
    return t;
  }
}
