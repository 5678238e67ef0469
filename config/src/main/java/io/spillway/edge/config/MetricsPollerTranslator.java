package io.spillway.edge.config;

import io.spillway.edge.config.MetricsPollerConfig.Dimension;
import io.spillway.edge.config.MetricsPollerConfig.Format;
import io.spillway.edge.config.MetricsPollerConfig.Mapping;
import io.spillway.edge.config.PressureConfig.Dimensions;
import io.spillway.edge.config.lb.MetricMapping;
import io.spillway.edge.config.lb.MetricsPoller;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * {@code spillway.edge.lb.v1.MetricsPoller} → {@link MetricsPollerConfig}: the interval within
 * [1 s, 10 s], the timeout below it, a format, and each mapping checked against the format (a
 * Prometheus metric or label name must be one Prometheus allows, label matchers only for
 * Prometheus) and against the policy's weights (a dimension without weight would not count, so
 * feeding it is refused). Every violation is refused with its field path.
 */
final class MetricsPollerTranslator {
  /** Prometheus' metric name and label name rules (the data model's). */
  private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
  /** A request target path: visible ASCII only (RFC 9112 §3.2). */
  private static final Pattern PATH = Pattern.compile("/[\\x21-\\x7e]*");
  /** A Host value: visible ASCII, no space. */
  private static final Pattern HOST = Pattern.compile("[\\x21-\\x7e]*");

  private MetricsPollerTranslator() {}

  static MetricsPollerConfig translate(MetricsPoller p, Dimensions weights, FieldPath path) throws ConfigException {
    if (!PATH.matcher(p.getPath()).matches()) {
      throw new ConfigException(path.field("path"), p.getPath().isEmpty() ? "required (e.g. /metrics)"
          : "must start with '/' and hold visible ASCII characters only");
    }
    if (!HOST.matcher(p.getHost()).matches()) {
      throw new ConfigException(path.field("host"), "must hold visible ASCII characters only");
    }
    Duration interval = ProtoValues.positiveDuration(p.hasInterval(), p.getInterval(), path.field("interval"),
        MetricsPollerConfig.DEFAULT_INTERVAL);
    if (interval.compareTo(MetricsPollerConfig.MIN_INTERVAL) < 0
        || interval.compareTo(MetricsPollerConfig.MAX_INTERVAL) > 0) {
      throw new ConfigException(path.field("interval"), "must be within [1s, 10s], was " + seconds(interval));
    }
    Duration half = interval.dividedBy(2);
    Duration timeout = ProtoValues.positiveDuration(p.hasTimeout(), p.getTimeout(), path.field("timeout"),
        half.compareTo(MetricsPollerConfig.DEFAULT_TIMEOUT) < 0 ? half : MetricsPollerConfig.DEFAULT_TIMEOUT);
    if (timeout.compareTo(interval) >= 0) {
      throw new ConfigException(path.field("timeout"), "must be less than interval (" + seconds(interval)
          + "), was " + seconds(timeout));
    }
    Format format = switch (p.getFormat()) {
      case PROMETHEUS -> Format.PROMETHEUS;
      case JSON -> Format.JSON;
      case FORMAT_UNSPECIFIED -> throw new ConfigException(path.field("format"), "required: PROMETHEUS or JSON");
      default -> throw new ConfigException(path.field("format"), "unknown value " + p.getFormatValue()
          + "; use PROMETHEUS or JSON");
    };
    if (p.getMetricsCount() == 0) {
      throw new ConfigException(path.field("metrics"), "at least one metric is needed");
    }
    List<Mapping> mappings = new ArrayList<>();
    Set<String> fed = new HashSet<>();
    for (int i = 0; i < p.getMetricsCount(); i++) {
      FieldPath at = path.field("metrics").index(i);
      Mapping m = mapping(p.getMetrics(i), format, at);
      if (!fed.add(m.dimensionName())) {
        throw new ConfigException(at.field("dimension"), m.dimensionName() + " is fed by an earlier metric already");
      }
      if (!(weights.weightOf(m) > 0)) {
        throw new ConfigException(at.field("dimension"), m.dimensionName() + " has no weight in the policy's "
            + "dimensions (or preset), so its value would not count; give it a weight or drop the mapping");
      }
      mappings.add(m);
    }
    return new MetricsPollerConfig(p.getPath(), p.getHost(), interval, timeout, format, mappings);
  }

  private static Mapping mapping(MetricMapping m, Format format, FieldPath path) throws ConfigException {
    String dimension = m.getDimension();
    Dimension d;
    String named = "";
    if (dimension.startsWith("named_metrics.")) {
      d = Dimension.NAMED_METRIC;
      named = dimension.substring("named_metrics.".length());
      if (named.isEmpty()) {
        throw new ConfigException(path.field("dimension"), "named_metrics. needs a metric name after the dot");
      }
    } else {
      d = switch (dimension) {
        case "cpu" -> Dimension.CPU;
        case "memory" -> Dimension.MEMORY;
        case "application" -> Dimension.APPLICATION;
        default -> throw new ConfigException(path.field("dimension"), (dimension.isEmpty() ? "required"
            : "unknown dimension '" + dimension + "'") + "; use cpu, memory, application or named_metrics.<name> "
            + "(a backend's connection count or queue depth is a named metric with a max)");
      };
    }
    String metric = m.getMetric();
    if (format == Format.PROMETHEUS) {
      if (!METRIC_NAME.matcher(metric).matches()) {
        throw new ConfigException(path.field("metric"), metric.isEmpty() ? "required"
            : "'" + metric + "' is not a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)");
      }
      for (String label : new TreeMap<>(m.getLabelsMap()).keySet()) {
        if (!LABEL_NAME.matcher(label).matches()) {
          throw new ConfigException(path.field("labels").key(label), "'" + label
              + "' is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)");
        }
      }
    } else {
      if (metric.isEmpty() || metric.startsWith(".") || metric.endsWith(".") || metric.contains("..")) {
        throw new ConfigException(path.field("metric"), metric.isEmpty() ? "required"
            : "'" + metric + "' is not a key or a dotted path (an empty segment)");
      }
      if (m.getLabelsCount() > 0) {
        throw new ConfigException(path.field("labels"), "label matchers apply to the PROMETHEUS format only");
      }
    }
    double max = 1;
    if (m.hasMax()) {
      max = m.getMax().getValue();
      if (!(max > 0) || Double.isInfinite(max)) {
        throw new ConfigException(path.field("max").field("value"), "must be a finite number greater than 0");
      }
    }
    Map<String, String> labels = m.getLabelsMap();
    return new Mapping(d, named, metric, labels, max);
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }
}
