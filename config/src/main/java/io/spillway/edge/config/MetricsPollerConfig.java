package io.spillway.edge.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The pressure policy's poller of each host's metrics endpoint ({@code
 * spillway.edge.lb.v1.MetricsPoller}), translated and validated
 * (docs/load-balancing.md#the-metrics-poller).
 *
 * @param path the request path, starting with {@code /}
 * @param host the {@code Host} header (or {@code :authority}); "" for the host's {@code ip:port}
 * @param interval how often each host is polled, within [1 s, 10 s]
 * @param timeout how long one poll may take, connect included; less than {@code interval}
 * @param format how the body is read
 * @param metrics which metric feeds which dimension, at least one, each dimension once
 */
public record MetricsPollerConfig(String path, String host, Duration interval, Duration timeout, Format format,
    List<Mapping> metrics) {
  public static final Duration MIN_INTERVAL = Duration.ofSeconds(1);
  public static final Duration MAX_INTERVAL = Duration.ofSeconds(10);
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(5);
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(1);

  public MetricsPollerConfig {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(format, "format");
    metrics = List.copyOf(metrics);
    if (interval.compareTo(MIN_INTERVAL) < 0 || interval.compareTo(MAX_INTERVAL) > 0
        || !timeout.isPositive() || timeout.compareTo(interval) >= 0 || metrics.isEmpty()) {
      throw new IllegalArgumentException("need 1 s <= interval <= 10 s, 0 < timeout < interval, a metric");
    }
  }

  /** How a metrics endpoint's body is read. */
  public enum Format {
    /** The Prometheus text exposition format 0.0.4: gauge and untyped samples. */
    PROMETHEUS,
    /** One JSON object: a key, or a dotted path into nested objects. */
    JSON
  }

  /** The ORCA-side dimensions a polled value can feed (the ones {@code PressureScore} reads from a load report). */
  public enum Dimension {
    CPU("cpu"),
    MEMORY("memory"),
    APPLICATION("application"),
    /** {@code named_metrics.<name>}. */
    NAMED_METRIC("named_metrics");

    private final String configName;

    Dimension(String configName) {
      this.configName = configName;
    }

    /** The name as the configuration writes it. */
    public String configName() {
      return configName;
    }
  }

  /**
   * One metric of the endpoint and the dimension it feeds.
   *
   * @param dimension what the value feeds
   * @param namedMetric the name under {@code named_metrics} for {@link Dimension#NAMED_METRIC}, else ""
   * @param metric the Prometheus metric name, or the JSON key or dotted path
   * @param labels Prometheus label matchers (exact values), empty for JSON
   * @param max the value that reads as saturated; the dimension reads {@code value / max}
   */
  public record Mapping(Dimension dimension, String namedMetric, String metric, Map<String, String> labels,
      double max) {
    public Mapping {
      Objects.requireNonNull(dimension, "dimension");
      Objects.requireNonNull(namedMetric, "namedMetric");
      Objects.requireNonNull(metric, "metric");
      labels = Map.copyOf(labels);
      if (!(max > 0) || Double.isInfinite(max)) {
        throw new IllegalArgumentException("max must be finite and greater than 0");
      }
    }

    /** The dimension as the configuration names it ({@code cpu}, {@code named_metrics.queue}). */
    public String dimensionName() {
      return dimension == Dimension.NAMED_METRIC ? "named_metrics." + namedMetric : dimension.configName();
    }
  }
}
