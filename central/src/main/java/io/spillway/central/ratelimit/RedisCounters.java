package io.spillway.central.ratelimit;

import io.lettuce.core.ScriptOutputType;
import io.spillway.redis.RedisScriptClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The fixed-window counters in Redis, through one shared non-blocking connection
 * ({@link RedisScriptClient}: every call ends within the timeout; a failed connection is retried
 * at most once a second). One check is one round trip: a Lua script that {@code INCRBY}s every key
 * of the request and sets its {@code EXPIRE} when the increment created it, atomically.
 */
final class RedisCounters implements Counters {

  /** KEYS[i] gets ARGV[2i-1] added; when that created it, it expires after ARGV[2i] seconds. */
  static final RedisScriptClient.Script SCRIPT = RedisScriptClient.Script.of("""
      local counts = {}
      for i = 1, #KEYS do
        local hits = tonumber(ARGV[2 * i - 1])
        local count = redis.call('INCRBY', KEYS[i], hits)
        if count == hits then
          redis.call('EXPIRE', KEYS[i], ARGV[2 * i])
        end
        counts[i] = count
      end
      return counts
      """);

  private final RedisScriptClient redis;

  /**
   * Starts connecting; does not wait.
   *
   * @param redisUri {@code redis://host:port[/db]}
   * @param timeout the bound on every call
   * @throws IllegalArgumentException when the URI is not one
   */
  RedisCounters(String redisUri, Duration timeout, LongSupplier nanos) {
    this.redis = new RedisScriptClient("rate limit service", redisUri, timeout, nanos, List.of(SCRIPT));
  }

  @Override
  public CompletableFuture<List<Long>> increment(String[] keys, long[] hits, long[] ttlSeconds) {
    String[] args = new String[keys.length * 2];
    for (int i = 0; i < keys.length; i++) {
      args[2 * i] = Long.toString(hits[i]);
      args[2 * i + 1] = Long.toString(ttlSeconds[i]);
    }
    return redis.eval(SCRIPT, ScriptOutputType.MULTI, keys, args);
  }

  static String rootMessage(Throwable e) {
    return RedisScriptClient.rootMessage(e);
  }

  @Override
  public void close() {
    redis.close();
  }
}
