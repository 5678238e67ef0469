package io.spillway.edge.tracing;

import io.netty.util.internal.PlatformDependent;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.stats.Counter;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * What both reporters share: workers hand finished spans over through a lock-free bounded
 * multi-producer queue and never wait (a span that finds it full is dropped and counted); a thread
 * of the reporter's own sends what is queued whenever {@code <prefix>.min_flush_spans} (runtime,
 * default 5) spans are waiting, and every {@code <prefix>.flush_interval_ms} (default 5000),
 * counting {@code timer_flushed}. Blocking in {@link #send} is harmless: only this thread calls it.
 */
abstract class BatchingReporter implements SpanReporter, AutoCloseable {

  /** Spans a reporter holds at most; past that they are dropped. */
  static final int QUEUE_CAPACITY = 16_384;
  /** Spans in one report at most. */
  static final int MAX_BATCH = 1_000;
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BatchingReporter.class);

  private final String runtimePrefix;
  private final Supplier<RuntimeSnapshot> runtime;
  private final Counter timerFlushed;
  private final Counter spansDropped;
  /** When a failed report was last logged (the reporter's thread only). */
  private long lastFailureLog;
  private final Queue<RequestSpan> queue;
  private final Thread thread;
  private volatile int minFlushSpans;
  private volatile boolean running = true;

  /** @param runtimePrefix {@code tracing.zipkin} or {@code tracing.opentelemetry}: the runtime keys' prefix */
  BatchingReporter(String threadName, String runtimePrefix, Supplier<RuntimeSnapshot> runtime, Counter timerFlushed,
      Counter spansDropped, int capacity) {
    this.runtimePrefix = runtimePrefix;
    this.runtime = runtime;
    this.timerFlushed = timerFlushed;
    this.spansDropped = spansDropped;
    this.queue = PlatformDependent.newFixedMpscQueue(capacity);
    this.minFlushSpans = minFlushSpans();
    this.thread = new Thread(this::run, threadName);
    thread.setDaemon(true);
  }

  /** Starts the thread; called once the subclass is built. */
  final void start() {
    thread.start();
  }

  @Override
  public final void report(RequestSpan span) {
    if (!queue.offer(span)) {
      spansDropped.inc();
      return;
    }
    if (queue.size() >= minFlushSpans) {
      LockSupport.unpark(thread);
    }
  }

  /** Sends what is queued and stops the thread. */
  @Override
  public void close() {
    running = false;
    LockSupport.unpark(thread);
    try {
      thread.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One report of at most {@link #MAX_BATCH} spans, on the reporter's thread. */
  abstract void send(List<RequestSpan> spans);

  final RuntimeSnapshot runtime() {
    return runtime.get();
  }

  private int minFlushSpans() {
    return (int) Math.max(1, Math.min(MAX_BATCH, runtime.get().getInteger(runtimePrefix + ".min_flush_spans", 5)));
  }

  private long flushIntervalNanos() {
    return TimeUnit.MILLISECONDS.toNanos(Math.max(1, runtime.get().getInteger(runtimePrefix + ".flush_interval_ms", 5000)));
  }

  private void run() {
    long lastFlush = System.nanoTime();
    while (running) {
      long wait = lastFlush + flushIntervalNanos() - System.nanoTime();
      if (wait > 0 && queue.size() < minFlushSpans) {
        LockSupport.parkNanos(this, wait);
      }
      minFlushSpans = minFlushSpans();
      long now = System.nanoTime();
      if (now - lastFlush >= flushIntervalNanos()) {
        lastFlush = now;
        timerFlushed.inc();
        flush();
      } else if (queue.size() >= minFlushSpans) {
        flush();
      }
    }
    flush();
  }

  /** Sends every queued span, in reports of at most {@link #MAX_BATCH}. */
  private void flush() {
    List<RequestSpan> batch = new ArrayList<>();
    RequestSpan span;
    while ((span = queue.poll()) != null) {
      batch.add(span);
      if (batch.size() == MAX_BATCH) {
        deliver(batch);
        batch = new ArrayList<>();
      }
    }
    if (!batch.isEmpty()) {
      deliver(batch);
    }
  }

  /**
   * Sends one report; a reporter that throws (a span it cannot encode, a client bug) loses that
   * report — counted as dropped spans, logged at most once a minute — and never its thread.
   */
  private void deliver(List<RequestSpan> batch) {
    try {
      send(batch);
    } catch (RuntimeException e) {
      spansDropped.add(batch.size());
      long now = System.nanoTime();
      if (lastFailureLog == 0 || now - lastFailureLog >= TimeUnit.MINUTES.toNanos(1)) {
        lastFailureLog = now;
        LOG.warn("tracing: a report of {} spans failed and was dropped: {}", batch.size(), e.toString());
      }
    }
  }
}
