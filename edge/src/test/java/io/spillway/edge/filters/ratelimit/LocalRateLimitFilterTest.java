package io.spillway.edge.filters.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.LocalRateLimitConfig;
import io.spillway.edge.config.RuntimeFraction;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.config.RateLimitPolicy.Entry;
import io.spillway.edge.config.RateLimitPolicy;
import io.spillway.edge.config.RetryPolicy;
import io.spillway.edge.config.Route;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.upstream.ConnectionShare;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The local rate limit filter through fake stream callbacks and a hand-driven clock: the decision,
 * the refusal and its headers, shadow mode, refills, route-level configs, descriptors,
 * per-connection buckets and the stats.
 */
class LocalRateLimitFilterTest {

  private static final String NAME = "envoy.filters.http.local_ratelimit";
  private static final long SECOND = 1_000_000_000L;

  private final StatsStore stats = new StatsStore();
  private final AtomicLong clock = new AtomicLong(1_000 * SECOND);
  private final ConnectionShare connection = new ConnectionShare();
  private final io.spillway.edge.upstream.Worker worker = FakeCallbacks.worker(7);

  /** A config builder: every field at the value a test states, the rest as Envoy's defaults but enabled and enforced. */
  private static final class Config {
    String statPrefix = "rl";
    Optional<LocalRateLimitConfig.TokenBucket> bucket = Optional.of(bucket(2, 1, 1));
    int enabled = LocalRateLimitConfig.MILLION;
    int enforced = LocalRateLimitConfig.MILLION;
    HeaderMutations responseHeaders = HeaderMutations.NONE;
    HeaderMutations requestHeaders = HeaderMutations.NONE;
    List<LocalRateLimitConfig.Descriptor> descriptors = List.of();
    boolean perConnection;
    boolean xHeaders;
    RateLimitPolicy.VhRateLimits vh = RateLimitPolicy.VhRateLimits.OVERRIDE;
    boolean alwaysConsume = true;
    List<RateLimitPolicy> rateLimits = List.of();

    void responseHeadersToAdd(String name, String value) {
      responseHeaders = new HeaderMutations(List.of(new HeaderMutations.HeaderValue(name, value, false)), List.of());
    }

    LocalRateLimitConfig build() {
      return new LocalRateLimitConfig(statPrefix, 429, bucket, RuntimeFraction.of(enabled), RuntimeFraction.of(enforced),
          responseHeaders, requestHeaders,
          descriptors, 0, perConnection, xHeaders, vh, alwaysConsume, rateLimits);
    }
  }

  private static LocalRateLimitConfig.TokenBucket bucket(long max, long perFill, long seconds) {
    return new LocalRateLimitConfig.TokenBucket(max, perFill, Duration.ofSeconds(seconds));
  }

  private LocalRateLimitFactory factory(Config c) {
    return new LocalRateLimitFactory(NAME, c.build(), stats.rootScope(), clock::get, () -> RuntimeSnapshot.EMPTY, "");
  }

  private static RequestHeaders request(String... nameValues) {
    var h = FakeCallbacks.headers();
    for (int i = 0; i < nameValues.length; i += 2) {
      h.add(nameValues[i], nameValues[i + 1]);
    }
    return new RequestHeaders("GET", "http", "example.com", "/", h);
  }

  /** One request: its callbacks after decodeHeaders and the response's encodeHeaders (the local reply, else a 200). */
  private record Outcome(FilterHeadersStatus status, FakeCallbacks callbacks, ResponseHeaders response) {}

  private Outcome send(LocalRateLimitFactory factory, RouteEntry route, ConnectionShare conn, RequestHeaders request) {
    List<LocalRateLimitFilter> made = new ArrayList<>();
    factory.createFilters(new io.spillway.edge.http.filter.FilterChainBuilder() {
      @Override
      public void addDecoderFilter(io.spillway.edge.http.filter.DecoderFilter filter) {
        made.add((LocalRateLimitFilter) filter);
      }

      @Override
      public void addEncoderFilter(io.spillway.edge.http.filter.EncoderFilter filter) {}
    });
    LocalRateLimitFilter filter = made.get(0);
    FakeCallbacks callbacks = new FakeCallbacks(worker, conn, route, request, "127.0.0.7");
    filter.setDecoderFilterCallbacks(callbacks);
    FilterHeadersStatus status = filter.decodeHeaders(request, true);
    ResponseHeaders response = callbacks.localReply != null
        ? callbacks.localReply : new ResponseHeaders(200, FakeCallbacks.headers());
    filter.encodeHeaders(response, true);
    return new Outcome(status, callbacks, response);
  }

  private Outcome send(LocalRateLimitFactory factory) {
    return send(factory, null, connection, request());
  }

  private long counter(String name) {
    return stats.find(name).map(s -> ((Counter) s).value()).orElse(0L);
  }

