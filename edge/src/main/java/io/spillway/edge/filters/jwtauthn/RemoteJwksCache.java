package io.spillway.edge.filters.jwtauthn;

import io.spillway.edge.config.JwtAuthnConfig;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.upstream.Worker;
import java.lang.ref.WeakReference;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * One {@code remote_jwks} provider's key set, shared by every worker of the edge (Envoy keeps one
 * per worker; here one fetch serves them all). Lock-free: the keys are one immutable
 * {@link Snapshot} behind an {@link AtomicReference}; at most one fetch is in flight, claimed by
 * a compare-and-set of {@link #fetching}; requests waiting for it sit in a lock-free queue and are
 * completed each on its own event loop ({@link Executor#execute}), never on the fetch's.
 *
 * <p>Envoy's cache rules ({@code jwks_cache.cc}, {@code jwks_async_fetcher.cc}):
 * <ul>
 *   <li>without {@code async_fetch}, the first request that needs the keys starts a fetch and
 *       waits; fetched keys are used for {@code cache_duration}, after which the next request
 *       fetches again (and waits; the old keys are not used meanwhile);
 *   <li>with {@code async_fetch}, the fetch starts when the filter's configuration is built;
 *       fetched keys are used until newer ones replace them; the next fetch starts
 *       {@code cache_duration} − 5 s after a success (the whole {@code cache_duration} when it is
 *       5 s or less), {@code failed_refetch_duration} after a failure. A request that finds no
 *       keys yet waits for a fetch like one without {@code async_fetch};
 *   <li>a failed fetch (no answer, a status other than 200, an empty body, or a document that is
 *       not a usable JWKS) fails every request waiting for it with "Jwks remote fetch is failed".
 * </ul>
 * {@code jwks_fetch_success} and {@code jwks_fetch_failed} count fetches.
 */
final class RemoteJwksCache {

  /** Envoy's {@code RefetchBeforeExpiredSec}: async refetches start this long before the keys would expire. */
  static final long REFETCH_BEFORE_EXPIRY_NANOS = 5_000_000_000L;
  private static final long NEVER = Long.MAX_VALUE;

  /** Makes one fetch (with its retries) on {@code worker}'s loop and tells {@code done} once, on that loop. */
  interface Fetcher {
    void fetch(Worker worker, Consumer<FetchResult> done);
  }

  /** What a fetch brought: the response body of a 200, or why there is none. */
  sealed interface FetchResult {
    record Fetched(String body) implements FetchResult {}

    record Failed(String reason) implements FetchResult {}
  }

  /** Schedules the async refetch on the fetching worker's loop. */
  interface Timer {
    Scheduled schedule(Runnable task, long delayNanos);
  }

  /** A scheduled refetch that can be called off. */
  interface Scheduled {
    void cancel();
  }

  /** The keys and when they stop being used (System.nanoTime; {@link #NEVER} with async_fetch). */
  private record Snapshot(JwksKeys keys, long expiresAtNanos) {}

  /** A request waiting for the fetch: its loop and what it does with the keys. */
  private record WaitingRequest(Executor loop, Consumer<JwksKeys> done) {}

  private final JwtAuthnConfig.RemoteKeys config;
  private final Fetcher fetcher;
  private final LongSupplier nanoClock;
  private final Counter fetchSuccess;
  private final Counter fetchFailed;
  private final long cacheNanos;
  private final AtomicReference<Snapshot> current = new AtomicReference<>();
  private final AtomicBoolean fetching = new AtomicBoolean();
  private final Queue<WaitingRequest> waiters = new ConcurrentLinkedQueue<>();
  private final AtomicReference<Scheduled> refetch = new AtomicReference<>();
  private final CompletableFuture<Void> firstFetch = new CompletableFuture<>();
  /** async_fetch: the worker the background fetches run on, and its timer; set once by {@link #startAsync}. */
  private volatile Worker asyncWorker;
  private volatile Timer asyncTimer;

  RemoteJwksCache(JwtAuthnConfig.RemoteKeys config, Fetcher fetcher, LongSupplier nanoClock, Counter fetchSuccess,
      Counter fetchFailed) {
    this.config = config;
    this.fetcher = fetcher;
    this.nanoClock = nanoClock;
    this.fetchSuccess = fetchSuccess;
    this.fetchFailed = fetchFailed;
    this.cacheNanos = config.cacheDuration().toNanos();
  }

  JwtAuthnConfig.RemoteKeys config() {
    return config;
  }

  /** The keys to verify with now, or null when there are none or they expired. */
  JwksKeys current() {
    Snapshot s = current.get();
    if (s == null) {
      return null;
    }
    return s.expiresAtNanos() == NEVER || nanoClock.getAsLong() - s.expiresAtNanos() < 0 ? s.keys() : null;
  }

  /**
   * Waits for keys: joins the fetch in flight, or starts one on {@code worker}. {@code done} is
   * called exactly once on {@code loop}, later (never from inside this call), with the keys or
   * {@link JwksKeys#FETCH_FAILED}.
   */
  void await(Executor loop, Worker worker, Consumer<JwksKeys> done) {
    waiters.offer(new WaitingRequest(loop, done));
    if (!fetching.compareAndSet(false, true)) {
      return; // the fetch in flight completes us: it clears the flag before it drains the queue
    }
    JwksKeys fresh = current();
    if (fresh != null) {
      fetching.set(false); // a fetch finished between the caller's look and ours
      drain(fresh);
      return;
    }
    fetcher.fetch(worker, this::onFetched);
  }

  /**
   * async_fetch: starts the first fetch now on {@code worker} and keeps the keys fresh from then
   * on, with {@code timer} on that worker's loop.
   */
  void startAsync(Worker worker, Timer timer) {
    this.asyncWorker = worker;
    this.asyncTimer = timer;
    fetchInBackground();
  }

  /** Completes when the first fetch is done, whether it succeeded or failed (async_fetch's listener wait). */
  CompletableFuture<Void> firstFetch() {
    return firstFetch;
  }

  private void fetchInBackground() {
    if (fetching.compareAndSet(false, true)) {
      fetcher.fetch(asyncWorker, this::onFetched);
    }
    // else a request's fetch is in flight: its end schedules the next background fetch
  }

  private void onFetched(FetchResult result) {
    JwksKeys keys = null;
    if (result instanceof FetchResult.Fetched fetched) {
      try {
        keys = JwksKeys.compile(JwtAuthnConfig.usableJwks(fetched.body()));
      } catch (IllegalArgumentException e) {
        keys = null; // Envoy: an invalid JWKS is a failed fetch
      }
    }
    boolean async = config.asyncFetch().isPresent();
    if (keys != null) {
      fetchSuccess.inc();
      current.set(new Snapshot(keys, async ? NEVER : nanoClock.getAsLong() + cacheNanos));
    } else {
      fetchFailed.inc();
    }
    fetching.set(false); // before the drain: a waiter queued after it starts a fetch of its own
    drain(keys != null ? keys : JwksKeys.FETCH_FAILED);
    if (async && asyncTimer != null) {
      scheduleRefetch(keys != null ? goodRefetchNanos() : config.asyncFetch().get().failedRefetchDuration().toNanos());
    }
    firstFetch.complete(null);
  }

  private long goodRefetchNanos() {
    return cacheNanos > REFETCH_BEFORE_EXPIRY_NANOS ? cacheNanos - REFETCH_BEFORE_EXPIRY_NANOS : cacheNanos;
  }

  /**
   * Arms the one background refetch. The timer holds this cache weakly: once the filter's
   * configuration is gone (an LDS update replaced it), the next firing finds nothing and stops.
   */
  private void scheduleRefetch(long delayNanos) {
    WeakReference<RemoteJwksCache> self = new WeakReference<>(this);
    Scheduled next = asyncTimer.schedule(() -> {
      RemoteJwksCache cache = self.get();
      if (cache != null) {
        cache.fetchInBackground();
      }
    }, delayNanos);
    Scheduled previous = refetch.getAndSet(next);
    if (previous != null) {
      previous.cancel();
    }
  }

  private void drain(JwksKeys keys) {
    for (WaitingRequest w = waiters.poll(); w != null; w = waiters.poll()) {
      WaitingRequest waiter = w;
      waiter.loop().execute(() -> waiter.done().accept(keys));
    }
  }
}
