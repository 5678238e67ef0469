package io.spillway.edge.config;

import java.util.List;
import java.util.Map;

/**
 * Envoy's health check HTTP filter ({@code envoy.filters.http.health_check}, {@code HealthCheck}):
 * which requests are health checks, and whether the edge answers them itself or lets them through
 * to the upstream.
 *
 * @param passThrough {@code pass_through_mode}: health checks go upstream (the edge only answers
 *     503 while it fails its own health check)
 * @param headers every matcher must hold for a request to be a health check (e.g. {@code :path})
 * @param clusterMinHealthyPercent cluster → the share of its hosts (0–100) that must be healthy
 *     for the edge to answer 200 (not in pass-through mode)
 */
public record HealthCheckFilterConfig(boolean passThrough, List<Route.HeaderMatch> headers,
    Map<String, Double> clusterMinHealthyPercent) implements HttpFilterConfig.Settings {

  public HealthCheckFilterConfig {
    headers = List.copyOf(headers);
    clusterMinHealthyPercent = Map.copyOf(clusterMinHealthyPercent);
  }
}