  @Test
  void aBurstOverMaxTokensIsRefusedWith429AndEnvoysHeaders() {
    Config c = new Config();
    c.responseHeadersToAdd("x-local-rate-limit", "true");
    LocalRateLimitFactory f = factory(c);
    assertThat(send(f).status()).isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(send(f).status()).isEqualTo(FilterHeadersStatus.CONTINUE);
    Outcome refused = send(f);
    assertThat(refused.status()).isEqualTo(FilterHeadersStatus.STOP_ITERATION);
    assertThat(refused.response().status()).isEqualTo(429);
    assertThat(refused.callbacks().localReplyBody).isEqualTo("local_rate_limited");
    assertThat(refused.callbacks().localReplyFlag).isEqualTo(ResponseFlag.RL);
    assertThat(refused.response().headers().get("x-envoy-ratelimited")).isEqualTo("true");
    assertThat(refused.response().headers().get("x-local-rate-limit")).isEqualTo("true");
    assertThat(refused.response().headers().contains("x-ratelimit-limit")).as("not configured").isFalse();
    assertThat(counter("rl.http_local_rate_limit.enabled")).isEqualTo(3);
    assertThat(counter("rl.http_local_rate_limit.ok")).isEqualTo(2);
    assertThat(counter("rl.http_local_rate_limit.rate_limited")).isEqualTo(1);
    assertThat(counter("rl.http_local_rate_limit.enforced")).isEqualTo(1);
  }

  @Test
  void tokensComeBackAfterTheFillInterval() {
    Config c = new Config();
    c.bucket = Optional.of(bucket(1, 1, 2));
    LocalRateLimitFactory f = factory(c);
    assertThat(send(f).response().status()).isEqualTo(200);
    assertThat(send(f).response().status()).isEqualTo(429);
    clock.addAndGet(2 * SECOND - 1);
    assertThat(send(f).response().status()).isEqualTo(429);
    clock.addAndGet(1);
    assertThat(send(f).response().status()).isEqualTo(200);
    assertThat(send(f).response().status()).isEqualTo(429);
  }

  @Test
  void disabledByDefaultCountsNothing() {
    Config c = new Config();
    c.enabled = 0;
    c.bucket = Optional.of(bucket(1, 1, 1));
    LocalRateLimitFactory f = factory(c);
    for (int i = 0; i < 3; i++) {
      assertThat(send(f).response().status()).isEqualTo(200);
    }
    assertThat(counter("rl.http_local_rate_limit.enabled")).isZero();
    assertThat(counter("rl.http_local_rate_limit.rate_limited")).isZero();
  }

  @Test
  void runtimeKeysOverrideTheDefaultFractions() {
    // Enabled by the runtime although its default is 0 %; enforcement turned off by the runtime.
    LocalRateLimitConfig base = new Config().build();
    LocalRateLimitConfig config = new LocalRateLimitConfig(base.statPrefix(), 429, Optional.of(bucket(1, 1, 1)),
        new RuntimeFraction("rl.enabled", 0), new RuntimeFraction("rl.enforced", RuntimeFraction.MILLION),
        base.responseHeadersToAdd(), base.requestHeadersToAddWhenNotEnforced(), base.descriptors(), 0, false, false,
        base.vhRateLimits(), true, base.rateLimits());
    java.util.concurrent.atomic.AtomicReference<RuntimeSnapshot> runtime = new java.util.concurrent.atomic.AtomicReference<>(
        new RuntimeSnapshot(List.of("static"), List.of(Map.of("rl.enabled", "100"))));
    LocalRateLimitFactory f = new LocalRateLimitFactory(NAME, config, stats.rootScope(), clock::get, runtime::get, "");

    assertThat(send(f).response().status()).isEqualTo(200);
    assertThat(send(f).response().status()).isEqualTo(429);
    assertThat(counter("rl.http_local_rate_limit.enabled")).isEqualTo(2);

    runtime.set(new RuntimeSnapshot(List.of("static"), List.of(Map.of("rl.enabled", "100", "rl.enforced", "0"))));
    assertThat(send(f).response().status()).isEqualTo(200);
    assertThat(counter("rl.http_local_rate_limit.rate_limited")).isEqualTo(2);
    assertThat(counter("rl.http_local_rate_limit.enforced")).isEqualTo(1);

    runtime.set(new RuntimeSnapshot(List.of("static"), List.of(Map.of("rl.enabled", "0/100"))));
    assertThat(send(f).response().status()).isEqualTo(200);
    assertThat(counter("rl.http_local_rate_limit.enabled")).isEqualTo(3);
  }

