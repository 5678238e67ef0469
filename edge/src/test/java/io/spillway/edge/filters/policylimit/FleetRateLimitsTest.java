package io.spillway.edge.filters.policylimit;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.upstream.Worker;
import io.spillway.policy.Mode;
import io.spillway.policy.RateLimit;
import io.spillway.policy.RateLimitScope;
import io.spillway.policy.RateLimitsPolicy;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Fleet-wide limits through the filter with a shared count the test answers by hand (the real one,
 * on Redis, is exercised end to end in central's FleetPolicyLimitE2E): an enforced limit holds the
 * request until the answer, which comes back on the request's loop; a refused key value is refused
 * without asking again until the instant the count gave; a count that times out, fails or is
 * unavailable hands the request to the limit's bucket on this edge, counted by reason; shadow
 * never holds a request.
 */
class FleetRateLimitsTest {

  private static final long SECOND = 1_000_000_000L;

  /** A shared count whose every call waits for the test to answer it. */
  private static final class HandCounter implements FleetCounter {
    final Deque<CompletableFuture<Answer>> calls = new ArrayDeque<>();
    final Deque<String> keys = new ArrayDeque<>();
    boolean available = true;

    @Override
    public boolean available(long nowNanos) {
      return available;
    }

    @Override
    public Cell cell(String limit, double rate, int burst) {
      return (value, hashed) -> {
        CompletableFuture<Answer> call = new CompletableFuture<>();
        calls.add(call);
        keys.add(limit + "/" + value);
        return call;
      };
    }

    void answer(Answer answer) {
      calls.removeFirst().complete(answer);
    }
  }

  private final StatsStore stats = new StatsStore();
  private final AtomicLong clock = new AtomicLong(1_000 * SECOND);
  private final HandCounter counter = new HandCounter();
  private final PolicyRateLimits limits = new PolicyRateLimits(stats.customScope(), clock::get, counter);
  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final Worker worker = new Worker(0, channel.eventLoop(), new SplittableRandom(1), () -> null,
      UnpooledByteBufAllocator.DEFAULT);

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  private static RateLimit fleet(String name, String key, int burst, Mode mode) {
    return new RateLimit(name, key, 1.0, burst, mode, null, null, null, RateLimitScope.FLEET);
  }

  /** A request with {@code x-api-key: key} through a new filter; its stream and whether the chain went on at once. */
  private record Sent(LimitStream stream, PolicyRateLimitFilter filter, FilterHeadersStatus status) {}

  private Sent send(String key) {
    HttpHeaders h = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    h.set("x-api-key", key);
    LimitStream stream = new LimitStream(new RequestHeaders("GET", "http", "example.com", "/", h), "192.0.2.1", null,
        worker);
    PolicyRateLimitFilter filter = new PolicyRateLimitFilter(limits);
    filter.setDecoderFilterCallbacks(stream);
    return new Sent(stream, filter, filter.decodeHeaders(stream.request, true));
  }

  private long stat(String name) {
    return stats.find(name).map(s -> ((io.spillway.edge.stats.Counter) s).value()).orElse(0L);
  }

  @Test
  void anEnforcedLimitHoldsTheRequestUntilTheSharedCountAnswersOnTheRequestsLoop() {
    limits.apply(new RateLimitsPolicy(List.of(fleet("shared", "header:x-api-key", 5, Mode.ENFORCE))));
    Sent first = send("alice");
    assertThat(first.status()).isEqualTo(FilterHeadersStatus.STOP_ITERATION);
    assertThat(counter.keys).containsExactly("shared/alice");
    counter.answer(new FleetCounter.Answer(FleetCounter.Outcome.ALLOWED, 4, 0));
    assertThat(first.stream().continued).as("resumed only on the loop").isZero();
    channel.runPendingTasks();
    assertThat(first.stream().continued).isEqualTo(1);
    assertThat(first.stream().reply).isNull();

    Sent second = send("alice");
    counter.answer(new FleetCounter.Answer(FleetCounter.Outcome.REFUSED, 0, 1_500_000));
    channel.runPendingTasks();
    assertThat(second.stream().continued).isZero();
    assertThat(second.stream().reply.status()).isEqualTo(429);
    assertThat(second.stream().reply.headers().get("retry-after")).isEqualTo("2");
    assertThat(second.stream().reply.headers().get("ratelimit-remaining")).isEqualTo("0");
    assertThat(second.stream().reply.headers().get("ratelimit-limit")).isEqualTo("5");
    assertThat(stat("http_ratelimit_fleet_calls_total.limit.shared")).isEqualTo(2);
    assertThat(stat("http_ratelimit_refused_total.limit.shared.mode.enforce")).isEqualTo(1);
  }

  @Test
  void aRefusedKeyIsRefusedOnTheEdgeUntilTheInstantTheCountGaveThenAskedAgain() {
    limits.apply(new RateLimitsPolicy(List.of(fleet("shared", "header:x-api-key", 5, Mode.ENFORCE))));
    send("alice");
    counter.answer(new FleetCounter.Answer(FleetCounter.Outcome.REFUSED, 0, 2_000_000)); // one more in 2 s
    channel.runPendingTasks();
    clock.addAndGet(2 * SECOND - 1);
    Sent cached = send("alice");
    assertThat(cached.status()).isEqualTo(FilterHeadersStatus.STOP_ITERATION);
    assertThat(cached.stream().reply.status()).as("refused without asking").isEqualTo(429);
    assertThat(cached.stream().reply.headers().get("retry-after")).isEqualTo("1");
    assertThat(counter.calls).isEmpty();
    assertThat(send("bob").status()).as("another key value asks").isEqualTo(FilterHeadersStatus.STOP_ITERATION);
    counter.answer(new FleetCounter.Answer(FleetCounter.Outcome.ALLOWED, 4, 0));
    channel.runPendingTasks();
    clock.addAndGet(1);
    Sent again = send("alice");
    assertThat(again.stream().reply).isNull();
    assertThat(counter.calls).as("asked again at the instant").hasSize(1);
    assertThat(stat("http_ratelimit_fleet_calls_total.limit.shared")).isEqualTo(3);
    assertThat(stat("http_ratelimit_refused_total.limit.shared.mode.enforce")).isEqualTo(2);
  }

  @Test
  void aTimeoutOrAFailureFallsBackToTheBucketOnThisEdgeCountedByReason() {
    limits.apply(new RateLimitsPolicy(List.of(fleet("shared", "header:x-api-key", 2, Mode.ENFORCE))));
    Sent[] sent = new Sent[3];
    FleetCounter.Outcome[] outcomes = {FleetCounter.Outcome.TIMEOUT, FleetCounter.Outcome.ERROR, FleetCounter.Outcome.TIMEOUT};
    for (int i = 0; i < 3; i++) {
      sent[i] = send("alice");
      counter.answer(FleetCounter.Answer.failed(outcomes[i]));
      channel.runPendingTasks();
    }
    assertThat(sent[0].stream().continued).isEqualTo(1);
    assertThat(sent[1].stream().continued).isEqualTo(1);
    assertThat(sent[2].stream().reply.status()).as("the local bucket's burst of 2 is spent").isEqualTo(429);
    assertThat(stat("http_ratelimit_fleet_fallback_total.limit.shared.reason.timeout")).isEqualTo(2);
    assertThat(stat("http_ratelimit_fleet_fallback_total.limit.shared.reason.error")).isEqualTo(1);
  }

  @Test
  void anUnavailableCountIsNotAskedAndTheRequestIsCheckedOnThisEdgeAtOnce() {
    limits.apply(new RateLimitsPolicy(List.of(fleet("shared", "header:x-api-key", 1, Mode.ENFORCE))));
    counter.available = false;
    assertThat(send("alice").status()).isEqualTo(FilterHeadersStatus.CONTINUE);
    Sent refused = send("alice");
    assertThat(refused.stream().reply.status()).isEqualTo(429);
    assertThat(counter.calls).isEmpty();
    assertThat(stat("http_ratelimit_fleet_fallback_total.limit.shared.reason.unavailable")).isEqualTo(2);
    assertThat(stat("http_ratelimit_fleet_calls_total.limit.shared")).isZero();
  }

  @Test
  void shadowNeverHoldsARequestAndCountsTheRefusalWhenTheAnswerComes() {
    limits.apply(new RateLimitsPolicy(List.of(fleet("shared", "header:x-api-key", 5, Mode.SHADOW))));
    assertThat(send("alice").status()).isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(send("alice").status()).isEqualTo(FilterHeadersStatus.CONTINUE);
    counter.answer(new FleetCounter.Answer(FleetCounter.Outcome.ALLOWED, 4, 0));
    counter.answer(new FleetCounter.Answer(FleetCounter.Outcome.REFUSED, 0, 10_000_000));
    assertThat(stat("http_ratelimit_refused_total.limit.shared.mode.shadow")).isEqualTo(1);
    assertThat(send("alice").status()).as("the refusal is remembered, still not enforced").isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(counter.calls).isEmpty();
    assertThat(stat("http_ratelimit_refused_total.limit.shared.mode.shadow")).isEqualTo(2);
    assertThat(stat("http_ratelimit_refused_total.limit.shared.mode.enforce")).isZero();
  }

  @Test
  void theLimitsAfterAFleetLimitAreCheckedWhenItsAnswerComes() {
    limits.apply(new RateLimitsPolicy(List.of(fleet("shared", "header:x-api-key", 5, Mode.ENFORCE),
        new RateLimit("local", "header:x-api-key", 1.0, 1, Mode.ENFORCE, null, null, null))));
    Sent first = send("alice");
    counter.answer(new FleetCounter.Answer(FleetCounter.Outcome.ALLOWED, 4, 0));
    channel.runPendingTasks();
    assertThat(first.stream().continued).isEqualTo(1);
    Sent second = send("alice");
    counter.answer(new FleetCounter.Answer(FleetCounter.Outcome.ALLOWED, 3, 0));
    channel.runPendingTasks();
    assertThat(second.stream().continued).isZero();
    assertThat(second.stream().reply.status()).as("refused by the edge-scoped limit after the fleet one").isEqualTo(429);
    assertThat(stat("http_ratelimit_refused_total.limit.local.mode.enforce")).isEqualTo(1);
  }

  @Test
  void anAnswerForAStreamThatWentAwayIsDropped() {
    limits.apply(new RateLimitsPolicy(List.of(fleet("shared", "header:x-api-key", 5, Mode.ENFORCE))));
    Sent sent = send("alice");
    sent.filter().onDestroy();
    counter.answer(new FleetCounter.Answer(FleetCounter.Outcome.ALLOWED, 4, 0));
    channel.runPendingTasks();
    assertThat(sent.stream().continued).isZero();
    assertThat(sent.stream().reply).isNull();
  }

  @Test
  void aFleetLimitNeedsASharedCount() {
    PolicyRateLimits withoutRedis = new PolicyRateLimits(stats.customScope(), clock::get);
    assertThat(withoutRedis.fleetAvailable()).isFalse();
    assertThat(limits.fleetAvailable()).isTrue();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> withoutRedis.apply(
        new RateLimitsPolicy(List.of(fleet("shared", "route", 1, Mode.ENFORCE)))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no Redis");
  }
}
