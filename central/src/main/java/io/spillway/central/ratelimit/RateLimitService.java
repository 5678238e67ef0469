package io.spillway.central.ratelimit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.Status;
import io.lettuce.core.RedisCommandTimeoutException;
import io.grpc.stub.StreamObserver;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.spillway.central.auth.Secrets;
import io.spillway.central.edges.EdgeStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit} for a fleet: Spillway edges
 * or Envoys whose {@code envoy.filters.http.ratelimit} filter points at central's xDS port. The
 * limits are Lyft's ({@link RateLimitConfig}); the counters are Lyft's fixed windows in Redis, one
 * key per descriptor and window, {@code <prefix><domain>_<key>_<value>_..._<window start>}, so every
 * replica of central and every edge calling any of them shares one count.
 *
 * <p><b>Answers.</b> A descriptor with no limit, or an {@code unlimited} one, is {@code OK} and not
 * counted; a counted one is {@code OVER_LIMIT} once the window's count passes
 * {@code requests_per_unit} (in {@code shadow_mode}: {@code OK}, counted in
 * {@code central_ratelimit_shadow_over_limit_total}), with {@code current_limit},
 * {@code limit_remaining} and {@code duration_until_reset}; the overall code is {@code OVER_LIMIT}
 * when any descriptor is. A descriptor's {@code hits_addend} wins over the request's, which is 1
 * when unset; a descriptor's {@code limit} override replaces the configured limit (within a
 * configured domain), as in Lyft's service.
 *
 * <p><b>Redis slow or down.</b> The call ends with {@code UNAVAILABLE} within the Redis timeout
 * (default 50 ms), never later: the caller's {@code failure_mode_deny} decides whether the request
 * passes. Counted in {@code central_ratelimit_redis_errors_total}.
 *
 * <p><b>Authentication.</b> Registered on the xDS server behind its edge interceptor: a call without
 * {@code authorization: Bearer <credential>} ends with {@code UNAUTHENTICATED}; a credential no
 * registered edge has, with {@code PERMISSION_DENIED}. Both answers are remembered (a minute for a
 * registered credential, five seconds for an unknown one) so the registry is not read per call.
 */