  @Test
  void shadowModeCountsAndMarksTheRequestButRefusesNothing() {
    Config c = new Config();
    c.enforced = 0;
    c.bucket = Optional.of(bucket(1, 1, 1));
    c.requestHeaders = new HeaderMutations(List.of(new HeaderMutations.HeaderValue("x-rl-shadow", "1", false)), List.of());
    LocalRateLimitFactory f = factory(c);
    RequestHeaders first = request();
    RequestHeaders second = request();
    assertThat(send(f, null, connection, first).status()).isEqualTo(FilterHeadersStatus.CONTINUE);
    Outcome over = send(f, null, connection, second);
    assertThat(over.status()).isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(over.callbacks().localReply).isNull();
    assertThat(first.headers().contains("x-rl-shadow")).isFalse();
    assertThat(second.headers().get("x-rl-shadow")).isEqualTo("1");
    assertThat(counter("rl.http_local_rate_limit.rate_limited")).isEqualTo(1);
    assertThat(counter("rl.http_local_rate_limit.enforced")).isZero();
    assertThat(counter("rl.http_local_rate_limit.ok")).isEqualTo(1);
  }

  @Test
  void xRateLimitHeadersDescribeTheBucketThatDecided() {
    Config c = new Config();
    c.xHeaders = true;
    c.bucket = Optional.of(bucket(2, 1, 60));
    LocalRateLimitFactory f = factory(c);
    ResponseHeaders ok = send(f).response();
    assertThat(ok.headers().get("x-ratelimit-limit")).isEqualTo("2");
    assertThat(ok.headers().get("x-ratelimit-remaining")).isEqualTo("1");
    assertThat(ok.headers().get("x-ratelimit-reset")).isEqualTo("60");
    clock.addAndGet(15 * SECOND);
    send(f);
    ResponseHeaders refused = send(f).response();
    assertThat(refused.status()).isEqualTo(429);
    assertThat(refused.headers().get("x-ratelimit-limit")).isEqualTo("2");
    assertThat(refused.headers().get("x-ratelimit-remaining")).isEqualTo("0");
    assertThat(refused.headers().get("x-ratelimit-reset")).isEqualTo("45");
  }

  private RouteEntry route(Route.RateLimits limits, Map<String, Object> filterConfigs) {
    Route route = new Route("r", new Route.Match(new Route.PathMatch.Prefix("/"), true, List.of(), List.of()),
        new Route.RouteAction(List.of(new Route.WeightedCluster("backend", 1)), Optional.empty(), Optional.empty(),
            Optional.empty(), false, Duration.ofSeconds(15), Optional.empty(), RetryPolicy.NONE),
        HeaderMutations.NONE, HeaderMutations.NONE, Map.of(), Set.of(), Map.of(), limits, Optional.empty());
    return new RouteEntry(route, "vh", List.of(), List.of(), RetryPolicy.NONE, new int[0], filterConfigs);
  }

  @Test
  void aRoutesOwnConfigReplacesTheListenersWithItsOwnBucketAndStats() {
    LocalRateLimitFactory f = factory(new Config()); // listener: 2 tokens
    Config own = new Config();
    own.statPrefix = "route";
    own.bucket = Optional.of(bucket(1, 1, 1));
    RouteEntry limited = route(Route.RateLimits.NONE,
        Map.of(NAME, LocalRateLimitFactory.routeConfig(own.build(), stats.rootScope(), clock::get,
            () -> RuntimeSnapshot.EMPTY)));
    assertThat(send(f, limited, connection, request()).response().status()).isEqualTo(200);
    assertThat(send(f, limited, connection, request()).response().status()).isEqualTo(429);
    // The listener's bucket was not touched.
    assertThat(send(f).response().status()).isEqualTo(200);
    assertThat(send(f).response().status()).isEqualTo(200);
    assertThat(send(f).response().status()).isEqualTo(429);
    assertThat(counter("route.http_local_rate_limit.enforced")).isEqualTo(1);
    assertThat(counter("rl.http_local_rate_limit.enforced")).isEqualTo(1);
  }

  @Test
  void aMatchingDescriptorHasItsOwnBucketAndTheDefaultOneIsConsumedToo() {
    Config c = new Config();
    c.bucket = Optional.of(bucket(3, 1, 1));
    c.descriptors = List.of(new LocalRateLimitConfig.Descriptor(List.of(new Entry("client", "a")), bucket(1, 1, 1)));
    c.rateLimits = List.of(new RateLimitPolicy(0, List.of(new RateLimitPolicy.RequestHeaders("x-client", "client", false))));
    LocalRateLimitFactory f = factory(c);
    assertThat(send(f, null, connection, request("x-client", "a")).response().status()).isEqualTo(200);
    assertThat(send(f, null, connection, request("x-client", "a")).response().status()).isEqualTo(429);
    // b matches no descriptor: the default bucket, which a's first request drew from too.
    assertThat(send(f, null, connection, request("x-client", "b")).response().status()).isEqualTo(200);
    assertThat(send(f, null, connection, request()).response().status()).isEqualTo(200);
    assertThat(send(f, null, connection, request("x-client", "b")).response().status()).isEqualTo(429);
  }

