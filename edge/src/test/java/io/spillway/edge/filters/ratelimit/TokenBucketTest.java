package io.spillway.edge.filters.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The lock-free token bucket under a hand-driven clock: burst, refill per interval, cap, concurrent takers. */
class TokenBucketTest {

  private static final long SECOND = 1_000_000_000L;
  private static final long START = 123_456_789L;

  @Test
  void aFullBucketAllowsABurstOfMaxTokensThenRefuses() {
    TokenBucket bucket = new TokenBucket(3, 1, SECOND, START);
    assertThat(bucket.tryConsume(START)).isTrue();
    assertThat(bucket.tryConsume(START + 1)).isTrue();
    assertThat(bucket.tryConsume(START + 2)).isTrue();
    assertThat(bucket.tryConsume(START + 3)).isFalse();
    assertThat(bucket.remainingTokens(START + 3)).isZero();
    assertThat(bucket.tryConsume(START + SECOND - 1)).as("no refill before the interval ends").isFalse();
  }

  @Test
  void refillsTokensPerFillAtTheEndOfEachIntervalUpToMax() {
    TokenBucket bucket = new TokenBucket(5, 2, SECOND, START);
    for (int i = 0; i < 5; i++) {
      assertThat(bucket.tryConsume(START)).isTrue();
    }
    assertThat(bucket.remainingTokens(START + SECOND)).isEqualTo(2);
    assertThat(bucket.tryConsume(START + SECOND)).isTrue();
    assertThat(bucket.tryConsume(START + SECOND)).isTrue();
    assertThat(bucket.tryConsume(START + SECOND)).isFalse();
    // Two intervals later: 2 + 2, then capped at 5 after a long pause.
    assertThat(bucket.remainingTokens(START + 3 * SECOND)).isEqualTo(4);
    assertThat(bucket.remainingTokens(START + 100 * SECOND)).isEqualTo(5);
    for (int i = 0; i < 5; i++) {
      assertThat(bucket.tryConsume(START + 100 * SECOND)).isTrue();
    }
    assertThat(bucket.tryConsume(START + 100 * SECOND)).isFalse();
  }

  @Test
  void anOlderClockReadingAfterARefillDoesNotRefillAgain() {
    TokenBucket bucket = new TokenBucket(1, 1, SECOND, START);
    assertThat(bucket.tryConsume(START)).isTrue();
    assertThat(bucket.tryConsume(START + 2 * SECOND)).isTrue(); // refilled at interval 2, taken
    // A worker that read the clock just before, in interval 1, must not see a refill.
    assertThat(bucket.tryConsume(START + SECOND)).isFalse();
    assertThat(bucket.tryConsume(START + 2 * SECOND + 1)).isFalse();
    assertThat(bucket.tryConsume(START + 3 * SECOND)).isTrue();
  }

  @Test
  void hugeBucketsDoNotOverflow() {
    long max = 0xFFFF_FFFFL;
    TokenBucket bucket = new TokenBucket(max, max, SECOND, START);
    assertThat(bucket.tryConsume(START)).isTrue();
    assertThat(bucket.remainingTokens(START)).isEqualTo(max - 1);
    assertThat(bucket.remainingTokens(START + 1_000 * SECOND)).isEqualTo(max);
    assertThatThrownBy(() -> new TokenBucket(max + 1, 1, SECOND, START)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new TokenBucket(1, 1, 0, START)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void resetIsTheWholeSecondsUntilTheNextRefillRoundedUp() {
    TokenBucket bucket = new TokenBucket(1, 1, 60 * SECOND, START);
    assertThat(bucket.resetSeconds(START)).isEqualTo(60);
    assertThat(bucket.resetSeconds(START + 10 * SECOND + SECOND / 2)).isEqualTo(50);
    assertThat(bucket.resetSeconds(START + 60 * SECOND)).isEqualTo(60);
    assertThat(new TokenBucket(1, 1, SECOND / 2, START).resetSeconds(START + SECOND / 4)).isEqualTo(1);
  }

  /**
   * Threads racing on one bucket take exactly the tokens there are: each interval's tokens once,
   * whatever the interleaving. The clock is shared and moved by one thread; the loop is bounded.
   */
  @Test
  void concurrentTakersNeverTakeMoreThanThereAre() throws Exception {
    int threads = 4;
    int intervals = 200;
    long max = 50;
    long perFill = 7;
    TokenBucket bucket = new TokenBucket(max, perFill, SECOND, START);
    AtomicLong clock = new AtomicLong(START);
    AtomicLong taken = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int interval = 0; interval < intervals; interval++) {
        clock.set(START + interval * SECOND);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Long>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          results.add(pool.submit(() -> {
            go.await();
            long mine = 0;
            for (int i = 0; i < 40; i++) {
              if (bucket.tryConsume(clock.get())) {
                mine++;
              }
            }
            return mine;
          }));
        }
        go.countDown();
        long thisInterval = 0;
        for (Future<Long> f : results) {
          thisInterval += f.get(10, TimeUnit.SECONDS);
        }
        // 160 attempts per interval always empty the bucket: max at first, then perFill each interval.
        assertThat(thisInterval).as("interval %d", interval).isEqualTo(interval == 0 ? max : perFill);
        taken.addAndGet(thisInterval);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(taken.get()).isEqualTo(max + (intervals - 1) * perFill);
  }
}
