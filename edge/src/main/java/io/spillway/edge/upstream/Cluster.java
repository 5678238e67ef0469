package io.spillway.edge.upstream;

import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.http2.Http2CodecFactory;
import io.spillway.edge.upstream.lb.HashTable;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

/**
 * A cluster at run time: its configuration, stats, circuit breakers, the published host set, the
 * published {@link Routing} (the hosts load balancers choose from) and one load balancer per
 * worker. With health checking or outlier detection, its {@link HealthChecker} and
 * {@link OutlierDetector} change host flags and {@link #publishRouting()} turns them into a new
 * routing snapshot on the control side; workers only read it.
 */
public final class Cluster {
  /**
   * The hosts the load balancers choose from: the healthy ones, or in panic (fewer healthy hosts
   * than {@code healthy_panic_threshold} percent while the overprovisioned health is below 100 %)
   * every host, as Envoy does; under RING_HASH and MAGLEV, with the table built over exactly those
   * hosts (null under the other policies). A cluster with more than one priority level, or with
   * locality weighted balancing, routes by {@code levels} instead; {@code hosts} is then every
   * host of the levels that take load, and {@code panic} whether every level is in panic.
   */
  public record Routing(HostSet hosts, boolean panic, HashTable table, PriorityRouting levels) {
    static final Routing EMPTY = new Routing(HostSet.EMPTY, false, null, null);

    Routing(HostSet hosts, boolean panic, HashTable table) {
      this(hosts, panic, table, null);
    }

    /** Each priority level's share of the traffic in percent (one level of 100 without priorities). */
    public int[] priorityLoad() {
      return levels == null ? new int[] {100} : levels.load.load().clone();
    }

    /** Each priority level's share of the traffic for its degraded hosts, in percent. */
    public int[] degradedPriorityLoad() {
      if (levels == null) {
        return new int[] {0};
      }
      return levels.load.degradedLoad().clone();
    }

    /** Every host set a balancer of this routing picks from (a weighted schedule is built for each). */
    List<HostSet> leafSets() {
      return levels == null ? List.of(hosts) : List.of(levels.leaves);
    }

    /** Whether priority level {@code priority} is in panic. */
    public boolean panic(int priority) {
      if (levels == null) {
        return priority == 0 && panic;
      }
      return priority < levels.levels.length && levels.levels[priority].panic();
    }
  }

  private final ClusterConfig config;
  private final ClusterStats stats;
  private final ConnectionGate gate;
  private final ResourceLimits limits;
  private final ConnectionBudget connectionBudget;
  private final LoadBalancer[] balancers;
  private final Http2CodecFactory http2Codecs;
  /** TLS towards the hosts, or null for cleartext. */
  private final UpstreamTls tls;
  /** Client-side weighted round robin's weights; null under the other policies. */
  private final ClientSideWeights weights;
  /** The pressure policy's state; null under the other policies. */
  private final PressureWeights pressure;
  private final LongSupplier nanoClock;
  private final int workers;
  /** Seeds for the balancers and schedules publishRouting makes (control side, under its lock). */
  private final RandomGenerator.SplittableGenerator seeds;
  /** The load assignment's policy in force (control side, under publishRouting's lock). */
  private ClusterConfig.AssignmentPolicy assignmentPolicy;
  /** Builds each routing snapshot (control side, under publishRouting's lock). */
  private final RoutingBuilder routingBuilder;
  private final OutlierDetector outlierDetector;
  private final HealthChecker healthChecker;
  /** The pressure policy's poller of the hosts' metrics endpoints; null without one. */
  private final HostMetricsPoller metricsPoller;
  private volatile HostSet hosts = HostSet.EMPTY;
  private volatile Routing routing = Routing.EMPTY;

  static Cluster create(ClusterConfig config, ClusterStats stats, int workers, long seed, ConnectionGate gate) {
    return create(config, stats, workers, seed, gate, HostHealthServices.NONE, null);
  }

  /** A cluster without health checking or outlier detection, on the clock given (tests of the weights). */
  static Cluster create(ClusterConfig config, ClusterStats stats, int workers, long seed, ConnectionGate gate,
      LongSupplier nanoClock) {
    return create(config, stats, workers, seed, gate, new HostHealthServices(Runnable::run, nanoClock, null), null);
  }

  /**
   * @param services where health checks and outlier sweeps run, and the clock of weights and sweeps
   * @param scope the cluster's stats scope ({@code cluster.<name>}), for the health-check and
   *     outlier-detection stats; may be null when the cluster has neither
   */
  static Cluster create(ClusterConfig config, ClusterStats stats, int workers, long seed, ConnectionGate gate,
      HostHealthServices services, io.spillway.edge.stats.Scope scope) {
    return new Cluster(config, stats, gate, workers,
        RandomGeneratorFactory.<RandomGenerator.SplittableGenerator>of("L64X128MixRandom").create(seed), services,
        scope);
  }