  @Test
  void withoutAlwaysConsumeAMatchedDescriptorLeavesTheDefaultBucketAlone() {
    Config c = new Config();
    c.bucket = Optional.of(bucket(1, 1, 1));
    c.alwaysConsume = false;
    c.descriptors = List.of(new LocalRateLimitConfig.Descriptor(List.of(new Entry("generic_key", "k")), bucket(5, 1, 1)));
    c.rateLimits = List.of(new RateLimitPolicy(0, List.of(new RateLimitPolicy.GenericKey("generic_key", "k"))));
    LocalRateLimitFactory f = factory(c);
    for (int i = 0; i < 5; i++) {
      assertThat(send(f).response().status()).isEqualTo(200);
    }
    assertThat(send(f).response().status()).isEqualTo(429);
  }

  @Test
  void routeAndVirtualHostRateLimitsFollowVhRateLimits() {
    Config c = new Config();
    c.bucket = Optional.empty();
    c.descriptors = List.of(
        new LocalRateLimitConfig.Descriptor(List.of(new Entry("remote_address", "127.0.0.7")), bucket(1, 1, 1)),
        new LocalRateLimitConfig.Descriptor(List.of(new Entry("destination_cluster", "backend"),
            new Entry("header_match", "get")), bucket(2, 1, 1)));
    RateLimitPolicy byAddress = new RateLimitPolicy(0, List.of(new RateLimitPolicy.RemoteAddress()));
    RateLimitPolicy byCluster = new RateLimitPolicy(0, List.of(new RateLimitPolicy.DestinationCluster(),
        new RateLimitPolicy.HeaderValueMatch("header_match", "get", true, List.of(
            new Route.HeaderMatch(":method", new Route.StringMatch.Exact("GET", false), false)))));
    // OVERRIDE: the route has entries of its own, so the virtual host's (by address) do not count.
    RouteEntry route = route(new Route.RateLimits(List.of(byCluster), List.of(byAddress), false), Map.of());
    LocalRateLimitFactory f = factory(c);
    assertThat(send(f, route, connection, request()).response().status()).isEqualTo(200);
    assertThat(send(f, route, connection, request()).response().status()).isEqualTo(200);
    assertThat(send(f, route, connection, request()).response().status()).isEqualTo(429);
    // include_vh_rate_limits: the address descriptor counts as well, and it has one token.
    Config fresh = new Config();
    fresh.bucket = Optional.empty();
    fresh.descriptors = c.descriptors;
    fresh.statPrefix = "fresh";
    LocalRateLimitFactory g = factory(fresh);
    RouteEntry including = route(new Route.RateLimits(List.of(byCluster), List.of(byAddress), true), Map.of());
    assertThat(send(g, including, connection, request()).response().status()).isEqualTo(200);
    assertThat(send(g, including, connection, request()).response().status()).isEqualTo(429);
    // No descriptor matched and no default bucket: allowed, and counted ok.
    assertThat(send(g, null, connection, request()).response().status()).isEqualTo(200);
  }

  @Test
  void perConnectionBucketsAreTheConnectionsOwn() {
    Config c = new Config();
    c.perConnection = true;
    c.bucket = Optional.of(bucket(1, 1, 1));
    LocalRateLimitFactory f = factory(c);
    ConnectionShare other = new ConnectionShare();
    assertThat(send(f, null, connection, request()).response().status()).isEqualTo(200);
    assertThat(send(f, null, connection, request()).response().status()).isEqualTo(429);
    assertThat(send(f, null, other, request()).response().status()).isEqualTo(200);
    assertThat(send(f, null, other, request()).response().status()).isEqualTo(429);
  }

  @Test
  void fractionsAreDrawnPerRequestFromTheWorkersRandomSource() {
    Config c = new Config();
    c.enabled = LocalRateLimitConfig.MILLION / 2;
    c.enforced = LocalRateLimitConfig.MILLION / 4;
    c.bucket = Optional.of(bucket(1, 1, 1000));
    LocalRateLimitFactory f = factory(c);
    int refused = 0;
    for (int i = 0; i < 2_000; i++) {
      if (send(f).response().status() == 429) {
        refused++;
      }
    }
    long enabled = counter("rl.http_local_rate_limit.enabled");
    long limited = counter("rl.http_local_rate_limit.rate_limited");
    assertThat(enabled).isBetween(900L, 1100L); // half of 2000, seeded draws
    assertThat(limited).isEqualTo(enabled - 1); // one token, then every checked request is over
    assertThat(counter("rl.http_local_rate_limit.enforced")).isEqualTo(refused).isBetween(200L, 300L);
  }
}
