package io.spillway.edge.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.spillway.edge.filters.policylimit.FleetCounter;
import io.spillway.edge.filters.policylimit.FleetCounter.Outcome;
import io.spillway.testkit.RedisRequired;
import io.spillway.testkit.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet-wide count against real Redis: the machine's at 127.0.0.1:6379 under a key prefix of
 * the test's own for the counting, and a redis-server of the test's own for killing, stalling and
 * restarting it. The generic cell rate algorithm admits exactly the burst across several counters
 * (edges) sharing a key, answers when the next is admitted, stores nothing for a refusal, and keys
 * expire; a dead Redis fails calls at once, a stalled one times them out and makes the counter
 * unavailable for a second; a restarted one is used again.
 */
@ExtendWith(RedisRequired.class)
class RedisFleetCounterIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(1); // generous: a loaded machine must not trip it
  private final String prefix = "fleet-it-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()) + ":";
  private final List<RedisFleetCounter> counters = new ArrayList<>();

  @TempDir
  Path dir;

  private RedisFleetCounter counter(String uri, Duration timeout) {
    RedisFleetCounter c = new RedisFleetCounter(uri, timeout, prefix, System::nanoTime);
    counters.add(c);
    return c;
  }

  private static FleetCounter.Answer take(FleetCounter c, String value, double rate, int burst) throws Exception {
    return c.cell("per-key", rate, burst).take(value, false).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void cleanUp() {
    counters.forEach(RedisFleetCounter::close);
    RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      List<String> keys = new ArrayList<>();
      ScanIterator.scan(c.sync(), ScanArgs.Builder.matches(prefix + "*").limit(1000)).forEachRemaining(keys::add);
      if (!keys.isEmpty()) {
        c.sync().del(keys.toArray(new String[0]));
      }
    } finally {
      client.shutdown();
    }
  }

  @Test
  void twoEdgesSharingAKeyGetExactlyTheBurstBetweenThemAndARefusalSaysWhenTheNextComes() throws Exception {
    RedisRequired.check();
    FleetCounter one = counter("redis://127.0.0.1:6379", TIMEOUT);
    FleetCounter two = counter("redis://127.0.0.1:6379", TIMEOUT);
    // One request per 1000 s after the burst: the counts cannot depend on this machine's speed.
    List<Long> remaining = new ArrayList<>();
    int refused = 0;
    long longestRetry = 0;
    for (int i = 0; i < 10; i++) {
      FleetCounter.Answer answer = take(i % 2 == 0 ? one : two, "alice", 0.001, 6);
      if (answer.outcome() == Outcome.ALLOWED) {
        remaining.add(answer.remaining());
      } else {
        assertThat(answer.outcome()).isEqualTo(Outcome.REFUSED);
        refused++;
        longestRetry = Math.max(longestRetry, answer.retryAfterMicros());
        assertThat(answer.retryAfterMicros()).isBetween(990_000_000L, 1_000_000_000L);
      }
    }
    assertThat(remaining).containsExactly(5L, 4L, 3L, 2L, 1L, 0L);
    assertThat(refused).isEqualTo(4);
    assertThat(take(one, "bob", 0.001, 6).outcome()).as("another key value has its own count").isEqualTo(Outcome.ALLOWED);
    try (var client = new Redis()) {
      long ttl = client.c.sync().pttl(prefix + "rl:per-key:v:alice");
      assertThat(ttl).as("the key lives until the bucket would be full again: 6000 s").isBetween(5_000_000L, 6_000_000L);
    }
  }

  @Test
  void aHighRateRefillsBetweenCallsAndARefusalWaitsLessThanOneInterval() throws Exception {
    RedisRequired.check();
    FleetCounter c = counter("redis://127.0.0.1:6379", TIMEOUT);
    assertThat(take(c, "fast", 1000, 1).outcome()).isEqualTo(Outcome.ALLOWED);
    FleetCounter.Answer next = take(c, "fast", 1000, 1);
    if (next.outcome() == Outcome.REFUSED) {
      assertThat(next.retryAfterMicros()).as("one token every 1000 µs").isBetween(1L, 1000L);
    }
    Thread.sleep(5); // several intervals, on Redis's clock as well
    assertThat(take(c, "fast", 1000, 1).outcome()).isEqualTo(Outcome.ALLOWED);
  }

  @Test
  void aLongValueIsKeptAsAHash() throws Exception {
    RedisRequired.check();
    RedisFleetCounter c = counter("redis://127.0.0.1:6379", TIMEOUT);
    assertThat(c.cell("per-key", 1, 1).take("\u0000abc123:300", true).toCompletableFuture().get(10, TimeUnit.SECONDS)
        .outcome()).isEqualTo(Outcome.ALLOWED);
    try (var client = new Redis()) {
      assertThat(client.c.sync().exists(prefix + "rl:per-key:h:abc123:300")).isEqualTo(1);
    }
  }

  @Test
  void aDeadRedisFailsCallsAtOnceAStalledOneTimesThemOutAndARestartedOneIsUsedAgain() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(RedisServer.available() || System.getenv("CI") != null,
        "needs redis-server on the PATH (Debian package redis-server)");
    try (RedisServer redis = RedisServer.start(dir.resolve("redis"))) {
      RedisFleetCounter c = counter(redis.uri(), Duration.ofMillis(200));
      // The first calls wait for the connection (class loading, connect, script load), which a
      // loaded machine may take longer than 200 ms to make: until one is answered.
      FleetCounter.Answer first = take(c, "k", 0.001, 100);
      for (int i = 0; i < 50 && first.outcome() == Outcome.TIMEOUT; i++) {
        Thread.sleep(100);
        first = take(c, "k", 0.001, 100);
      }
      assertThat(first.outcome()).isEqualTo(Outcome.ALLOWED);
      Thread.sleep(1100); // past the second a timed-out first call keeps the counter away
      assertThat(c.available(System.nanoTime())).isTrue();

      // Stalled (SIGSTOP): the call ends at the timeout, and the counter stays away for a second.
      redis.pause();
      long before = System.nanoTime();
      try {
        assertThat(take(c, "k", 0.001, 100).outcome()).isEqualTo(Outcome.TIMEOUT);
        assertThat(c.available(System.nanoTime())).as("unavailable after a timeout").isFalse();
        assertThat(c.available(before + TimeUnit.SECONDS.toNanos(3))).as("asked again after a second").isTrue();
      } finally {
        redis.resume();
      }

      // Dead: calls fail at once, the counter reports it unavailable while Lettuce reconnects.
      redis.kill();
      FleetCounter.Answer dead = take(c, "k", 0.001, 100);
      assertThat(dead.outcome()).isIn(Outcome.ERROR, Outcome.TIMEOUT);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (c.available(System.nanoTime())) {
        assertThat(System.nanoTime()).as("unavailable once the connection is seen closed").isLessThan(deadline);
        Thread.sleep(10);
      }
      assertThat(take(c, "k", 0.001, 100).outcome()).as("fails at once while down").isEqualTo(Outcome.ERROR);

      // Restarted (empty): Lettuce reconnects and the count starts again.
      redis.restart();
      deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!c.available(System.nanoTime())) {
        assertThat(System.nanoTime()).as("reconnected within 30 s").isLessThan(deadline);
        Thread.sleep(50);
      }
      FleetCounter.Answer back = take(c, "k", 0.001, 100);
      assertThat(back.outcome()).isEqualTo(Outcome.ALLOWED);
      assertThat(back.remaining()).as("a fresh count after the restart").isEqualTo(99);
    }
  }

  /** A plain Lettuce connection for looking at keys. */
  private static final class Redis implements AutoCloseable {
    final RedisClient client;
    final StatefulRedisConnection<String, String> c;

    Redis() {
      client = RedisClient.create("redis://127.0.0.1:6379");
      c = client.connect();
    }

    @Override
    public void close() {
      c.close();
      client.shutdown();
    }
  }
}
