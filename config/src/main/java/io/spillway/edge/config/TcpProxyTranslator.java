package io.spillway.edge.config;

import io.envoyproxy.envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code envoy.filters.network.tcp_proxy} → {@link TcpProxyConfig}: {@code stat_prefix} (required),
 * {@code cluster} or {@code weighted_clusters}, {@code idle_timeout} (default 1 h, 0 disables),
 * {@code max_connect_attempts} (default 1), {@code max_downstream_connection_duration}. Everything
 * else that changes behaviour (tunneling, on-demand clusters, hash policy, access logs, metadata
 * match, per-direction idle timeouts, back-off) is refused with its path.
 */
final class TcpProxyTranslator {

  private static final SupportedFields TCP_PROXY = SupportedFields.of(TcpProxy.getDescriptor(),
      "stat_prefix", "cluster", "weighted_clusters", "idle_timeout", "max_connect_attempts",
      "max_downstream_connection_duration");
  private static final SupportedFields WEIGHTED = SupportedFields.of(TcpProxy.WeightedCluster.getDescriptor(),
      "clusters");
  private static final SupportedFields CLUSTER_WEIGHT =
      SupportedFields.of(TcpProxy.WeightedCluster.ClusterWeight.getDescriptor(), "name", "weight");

  private TcpProxyTranslator() {}

  static TcpProxyConfig translate(TcpProxy proxy, FieldPath path) throws ConfigException {
    TCP_PROXY.check(proxy, path);
    if (proxy.getStatPrefix().isEmpty()) {
      throw new ConfigException(path.field("stat_prefix"), "stat_prefix is required");
    }
    List<TcpProxyConfig.WeightedCluster> clusters = new ArrayList<>();
    switch (proxy.getClusterSpecifierCase()) {
      case CLUSTER -> {
        if (proxy.getCluster().isEmpty()) {
          throw new ConfigException(path.field("cluster"), "must not be empty");
        }
        clusters.add(new TcpProxyConfig.WeightedCluster(proxy.getCluster(), 1));
      }
      case WEIGHTED_CLUSTERS -> {
        FieldPath weightedPath = path.field("weighted_clusters");
        TcpProxy.WeightedCluster weighted = proxy.getWeightedClusters();
        WEIGHTED.check(weighted, weightedPath);
        FieldPath listPath = weightedPath.field("clusters");
        if (weighted.getClustersCount() == 0) {
          throw new ConfigException(listPath, "at least one cluster is required");
        }
        long total = 0;
        for (int i = 0; i < weighted.getClustersCount(); i++) {
          FieldPath at = listPath.index(i);
          TcpProxy.WeightedCluster.ClusterWeight w = weighted.getClusters(i);
          CLUSTER_WEIGHT.check(w, at);
          if (w.getName().isEmpty()) {
            throw new ConfigException(at.field("name"), "name is required");
          }
          if (w.getWeight() < 1) {
            throw new ConfigException(at.field("weight"), "must be at least 1");
          }
          total += w.getWeight();
          clusters.add(new TcpProxyConfig.WeightedCluster(w.getName(), w.getWeight()));
        }
        if (total > 0xFFFFFFFFL) {
          throw new ConfigException(listPath, "the weights must sum to at most 4294967295");
        }
      }
      default -> throw new ConfigException(path.field("cluster"), "cluster or weighted_clusters is required");
    }
    Duration idle = ProtoValues.duration(proxy.hasIdleTimeout(), proxy.getIdleTimeout(), path.field("idle_timeout"),
        TcpProxyConfig.DEFAULT_IDLE_TIMEOUT);
    int attempts = ProtoValues.uint32(proxy.hasMaxConnectAttempts(), proxy.getMaxConnectAttempts(),
        path.field("max_connect_attempts"), 1, 1);
    Optional<Duration> maxDuration = Optional.empty();
    if (proxy.hasMaxDownstreamConnectionDuration()) {
      Duration d = ProtoValues.duration(true, proxy.getMaxDownstreamConnectionDuration(),
          path.field("max_downstream_connection_duration"), Duration.ZERO);
      // Envoy: a zero duration means no limit.
      maxDuration = d.isZero() ? Optional.empty() : Optional.of(d);
    }
    return new TcpProxyConfig(proxy.getStatPrefix(), clusters, idle, attempts, maxDuration);
  }
}
