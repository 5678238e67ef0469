package io.spillway.edge.upstream;

import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.http2.Http2CodecFactory;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

/**
 * A cluster at run time: its configuration, stats, circuit breakers, the published host set and
 * one load balancer per worker.
 */
public final class Cluster {
  private final ClusterConfig config;
  private final ClusterStats stats;
  private final ConnectionGate gate;
  private final ResourceLimits limits;
  private final ConnectionBudget connectionBudget;
  private final LoadBalancer[] balancers;
  private final Http2CodecFactory http2Codecs;
  /** Client-side weighted round robin's weights; null under the other policies. */
  private final ClientSideWeights weights;
  private final LongSupplier nanoClock;
  private volatile HostSet hosts = HostSet.EMPTY;

  static Cluster create(ClusterConfig config, ClusterStats stats, int workers, long seed, ConnectionGate gate) {
    return create(config, stats, workers, seed, gate, System::nanoTime);
  }

  static Cluster create(ClusterConfig config, ClusterStats stats, int workers, long seed, ConnectionGate gate,
      LongSupplier nanoClock) {
    return new Cluster(config, stats, gate, workers,
        RandomGeneratorFactory.<RandomGenerator.SplittableGenerator>of("L64X128MixRandom").create(seed), nanoClock);
  }

  private Cluster(ClusterConfig config, ClusterStats stats, ConnectionGate gate, int workers,
      RandomGenerator.SplittableGenerator seeds, LongSupplier nanoClock) {
    this.config = config;
    this.nanoClock = nanoClock;
    this.weights = config.lb().weightedRoundRobin() == null ? null
        : new ClientSideWeights(config.lb().weightedRoundRobin(), stats.lbOrcaReportParseError);
    this.stats = stats;
    this.gate = gate;
    this.limits = new ResourceLimits(config.thresholds());
    this.connectionBudget = new ConnectionBudget(limits);
    this.balancers = new LoadBalancer[workers];
    for (int i = 0; i < workers; i++) {
      balancers[i] = LoadBalancer.create(config, seeds.split(), weights, nanoClock);
    }
    this.http2Codecs = config.protocol() == ClusterConfig.UpstreamProtocol.HTTP2
        ? Http2CodecFactory.upstream(config.http2(), config.perConnectionBufferLimitBytes(), stats.http2)
        : null;
  }

  /** The codec of this HTTP/2 cluster's connections ({@code http2_protocol_options}); null for HTTP/1.1. */
  Http2CodecFactory http2Codecs() {
    return http2Codecs;
  }

  /** {@code max_connections} as the cluster's pools on every worker share it. */
  ConnectionBudget connectionBudget() {
    return connectionBudget;
  }

  /** Whether a pool on this worker may open a new connection now. */
  boolean allowNewConnection(Worker worker) {
    return gate.allowNewConnection(worker);
  }

  public String name() {
    return config.name();
  }

  public ClusterConfig config() {
    return config;
  }

  public ClusterStats stats() {
    return stats;
  }

  public ResourceLimits limits() {
    return limits;
  }

  public HostSet hosts() {
    return hosts;
  }

  void setHosts(HostSet hosts) {
    this.hosts = hosts;
    stats.membershipTotal.set(hosts.hosts().size());
    stats.membershipHealthy.set(hosts.hosts().size());
    updateWeights();
  }

  /**
   * Client-side weighted round robin: takes the hosts' latest load reports and publishes new
   * weights (every {@code weight_update_period}, and when membership changes); control thread only.
   */
  void updateWeights() {
    if (weights != null) {
      weights.update(hosts, nanoClock.getAsLong());
    }
  }

  /** Whether this cluster's hosts hand it the load reports on their responses. */
  boolean collectsLoadReports() {
    return weights != null;
  }

  /** Picks a host with this worker's balancer, or null when the cluster has none. */
  public Host pickHost(Worker worker) {
    return balancers[worker.index()].pick(hosts);
  }

  /** This worker's connection pool for the host, created on first use. */
  public HostPool pool(Host host, Worker worker) {
    HostPool pool = host.pool(worker.index());
    if (pool == null) {
      pool = config.protocol() == ClusterConfig.UpstreamProtocol.HTTP2
          ? new Http2Pool(this, host, worker)
          : new Http1Pool(this, host, worker);
      host.setPool(worker.index(), pool);
      pool.seat.join();
    }
    return pool;
  }
}
