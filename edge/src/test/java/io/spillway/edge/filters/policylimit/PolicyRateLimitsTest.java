package io.spillway.edge.filters.policylimit;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.RetryPolicy;
import io.spillway.edge.config.Route;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.stats.StatsStore;
import io.spillway.policy.Mode;
import io.spillway.policy.RateLimit;
import io.spillway.policy.RateLimitsPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The policy's rate limits through fake stream callbacks and a hand-driven clock: per-key buckets,
 * refills, shadow and enforce, the 429 and its headers, exemptions, the client address behind
 * trusted hops, the key cap and the counters.
 */
class PolicyRateLimitsTest {

  private static final long SECOND = 1_000_000_000L;

  private final StatsStore stats = new StatsStore();
  private final AtomicLong clock = new AtomicLong(1_000 * SECOND);
  private final PolicyRateLimits limits = new PolicyRateLimits(stats.customScope(), clock::get);

  private static RateLimit limit(String name, String key, double rate, int burst, Mode mode) {
    return new RateLimit(name, key, rate, burst, mode, null, null, null);
  }

  private LimitStream send(Map<String, String> headers, String peer, RouteEntry route, int hops) {
    HttpHeaders h = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    headers.forEach(h::set);
    LimitStream stream = new LimitStream(new RequestHeaders("GET", "http", "example.com", "/", h), peer, route);
    // The connection manager settles the client address before any filter runs (without use_remote_address here).
    String trusted = io.spillway.edge.http.TrustedClientAddress.of(h.get("x-forwarded-for"), hops, false);
    if (trusted != null) {
      stream.info.setTrustedClient(trusted);
    }
    PolicyRateLimitFilter filter = new PolicyRateLimitFilter(limits);
    filter.setDecoderFilterCallbacks(stream);
    FilterHeadersStatus status = filter.decodeHeaders(stream.request, true);
    assertThat(status == FilterHeadersStatus.STOP_ITERATION).isEqualTo(stream.reply != null);
    return stream;
  }

  private LimitStream withKey(String key) {
    return send(Map.of("x-api-key", key), "192.0.2.1", null, 0);
  }

  private long counter(String name) {
    return stats.find(name).map(s -> ((io.spillway.edge.stats.Counter) s).value()).orElse(0L);
  }

  @Test
  void eachKeyHasItsOwnBucketAndTheRefusalIs429WithItsHeaders() {
    limits.apply(new RateLimitsPolicy(List.of(limit("per-key", "header:X-Api-Key", 5, 5, Mode.ENFORCE))));
    int allowed = 0;
    LimitStream refused = null;
    for (int i = 0; i < 20; i++) {
      LimitStream s = withKey("a");
      if (s.reply == null) {
        allowed++;
      } else {
        refused = s;
      }
    }
    assertThat(allowed).isEqualTo(5);
    assertThat(refused.reply.status()).isEqualTo(429);
    assertThat(refused.replyBody).isEqualTo(PolicyRateLimitFilter.BODY);
    assertThat(refused.replyFlag).isEqualTo(ResponseFlag.RL);
    assertThat(refused.reply.headers().get("retry-after")).isEqualTo("1");
    assertThat(refused.reply.headers().get("ratelimit-limit")).isEqualTo("5");
    assertThat(refused.reply.headers().get("ratelimit-remaining")).isEqualTo("0");
    assertThat(refused.reply.headers().get("ratelimit-reset")).isEqualTo("1");
    assertThat(withKey("b").reply).as("another key is unaffected").isNull();
    assertThat(counter("http_ratelimit_checked_total.limit.per-key")).isEqualTo(21);
    assertThat(counter("http_ratelimit_refused_total.limit.per-key.mode.enforce")).isEqualTo(15);
    assertThat(counter("http_ratelimit_refused_total.limit.per-key.mode.shadow")).isZero();
  }

