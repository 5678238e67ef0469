package io.spillway.central.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.UInt64Value;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.type.v3.RateLimitUnit;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.lettuce.core.RedisCommandTimeoutException;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.spillway.central.auth.Secrets;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** The service's answers over counters in a map, at a fixed instant: no Redis, no sockets. */
class RateLimitServiceTest {

  private static final String LIMITS = """
      domain: d
      descriptors:
        - key: k
          rate_limit: {unit: second, requests_per_unit: 2}
        - key: m
          rate_limit: {unit: minute, requests_per_unit: 5}
          shadow_mode: true
        - key: h
          rate_limit: {unit: hour, requests_per_unit: 3}
        - key: u
          rate_limit: {unlimited: true}
      """;
  /** 2025-12-03T08:20:37.250Z: 37.25 s into its minute, 1237.25 s into its hour. */
  private static final Instant NOW = Instant.ofEpochMilli(1_764_750_037_250L);
  private static final String CREDENTIAL = "edge-credential";

  /** Counts in a map, as the script does in Redis; fails every call when {@link #failure} is set. */
  private static final class MapCounters implements Counters {
    final Map<String, Long> counts = new HashMap<>();
    final Map<String, Long> ttls = new HashMap<>();
    final List<Integer> roundTrips = new ArrayList<>();
    Throwable failure;

    @Override
    public CompletableFuture<List<Long>> increment(String[] keys, long[] hits, long[] ttlSeconds) {
      roundTrips.add(keys.length);
      if (failure != null) {
        return CompletableFuture.failedFuture(failure);
      }
      List<Long> after = new ArrayList<>();
      for (int i = 0; i < keys.length; i++) {
        long count = counts.merge(keys[i], hits[i], Long::sum);
        if (count == hits[i]) {
          ttls.put(keys[i], ttlSeconds[i]);
        }
        after.add(count);
      }
      return CompletableFuture.completedFuture(after);
    }

    @Override
    public void close() {}
  }

  /** What the call ended with. */
  private static final class Answer implements StreamObserver<RateLimitResponse> {
    RateLimitResponse response;
    Status error;
    boolean completed;

    @Override
    public void onNext(RateLimitResponse value) {
      response = value;
    }

    @Override
    public void onError(Throwable t) {
      error = Status.fromThrowable(t);
    }

    @Override
    public void onCompleted() {
      completed = true;
    }
  }

  private final MapCounters counters = new MapCounters();
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private String presented = CREDENTIAL;
  private final RateLimitService service = new RateLimitService(limits(), counters,
      hash -> hash.equals(Secrets.hash(CREDENTIAL)), () -> presented, registry, Clock.fixed(NOW, ZoneOffset.UTC), "p:");

