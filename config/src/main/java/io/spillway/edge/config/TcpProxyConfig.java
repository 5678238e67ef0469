package io.spillway.edge.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * {@code envoy.filters.network.tcp_proxy}: a filter chain that relays a connection's bytes to one
 * host of a cluster.
 *
 * @param statPrefix stats under {@code tcp.<stat_prefix>.}
 * @param clusters the cluster, or the {@code weighted_clusters} (one entry of weight 1 for {@code cluster})
 * @param idleTimeout closes both connections after this long without bytes either way; zero = never (Envoy default 1 h)
 * @param maxConnectAttempts upstream connection attempts before giving up (Envoy default 1)
 * @param maxDownstreamConnectionDuration closes the connection this long after it was accepted, if set
 */
public record TcpProxyConfig(
    String statPrefix,
    List<WeightedCluster> clusters,
    Duration idleTimeout,
    int maxConnectAttempts,
    Optional<Duration> maxDownstreamConnectionDuration) {

  /** Envoy's {@code idle_timeout} when the field is absent. */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofHours(1);

  public TcpProxyConfig {
    clusters = List.copyOf(clusters);
    if (clusters.isEmpty()) {
      throw new IllegalArgumentException("at least one cluster");
    }
  }

  /** One cluster and its weight. */
  public record WeightedCluster(String name, int weight) {}

  /** The sum of the weights, for a weighted pick. */
  public long totalWeight() {
    long total = 0;
    for (WeightedCluster c : clusters) {
      total += c.weight();
    }
    return total;
  }
}