  @Test
  void tokensComeBackAtTheRate() {
    limits.apply(new RateLimitsPolicy(List.of(limit("slow", "header:x-api-key", 2, 1, Mode.ENFORCE))));
    assertThat(withKey("a").reply).isNull();
    assertThat(withKey("a").reply).isNotNull();
    clock.addAndGet(SECOND / 2 - 1);
    assertThat(withKey("a").reply).as("just before the refill").isNotNull();
    clock.addAndGet(1);
    assertThat(withKey("a").reply).as("one token after 1/rate").isNull();
    assertThat(withKey("a").reply).isNotNull();
    clock.addAndGet(60 * SECOND);
    assertThat(withKey("a").reply).as("never more than the burst").isNull();
    assertThat(withKey("a").reply).isNotNull();
  }

  @Test
  void aHighRateRefillsSeveralTokensPerInterval() {
    limits.apply(new RateLimitsPolicy(List.of(limit("fast", "header:x-api-key", 1000, 100, Mode.ENFORCE))));
    for (int i = 0; i < 100; i++) {
      assertThat(withKey("a").reply).isNull();
    }
    assertThat(withKey("a").reply).isNotNull();
    clock.addAndGet(SECOND / 20); // one 50 ms interval: 50 tokens
    for (int i = 0; i < 50; i++) {
      assertThat(withKey("a").reply).as("token %d", i).isNull();
    }
    assertThat(withKey("a").reply).isNotNull();
  }

  @Test
  void shadowLetsEverythingThroughAndCountsWhatEnforceWouldRefuse() {
    limits.apply(new RateLimitsPolicy(List.of(limit("per-key", "header:x-api-key", 5, 5, Mode.SHADOW))));
    for (int i = 0; i < 20; i++) {
      assertThat(withKey("a").reply).isNull();
    }
    assertThat(counter("http_ratelimit_refused_total.limit.per-key.mode.shadow")).isEqualTo(15);
    assertThat(counter("http_ratelimit_refused_total.limit.per-key.mode.enforce")).isZero();
  }

  @Test
  void offChecksNothingAndRequestsWithoutTheKeyAreNotLimited() {
    limits.apply(new RateLimitsPolicy(List.of(limit("off", "header:x-api-key", 1, 1, Mode.OFF),
        limit("other", "header:x-other", 1, 1, Mode.ENFORCE))));
    for (int i = 0; i < 3; i++) {
      assertThat(withKey("a").reply).isNull();
    }
    assertThat(counter("http_ratelimit_checked_total.limit.off")).isZero();
    assertThat(counter("http_ratelimit_checked_total.limit.other")).isZero();
  }

  @Test
  void exemptValuesAndPrefixesAreNeverLimited() {
    limits.apply(new RateLimitsPolicy(List.of(
        new RateLimit("ip", "clientAddress", 1.0, 1, Mode.ENFORCE, null, List.of("10.0.0.0/8"), null),
        new RateLimit("key", "header:x-api-key", 1.0, 1, Mode.ENFORCE, null, List.of("internal"), null))));
    for (int i = 0; i < 3; i++) {
      assertThat(send(Map.of("x-api-key", "internal"), "10.1.2.3", null, 0).reply).isNull();
    }
    assertThat(send(Map.of(), "192.0.2.9", null, 0).reply).isNull();
    assertThat(send(Map.of(), "192.0.2.9", null, 0).reply).isNotNull();
  }

  @Test
  void theClientAddressIsTheOneTheConnectionManagerTrusts() {
    limits.apply(new RateLimitsPolicy(List.of(limit("ip", "clientAddress", 1, 1, Mode.ENFORCE))));
    Map<String, String> viaProxy = Map.of("x-forwarded-for", "203.0.113.5,10.0.0.1");
    assertThat(send(viaProxy, "10.0.0.1", null, 1).reply).isNull();
    assertThat(send(Map.of("x-forwarded-for", "203.0.113.6,10.0.0.1"), "10.0.0.1", null, 1).reply)
        .as("another client behind the same proxy").isNull();
    assertThat(send(viaProxy, "10.0.0.1", null, 1).reply).isNotNull();
  }

  @Test
  void theRouteKeyIsTheRoutesName() {
    limits.apply(new RateLimitsPolicy(List.of(limit("per-route", "route", 1, 1, Mode.ENFORCE))));
    assertThat(send(Map.of(), "192.0.2.1", route("login"), 0).reply).isNull();
    assertThat(send(Map.of(), "192.0.2.2", route("login"), 0).reply).isNotNull();
    assertThat(send(Map.of(), "192.0.2.1", route("api"), 0).reply).isNull();
    assertThat(send(Map.of(), "192.0.2.1", null, 0).reply).as("no route").isNull();
  }

