package io.spillway.edge.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * When stats are flushed to the bootstrap's {@code stats_sinks}, and the sinks.
 *
 * @param interval {@code stats_flush_interval}: the time between the end of one flush and the
 *     next (Envoy re-arms its timer after each flush); 5 s by default
 * @param onAdmin {@code stats_flush_on_admin}: no timer; a flush follows each {@code /stats} read
 * @param sinks the sinks, in bootstrap order; none means nothing is flushed
 */
public record StatsFlushConfig(Duration interval, boolean onAdmin, List<StatsSinkConfig> sinks) {

  /** Envoy's default interval. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(5);

  /** No sinks, the default interval. */
  public static final StatsFlushConfig NONE = new StatsFlushConfig(DEFAULT_INTERVAL, false, List.of());

  public StatsFlushConfig {
    Objects.requireNonNull(interval, "interval");
    sinks = List.copyOf(sinks);
  }
}