  private Cluster(ClusterConfig config, ClusterStats stats, ConnectionGate gate, int workers,
      RandomGenerator.SplittableGenerator seeds, HostHealthServices services, io.spillway.edge.stats.Scope scope) {
    this.config = config;
    this.seeds = seeds;
    this.assignmentPolicy = config.assignmentPolicy();
    this.nanoClock = services.nanoClock();
    this.weights = config.lb().weightedRoundRobin() == null ? null
        : new ClientSideWeights(config.lb().weightedRoundRobin(), stats.lbOrcaReportParseError);
    this.pressure = config.lb().pressure() == null ? null
        : new PressureWeights(config.lb().pressure(), new PressureWeights.Stats(stats.scope));
    this.stats = stats;
    this.tls = config.tls().isEmpty() ? null : new UpstreamTls(config.tls().get(), config.connectTimeout(),
        java.util.Objects.requireNonNull(scope, "a TLS cluster needs its stats scope").scope("ssl"));
    this.gate = gate;
    this.workers = workers;
    this.limits = new ResourceLimits(config.thresholds());
    this.connectionBudget = new ConnectionBudget(limits);
    this.balancers = new LoadBalancer[workers];
    for (int i = 0; i < workers; i++) {
      balancers[i] = LoadBalancer.create(config, seeds.split(), weights, pressure, nanoClock);
    }
    this.routingBuilder = new RoutingBuilder(config, workers, seeds, weights, pressure, nanoClock);
    var health = config.hostHealth();
    this.outlierDetector = health.outlier().isEmpty() ? null
        : new OutlierDetector(health.outlier().get(), scope.scope("outlier_detection"), services.control(),
            services.nanoClock(), seeds.split());
    if (outlierDetector != null) {
      outlierDetector.attach(this);
    }
    if (health.healthCheck().isPresent()) {
      if (services.healthCheckLoop() == null) {
        throw new IllegalStateException("cluster " + config.name() + " has health checks but no health-check loop");
      }
      this.healthChecker = new HealthChecker(this, health.healthCheck().get(), scope.scope("health_check"),
          services.healthCheckLoop(), services.control(), seeds.split());
    } else {
      this.healthChecker = null;
    }
    this.metricsPoller = metricsPoller(services, seeds.split());
    this.http2Codecs = config.protocol() == ClusterConfig.UpstreamProtocol.HTTP2
        ? Http2CodecFactory.upstream(config.http2(), config.perConnectionBufferLimitBytes(), stats.http2)
        : null;
  }

  private HostMetricsPoller metricsPoller(HostHealthServices services, RandomGenerator random) {
    io.spillway.edge.config.MetricsPollerConfig poller = pressure == null ? null : pressure.settings().poller();
    if (poller == null) {
      return null;
    }
    if (services.healthCheckLoop() == null) {
      throw new IllegalStateException("cluster " + config.name() + " polls metrics but has no health-check loop");
    }
    return new HostMetricsPoller(poller, new HostMetricsPoller.Stats(stats.scope), services.healthCheckLoop().loop(),
        new HttpMetricsFetcher(this, poller, services.healthCheckLoop()), random);
  }

