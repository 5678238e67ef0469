package io.spillway.edge.overload;

import io.spillway.edge.stats.Counter;
import java.util.random.RandomGenerator;

/**
 * One of Envoy's load shed points, as the component at that point in the connection or stream
 * lifecycle holds it: obtained once by name ({@link OverloadManager#loadShedPoint(String)}), then
 * asked per connection or request. Shedding is probabilistic: the probability is the maximum of the
 * point's trigger states; at 1 the point always sheds, at 0 never, in between it sheds after a
 * Bernoulli draw from the caller's (per-worker) generator. Every shed counts
 * {@code overload.<name>.shed_load_count}.
 *
 * <p>Cost per check: the caller's snapshot read, one array load, at most one
 * {@link RandomGenerator#nextDouble()} and, when shedding, one counter increment. No allocation.
 */
public final class LoadShedPoint {

  /** A point that is not configured: never sheds, counts nothing. */
  public static final LoadShedPoint NO_OP = new LoadShedPoint(ShedPointIndex.NO_OP, null);

  private final ShedPointIndex index;
  private final Counter shedLoadCount;

  LoadShedPoint(ShedPointIndex index, Counter shedLoadCount) {
    this.index = index;
    this.shedLoadCount = shedLoadCount;
  }

  /** This point's slot in the {@link OverloadState}s. */
  public ShedPointIndex index() {
    return index;
  }

  /** Whether the point is configured. */
  public boolean isConfigured() {
    return index.isConfigured();
  }

  /**
   * Whether to shed the load at hand, given the snapshot the caller holds. Hot path.
   *
   * @param random the calling worker's generator (not shared between threads)
   */
  public boolean shouldShed(OverloadState state, RandomGenerator random) {
    double probability = state.shedProbability(index);
    if (probability <= 0.0) {
      return false;
    }
    if (probability >= 1.0 || random.nextDouble() < probability) {
      shedLoadCount.inc();
      return true;
    }
    return false;
  }

  @Override
  public String toString() {
    return "LoadShedPoint[" + (isConfigured() ? index.name() : "NO_OP") + "]";
  }
}