public final class RateLimitService extends RateLimitServiceGrpc.RateLimitServiceImplBase implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RateLimitService.class);
  private static final Duration KNOWN_FOR = Duration.ofMinutes(1);
  private static final Duration UNKNOWN_FOR = Duration.ofSeconds(5);
  private static final long UINT32_MAX = 0xFFFF_FFFFL;

  private final RateLimitConfig config;
  private final Counters counters;
  private final Predicate<String> credentialRegistered;
  private final Supplier<String> callCredential;
  private final RateLimitMetrics metrics;
  private final Clock clock;
  private final String keyPrefix;

  /**
   * The service over these counters.
   *
   * @param credentialRegistered whether a credential's hash is a registered edge's
   * @param callCredential the credential the current call presented, or null
   * @param keyPrefix put before every counter's key
   */
  RateLimitService(RateLimitConfig config, Counters counters, Predicate<String> credentialRegistered,
      Supplier<String> callCredential, PrometheusRegistry registry, Clock clock, String keyPrefix) {
    this(config, counters, credentialRegistered, callCredential, new RateLimitMetrics(registry, config.domains()), clock,
        keyPrefix);
  }

  private RateLimitService(RateLimitConfig config, Counters counters, Predicate<String> credentialRegistered,
      Supplier<String> callCredential, RateLimitMetrics metrics, Clock clock, String keyPrefix) {
    this.config = config;
    this.counters = counters;
    this.credentialRegistered = credentialRegistered;
    this.callCredential = callCredential;
    this.metrics = metrics;
    this.clock = clock;
    this.keyPrefix = keyPrefix;
  }

  /**
   * Loads the limits and starts connecting to Redis (without waiting: an unreachable Redis makes
   * calls fail, not start-up).
   *
   * @param edges the registry the callers' credentials are checked against
   * @param callCredential the credential the current gRPC call presented, or null
   * @throws IllegalArgumentException when a limits file is bad (the message names the file and
   *     the field) or the Redis URI is not one
   */
  public static RateLimitService start(RateLimitSettings settings, EdgeStore edges, Supplier<String> callCredential,
      PrometheusRegistry registry, Clock clock) {
    RateLimitConfig config = RateLimitConfig.load(settings.configFiles());
    Cache<String, Boolean> known = Caffeine.newBuilder()
        .maximumSize(10_000)
        .expireAfter(new Expiry<String, Boolean>() {
          @Override
          public long expireAfterCreate(String key, Boolean registered, long currentTime) {
            return (registered ? KNOWN_FOR : UNKNOWN_FOR).toNanos();
          }

          @Override
          public long expireAfterUpdate(String key, Boolean registered, long currentTime, long currentDuration) {
            return expireAfterCreate(key, registered, currentTime);
          }

          @Override
          public long expireAfterRead(String key, Boolean registered, long currentTime, long currentDuration) {
            return currentDuration;
          }
        })
        .build();
    Predicate<String> registered = hash -> known.get(hash, h -> edges.edgeWithCredential(h).isPresent());
    Counters counters = new RedisCounters(settings.redisUri(), settings.redisTimeout(), System::nanoTime);
    log.info("rate limit service: domains {} from {}, counters in Redis at {} (timeout {})", config.domains(),
        settings.configFiles(), redacted(settings.redisUri()), settings.redisTimeout());
    return new RateLimitService(config, counters, registered, callCredential, registry, clock, settings.keyPrefix());
  }

  @Override
  public void shouldRateLimit(RateLimitRequest request, StreamObserver<RateLimitResponse> responses) {
    long started = System.nanoTime();
    String domain = request.getDomain();
    String credential = callCredential.get();
    if (credential == null || !credentialRegistered.test(Secrets.hash(credential))) {
      metrics.answered(domain, RateLimitMetrics.Code.DENIED, System.nanoTime() - started);
      log.debug("rate limit service: refused a call whose credential is not a registered edge's");
      responses.onError(Status.PERMISSION_DENIED
          .withDescription("the credential is not a registered edge's").asRuntimeException());
      return;
    }
    Plan plan;
    try {
      plan = plan(request);
    } catch (IllegalArgumentException e) {
      metrics.answered(domain, RateLimitMetrics.Code.INVALID, System.nanoTime() - started);
      responses.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
      return;
    }
    if (plan.keys.length == 0) {
      answer(plan, new long[0], started, responses);
      return;
    }
    counters.increment(plan.keys, plan.hits, plan.ttlSeconds).whenComplete((counts, error) -> {
      if (error != null) {
        Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
            ? error.getCause() : error;
        boolean timedOut = cause instanceof TimeoutException || cause instanceof RedisCommandTimeoutException;
        if (timedOut) {
          metrics.redisTimeout();
        } else {
          metrics.redisError();
        }
        metrics.answered(domain, RateLimitMetrics.Code.ERROR, System.nanoTime() - started);
        log.debug("rate limit service: Redis failed: {}", RedisCounters.rootMessage(cause));
        responses.onError(Status.UNAVAILABLE.withDescription(timedOut
            ? "the rate limit counters (Redis) did not answer in time" : "the rate limit counters (Redis) are unavailable: "
                + RedisCounters.rootMessage(cause)).asRuntimeException());
        return;
      }
      long[] values = new long[counts.size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = counts.get(i);
      }
      answer(plan, values, started, responses);
    });
  }

  /**
   * What one call counts.
   *
   * @param limits each descriptor's limit, null for none
   * @param counted for each descriptor, its index in {@code keys}, or -1 when it is not counted
   */
  private record Plan(String domain, RateLimitConfig.Limit[] limits, int[] counted, String[] keys, long[] hits,
      long[] ttlSeconds, long nowMillis) {}

  private Plan plan(RateLimitRequest request) {
    String domain = request.getDomain();
    if (domain.isEmpty()) {
      throw new IllegalArgumentException("domain: must not be empty");
    }
    int n = request.getDescriptorsCount();
    if (n == 0) {
      throw new IllegalArgumentException("descriptors: must not be empty");
    }
    long now = clock.millis();
    boolean known = config.domains().contains(domain);
    RateLimitConfig.Limit[] limits = new RateLimitConfig.Limit[n];
    int[] counted = new int[n];
    List<String> keys = new ArrayList<>(n);
    long[] hits = new long[n];
    long[] ttl = new long[n];
    long requestHits = Math.max(1, Integer.toUnsignedLong(request.getHitsAddend()));
    for (int i = 0; i < n; i++) {
      RateLimitDescriptor d = request.getDescriptors(i);
      List<Map.Entry<String, String>> entries = new ArrayList<>(d.getEntriesCount());
      StringBuilder key = new StringBuilder(keyPrefix).append(domain).append('_');
      for (int j = 0; j < d.getEntriesCount(); j++) {
        RateLimitDescriptor.Entry entry = d.getEntries(j);
        if (entry.getKey().isEmpty()) {
          throw new IllegalArgumentException("descriptors[" + i + "].entries[" + j + "].key: must not be empty");
        }
        entries.add(Map.entry(entry.getKey(), entry.getValue()));
        key.append(entry.getKey()).append('_').append(entry.getValue()).append('_');
      }
      if (entries.isEmpty()) {
        throw new IllegalArgumentException("descriptors[" + i + "].entries: must not be empty");
      }
      RateLimitConfig.Limit limit = known && d.hasLimit() ? override(d.getLimit(), i) : config.find(domain, entries);
      limits[i] = limit;
      counted[i] = -1;
      if (limit != null && !limit.unlimited()) {
        long window = limit.unit().seconds;
        long start = Math.floorDiv(now / 1000, window) * window;
        counted[i] = keys.size();
        hits[keys.size()] = d.hasHitsAddend() ? d.getHitsAddend().getValue() : requestHits;
        ttl[keys.size()] = window;
        keys.add(key.append(start).toString());
      }
    }
    int k = keys.size();
    return new Plan(domain, limits, counted, keys.toArray(new String[0]), java.util.Arrays.copyOf(hits, k),
        java.util.Arrays.copyOf(ttl, k), now);
  }

  private static RateLimitConfig.Limit override(RateLimitDescriptor.RateLimitOverride limit, int i) {
    RateLimitConfig.Unit unit = switch (limit.getUnit()) {
      case SECOND -> RateLimitConfig.Unit.SECOND;
      case MINUTE -> RateLimitConfig.Unit.MINUTE;
      case HOUR -> RateLimitConfig.Unit.HOUR;
      case DAY -> RateLimitConfig.Unit.DAY;
      default -> throw new IllegalArgumentException("descriptors[" + i + "].limit.unit: " + limit.getUnit()
          + " is not supported: SECOND, MINUTE, HOUR or DAY");
    };
    return new RateLimitConfig.Limit(unit, Integer.toUnsignedLong(limit.getRequestsPerUnit()), false, false);
  }

  private void answer(Plan plan, long[] counts, long started, StreamObserver<RateLimitResponse> responses) {
    RateLimitResponse.Builder response = RateLimitResponse.newBuilder();
    boolean over = false;
    for (int i = 0; i < plan.limits.length; i++) {
      RateLimitConfig.Limit limit = plan.limits[i];
      RateLimitResponse.DescriptorStatus.Builder status = response.addStatusesBuilder()
          .setCode(RateLimitResponse.Code.OK);
      if (limit == null) {
        continue;
      }
      if (limit.unlimited()) {
        status.setLimitRemaining((int) UINT32_MAX);
        continue;
      }
      long count = counts[plan.counted[i]];
      long windowMillis = limit.unit().seconds * 1000;
      long resetMillis = windowMillis - Math.floorMod(plan.nowMillis, windowMillis);
      status.setCurrentLimit(RateLimitResponse.RateLimit.newBuilder()
              .setRequestsPerUnit((int) limit.requestsPerUnit())
              .setUnit(unit(limit.unit())))
          .setDurationUntilReset(com.google.protobuf.Duration.newBuilder()
              .setSeconds(resetMillis / 1000).setNanos((int) (resetMillis % 1000) * 1_000_000));
      if (count > limit.requestsPerUnit()) {
        status.setLimitRemaining(0);
        if (limit.shadowMode()) {
          metrics.shadowOverLimit(plan.domain);
        } else {
          status.setCode(RateLimitResponse.Code.OVER_LIMIT);
          over = true;
        }
      } else {
        status.setLimitRemaining((int) Math.min(UINT32_MAX, limit.requestsPerUnit() - count));
      }
    }
    response.setOverallCode(over ? RateLimitResponse.Code.OVER_LIMIT : RateLimitResponse.Code.OK);
    metrics.answered(plan.domain, over ? RateLimitMetrics.Code.OVER_LIMIT : RateLimitMetrics.Code.OK,
        System.nanoTime() - started);
    responses.onNext(response.build());
    responses.onCompleted();
  }

  private static RateLimitResponse.RateLimit.Unit unit(RateLimitConfig.Unit unit) {
    return switch (unit) {
      case SECOND -> RateLimitResponse.RateLimit.Unit.SECOND;
      case MINUTE -> RateLimitResponse.RateLimit.Unit.MINUTE;
      case HOUR -> RateLimitResponse.RateLimit.Unit.HOUR;
      case DAY -> RateLimitResponse.RateLimit.Unit.DAY;
    };
  }

  /** The URI without a password. */
  private static String redacted(String uri) {
    return uri.replaceAll("//[^@/]*@", "//***@");
  }

  /** Closes the Redis connection. */
  @Override
  public void close() {
    counters.close();
  }
}