  /** The codec of this HTTP/2 cluster's connections ({@code http2_protocol_options}); null for HTTP/1.1. */
  /** The cluster's TLS towards its hosts, or null when it speaks cleartext. */
  UpstreamTls tls() {
    return tls;
  }

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
    setHosts(hosts, assignmentPolicy());
  }

  /** New members with the load assignment's policy they came with (control side). */
  void setHosts(HostSet hosts, ClusterConfig.AssignmentPolicy policy) {
    synchronized (this) {
      this.assignmentPolicy = policy;
    }
    this.hosts = hosts;
    stats.membershipTotal.set(hosts.hosts().size());
    publishRouting();
    if (healthChecker != null) {
      healthChecker.hostsChanged(hosts);
    }
    if (metricsPoller != null) {
      metricsPoller.hostsChanged(hosts);
    }
    updateWeights();
  }

  /**
   * Client-side weighted round robin: takes the hosts' latest load reports and publishes new
   * weights (every {@code weight_update_period}, and when membership changes); control thread only.
   */
  void updateWeights() {
    if (weights != null) {
      weights.update(hosts, routing.leafSets(), nanoClock.getAsLong());
    }
    if (pressure != null) {
      pressure.update(routing.hosts(), nanoClock.getAsLong());
    }
  }

  /** Whether this cluster's hosts hand it the load reports on their responses. */
  boolean collectsLoadReports() {
    return config.lb().wantsLoadReports();
  }

  /** How often {@link #updateWeights()} runs, or null when the policy has no weights to update. */
  java.time.Duration weightUpdatePeriod() {
    if (weights != null) {
      return config.lb().weightedRoundRobin().weightUpdatePeriod();
    }
    return pressure == null ? null : pressure.settings().weightUpdatePeriod();
  }

  /** Each host's pressure state as last published, in the order of {@link #hosts()}'s routing; null unless PRESSURE. */
  public PressureSnapshot pressureSnapshot() {
    PressureWeights.Schedule s = pressure == null ? null : pressure.schedule();
    return s == null ? null : new PressureSnapshot(s);
  }

  /**
   * Client-side weighted round robin: the host's weight in the published stride schedule of its host
   * set (scaled to at most 65535), 0 when it is in no schedule (out of rotation, or its set
   * round-robins); -1 under other policies.
   */
  public int clientSideWeight(Host h) {
    if (weights == null) {
      return -1;
    }
    return weights.scaledWeight(h);
  }

  /** A read-only view of the pressure policy's last update, for the admin pages. */
  public static final class PressureSnapshot {
    private final PressureWeights.Schedule schedule;

    private PressureSnapshot(PressureWeights.Schedule schedule) {
      this.schedule = schedule;
    }

    /** Whether too few hosts were left in rotation and ejections were ignored. */
    public boolean panic() {
      return schedule.panic();
    }

    /** The host's state, or null when the last update did not see it. */
    public HostPressure of(Host h) {
      List<Host> hosts = schedule.hosts().hosts();
      for (int i = 0; i < hosts.size(); i++) {
        if (hosts.get(i) == h) {
          return schedule.views().get(i);
        }
      }
      return null;
    }
  }

  /**
   * One host's pressure as the admin pages show it.
   *
   * @param score the smoothed score in [0, 1], NaN when it has none
   * @param weight its weight in the last schedule (0 when ejected)
   * @param scored whether its own score set the weight (false: median weight)
   * @param dataAgeNanos time since its last data, -1 when never
   * @param ejected whether it is ejected
   * @param ejections its ejection count
   */
  public record HostPressure(double score, double weight, boolean scored, long dataAgeNanos, boolean ejected,
      int ejections) {}

  /** A new host of this cluster: unhealthy until its first check passes when health checking is on. */
  /**
   * A host of this cluster, health flags and outlier monitor included.
   *
   * @param joinedNanos when it joined a running cluster (slow start), or {@link Host#NOT_JOINING}
   */
  Host newHost(java.net.InetSocketAddress address, String hostname, int weight, long joinedNanos) {
    return newHost(address, hostname, weight, joinedNanos, "");
  }

  /** A host as {@link #newHost(java.net.InetSocketAddress, String, int, long)}, with its endpoint's hash key ("" for none). */
  Host newHost(java.net.InetSocketAddress address, String hostname, int weight, long joinedNanos, String hashKey) {
    return new Host(config.name(), address, hostname, weight, workers,
        new Host.Signals(config.lb().wantsLoadReports(), pressure != null), joinedNanos,
        healthChecker == null ? 0 : Host.FAILED_ACTIVE_HC | Host.PENDING_ACTIVE_HC, outlierDetector, hashKey);
  }

  /** The load assignment's policy in force. */
  synchronized ClusterConfig.AssignmentPolicy assignmentPolicy() {
    return assignmentPolicy;
  }

  /** A new assignment policy for the same members (an EDS update that changed only the policy). */
  void setAssignmentPolicy(ClusterConfig.AssignmentPolicy policy) {
    synchronized (this) {
      this.assignmentPolicy = policy;
    }
    publishRouting();
  }

  /** A host for the endpoint, at its priority and locality. */
  Host newHost(java.net.InetSocketAddress address, ClusterConfig.Endpoint e, long joinedNanos) {
    return new Host(config.name(), address, e.address().host(), e.weight(), workers,
        new Host.Signals(config.lb().wantsLoadReports(), pressure != null), joinedNanos,
        (healthChecker == null ? 0 : Host.FAILED_ACTIVE_HC | Host.PENDING_ACTIVE_HC) | Host.edsFlags(e.health()),
        outlierDetector, e.hashKey(), Host.Placement.of(e));
  }

  /** The hosts the balancers choose from now. */
  public Routing routing() {
    return routing;
  }

  /**
   * Recomputes and publishes the routing snapshot from the hosts' flags (control side; the lock
   * only orders the control thread's and the start-up thread's publications, never a worker).
   * Under client-side weighted round robin the weights are scheduled again over the new routing's
   * host sets at once, so a health change never leaves the workers without a schedule.
   */
  synchronized void publishRouting() {
    HostSet all = hosts;
    int passingActive = 0;
    int degradedActive = 0;
    int ejected = 0;
    int healthyCount = 0;
    int degradedCount = 0;
    for (Host h : all.hosts()) {
      int flags = h.healthFlags();
      Host.Health health = Host.health(flags);
      healthyCount += health == Host.Health.HEALTHY ? 1 : 0;
      degradedCount += health == Host.Health.DEGRADED ? 1 : 0;
      passingActive += (flags & Host.FAILED_ACTIVE_HC) == 0 ? 1 : 0;
      degradedActive += (flags & Host.DEGRADED_ACTIVE_HC) != 0 ? 1 : 0;
      ejected += (flags & Host.FAILED_OUTLIER_CHECK) != 0 ? 1 : 0;
    }
    routing = routingBuilder.build(all, assignmentPolicy);
    if (weights != null) {
      weights.reschedule(routing.leafSets(), nanoClock.getAsLong());
    }
    stats.membershipHealthy.set(healthyCount);
    stats.membershipDegraded.set(degradedCount);
    if (healthChecker != null) {
      healthChecker.healthy.set(passingActive);
      healthChecker.degraded.set(degradedActive);
    }
    if (outlierDetector != null) {
      outlierDetector.ejectionsActive.set(ejected);
    }
  }

  /** The outlier detector, or null without {@code outlier_detection}. */
  OutlierDetector outlierDetector() {
    return outlierDetector;
  }

  /** The active health checker, or null without {@code health_checks}. */
  HealthChecker healthChecker() {
    return healthChecker;
  }

  /** Starts the outlier sweeps (control side). */
  void startHostHealth(java.util.concurrent.ScheduledExecutorService control) {
    if (outlierDetector != null) {
      long every = config.hostHealth().outlier().get().interval().toNanos();
      sweeps = control.scheduleWithFixedDelay(outlierDetector::sweep, every, every,
          java.util.concurrent.TimeUnit.NANOSECONDS);
    }
  }

  private java.util.concurrent.ScheduledFuture<?> sweeps;

  /** Stops health checks and sweeps: the cluster was replaced or removed. */
  void stopHostHealth() {
    if (sweeps != null) {
      sweeps.cancel(false);
    }
    if (healthChecker != null) {
      healthChecker.stop();
    }
    if (metricsPoller != null) {
      metricsPoller.stop();
    }
  }

  /**
   * Picks a host with this worker's balancer from the published routing, or null when there is
   * none; a pick in panic counts {@code lb_healthy_panic}.
   */
  public Host pickHost(Worker worker) {
    return pickHost(worker, false, 0, 0);
  }

  /**
   * Picks a host as {@link #pickHost(Worker)} does; under RING_HASH and MAGLEV by {@code hash} in
   * the routing's table (a random hash when {@code hashed} is false, as Envoy does), {@code
   * attempt} above 0 moving away from the host the hash maps to (host-selection retries).
   */
  public Host pickHost(Worker worker, boolean hashed, long hash, int attempt) {
    Routing r = routing;
    if (r.levels() != null) {
      return pickByPriority(r.levels(), worker, hashed, hash, attempt);
    }
    if (r.panic()) {
      stats.lbHealthyPanic.inc();
    }
    HashTable table = r.table();
    if (table != null) {
      int i = table.pick(hashed ? hash : worker.random().nextLong(), attempt);
      return i < 0 ? null : r.hosts().hosts().get(i);
    }
    return balancers[worker.index()].pick(r.hosts());
  }

  /**
   * A pick over priority levels: the level by the request's hash (a random number when it has
   * none, or under the other policies) modulo 100 against the priority load, as Envoy's
   * {@code choosePriority}; in panic every host of the level; then the level's table, or this
   * worker's locality schedule and the leaf's balancer.
   */
  private Host pickByPriority(PriorityRouting levels, Worker worker, boolean hashed, long hash, int attempt) {
    long h = hashed ? hash : worker.random().nextLong();
    PriorityRouting.Level level = levels.level(h);
    if (level.panic()) {
      stats.lbHealthyPanic.inc();
    }
    if (level.table() != null) {
      int i = level.table().pick(h, attempt);
      return i < 0 ? null : level.chosen().hosts().get(i);
    }
    int leaf = levels.leaf(level, worker.index());
    return levels.balancers[leaf][worker.index()].pick(levels.leaves[leaf]);
  }

  /**
   * A TLS handler for a raw (TCP proxy) connection to {@code host}, as the cluster's
   * {@code transport_socket} asks, or null for a cleartext cluster.
   */
  public io.netty.handler.ssl.SslHandler newRawConnectionTls(io.netty.buffer.ByteBufAllocator allocator, Host host) {
    return tls == null ? null : tls.newHandler(allocator, host);
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
