package io.spillway.edge.stats.sink;

import io.spillway.edge.stats.StatsStore;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One stats flush: latches the store into a {@link MetricSnapshot} and hands it to every sink, as
 * Envoy's server does every {@code stats_flush_interval}. Runs on the main thread (the server
 * schedules it there), reads the store's stats with their reader-side methods only, and so never
 * touches or waits for a worker. A sink that throws does not stop the others or later flushes.
 */
public final class StatsFlusher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StatsFlusher.class);

  private final StatsStore store;
  private final List<StatsSink> sinks;

  public StatsFlusher(StatsStore store, List<? extends StatsSink> sinks) {
    this.store = store;
    this.sinks = List.copyOf(sinks);
  }

  /** Flushes once. Main thread only. */
  public void flush() {
    MetricSnapshot snapshot = MetricSnapshot.latch(store);
    for (StatsSink sink : sinks) {
      try {
        sink.flush(snapshot);
      } catch (RuntimeException e) {
        log.warn("stats sink {} failed to flush", sink, e);
      }
    }
  }

  /** Closes every sink's socket. */
  @Override
  public void close() {
    for (StatsSink sink : sinks) {
      sink.close();
    }
  }
}
