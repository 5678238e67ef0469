package io.spillway.edge.tcp;

import io.spillway.edge.config.TcpProxyConfig;
import io.spillway.edge.upstream.Cluster;
import io.spillway.edge.upstream.ClusterManager;
import io.spillway.edge.upstream.Worker;
import java.util.function.LongSupplier;

/**
 * One {@code tcp_proxy} filter chain's shared part: its configuration, stats and the cluster
 * manager; {@link #newSession} makes the per-connection handler.
 */
public final class TcpProxyFactory {
  private final TcpProxyConfig config;
  private final TcpProxyStats stats;
  private final ClusterManager clusters;
  private final LongSupplier nanoClock;

  public TcpProxyFactory(TcpProxyConfig config, TcpProxyStats stats, ClusterManager clusters, LongSupplier nanoClock) {
    this.config = config;
    this.stats = stats;
    this.clusters = clusters;
    this.nanoClock = nanoClock;
  }

  public TcpProxyConfig config() {
    return config;
  }

  public TcpProxyStats stats() {
    return stats;
  }

  /** The handler that relays one downstream connection accepted on {@code worker}. */
  public TcpProxySession newSession(Worker worker) {
    return new TcpProxySession(this, worker);
  }

  /** The cluster for a new connection: the only one, or a weighted pick with the worker's random source. */
  Cluster pickCluster(Worker worker) {
    var list = config.clusters();
    String name = list.get(0).name();
    if (list.size() > 1) {
      long r = worker.random().nextLong(config.totalWeight());
      for (TcpProxyConfig.WeightedCluster c : list) {
        r -= c.weight();
        if (r < 0) {
          name = c.name();
          break;
        }
      }
    }
    return clusters.get(name);
  }

  long nanoTime() {
    return nanoClock.getAsLong();
  }
}
