package io.spillway.central.ratelimit;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Where the rate limit service counts: {@link RedisCounters}, or a map in the service's unit tests. */
interface Counters extends AutoCloseable {

  /**
   * Adds {@code hits[i]} to {@code keys[i]}, each new key expiring after {@code ttlSeconds[i]}.
   *
   * @return the counts after the additions, in order; completes exceptionally when the counts are
   *     unavailable (a {@link java.util.concurrent.TimeoutException} past the bound)
   */
  CompletableFuture<List<Long>> increment(String[] keys, long[] hits, long[] ttlSeconds);

  @Override
  void close();
}