  @Test
  void aConfiguredRetryAfterWinsOverTheRefillTime() {
    limits.apply(new RateLimitsPolicy(List.of(new RateLimit("k", "header:x-api-key", 0.01, 1, Mode.ENFORCE, null, null, null),
        new RateLimit("j", "header:x-j", 0.01, 1, Mode.ENFORCE, 7, null, null))));
    withKey("a");
    assertThat(withKey("a").reply.headers().get("retry-after")).as("100 s until the next token").isEqualTo("100");
    send(Map.of("x-j", "a"), "192.0.2.1", null, 0);
    assertThat(send(Map.of("x-j", "a"), "192.0.2.1", null, 0).reply.headers().get("retry-after")).isEqualTo("7");
  }

  @Test
  void theKeyTableIsBoundedAndForgetsTheLeastRecentlySeen() {
    KeyedBuckets buckets = new KeyedBuckets(4, 1, 1);
    for (int i = 0; i < 100; i++) {
      buckets.bucket("key-" + i, clock.addAndGet(1));
    }
    assertThat(buckets.tracked()).isLessThanOrEqualTo(4);
    assertThat(buckets.evictions()).isGreaterThanOrEqualTo(96);
    var kept = buckets.bucket("recent", clock.addAndGet(1));
    assertThat(kept.tryConsume(clock.get())).isTrue();
    assertThat(buckets.bucket("recent", clock.addAndGet(1))).as("found again").isSameAs(kept);
    String huge = "x".repeat(10_000);
    assertThat(buckets.bucket(huge, clock.addAndGet(1))).isSameAs(buckets.bucket(huge, clock.addAndGet(1)));
  }

  @Test
  void anUnchangedLimitKeepsItsBucketsAcrossUpdates() {
    RateLimit perKey = limit("per-key", "header:x-api-key", 1, 1, Mode.ENFORCE);
    limits.apply(new RateLimitsPolicy(List.of(perKey)));
    assertThat(withKey("a").reply).isNull();
    limits.apply(new RateLimitsPolicy(List.of(limit("new", "route", 1, 1, Mode.SHADOW), perKey)));
    assertThat(withKey("a").reply).as("still empty").isNotNull();
    limits.apply(new RateLimitsPolicy(List.of(limit("per-key", "header:x-api-key", 1, 2, Mode.ENFORCE))));
    assertThat(withKey("a").reply).as("changed: full again").isNull();
    assertThat(limits.describe()).singleElement().satisfies(d -> {
      assertThat(d.name()).isEqualTo("per-key");
      assertThat(d.keysTracked()).isEqualTo(1);
      assertThat(d.maxKeys()).isEqualTo(10_000);
    });
    limits.apply(RateLimitsPolicy.EMPTY);
    assertThat(withKey("a").reply).isNull();
    assertThat(limits.describe()).isEmpty();
  }

  @Test
  void theTierKeyTellsRoutesApartByTheirAdmissionTierAndExemptsTierNames() {
    limits.apply(new RateLimitsPolicy(List.of(new RateLimit("per-tier", "tier", 0.001, 1, Mode.ENFORCE, null,
        List.of("exempt"), null))));
    RouteEntry login = route("login", Map.of("spillway.admission.tier", "start"));
    RouteEntry api = route("api", Map.of());
    RouteEntry health = route("health", Map.of("spillway.admission.tier", "exempt"));
    assertThat(send(Map.of(), "192.0.2.1", login, 0).reply).isNull();
    assertThat(send(Map.of(), "192.0.2.1", login, 0).reply.status()).isEqualTo(429);
    assertThat(send(Map.of(), "192.0.2.1", api, 0).reply).as("an unclassified route is the proxy tier").isNull();
    assertThat(send(Map.of(), "192.0.2.1", api, 0).reply).isNotNull();
    for (int i = 0; i < 3; i++) {
      assertThat(send(Map.of(), "192.0.2.1", health, 0).reply).isNull();
    }
    assertThat(send(Map.of(), "192.0.2.1", null, 0).reply).as("no route, no tier").isNull();
    assertThat(counter("http_ratelimit_checked_total.limit.per-tier")).isEqualTo(4);
  }

