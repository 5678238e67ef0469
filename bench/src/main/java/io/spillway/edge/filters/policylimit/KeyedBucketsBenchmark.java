package io.spillway.edge.filters.policylimit;

import io.spillway.edge.filters.ratelimit.TokenBucket;
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
 * The per-caller check of the control plane's {@code rateLimits} as a worker runs it: find the
 * caller's bucket in the shared two-choice table and take a token. {@code knownCaller}: one of
 * 1,000 callers already in a 4,096-slot table (two slot reads, a string compare, a racy recency
 * write, a clock read and one CAS). {@code newCallerEachTime}: a caller never seen, out of a
 * million, so every call builds a bucket and replaces the older of its two slots by one CAS — the
 * cost a flood of distinct keys imposes. Run with {@code -t 1} and {@code -t 2} to see two workers
 * on one table.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class KeyedBucketsBenchmark {

  private static final int CALLERS = 1_000;
  private static final int FLOOD = 1 << 20;

  private KeyedBuckets table;
  private String[] callers;
  private String[] flood;

  @Setup
  public void setup() {
    table = new KeyedBuckets(4_096, 1e9, Integer.MAX_VALUE);
    callers = new String[CALLERS];
    long now = System.nanoTime();
    for (int i = 0; i < CALLERS; i++) {
      callers[i] = "10.0." + (i >> 8) + "." + (i & 0xFF);
      table.bucket(callers[i], now);
    }
    flood = new String[FLOOD];
    for (int i = 0; i < FLOOD; i++) {
      flood[i] = "flood-" + i;
    }
  }

  /** A thread's own position in the caller lists, so threads do not walk in step. */
  @State(Scope.Thread)
  public static class Cursor {
    int next = (int) (Thread.currentThread().threadId() * 7919);
  }

  @Benchmark
  public boolean knownCaller(Cursor cursor) {
    long now = System.nanoTime();
    TokenBucket bucket = table.bucket(callers[Math.floorMod(cursor.next++, CALLERS)], now);
    return bucket.tryConsume(now);
  }

  @Benchmark
  public boolean newCallerEachTime(Cursor cursor) {
    long now = System.nanoTime();
    TokenBucket bucket = table.bucket(flood[Math.floorMod(cursor.next++, FLOOD)], now);
    return bucket.tryConsume(now);
  }
}
