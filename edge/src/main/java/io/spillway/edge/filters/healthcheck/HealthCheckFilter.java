package io.spillway.edge.filters.healthcheck;

import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.HealthCheckFilterConfig;
import io.spillway.edge.config.Route;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamFilter;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteMatcher;
import io.spillway.edge.upstream.Cluster;
import io.spillway.edge.upstream.ClusterManager;
import io.spillway.edge.upstream.Host;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Envoy's {@code envoy.filters.http.health_check}. A request matching every configured header is a
 * health check (marked so for the access logs' {@code not_health_check_filter}):
 *
 * <ul>
 *   <li>while the edge fails its own health check ({@code /healthcheck/fail}, or draining) it is
 *       answered 503 here, in either mode;
 *   <li>otherwise, without pass-through, it is answered here: 200, or 503 when a cluster of
 *       {@code cluster_min_healthy_percentages} has fewer healthy hosts than its share (or does
 *       not exist); with pass-through, it goes upstream like any request.
 * </ul>
 *
 * While the edge fails its health check, every response through the filter carries
 * {@code x-envoy-immediate-health-check-fail: true}, so that a downstream Envoy stops sending to it
 * at once.
 */
public final class HealthCheckFilter implements StreamFilter {
  static final String IMMEDIATE_FAIL = "x-envoy-immediate-health-check-fail";

  /** The filter of one connection manager. */
  public static HttpFilterFactory factory(String name, HealthCheckFilterConfig config, ClusterManager clusters,
      BooleanSupplier failing) {
    return new HttpFilterFactory() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public void createFilters(FilterChainBuilder chain) {
        chain.addStreamFilter(new HealthCheckFilter(config, clusters, failing));
      }
    };
  }

  private final HealthCheckFilterConfig config;
  private final ClusterManager clusters;
  private final BooleanSupplier failing;
  private DecoderFilterCallbacks decoder;

  private HealthCheckFilter(HealthCheckFilterConfig config, ClusterManager clusters, BooleanSupplier failing) {
    this.config = config;
    this.clusters = clusters;
    this.failing = failing;
  }

  @Override
  public void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks) {
    this.decoder = callbacks;
  }

  @Override
  public void setEncoderFilterCallbacks(EncoderFilterCallbacks callbacks) {}

  @Override
  public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
    List<Route.HeaderMatch> matchers = config.headers();
    for (int i = 0; i < matchers.size(); i++) {
      if (!RouteMatcher.headerMatches(matchers.get(i), headers)) {
        return FilterHeadersStatus.CONTINUE;
      }
    }
    decoder.streamInfo().setHealthCheck();
    if (failing.getAsBoolean()) {
      decoder.streamInfo().setResponseCodeDetails("health_check_failed");
      decoder.sendLocalReply(503, "", ResponseFlag.LR);
      return FilterHeadersStatus.STOP_ITERATION;
    }
    if (config.passThrough()) {
      return FilterHeadersStatus.CONTINUE;
    }
    boolean healthy = clustersHealthy();
    decoder.streamInfo().setResponseCodeDetails(healthy ? "health_check_ok" : "health_check_failed_cluster_unhealthy");
    decoder.sendLocalReply(healthy ? 200 : 503, "", null);
    return FilterHeadersStatus.STOP_ITERATION;
  }

  @Override
  public FilterHeadersStatus encodeHeaders(ResponseHeaders headers, boolean endStream) {
    if (failing.getAsBoolean()) {
      HttpHeaders h = headers.headers();
      h.set(IMMEDIATE_FAIL, "true");
    }
    return FilterHeadersStatus.CONTINUE;
  }

  /** Every cluster of {@code cluster_min_healthy_percentages} has at least its share of healthy hosts. */
  private boolean clustersHealthy() {
    for (Map.Entry<String, Double> e : config.clusterMinHealthyPercent().entrySet()) {
      Cluster cluster = clusters == null ? null : clusters.get(e.getKey());
      if (cluster == null) {
        return false;
      }
      List<Host> hosts = cluster.hosts().hosts();
      int healthy = 0;
      for (int i = 0; i < hosts.size(); i++) {
        if (hosts.get(i).healthy()) {
          healthy++;
        }
      }
      double percent = hosts.isEmpty() ? 0 : 100.0 * healthy / hosts.size();
      if (percent < e.getValue()) {
        return false;
      }
    }
    return true;
  }
}
