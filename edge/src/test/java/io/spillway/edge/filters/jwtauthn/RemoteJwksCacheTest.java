package io.spillway.edge.filters.jwtauthn;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import io.spillway.edge.config.JwtAuthnConfig;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.StatsStore;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The shared remote key cache with everything hand-driven: the fetch (each one held until the
 * test answers it), the monotonic clock, the waiting requests' loops (tasks run when the test
 * says) and the async refetch timer (captured, fired by the test). One fetch in flight, waiters
 * completed each on its own loop and never inline, expiry after cache_duration, failures, and
 * async_fetch's schedule.
 */
class RemoteJwksCacheTest {
  private static final String JWKS = jwks("k1");
  private static final String ROTATED = jwks("k2");

  private final StatsStore stats = new StatsStore();
  private final Counter success = stats.rootScope().counter("jwks_fetch_success");
  private final Counter failed = stats.rootScope().counter("jwks_fetch_failed");
  private long now = 1_000_000_000L;
  /** Fetches started and not answered yet, oldest first. */
  private final ArrayDeque<Consumer<RemoteJwksCache.FetchResult>> fetches = new ArrayDeque<>();
  private int fetchesStarted;
  /** The async refetches armed: delay and task; cancelled ones are marked. */
  private final List<Armed> timers = new ArrayList<>();

  private static final class Armed implements RemoteJwksCache.Scheduled {
    final long delayNanos;
    final Runnable task;
    boolean cancelled;

    Armed(long delayNanos, Runnable task) {
      this.delayNanos = delayNanos;
      this.task = task;
    }

    @Override
    public void cancel() {
      cancelled = true;
    }
  }

  /** A request's event loop: tasks wait until the test runs them. */
  private static final class Loop implements Executor {
    final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

    @Override
    public void execute(Runnable task) {
      tasks.add(task);
    }

    int runAll() {
      int n = 0;
      for (Runnable r = tasks.poll(); r != null; r = tasks.poll()) {
        r.run();
        n++;
      }
      return n;
    }
  }

