package io.spillway.central.ratelimit;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fixed-window counters in Redis, through one shared Lettuce connection (non-blocking). One
 * check is one round trip: a Lua script that {@code INCRBY}s every key of the request and sets its
 * {@code EXPIRE} when the increment created it, atomically. Every call completes within the
 * timeout, with the counts or with an exception; a connection that could not be made is retried
 * by the next call at most once a second (once made, Lettuce reconnects it by itself, and calls
 * made while it is down fail at once instead of queueing).
 */
final class RedisCounters implements Counters {

  private static final Logger log = LoggerFactory.getLogger(RedisCounters.class);
  private static final long RETRY_CONNECT_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** KEYS[i] gets ARGV[2i-1] added; when that created it, it expires after ARGV[2i] seconds. */
  static final String SCRIPT = """
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
      """;
  private static final String SCRIPT_SHA = sha1(SCRIPT);

  private final ClientResources resources;
  private final RedisClient client;
  private final RedisURI uri;
  private final Duration timeout;
  private final LongSupplier nanos;
  private final AtomicReference<Attempt> connection = new AtomicReference<>();

  private record Attempt(CompletableFuture<StatefulRedisConnection<String, String>> future, long startedNanos) {}

  /**
   * Starts connecting; does not wait.
   *
   * @param redisUri {@code redis://host:port[/db]}
   * @param timeout the bound on every call
   * @throws IllegalArgumentException when the URI is not one
   */
  RedisCounters(String redisUri, Duration timeout, LongSupplier nanos) {
    RedisURI parsed;
    try {
      parsed = RedisURI.create(redisUri);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("--redis-uri '" + redisUri + "' is not a Redis URI: " + e.getMessage(), e);
    }
    this.uri = parsed;
    this.timeout = timeout;
    this.nanos = nanos;
    this.resources = DefaultClientResources.builder().ioThreadPoolSize(2).computationThreadPoolSize(1).build();
    this.client = RedisClient.create(resources);
    client.setOptions(ClientOptions.builder()
        .autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(timeout))
        .socketOptions(SocketOptions.builder().connectTimeout(Duration.ofSeconds(1)).build())
        .build());
    connect(null);
  }

  /** Starts a connection attempt in place of {@code failed} (null at first), unless another call already did. */
  private Attempt connect(Attempt failed) {
    CompletableFuture<StatefulRedisConnection<String, String>> future = new CompletableFuture<>();
    Attempt attempt = new Attempt(future, nanos.getAsLong());
    if (!connection.compareAndSet(failed, attempt)) {
      return connection.get();
    }
    client.connectAsync(StringCodec.UTF8, uri).whenComplete((c, e) -> {
      if (e != null) {
        log.warn("rate limit service: cannot connect to Redis at {}:{}: {}", uri.getHost(), uri.getPort(), rootMessage(e));
        future.completeExceptionally(e);
      } else {
        log.info("rate limit service: connected to Redis at {}:{}", uri.getHost(), uri.getPort());
        c.async().scriptLoad(SCRIPT); // so the first check is one EVALSHA, not EVALSHA, NOSCRIPT, EVAL
        future.complete(c);
      }
    });
    return attempt;
  }

  @Override
  public CompletableFuture<List<Long>> increment(String[] keys, long[] hits, long[] ttlSeconds) {
    String[] args = new String[keys.length * 2];
    for (int i = 0; i < keys.length; i++) {
      args[2 * i] = Long.toString(hits[i]);
      args[2 * i + 1] = Long.toString(ttlSeconds[i]);
    }
    return current().thenCompose(c -> this.<List<Long>>eval(c, keys, args))
        .orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  private <T> CompletableFuture<T> eval(StatefulRedisConnection<String, String> c, String[] keys, String[] args) {
    CompletableFuture<T> bySha = c.async().<T>evalsha(SCRIPT_SHA, ScriptOutputType.MULTI, keys, args).toCompletableFuture();
    return bySha.handle((value, error) -> {
      if (error == null) {
        return CompletableFuture.completedFuture(value);
      }
      Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
      if (cause instanceof RedisNoScriptException) {
        return c.async().<T>eval(SCRIPT, ScriptOutputType.MULTI, keys, args).toCompletableFuture();
      }
      return CompletableFuture.<T>failedFuture(cause);
    }).thenCompose(f -> f);
  }

  /** The connection, or a new attempt when the last one failed more than a second ago. */
  private CompletableFuture<StatefulRedisConnection<String, String>> current() {
    Attempt attempt = connection.get();
    if (attempt.future().isCompletedExceptionally() && nanos.getAsLong() - attempt.startedNanos() >= RETRY_CONNECT_NANOS) {
      attempt = connect(attempt);
    }
    return attempt.future();
  }

  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }

  @Override
  public void close() {
    Attempt attempt = connection.get();
    if (attempt != null && attempt.future().isDone() && !attempt.future().isCompletedExceptionally()) {
      attempt.future().join().close();
    }
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    resources.shutdown(0, 2, TimeUnit.SECONDS);
  }

  private static String sha1(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