  @Test
  void theSubjectKeyIsCheckedByTheStageBeforeTheRouterOnlyAndOnlyWithAVerifiedSubject() {
    limits.apply(new RateLimitsPolicy(List.of(new RateLimit("per-user", "subject", 0.001, 1, Mode.ENFORCE, null,
        null, null), limit("per-key", "header:x-api-key", 0.001, 100, Mode.ENFORCE))));
    for (int i = 0; i < 2; i++) {
      LimitStream stream = new LimitStream(new RequestHeaders("GET", "http", "example.com", "/",
          DefaultHttpHeadersFactory.headersFactory().newHeaders().set("x-api-key", "k")), "192.0.2.1", null);
      stream.info.setAuthenticatedSubject("alice");
      PolicyRateLimitFilter first = new PolicyRateLimitFilter(limits, false);
      first.setDecoderFilterCallbacks(stream);
      assertThat(first.decodeHeaders(stream.request, true)).isEqualTo(FilterHeadersStatus.CONTINUE);
      PolicyRateLimitFilter beforeRouter = new PolicyRateLimitFilter(limits, true);
      beforeRouter.setDecoderFilterCallbacks(stream);
      FilterHeadersStatus status = beforeRouter.decodeHeaders(stream.request, true);
      assertThat(status).isEqualTo(i == 0 ? FilterHeadersStatus.CONTINUE : FilterHeadersStatus.STOP_ITERATION);
    }
    assertThat(counter("http_ratelimit_checked_total.limit.per-user")).isEqualTo(2);
    assertThat(counter("http_ratelimit_checked_total.limit.per-key")).as("checked by the first stage only").isEqualTo(2);
    LimitStream anonymous = new LimitStream(new RequestHeaders("GET", "http", "example.com", "/",
        DefaultHttpHeadersFactory.headersFactory().newHeaders()), "192.0.2.1", null);
    PolicyRateLimitFilter beforeRouter = new PolicyRateLimitFilter(limits, true);
    beforeRouter.setDecoderFilterCallbacks(anonymous);
    assertThat(beforeRouter.decodeHeaders(anonymous.request, true)).as("no verified JWT: not limited")
        .isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(counter("http_ratelimit_checked_total.limit.per-user")).isEqualTo(2);
  }

  @Test
  void theStageBeforeTheRouterAddsNothingToAChainWhileNoLimitIsKeyedByTheSubject() {
    List<Object> added = new java.util.ArrayList<>();
    io.spillway.edge.http.filter.FilterChainBuilder builder = new io.spillway.edge.http.filter.FilterChainBuilder() {
      @Override
      public void addDecoderFilter(io.spillway.edge.http.filter.DecoderFilter filter) {
        added.add(filter);
      }

      @Override
      public void addEncoderFilter(io.spillway.edge.http.filter.EncoderFilter filter) {
        added.add(filter);
      }
    };
    limits.apply(new RateLimitsPolicy(List.of(limit("per-key", "header:x-api-key", 1, 1, Mode.ENFORCE))));
    limits.lateFactory().createFilters(builder);
    assertThat(added).isEmpty();
    limits.apply(new RateLimitsPolicy(List.of(limit("per-user", "subject", 1, 1, Mode.ENFORCE))));
    limits.lateFactory().createFilters(builder);
    assertThat(added).hasSize(1);
  }

  private static RouteEntry route(String name) {
    return route(name, Map.of());
  }

  private static RouteEntry route(String name, Map<String, String> metadata) {
    Route route = new Route(name, new Route.Match(new Route.PathMatch.Prefix("/"), true, List.of(), List.of()),
        new Route.RouteAction(List.of(new Route.WeightedCluster("backend", 1)), Optional.empty(), Optional.empty(),
            Optional.empty(), false, Duration.ofSeconds(15), Optional.empty(), RetryPolicy.NONE),
        HeaderMutations.NONE, HeaderMutations.NONE, metadata, Set.of(), Map.of(), Route.RateLimits.NONE, Optional.empty());
    return new RouteEntry(route, "vh", List.of(), List.of(), RetryPolicy.NONE, new int[0], Map.of());
  }
}
