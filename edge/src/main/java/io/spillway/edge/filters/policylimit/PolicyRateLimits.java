package io.spillway.edge.filters.policylimit;

import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.stats.CustomScope;
import io.spillway.policy.Mode;
import io.spillway.policy.RateLimit;
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

  private final CustomScope stats;
  private final LongSupplier nanoClock;
  private volatile List<PolicyLimit> limits = List.of();

  /**
   * @param stats where {@code http_ratelimit_*} are registered
   * @param nanoClock a monotonic clock in nanoseconds (System::nanoTime in the edge; a test's own)
   */
  public PolicyRateLimits(CustomScope stats, LongSupplier nanoClock) {
    this.stats = Objects.requireNonNull(stats, "stats");
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
  }

  /** Publishes a validated policy ({@link RateLimitsPolicy#EMPTY}: no limits). */
  public void apply(RateLimitsPolicy policy) {
    Map<RateLimit, PolicyLimit> current = new HashMap<>();
    for (PolicyLimit limit : limits) {
      current.put(limit.config, limit);
    }
    List<PolicyLimit> next = new ArrayList<>();
    for (RateLimit config : policy.limits()) {
      PolicyLimit kept = current.get(config);
      next.add(kept != null ? kept : new PolicyLimit(config, stats));
    }
    limits = List.copyOf(next);
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
   */
  public record Description(String name, String key, Mode mode, double rate, int burst, int keysTracked, int maxKeys,
      long evictions, long checked, long refusedShadow, long refusedEnforce) {}

  /** Every limit in force, with its counts (scans each key table: for the admin page). */
  public List<Description> describe() {
    return limits.stream().map(l -> new Description(l.name, l.config.key(), l.mode, l.config.rate(), l.config.burst(),
        l.buckets.tracked(), l.buckets.capacity(), l.buckets.evictions(), l.checked.value(), l.refused(Mode.SHADOW),
        l.refused(Mode.ENFORCE))).toList();
  }

  /**
   * The chain stage of one connection manager: the shared limits, keyed by client address as that
   * manager trusts it.
   *
   * @param xffNumTrustedHops the connection manager's {@code xff_num_trusted_hops}
   */
  public HttpFilterFactory factory() {
    return new HttpFilterFactory() {
      @Override
      public String name() {
        return FILTER_NAME;
      }

      @Override
      public void createFilters(FilterChainBuilder chain) {
        chain.addDecoderFilter(new PolicyRateLimitFilter(PolicyRateLimits.this));
      }
    };
  }
}