  private static RateLimitConfig limits() {
    try {
      Path file = Files.createTempFile("rate-limit-service-test-", ".yaml");
      try {
        return RateLimitConfig.load(List.of(Files.writeString(file, LIMITS)));
      } finally {
        Files.delete(file);
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private Answer call(RateLimitRequest request) {
    Answer answer = new Answer();
    service.shouldRateLimit(request, answer);
    return answer;
  }

  private static RateLimitDescriptor descriptor(String... keyValues) {
    RateLimitDescriptor.Builder d = RateLimitDescriptor.newBuilder();
    for (int i = 0; i < keyValues.length; i += 2) {
      d.addEntries(RateLimitDescriptor.Entry.newBuilder().setKey(keyValues[i]).setValue(keyValues[i + 1]));
    }
    return d.build();
  }

  private static RateLimitRequest request(RateLimitDescriptor... descriptors) {
    return RateLimitRequest.newBuilder().setDomain("d").addAllDescriptors(List.of(descriptors)).build();
  }

  private String metrics() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, registry.scrape());
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void countsLyftsKeyInTheWindowAndAnswersWithTheStatusFields() {
    Answer first = call(request(descriptor("k", "a")));
    assertThat(first.completed).isTrue();
    assertThat(counters.counts).containsOnlyKeys("p:d_k_a_1764750037");
    assertThat(counters.ttls).containsEntry("p:d_k_a_1764750037", 1L);
    RateLimitResponse.DescriptorStatus status = first.response.getStatuses(0);
    assertThat(first.response.getOverallCode()).isEqualTo(Code.OK);
    assertThat(status.getCode()).isEqualTo(Code.OK);
    assertThat(status.getCurrentLimit().getRequestsPerUnit()).isEqualTo(2);
    assertThat(status.getCurrentLimit().getUnit()).isEqualTo(RateLimitResponse.RateLimit.Unit.SECOND);
    assertThat(status.getLimitRemaining()).isEqualTo(1);
    assertThat(status.getDurationUntilReset()).isEqualTo(com.google.protobuf.Duration.newBuilder().setNanos(750_000_000).build());

    assertThat(call(request(descriptor("k", "a"))).response.getStatuses(0).getLimitRemaining()).isZero();
    Answer third = call(request(descriptor("k", "a")));
    assertThat(third.response.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(third.response.getStatuses(0).getCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(third.response.getStatuses(0).getLimitRemaining()).isZero();
  }

  @Test
  void theHourWindowStartsOnTheHour() {
    Answer answer = call(request(descriptor("h", "x")));
    assertThat(counters.counts).containsOnlyKeys("p:d_h_x_1764748800");
    assertThat(counters.ttls).containsEntry("p:d_h_x_1764748800", 3600L);
    assertThat(answer.response.getStatuses(0).getDurationUntilReset().getSeconds()).isEqualTo(3600 - 1238);
  }

  @Test
  void severalDescriptorsAreOneRoundTripAndTheOverallCodeIsTheWorst() {
    counters.counts.put("p:d_k_a_1764750037", 2L);
    Answer answer = call(request(descriptor("k", "a"), descriptor("none", "x"), descriptor("u", "y"), descriptor("h", "z")));
    assertThat(counters.roundTrips).containsExactly(2); // k and h; the unmatched and the unlimited are not counted
    assertThat(answer.response.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(answer.response.getStatusesList()).extracting(RateLimitResponse.DescriptorStatus::getCode)
        .containsExactly(Code.OVER_LIMIT, Code.OK, Code.OK, Code.OK);
    assertThat(answer.response.getStatuses(1).hasCurrentLimit()).isFalse();
    assertThat(Integer.toUnsignedLong(answer.response.getStatuses(2).getLimitRemaining())).isEqualTo(0xFFFF_FFFFL);
    assertThat(answer.response.getStatuses(3).getLimitRemaining()).isEqualTo(2);
  }

  @Test
  void nothingToCountAnswersWithoutARoundTrip() {
    Answer answer = call(RateLimitRequest.newBuilder().setDomain("unconfigured").addDescriptors(descriptor("k", "a")).build());
    assertThat(answer.response.getOverallCode()).isEqualTo(Code.OK);
    assertThat(counters.roundTrips).isEmpty();
  }

  @Test
  void shadowModeAnswersOkAndCountsTheOverage() throws IOException {
    for (int i = 0; i < 7; i++) {
      Answer answer = call(request(descriptor("m", "a")));
      assertThat(answer.response.getOverallCode()).isEqualTo(Code.OK);
    }
    assertThat(metrics()).contains("central_ratelimit_shadow_over_limit_total{domain=\"d\"} 2");
  }

  @Test
  void theDescriptorsHitsAddendWinsOverTheRequests() {
    call(request(descriptor("h", "a")).toBuilder().setHitsAddend(2).build());
    assertThat(counters.counts).containsEntry("p:d_h_a_1764748800", 2L);
    call(RateLimitRequest.newBuilder().setDomain("d").setHitsAddend(2)
        .addDescriptors(descriptor("h", "a").toBuilder().setHitsAddend(UInt64Value.of(0))).build());
    assertThat(counters.counts).containsEntry("p:d_h_a_1764748800", 2L);
  }

  @Test
  void aLimitOverrideReplacesTheConfiguredLimit() {
    RateLimitDescriptor overridden = descriptor("k", "a").toBuilder().setLimit(RateLimitDescriptor.RateLimitOverride.newBuilder()
        .setRequestsPerUnit(100).setUnit(RateLimitUnit.MINUTE)).build();
    Answer answer = call(request(overridden));
    assertThat(counters.counts).containsOnlyKeys("p:d_k_a_1764750000");
    assertThat(answer.response.getStatuses(0).getCurrentLimit().getRequestsPerUnit()).isEqualTo(100);
    assertThat(answer.response.getStatuses(0).getLimitRemaining()).isEqualTo(99);

    Answer bad = call(request(descriptor("k", "a").toBuilder().setLimit(RateLimitDescriptor.RateLimitOverride.newBuilder()
        .setRequestsPerUnit(1).setUnit(RateLimitUnit.UNKNOWN)).build()));
    assertThat(bad.error.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(bad.error.getDescription()).isEqualTo("descriptors[0].limit.unit: UNKNOWN is not supported: SECOND, MINUTE, HOUR or DAY");
  }

  @Test
  void aFailedOrSlowRedisIsUnavailableAndCounted() throws IOException {
    counters.failure = new TimeoutException();
    Answer slow = call(request(descriptor("k", "a")));
    assertThat(slow.error.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(slow.error.getDescription()).isEqualTo("the rate limit counters (Redis) did not answer in time");
    assertThat(slow.response).isNull();
    counters.failure = new IllegalStateException("Connection refused");
    Answer down = call(request(descriptor("k", "a")));
    assertThat(down.error.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(down.error.getDescription()).isEqualTo("the rate limit counters (Redis) are unavailable: Connection refused");
    counters.failure = new RedisCommandTimeoutException("Command timed out after 50 millisecond(s)"); // Lettuce's own bound
    assertThat(call(request(descriptor("k", "a"))).error.getDescription())
        .isEqualTo("the rate limit counters (Redis) did not answer in time");
    assertThat(metrics()).contains("central_ratelimit_redis_errors_total{reason=\"timeout\"} 2")
        .contains("central_ratelimit_redis_errors_total{reason=\"error\"} 1")
        .contains("central_ratelimit_requests_total{code=\"error\",domain=\"d\"} 3");
  }

  @Test
  void anUnknownOrMissingCredentialIsDenied() {
    presented = "someone-else";
    assertThat(call(request(descriptor("k", "a"))).error.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    presented = null;
    assertThat(call(request(descriptor("k", "a"))).error.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(counters.roundTrips).isEmpty();
  }

  @Test
  void malformedRequestsAreInvalid() throws IOException {
    assertThat(call(RateLimitRequest.newBuilder().setDomain("d").addDescriptors(RateLimitDescriptor.getDefaultInstance()).build())
        .error.getDescription()).isEqualTo("descriptors[0].entries: must not be empty");
    assertThat(call(request(descriptor("k", "a", "", "b"))).error.getDescription())
        .isEqualTo("descriptors[0].entries[1].key: must not be empty");
    assertThat(metrics()).contains("central_ratelimit_requests_total{code=\"invalid\",domain=\"d\"} 2");
  }
}
