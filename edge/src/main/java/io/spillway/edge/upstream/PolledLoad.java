package io.spillway.edge.upstream;

import io.spillway.edge.config.MetricsPollerConfig;
import io.spillway.edge.config.MetricsPollerConfig.Mapping;
import io.spillway.edge.upstream.lb.JsonMetrics;
import io.spillway.edge.upstream.lb.OrcaLoadReport;
import io.spillway.edge.upstream.lb.PrometheusText;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One metrics endpoint's body turned into a load report for the pressure policy: each mapping's
 * value read in the poller's format, divided by its {@code max}, and put where an ORCA report keeps
 * that dimension. A dimension that got no value — its metric missing, NaN, infinite or negative — is
 * NaN in the report ({@code PressureScore} leaves it out, never reads it as 0); a body that gave no
 * value at all yields no report, so the host keeps the data it had.
 */
final class PolledLoad {
  private final List<Mapping> mappings;
  private final MetricsPollerConfig.Format format;
  private final List<PrometheusText.Selector> selectors;
  private final List<String> paths;

  PolledLoad(MetricsPollerConfig config) {
    this.mappings = config.metrics();
    this.format = config.format();
    List<PrometheusText.Selector> s = new ArrayList<>();
    List<String> p = new ArrayList<>();
    for (Mapping m : mappings) {
      s.add(new PrometheusText.Selector(m.metric(), m.labels()));
      p.add(m.metric());
    }
    this.selectors = List.copyOf(s);
    this.paths = List.copyOf(p);
  }

  /**
   * What one body gave.
   *
   * @param report the load report, or null when no mapping got a usable value (or the body was unreadable)
   * @param malformedLines Prometheus lines skipped as malformed
   * @param missing mappings that got no usable value
   */
  record Result(OrcaLoadReport report, int malformedLines, int missing) {}

  Result read(String body) {
    double[] raw;
    int malformed = 0;
    if (format == MetricsPollerConfig.Format.PROMETHEUS) {
      PrometheusText.Result r = PrometheusText.read(body, selectors);
      raw = r.values();
      malformed = r.malformedLines();
    } else {
      try {
        raw = JsonMetrics.read(body, paths);
      } catch (JsonMetrics.MalformedMetricsException e) {
        return new Result(null, 0, mappings.size());
      }
    }
    double cpu = Double.NaN;
    double memory = Double.NaN;
    double application = Double.NaN;
    Map<String, Double> named = new HashMap<>();
    int missing = 0;
    for (int i = 0; i < raw.length; i++) {
      double v = raw[i];
      if (Double.isNaN(v) || Double.isInfinite(v) || v < 0) {
        missing++;
        continue;
      }
      Mapping m = mappings.get(i);
      double x = v / m.max();
      switch (m.dimension()) {
        case CPU -> cpu = x;
        case MEMORY -> memory = x;
        case APPLICATION -> application = x;
        case NAMED_METRIC -> named.put(m.namedMetric(), x);
      }
    }
    if (missing == raw.length) {
      return new Result(null, malformed, missing);
    }
    return new Result(new OrcaLoadReport(cpu, memory, application, 0, 0, named, Map.of(), Map.of()), malformed,
        missing);
  }
}
