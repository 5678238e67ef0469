package io.spillway.edge.redis;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.ScriptOutputType;
import io.spillway.edge.filters.policylimit.FleetCounter;
import io.spillway.redis.RedisScriptClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet-wide count of the policy's rate limits, in Redis: one key per limit name and key value,
 * {@code <prefix>rl:<limit>:v:<value>} (or {@code …:h:<hash>} for a value longer than 128
 * characters), holding its theoretical arrival time in microseconds of Redis's own clock — the
 * generic cell rate algorithm (GCRA), which is a token bucket of {@code burst} refilled at
 * {@code rate} kept as one number. One request is one round trip: a Lua script reads the key,
 * admits the request when that leaves the arrival time at most {@code burst} intervals ahead of
 * now, and stores it with an expiry of the time until the bucket is full again. Redis's clock, not
 * the edges', so edges whose clocks disagree still share one count; a refused request changes
 * nothing.
 *
 * <p>A call that times out (after {@code timeout}) makes {@link #available} false for a second, so
 * a Redis that stopped answering costs the requests of that second one timeout each at most once
 * and then nothing: they count on their own edge. A Redis that refuses connections fails calls at
 * once and is retried at most once a second.
 */
public final class RedisFleetCounter implements FleetCounter, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RedisFleetCounter.class);
  private static final long SUSPEND_NANOS = TimeUnit.SECONDS.toNanos(1);

  /**
   * KEYS[1] the key value's arrival time (µs); ARGV[1] the emission interval (µs, 1e6 / rate);
   * ARGV[2] the burst. Returns {admitted 1/0, remaining, µs until one more is admitted}. Times are
   * written with %.0f: Lua 5.1 prints a number with 14 digits, which would round a µs timestamp.
   */
  static final RedisScriptClient.Script GCRA = RedisScriptClient.Script.of("""
      local clock = redis.call('TIME')
      local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
      local interval = tonumber(ARGV[1])
      local window = interval * tonumber(ARGV[2])
      local tat = tonumber(redis.call('GET', KEYS[1]) or now)
      if tat < now then
        tat = now
      end
      local nextTat = tat + interval
      if nextTat - now > window then
        return {0, 0, math.ceil(nextTat - now - window)}
      end
      redis.call('SET', KEYS[1], string.format('%.0f', nextTat), 'PX', math.ceil((nextTat - now) / 1000))
      return {1, math.floor((window - (nextTat - now)) / interval), 0}
      """);

  private final RedisScriptClient redis;
  private final String prefix;
  private final LongSupplier nanos;
  private volatile long suspendedUntilNanos;
  private volatile boolean suspended;

  /**
   * Starts connecting; does not wait.
   *
   * @param redisUri {@code --redis-uri}
   * @param timeout {@code --redis-timeout}: the bound on every call
   * @param prefix {@code --redis-key-prefix}, put before every key
   * @throws IllegalArgumentException when the URI is not one
   */
  public RedisFleetCounter(String redisUri, Duration timeout, String prefix, LongSupplier nanos) {
    this.redis = new RedisScriptClient("fleet rate limits", redisUri, timeout, nanos, List.of(GCRA));
    this.prefix = prefix;
    this.nanos = nanos;
  }

  @Override
  public boolean available(long nowNanos) {
    if (suspended && nowNanos - suspendedUntilNanos < 0) {
      return false;
    }
    return redis.usable(nowNanos);
  }

  @Override
  public Cell cell(String limit, double rate, int burst) {
    String keyPrefix = prefix + "rl:" + limit;
    String interval = Double.toString(1_000_000.0 / rate);
    String burstText = Integer.toString(burst);
    return (value, hashed) -> take(new String[] {keyPrefix + (hashed ? ":h:" + value.substring(1) : ":v:" + value)},
        interval, burstText);
  }

  private CompletionStage<Answer> take(String[] key, String interval, String burst) {
    CompletableFuture<List<Long>> call = redis.eval(GCRA, ScriptOutputType.MULTI, key, interval, burst);
    return call.handle((reply, error) -> {
      if (error == null) {
        return reply.get(0) == 1 ? new Answer(Outcome.ALLOWED, reply.get(1), 0) : new Answer(Outcome.REFUSED, 0, reply.get(2));
      }
      Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
      if (cause instanceof TimeoutException || cause instanceof RedisCommandTimeoutException) {
        suspend();
        return Answer.failed(Outcome.TIMEOUT);
      }
      log.debug("fleet rate limits: Redis failed: {}", RedisScriptClient.rootMessage(cause));
      return Answer.failed(Outcome.ERROR);
    });
  }

  /** Stops asking for a second after a timeout. */
  private void suspend() {
    suspendedUntilNanos = nanos.getAsLong() + SUSPEND_NANOS;
    suspended = true;
  }

  @Override
  public void close() {
    redis.close();
  }
}
