package io.spillway.edge.server;

import io.spillway.edge.config.StatsFlushConfig;
import io.spillway.edge.config.StatsSinkConfig;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.stats.sink.StatsFlusher;
import io.spillway.edge.stats.sink.StatsSink;
import io.spillway.edge.stats.sink.UdpDatagramWriter;
import io.spillway.edge.stats.sink.UdpStatsdSink;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bootstrap's {@code stats_sinks}, flushed on the main thread: every {@code stats_flush_interval},
 * or on each {@code /stats} read with {@code stats_flush_on_admin}.
 */
final class StatsSinks implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StatsSinks.class);

  private final StatsFlushConfig config;
  private final StatsFlusher flusher;
  private final ScheduledExecutorService main;

  private StatsSinks(StatsFlushConfig config, StatsFlusher flusher, ScheduledExecutorService main) {
    this.config = config;
    this.flusher = flusher;
    this.main = main;
  }

  /** The sinks of {@code config}, with their flush scheduled on {@code main}; null without sinks. */
  static StatsSinks start(StatsFlushConfig config, StatsStore stats, Scope root, ScheduledExecutorService main) {
    if (config.sinks().isEmpty()) {
      return null;
    }
    var sinkStats = UdpStatsdSink.SinkStats.of(root);
    List<StatsSink> sinks = new ArrayList<>();
    for (StatsSinkConfig sink : config.sinks()) {
      InetSocketAddress peer;
      try {
        peer = new InetSocketAddress(InetAddress.getByName(sink.address().host()),
            sink.address().port()); // an IP literal: no lookup
      } catch (UnknownHostException e) {
        throw new IllegalStateException("stats sink address " + sink.address() + " is not an IP literal", e);
      }
      var writer = new UdpDatagramWriter(peer);
      sinks.add(switch (sink.format()) {
        case STATSD -> UdpStatsdSink.statsd(writer, sink.prefix(), sinkStats);
        case DOG_STATSD -> UdpStatsdSink.dogStatsd(writer, sink.prefix(), sink.maxBytesPerDatagram(), sinkStats);
      });
    }
    StatsSinks started = new StatsSinks(config, new StatsFlusher(stats, sinks), main);
    if (!config.onAdmin()) {
      long every = config.interval().toNanos();
      main.scheduleWithFixedDelay(started::flush, every, every, TimeUnit.NANOSECONDS);
    }
    log.info("stats sinks: {} to {}, {}", sinks.size(),
        config.sinks().stream().map(s -> s.address().toString()).toList(),
        config.onAdmin() ? "flushed on /stats reads" : "flushed every " + config.interval().toMillis() + " ms");
    return started;
  }

  /** A {@code /stats} read: one flush with {@code stats_flush_on_admin}. */
  void statsRead() {
    if (config.onAdmin()) {
      main.execute(this::flush);
    }
  }

  /** One flush (main thread). */
  private void flush() {
    try {
      flusher.flush();
    } catch (RuntimeException e) {
      log.warn("stats flush failed", e); // the next flush is still scheduled
    }
  }

  /**
   * After the main thread stopped (a flush in progress ends first): one last flush, as Envoy
   * flushes when it terminates, so what was counted since the previous interval (the drain's last
   * requests) still reaches the sinks; then the sockets close.
   */
  @Override
  public void close() {
    try {
      main.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    flush();
    flusher.close();
  }
}