  private static String jwks(String kid) {
    try {
      RSAKey key = new RSAKeyGenerator(2048).keyID(kid).generate();
      return "{\"keys\":[" + key.toPublicJWK().toJSONString() + "]}";
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private RemoteJwksCache cache(Duration cacheDuration, Optional<JwtAuthnConfig.AsyncFetch> async) {
    JwtAuthnConfig.RemoteKeys config = new JwtAuthnConfig.RemoteKeys("http://idp/keys", "http", "idp", "/keys", "idp",
        Duration.ofSeconds(1), cacheDuration, async, Optional.empty());
    return new RemoteJwksCache(config, (worker, done) -> {
      fetchesStarted++;
      fetches.add(done);
    }, () -> now, success, failed);
  }

  private RemoteJwksCache.Timer timer() {
    return (task, delayNanos) -> {
      Armed a = new Armed(delayNanos, task);
      timers.add(a);
      return a;
    };
  }

  private void answer(RemoteJwksCache.FetchResult result) {
    assertThat(fetches).as("a fetch is in flight").isNotEmpty();
    fetches.poll().accept(result);
  }

  private static RemoteJwksCache.FetchResult ok(String body) {
    return new RemoteJwksCache.FetchResult.Fetched(body);
  }

  private static final RemoteJwksCache.FetchResult DOWN = new RemoteJwksCache.FetchResult.Failed("connection refused");

  private static String kid(JwksKeys keys) {
    return keys.keys().get(0).kid();
  }

  @Test
  void oneFetchServesEveryWaiterEachOnItsOwnLoopAndNeverInline() {
    RemoteJwksCache cache = cache(Duration.ofMinutes(10), Optional.empty());
    Loop worker0 = new Loop();
    Loop worker1 = new Loop();
    List<JwksKeys> got0 = new ArrayList<>();
    List<JwksKeys> got1 = new ArrayList<>();
    assertThat(cache.current()).isNull();
    cache.await(worker0, null, got0::add);
    cache.await(worker0, null, got0::add);
    cache.await(worker1, null, got1::add);
    assertThat(fetchesStarted).as("one fetch in flight per provider").isEqualTo(1);

    answer(ok(JWKS));
    assertThat(got0).as("completed on the waiter's loop, not the fetch's").isEmpty();
    assertThat(got1).isEmpty();
    assertThat(worker0.runAll()).isEqualTo(2);
    assertThat(worker1.runAll()).isEqualTo(1);
    assertThat(got0).hasSize(2).allSatisfy(k -> assertThat(kid(k)).isEqualTo("k1"));
    assertThat(got1).singleElement().satisfies(k -> assertThat(kid(k)).isEqualTo("k1"));
    assertThat(kid(cache.current())).isEqualTo("k1");
    assertThat(success.value()).isEqualTo(1);
    assertThat(failed.value()).isZero();
  }

  @Test
  void keysAreUsedForCacheDurationThenTheNextRequestFetchesAgainAndWaits() {
    RemoteJwksCache cache = cache(Duration.ofSeconds(30), Optional.empty());
    Loop loop = new Loop();
    List<JwksKeys> got = new ArrayList<>();
    cache.await(loop, null, got::add);
    answer(ok(JWKS));
    loop.runAll();

    now += Duration.ofSeconds(30).toNanos() - 1;
    assertThat(cache.current()).as("still fresh a nanosecond before cache_duration").isNotNull();
    now += 1;
    assertThat(cache.current()).as("expired keys are not used while the next fetch runs").isNull();
    cache.await(loop, null, got::add);
    assertThat(fetchesStarted).isEqualTo(2);
    answer(ok(ROTATED));
    loop.runAll();
    assertThat(got).extracting(RemoteJwksCacheTest::kid).containsExactly("k1", "k2");
    assertThat(kid(cache.current())).isEqualTo("k2");
    assertThat(success.value()).isEqualTo(2);
  }

  @Test
  void aFailedFetchFailsItsWaitersAndTheNextRequestTriesAgain() {
    RemoteJwksCache cache = cache(Duration.ofMinutes(10), Optional.empty());
    Loop loop = new Loop();
    List<JwksKeys> got = new ArrayList<>();
    cache.await(loop, null, got::add);
    cache.await(loop, null, got::add);
    answer(DOWN);
    loop.runAll();
    assertThat(got).containsExactly(JwksKeys.FETCH_FAILED, JwksKeys.FETCH_FAILED);
    assertThat(cache.current()).isNull();
    assertThat(failed.value()).isEqualTo(1);

    cache.await(loop, null, got::add);
    assertThat(fetchesStarted).as("no failure is cached: the next request fetches").isEqualTo(2);
    answer(ok("{\"keys\":[]}"));
    loop.runAll();
    assertThat(got).as("a document without a usable key is a failed fetch").hasSize(3).last()
        .isEqualTo(JwksKeys.FETCH_FAILED);
    cache.await(loop, null, got::add);
    answer(ok("not json"));
    loop.runAll();
    assertThat(got).last().isEqualTo(JwksKeys.FETCH_FAILED);
    assertThat(failed.value()).isEqualTo(3);
    assertThat(success.value()).isZero();
  }

  @Test
  void aWaiterQueuedAfterTheFetchEndedIsStillCompleted() {
    RemoteJwksCache cache = cache(Duration.ofMinutes(10), Optional.empty());
    Loop loop = new Loop();
    List<JwksKeys> got = new ArrayList<>();
    cache.await(loop, null, got::add);
    answer(ok(JWKS));
    // A request that looked before the fetch ended and queued after it: no second fetch, fresh keys.
    cache.await(loop, null, got::add);
    assertThat(fetchesStarted).isEqualTo(1);
    loop.runAll();
    assertThat(got).hasSize(2).allSatisfy(k -> assertThat(kid(k)).isEqualTo("k1"));
  }

  @Test
  void asyncFetchStartsAtOnceKeepsKeysAndRefetchesBeforeTheyWouldExpire() {
    RemoteJwksCache cache = cache(Duration.ofSeconds(60),
        Optional.of(new JwtAuthnConfig.AsyncFetch(false, Duration.ofMillis(250))));
    cache.startAsync(null, timer());
    assertThat(fetchesStarted).as("fetched when the filter config is created").isEqualTo(1);
    assertThat(cache.firstFetch()).isNotDone();
    answer(ok(JWKS));
    assertThat(cache.firstFetch()).isDone();
    assertThat(timers).singleElement().satisfies(t -> assertThat(t.delayNanos)
        .as("cache_duration - 5 s").isEqualTo(Duration.ofSeconds(55).toNanos()));

    now += Duration.ofDays(1).toNanos();
    assertThat(kid(cache.current())).as("async keys do not expire; the timer refreshes them").isEqualTo("k1");

    timers.get(0).task.run();
    assertThat(fetchesStarted).isEqualTo(2);
    answer(DOWN);
    assertThat(kid(cache.current())).as("a failed refetch keeps the keys").isEqualTo("k1");
    assertThat(timers.get(1).delayNanos).as("failed_refetch_duration").isEqualTo(Duration.ofMillis(250).toNanos());

    timers.get(1).task.run();
    answer(ok(ROTATED));
    assertThat(kid(cache.current())).isEqualTo("k2");
    assertThat(timers.get(2).delayNanos).isEqualTo(Duration.ofSeconds(55).toNanos());
    assertThat(success.value()).isEqualTo(2);
    assertThat(failed.value()).isEqualTo(1);
  }

  @Test
  void asyncFetchWithAShortCacheDurationRefetchesAfterTheWholeDuration() {
    RemoteJwksCache cache = cache(Duration.ofSeconds(2), Optional.of(new JwtAuthnConfig.AsyncFetch(true,
        Duration.ofSeconds(1))));
    cache.startAsync(null, timer());
    answer(ok(JWKS));
    assertThat(timers.get(0).delayNanos).isEqualTo(Duration.ofSeconds(2).toNanos());
  }

  @Test
  void asyncFetchFailureStillEndsTheListenerWaitAndRequestsThenFetchOnDemand() {
    RemoteJwksCache cache = cache(Duration.ofSeconds(60),
        Optional.of(new JwtAuthnConfig.AsyncFetch(false, Duration.ofSeconds(1))));
    cache.startAsync(null, timer());
    Loop loop = new Loop();
    List<JwksKeys> got = new ArrayList<>();
    cache.await(loop, null, got::add);
    assertThat(fetchesStarted).as("a request before the first keys joins the background fetch").isEqualTo(1);
    answer(DOWN);
    assertThat(cache.firstFetch()).as("the listener waits for the fetch, not for its success").isDone();
    loop.runAll();
    assertThat(got).containsExactly(JwksKeys.FETCH_FAILED);

    cache.await(loop, null, got::add);
    assertThat(fetchesStarted).as("no keys: the request fetches without waiting for the timer").isEqualTo(2);
    timers.get(0).task.run();
    assertThat(fetchesStarted).as("the timer finds a fetch in flight and starts none").isEqualTo(2);
    answer(ok(JWKS));
    loop.runAll();
    assertThat(kid(got.get(1))).isEqualTo("k1");
    assertThat(timers.get(0).cancelled).as("the success re-arms the one refetch timer").isTrue();
    assertThat(timers.get(1).delayNanos).isEqualTo(Duration.ofSeconds(55).toNanos());
  }
}
