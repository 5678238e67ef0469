package io.spillway.edge.filters.policylimit;

import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.stats.CustomScope;
import io.spillway.policy.Mode;
import io.spillway.policy.RateLimit;
import io.spillway.policy.RateLimitScope;
import io.spillway.policy.RateLimitsPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The edge's {@code rateLimits} policy (SPEC §9), one for the whole edge: the limits central sent,
 * compiled, published by one volatile write and read once per request by every worker's
 * {@link PolicyRateLimitFilter}. Buckets are shared by all workers and all connection managers.
 *
 * <p>{@link #apply} runs on the control path. A limit whose settings did not change keeps its
 * buckets (a re-sent or reordered policy does not refill every caller); a changed one starts with
 * full buckets.
 */
public final class PolicyRateLimits {
  /** The chain entry's name, as stats and logs show it. */
  public static final String FILTER_NAME = "spillway.filters.http.policy_ratelimit";
  /** The name of the stage before the router, for the limits keyed by the authenticated subject. */
  public static final String LATE_FILTER_NAME = "spillway.filters.http.policy_ratelimit_subject";

  private final CustomScope stats;
  private final LongSupplier nanoClock;
  private final FleetCounter fleet;
  private volatile List<PolicyLimit> limits = List.of();
  /** Whether some limit in force is keyed by the subject (checked by the stage before the router). */
  private volatile boolean anyLate;

  /**
   * Without a shared count: a {@code scope: fleet} limit cannot be applied.
   *
   * @param stats where {@code http_ratelimit_*} are registered
   * @param nanoClock a monotonic clock in nanoseconds (System::nanoTime in the edge; a test's own)
   */
  public PolicyRateLimits(CustomScope stats, LongSupplier nanoClock) {
    this(stats, nanoClock, null);
  }

  /**
   * @param fleet where fleet-wide limits count (the edge's Redis), or null when it has none
   */
  public PolicyRateLimits(CustomScope stats, LongSupplier nanoClock, FleetCounter fleet) {
    this.stats = Objects.requireNonNull(stats, "stats");
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    this.fleet = fleet;
  }

  /** Whether {@code scope: fleet} limits can be applied (the edge was given a Redis). */
  public boolean fleetAvailable() {
    return fleet != null;
  }

  /**
   * Publishes a validated policy ({@link RateLimitsPolicy#EMPTY}: no limits).
   *
   * @throws IllegalArgumentException for a fleet-wide limit when the edge has no shared count
   *     (decoding refuses such a policy first)
   */
  public void apply(RateLimitsPolicy policy) {
    Map<RateLimit, PolicyLimit> current = new HashMap<>();
    for (PolicyLimit limit : limits) {
      current.put(limit.config, limit);
    }
    List<PolicyLimit> next = new ArrayList<>();
    for (RateLimit config : policy.limits()) {
      PolicyLimit kept = current.get(config);
      next.add(kept != null ? kept : new PolicyLimit(config, stats, fleet));
    }
    limits = List.copyOf(next);
    anyLate = next.stream().anyMatch(l -> l.key.kind().needsFilters());
  }

  /** The limits in force, in policy order. */
  List<PolicyLimit> limits() {
    return limits;
  }

  long now() {
    return nanoClock.getAsLong();
  }

  /**
   * What {@code /ratelimits} shows of one limit.
   *
   * @param name the limit's name
   * @param key its key, as configured
   * @param mode off, shadow or enforce
   * @param rate requests per second
   * @param burst bucket size
   * @param keysTracked key values with a bucket now
   * @param maxKeys the most it tracks
   * @param evictions keys forgotten to make room
   * @param checked requests checked
   * @param refusedShadow would-be refusals counted in shadow
   * @param refusedEnforce refusals answered with 429
   * @param scope edge or fleet
   * @param fleetCalls calls to the shared count (fleet-wide limits; 0 otherwise)
   * @param fallbacks requests a fleet-wide limit checked on this edge alone because the shared count did not answer
   */
  public record Description(String name, String key, Mode mode, double rate, int burst, int keysTracked, int maxKeys,
      long evictions, long checked, long refusedShadow, long refusedEnforce, RateLimitScope scope, long fleetCalls,
      long fallbacks) {}

  /** Every limit in force, with its counts (scans each key table: for the admin page). */
  public List<Description> describe() {
    return limits.stream().map(l -> new Description(l.name, l.config.key(), l.mode, l.config.rate(), l.config.burst(),
        l.buckets.tracked(), l.buckets.capacity(), l.buckets.evictions(), l.checked.value(), l.refused(Mode.SHADOW),
        l.refused(Mode.ENFORCE), l.config.effectiveScope(), l.fleet == null ? 0 : l.fleetCalls.value(),
        l.fleet == null ? 0 : l.fallbackTimeout.value() + l.fallbackError.value() + l.fallbackUnavailable.value()))
        .toList();
  }

  /**
   * The chain stage of one connection manager: the shared limits, keyed by client address as that
   * manager trusts it.
   *
   * @param xffNumTrustedHops the connection manager's {@code xff_num_trusted_hops}
   */
  public HttpFilterFactory factory() {
    return factory(false);
  }

  /**
   * The stage placed just before the router: the limits keyed by the authenticated subject, which
   * jwt_authn (one of the configured filters) finds. Requests pass it at once while the policy has none.
   */
  public HttpFilterFactory lateFactory() {
    return factory(true);
  }

  private HttpFilterFactory factory(boolean late) {
    return new HttpFilterFactory() {
      @Override
      public String name() {
        return late ? LATE_FILTER_NAME : FILTER_NAME;
      }

      @Override
      public void createFilters(FilterChainBuilder chain) {
        if (!late || anyLate) { // no stage object per request for subject limits the policy does not have
          chain.addDecoderFilter(new PolicyRateLimitFilter(PolicyRateLimits.this, late));
        }
      }
    };
  }
}
