package io.spillway.edge.filters.ratelimit;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.LocalRateLimitConfig;
import io.spillway.edge.config.RateLimitPolicy;
import io.spillway.edge.http.message.RequestHeaders;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The local rate limit check as a worker runs it, on buckets shared by every benchmark thread (run
 * with {@code -t 1} and {@code -t 2} to see the cost of two workers on one bucket): a clock read
 * and one CAS on the bucket's packed state when a token is taken ({@code allowed}: a bucket that
 * never runs dry), a clock read and one volatile read when it is refused ({@code refused}: an
 * empty bucket, nothing written), and the whole decision of the filter's limiter with the
 * default bucket ({@code decideDefault}) or with a descriptor built from a request header
 * ({@code decideDescriptor}: the descriptor's lists, the match, two buckets). {@code lockedAllowed}
 * is the same take on a bucket guarded by a monitor (two fields, no packing), the design not chosen,
 * for comparison.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LocalRateLimitBenchmark {

  private static final long MAX = 0xFFFF_FFFFL;

  private TokenBucket plenty;
  private TokenBucket empty;
  private LocalRateLimiter byDefault;
  private LocalRateLimiter byDescriptor;
  private LocalRateLimitConfig descriptorConfig;
  private RequestHeaders request;

  @Setup
  public void setup() {
    long now = System.nanoTime();
    plenty = new TokenBucket(MAX, MAX, TimeUnit.MILLISECONDS.toNanos(50), now);
    empty = new TokenBucket(1, 1, TimeUnit.HOURS.toNanos(1), now);
    empty.tryConsume(now);
    LocalRateLimitConfig.TokenBucket huge = new LocalRateLimitConfig.TokenBucket(MAX, MAX, Duration.ofMillis(50));
    byDefault = new LocalRateLimiter(config(huge, List.of(), List.of()), now);
    descriptorConfig = config(huge,
        List.of(new LocalRateLimitConfig.Descriptor(List.of(new RateLimitPolicy.Entry("api_key", "k1")), huge)),
        List.of(new RateLimitPolicy(0, List.of(new RateLimitPolicy.RequestHeaders("x-api-key", "api_key", false)))));
    byDescriptor = new LocalRateLimiter(descriptorConfig, now);
    var headers = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    headers.add("x-api-key", "k1");
    headers.add("user-agent", "bench");
    request = new RequestHeaders("GET", "http", "example.com", "/", headers);
  }

  private static LocalRateLimitConfig config(LocalRateLimitConfig.TokenBucket bucket,
      List<LocalRateLimitConfig.Descriptor> descriptors, List<RateLimitPolicy> rateLimits) {
    return new LocalRateLimitConfig("bench", 429, Optional.of(bucket), io.spillway.edge.config.RuntimeFraction.ALWAYS,
        io.spillway.edge.config.RuntimeFraction.ALWAYS, HeaderMutations.NONE, HeaderMutations.NONE, descriptors, 0, false, false,
        RateLimitPolicy.VhRateLimits.OVERRIDE, true, rateLimits);
  }

  /** The alternative: tokens and last refill in two fields under a lock. */
  static final class LockedBucket {
    private final long max;
    private final long perFill;
    private final long intervalNanos;
    private final long origin;
    private long tokens;
    private long lastInterval;

    LockedBucket(long max, long perFill, long intervalNanos, long now) {
      this.max = max;
      this.perFill = perFill;
      this.intervalNanos = intervalNanos;
      this.origin = now;
      this.tokens = max;
    }

    synchronized boolean tryConsume(long now) {
      long interval = (now - origin) / intervalNanos;
      if (interval > lastInterval) {
        tokens = Math.min(max, tokens + (interval - lastInterval) * perFill);
        lastInterval = interval;
      }
      if (tokens == 0) {
        return false;
      }
      tokens--;
      return true;
    }
  }

  private LockedBucket locked;

  @Setup
  public void setupLocked() {
    locked = new LockedBucket(MAX, MAX, TimeUnit.MILLISECONDS.toNanos(50), System.nanoTime());
  }

  @Benchmark
  public boolean lockedAllowed() {
    return locked.tryConsume(System.nanoTime());
  }

  @Benchmark
  public boolean allowed() {
    return plenty.tryConsume(System.nanoTime());
  }

  @Benchmark
  public boolean refused() {
    return empty.tryConsume(System.nanoTime());
  }

  @Benchmark
  public Object decideDefault() {
    return byDefault.decide(List.of(), System.nanoTime());
  }

  @Benchmark
  public Object decideDescriptor() {
    return byDescriptor.decide(RequestDescriptors.of(descriptorConfig.rateLimits(), descriptorConfig.stage(),
        descriptorConfig.vhRateLimits(), request, "127.0.0.1", null, ""), System.nanoTime());
  }
}
