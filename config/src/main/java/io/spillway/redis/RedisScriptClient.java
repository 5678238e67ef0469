package io.spillway.redis;

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
import io.lettuce.core.resource.Delay;
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
 * One shared, non-blocking Lettuce connection to Redis that runs Lua scripts. Every call completes
 * within the timeout, with the script's answer or with an exception, on a Lettuce or timer thread
 * (never the caller's); making a call takes no lock (Lettuce queues the command for its own event
 * loop and arms its timer wheel): {@code EVALSHA}, and {@code EVAL} once when Redis answers {@code NOSCRIPT}
 * (the scripts are loaded at every connect, so that happens only after Redis lost them). A
 * connection that could not be made is retried by the next call at most once a second; once made,
 * Lettuce reconnects it by itself (at least once a second), and calls made while it is down fail at
 * once instead of queueing behind the reconnect.
 */
public final class RedisScriptClient implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RedisScriptClient.class);
  private static final long RETRY_CONNECT_NANOS = TimeUnit.SECONDS.toNanos(1);

  /**
   * A Lua script and its SHA-1, as {@code EVALSHA} names it.
   *
   * @param text the script
   * @param sha its SHA-1 in lower-case hex
   */
  public record Script(String text, String sha) {

    /** The script with its SHA-1. */
    public static Script of(String text) {
      try {
        byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
        return new Script(text, HexFormat.of().formatHex(digest));
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private final String purpose;
  private final ClientResources resources;
  private final RedisClient client;
  private final RedisURI uri;
  private final Duration timeout;
  private final LongSupplier nanos;
  private final List<Script> scripts;
  private final AtomicReference<Attempt> connection = new AtomicReference<>();

  private record Attempt(CompletableFuture<StatefulRedisConnection<String, String>> future, long startedNanos) {}

  /**
   * Starts connecting; does not wait.
   *
   * @param purpose what the connection serves, for the log ("rate limit service")
   * @param redisUri {@code redis://host:port[/db]} (or any URI Lettuce reads)
   * @param timeout the bound on every call
   * @param nanos a monotonic clock
   * @param scripts the scripts loaded at every connect
   * @throws IllegalArgumentException when the URI is not one, naming the {@code --redis-uri} flag
   */
  public RedisScriptClient(String purpose, String redisUri, Duration timeout, LongSupplier nanos, List<Script> scripts) {
    this.uri = parse(redisUri);
    this.purpose = purpose;
    this.timeout = timeout;
    this.nanos = nanos;
    this.scripts = List.copyOf(scripts);
    // Reconnect attempts back off from 1 ms up to once a second (Lettuce's default ceiling is 30 s,
    // which would keep a restarted Redis unused for that long).
    this.resources = DefaultClientResources.builder().ioThreadPoolSize(2).computationThreadPoolSize(1)
        .reconnectDelay(Delay.exponential(Duration.ofMillis(1), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
        .build();
    this.client = RedisClient.create(resources);
    client.setOptions(ClientOptions.builder()
        .autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(timeout))
        .socketOptions(SocketOptions.builder().connectTimeout(Duration.ofSeconds(1)).build())
        .build());
    connect(null);
  }

  /**
   * Checks a {@code --redis-uri} value.
   *
   * @throws IllegalArgumentException naming the flag and what is wrong
   */
  public static RedisURI parse(String redisUri) {
    try {
      return RedisURI.create(redisUri);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("--redis-uri '" + redisUri + "' is not a Redis URI: " + e.getMessage(), e);
    }
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
        log.warn("{}: cannot connect to Redis at {}:{}: {}", purpose, uri.getHost(), uri.getPort(), rootMessage(e));
        future.completeExceptionally(e);
      } else {
        log.info("{}: connected to Redis at {}:{}", purpose, uri.getHost(), uri.getPort());
        scripts.forEach(s -> c.async().scriptLoad(s.text())); // so a first call is one EVALSHA
        future.complete(c);
      }
    });
    return attempt;
  }

  /**
   * Runs {@code script}; completes within the timeout.
   *
   * @param type how Redis's reply is read
   */
  public <T> CompletableFuture<T> eval(Script script, ScriptOutputType type, String[] keys, String... args) {
    CompletableFuture<StatefulRedisConnection<String, String>> connection = current();
    if (connection.isDone() && !connection.isCompletedExceptionally()) {
      // Connected: Lettuce's own command timeout (a timer wheel, no lock) bounds the call.
      return eval(connection.join(), script, type, keys, args);
    }
    // Connecting (or failed): bound the wait for the connection as well.
    return connection.thenCompose(c -> this.<T>eval(c, script, type, keys, args))
        .orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  private <T> CompletableFuture<T> eval(StatefulRedisConnection<String, String> c, Script script, ScriptOutputType type,
      String[] keys, String[] args) {
    CompletableFuture<T> bySha = c.async().<T>evalsha(script.sha(), type, keys, args).toCompletableFuture();
    return bySha.handle((value, error) -> {
      if (error == null) {
        return CompletableFuture.completedFuture(value);
      }
      Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
      if (cause instanceof RedisNoScriptException) {
        return c.async().<T>eval(script.text(), type, keys, args).toCompletableFuture();
      }
      return CompletableFuture.<T>failedFuture(cause);
    }).thenCompose(f -> f);
  }

  /**
   * Whether a call made now can be answered: the connection is open, or being made (the call waits
   * for it, within the timeout), or the last attempt failed long enough ago that the call retries
   * it. False while Lettuce reconnects a dropped connection and for a second after a failed attempt:
   * calls would fail at once.
   */
  public boolean usable(long nowNanos) {
    Attempt attempt = connection.get();
    CompletableFuture<StatefulRedisConnection<String, String>> future = attempt.future();
    if (!future.isDone()) {
      return true;
    }
    if (future.isCompletedExceptionally()) {
      return nowNanos - attempt.startedNanos() >= RETRY_CONNECT_NANOS;
    }
    return future.join().isOpen();
  }

  /** The connection, or a new attempt when the last one failed more than a second ago. */
  private CompletableFuture<StatefulRedisConnection<String, String>> current() {
    Attempt attempt = connection.get();
    if (attempt.future().isCompletedExceptionally() && nanos.getAsLong() - attempt.startedNanos() >= RETRY_CONNECT_NANOS) {
      attempt = connect(attempt);
    }
    return attempt.future();
  }

  /** The innermost cause's message, for logs. */
  public static String rootMessage(Throwable e) {
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
}
