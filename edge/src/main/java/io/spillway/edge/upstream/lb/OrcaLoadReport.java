package io.spillway.edge.upstream.lb;

import java.util.List;
import java.util.Map;

/**
 * One ORCA load report ({@code xds.data.orca.v3.OrcaLoadReport}) as a backend sent it on a
 * response. Fields it left out are 0 (or empty maps), as in the proto.
 *
 * @param cpuUtilization {@code cpu_utilization}, 0 or more (more than 1 on a host using more than its share)
 * @param memUtilization {@code mem_utilization}, 0..1
 * @param applicationUtilization {@code application_utilization}, 0 or more
 * @param rpsFractional {@code rps_fractional}: queries per second the backend served
 * @param eps {@code eps}: errors per second
 * @param namedMetrics {@code named_metrics}
 * @param utilization {@code utilization}: named utilizations, each 0..1
 * @param requestCost {@code request_cost}
 */
public record OrcaLoadReport(double cpuUtilization, double memUtilization, double applicationUtilization,
    double rpsFractional, double eps, Map<String, Double> namedMetrics, Map<String, Double> utilization,
    Map<String, Double> requestCost) {

  public OrcaLoadReport {
    namedMetrics = Map.copyOf(namedMetrics);
    utilization = Map.copyOf(utilization);
    requestCost = Map.copyOf(requestCost);
  }

  /**
   * The utilization the client-side weighted round robin policy divides by, as Envoy and gRPC
   * compute it: {@code application_utilization} when positive, else the largest of the metrics
   * named in {@code metric_names_for_computing_utilization} when positive, else {@code cpu_utilization}.
   *
   * @param metricNames names like {@code named_metrics.foo}, {@code utilization.bar}, {@code cpu_utilization},
   *     {@code mem_utilization}; {@code named_metrics.*} / {@code utilization.*} take every entry of that map
   */
  public double utilizationFor(List<String> metricNames) {
    if (applicationUtilization > 0) {
      return applicationUtilization;
    }
    double max = 0;
    for (String name : metricNames) {
      max = Math.max(max, metric(name));
    }
    return max > 0 ? max : cpuUtilization;
  }

  private double metric(String name) {
    if (name.startsWith("named_metrics.")) {
      return mapMetric(namedMetrics, name.substring("named_metrics.".length()));
    }
    if (name.startsWith("utilization.")) {
      return mapMetric(utilization, name.substring("utilization.".length()));
    }
    return switch (name) {
      case "cpu_utilization" -> cpuUtilization;
      case "mem_utilization" -> memUtilization;
      case "application_utilization" -> applicationUtilization;
      default -> 0;
    };
  }

  private static double mapMetric(Map<String, Double> map, String key) {
    if (key.equals("*")) {
      double max = 0;
      for (double v : map.values()) {
        max = Math.max(max, v);
      }
      return max;
    }
    return map.getOrDefault(key, 0.0);
  }
}
