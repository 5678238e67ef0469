package io.spillway.edge.guard;

import io.spillway.edge.stats.StatsStore;
import io.spillway.policy.EffectivePolicy;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * The guards of one configuration, peer name → {@link PeerGuard}: an immutable map published as one
 * reference, replaced whole when the clusters change (a lookup is one volatile read and one
 * {@code Map.get}). Peers that must never be limited — the cluster that reaches central for
 * configuration sync — are simply not registered: {@link #guard(String)} answers {@code null} and
 * the router calls them unguarded.
 *
 * <p>On a configuration reload, build the next registry with {@link #next(Collection)} so the guards
 * of peers that stay (with their in-flight counts, queues and breakers) carry over.
 */
public final class GuardRegistry {

  private volatile Map<String, PeerGuard> guards;
  private final StatsStore stats;
  private final LongSupplier nanoTime;
  private final DoubleSupplier random;
  private volatile EffectivePolicy.Outbound outbound;

  private GuardRegistry(Map<String, PeerGuard> guards, EffectivePolicy.Outbound outbound, StatsStore stats,
      LongSupplier nanoTime, DoubleSupplier random) {
    this.guards = guards;
    this.outbound = outbound;
    this.stats = stats;
    this.nanoTime = nanoTime;
    this.random = random;
  }

  /** With the system clock and a thread-local random. */
  public static GuardRegistry build(Collection<String> peers, EffectivePolicy.Outbound outbound, StatsStore stats) {
    return build(peers, outbound, stats, System::nanoTime, () -> ThreadLocalRandom.current().nextDouble());
  }

  /**
   * @param peers the guarded peers (upstream cluster names), central's excluded
   * @param outbound the resolved outbound policy, the same for every peer
   */
  public static GuardRegistry build(Collection<String> peers, EffectivePolicy.Outbound outbound, StatsStore stats,
      LongSupplier nanoTime, DoubleSupplier random) {
    Objects.requireNonNull(outbound, "outbound");
    Objects.requireNonNull(stats, "stats");
    Map<String, PeerGuard> guards = new LinkedHashMap<>();
    for (String peer : peers) {
      guards.computeIfAbsent(peer, p -> new PeerGuard(p, outbound, stats, nanoTime, random));
    }
    return new GuardRegistry(Map.copyOf(guards), outbound, stats, nanoTime, random);
  }

  /**
   * The registry for a new set of peers: guards of peers in both keep their state; new peers get
   * new guards under the current policy.
   */
  public GuardRegistry next(Collection<String> peers) {
    EffectivePolicy.Outbound current = outbound;
    Map<String, PeerGuard> next = new LinkedHashMap<>();
    for (String peer : peers) {
      next.computeIfAbsent(peer, p -> {
        PeerGuard kept = guards.get(p);
        return kept != null ? kept : new PeerGuard(p, current, stats, nanoTime, random);
      });
    }
    return new GuardRegistry(Map.copyOf(next), current, stats, nanoTime, random);
  }

  /**
   * Changes the guarded peers in place (a CDS update): peers that stay keep their guards and state,
   * new peers get new guards under the current policy, peers that left are dropped. The map is
   * published as one reference; call from the control thread.
   */
  public void setPeers(Collection<String> peers) {
    guards = next(peers).guards;
  }

  /** The guard of a peer, or {@code null} when the peer is not guarded. */
  public PeerGuard guard(String peer) {
    return guards.get(peer);
  }

  /** All guards by peer name. */
  public Map<String, PeerGuard> guards() {
    return guards;
  }

  /** Applies a new outbound policy to every guard (each swap is atomic per guard). */
  public void applyPolicy(EffectivePolicy.Outbound outbound) {
    Objects.requireNonNull(outbound, "outbound");
    this.outbound = outbound;
    for (PeerGuard guard : guards.values()) {
      guard.applyPolicy(outbound);
    }
  }

  /** The outbound policy last applied. */
  public EffectivePolicy.Outbound policy() {
    return outbound;
  }
}
