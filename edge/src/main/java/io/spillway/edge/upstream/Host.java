package io.spillway.edge.upstream;

import java.net.InetSocketAddress;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.stats.StripedLong;
import io.spillway.edge.upstream.lb.EndpointWeight;
import io.spillway.edge.upstream.lb.OrcaLoadReportParser;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One upstream endpoint. Shared by all workers; the counters are atomics (no locks). Each worker
 * keeps its own connection pool for the host in {@link #pool(int)}. Its health flags are set by
 * the active health checker and the outlier detector; load balancers never read them, they balance
 * over the cluster's published {@link Cluster.Routing}.
 */
public final class Host {
  /** Envoy's {@code failed_active_hc}: the active health check says unhealthy (or has not passed yet). */
  public static final int FAILED_ACTIVE_HC = 1;
  /** Envoy's {@code failed_outlier_check}: ejected by outlier detection. */
  public static final int FAILED_OUTLIER_CHECK = 2;
  /** Envoy's {@code pending_active_hc}: a new host not checked yet. */
  public static final int PENDING_ACTIVE_HC = 4;
  /** Envoy's {@code excluded_via_immediate_hc_fail}: the host answered x-envoy-immediate-health-check-fail. */
  public static final int EXCLUDED_VIA_IMMEDIATE_HC_FAIL = 8;
  /** Envoy's {@code failed_eds_health}: the endpoint's {@code health_status} is UNHEALTHY or TIMEOUT. */
  public static final int FAILED_EDS_HEALTH = 16;
  /** Envoy's {@code degraded_active_hc}: its HTTP health check passed with {@code x-envoy-degraded}. */
  public static final int DEGRADED_ACTIVE_HC = 32;
  /** Envoy's {@code degraded_eds_health}: the endpoint's {@code health_status} is DEGRADED. */
  public static final int DEGRADED_EDS_HEALTH = 64;
  /** Envoy's {@code eds_status_draining}: the endpoint's {@code health_status} is DRAINING. */
  public static final int EDS_STATUS_DRAINING = 128;
  /** The flags that take a host out of rotation (Envoy's coarse health {@code Unhealthy}). */
  static final int UNHEALTHY = FAILED_ACTIVE_HC | FAILED_OUTLIER_CHECK | FAILED_EDS_HEALTH | EDS_STATUS_DRAINING;
  /** The flags that make a host that is not unhealthy degraded (Envoy's coarse health {@code Degraded}). */
  static final int DEGRADED = DEGRADED_ACTIVE_HC | DEGRADED_EDS_HEALTH;
  /** The flags an endpoint's {@code health_status} sets. */
  static final int EDS_FLAGS = FAILED_EDS_HEALTH | DEGRADED_EDS_HEALTH | EDS_STATUS_DRAINING;

  /** Envoy's coarse health of a host, from its flags: unhealthy wins over degraded. */
  public enum Health { HEALTHY, DEGRADED, UNHEALTHY }

  private final String clusterName;
  /** Final but for a LOGICAL_DNS cluster's one host, which follows the latest resolution. */
  private volatile Located located;
  private final String hostname;
  private final int weight;
  /** The endpoint's {@code envoy.lb} {@code hash_key} metadata, or "" (ring hash and Maglev then hash the address). */
  private final String hashKeyOverride;
  private final HostPool[] pools;
  private final AtomicInteger activeRequests = new AtomicInteger();
  final StripedLong rqTotal = new StripedLong();
  final StripedLong rqSuccess = new StripedLong();
  final StripedLong rqError = new StripedLong();
  final StripedLong rqTimeout = new StripedLong();
  final StripedLong cxTotal = new StripedLong();
  final StripedLong cxConnectFail = new StripedLong();
  final AtomicInteger cxActive = new AtomicInteger();
  /** Whether the cluster's policy reads ORCA load reports (client-side weighted round robin). */
  private final boolean collectsLoadReports;
  /** The latest {@code endpoint-load-metrics} / {@code -bin} value not yet taken by the control thread. */
  final AtomicReference<String> pendingTextReport = new AtomicReference<>();
  final AtomicReference<String> pendingBinaryReport = new AtomicReference<>();
  /** The latest load report the pressure policy's metrics poller read, not yet taken by the control thread. */
  final AtomicReference<io.spillway.edge.upstream.lb.OrcaLoadReport> pendingPolledReport = new AtomicReference<>();
  /** Whether the cluster's policy reads each request's latency (the pressure policy). */
  private final boolean tracksLatency;
  /** Latency of the finished requests (nanoseconds, from the stream handed out to the end) and their count. */
  final StripedLong latencyNanos = new StripedLong();
  final StripedLong latencyCount = new StripedLong();
  /** The host's weight from its load reports; read and written on the control thread only. */
  final EndpointWeight endpointWeight = new EndpointWeight();
  /** {@link #joinedNanos()} of a host that was there when the cluster got its first members. */
  public static final long NOT_JOINING = Long.MIN_VALUE;
  private final long joinedNanos;
  private final AtomicInteger healthFlags;
  private final OutlierMonitor outlier;
  /** Its endpoint's priority, locality and locality weight (0: none), from the load assignment. */
  private final int priority;
  private final ClusterConfig.Locality locality;
  private final int localityWeight;

  Host(String clusterName, InetSocketAddress address, String hostname, int weight, int workers) {
    this(clusterName, address, hostname, weight, workers, false, NOT_JOINING, 0, null);
  }

  /**
   * @param collectsLoadReports whether the cluster's policy reads the ORCA reports on responses
   * @param joinedNanos when the host joined a running cluster (slow start counts from then), or {@link #NOT_JOINING}
   * @param initialFlags health flags the host starts with (a cluster with active health checking
   *     starts its hosts as {@code FAILED_ACTIVE_HC | PENDING_ACTIVE_HC}, as Envoy does)
   * @param detector the cluster's outlier detector, or null
   */
  Host(String clusterName, InetSocketAddress address, String hostname, int weight, int workers,
      boolean collectsLoadReports, long joinedNanos, int initialFlags, OutlierDetector detector) {
    this(clusterName, address, hostname, weight, workers, collectsLoadReports, joinedNanos, initialFlags, detector, "");
  }

  /** @param hashKey the endpoint's {@code envoy.lb} {@code hash_key} metadata, or "" */
  Host(String clusterName, InetSocketAddress address, String hostname, int weight, int workers,
      boolean collectsLoadReports, long joinedNanos, int initialFlags, OutlierDetector detector, String hashKey) {
    this(clusterName, address, hostname, weight, workers, new Signals(collectsLoadReports, false), joinedNanos,
        initialFlags, detector, hashKey);
  }

  /**
   * What the cluster's policy reads from a host's traffic.
   *
   * @param loadReports the ORCA reports on responses
   * @param latency each request's latency
   */
  record Signals(boolean loadReports, boolean latency) {}

  /** @param signals what the cluster's policy reads from the host's traffic */
  Host(String clusterName, InetSocketAddress address, String hostname, int weight, int workers, Signals signals,
      long joinedNanos, int initialFlags, OutlierDetector detector, String hashKey) {
    this(clusterName, address, hostname, weight, workers, signals, joinedNanos, initialFlags, detector, hashKey,
        new Placement(0, ClusterConfig.Locality.NONE, 0));
  }

  /**
   * Where a host's endpoint sits in the load assignment.
   *
   * @param priority its priority level (0 is the highest)
   * @param locality its locality
   * @param localityWeight its locality's {@code load_balancing_weight}, 0 when unset
   */
  record Placement(int priority, ClusterConfig.Locality locality, int localityWeight) {
    static Placement of(ClusterConfig.Endpoint e) {
      return new Placement(e.priority(), e.locality(), e.localityWeight());
    }
  }

  /** @param placement its endpoint's priority and locality */
  Host(String clusterName, InetSocketAddress address, String hostname, int weight, int workers, Signals signals,
      long joinedNanos, int initialFlags, OutlierDetector detector, String hashKey, Placement placement) {
    this.priority = placement.priority();
    this.locality = placement.locality();
    this.localityWeight = placement.localityWeight();
    boolean collectsLoadReports = signals.loadReports();
    this.tracksLatency = signals.latency();
    this.hashKeyOverride = hashKey;
    this.collectsLoadReports = collectsLoadReports;
    this.joinedNanos = joinedNanos;
    this.clusterName = clusterName;
    this.located = new Located(address);
    this.hostname = hostname;
    this.weight = weight;
    this.pools = new HostPool[workers];
    this.healthFlags = new AtomicInteger(initialFlags);
    this.outlier = detector == null ? OutlierMonitor.NONE : new OutlierMonitor(this, detector);
  }

  /** The health flags ({@link #FAILED_ACTIVE_HC}, ...); 0 is healthy. */
  public int healthFlags() {
    return healthFlags.get();
  }

  /** Whether the host is healthy: not unhealthy (no check failed, not ejected, not so by EDS) and not degraded. */
  public boolean healthy() {
    return health(healthFlags.get()) == Health.HEALTHY;
  }

  /** Its coarse health now. */
  public Health health() {
    return health(healthFlags.get());
  }

  /** The coarse health these flags give. */
  static Health health(int flags) {
    if ((flags & UNHEALTHY) != 0) {
      return Health.UNHEALTHY;
    }
    return (flags & DEGRADED) != 0 ? Health.DEGRADED : Health.HEALTHY;
  }

  /** The flags an endpoint's {@code health_status} gives its host. */
  static int edsFlags(ClusterConfig.EndpointHealth health) {
    return switch (health) {
      case HEALTHY -> 0;
      case DEGRADED -> DEGRADED_EDS_HEALTH;
      case UNHEALTHY -> FAILED_EDS_HEALTH;
      case DRAINING -> EDS_STATUS_DRAINING;
    };
  }

  /** Sets or clears flags; true when that changed the host's coarse health (healthy, degraded, unhealthy). */
  boolean setHealthFlags(int set, int clear) {
    int before;
    int after;
    do {
      before = healthFlags.get();
      after = (before | set) & ~clear;
    } while (before != after && !healthFlags.compareAndSet(before, after));
    return health(before) != health(after);
  }

  /** Takes the EDS flags of {@code health} (an update of its endpoint); true when the coarse health changed. */
  boolean setEdsHealth(ClusterConfig.EndpointHealth health) {
    return setHealthFlags(edsFlags(health), EDS_FLAGS & ~edsFlags(health));
  }

  /** What the outlier detector knows of this host (a no-op without outlier detection). */
  public OutlierMonitor outlier() {
    return outlier;
  }

  public String clusterName() {
    return clusterName;
  }

  /**
   * The resolved address new connections go to. For a LOGICAL_DNS cluster's host it is the first
   * address of the latest resolution: connections already open to an earlier one stay in the pools.
   */
  public InetSocketAddress address() {
    return located.address;
  }

  /** A LOGICAL_DNS re-resolution moved the host: new connections go to {@code next} (control side). */
  void moveTo(InetSocketAddress next) {
    this.located = new Located(next);
  }

  /** The configured name (the DNS name for STRICT_DNS and LOGICAL_DNS clusters, the IP otherwise). */
  public String hostname() {
    return hostname;
  }

  public int weight() {
    return weight;
  }

  /** Its endpoint's priority level (0 is the highest). */
  public int priority() {
    return priority;
  }

  /** Its endpoint's locality ({@link ClusterConfig.Locality#NONE} when unset). */
  public ClusterConfig.Locality locality() {
    return locality;
  }

  /** Its locality's {@code load_balancing_weight}, 0 when unset. */
  public int localityWeight() {
    return localityWeight;
  }

  /** Whether the host was made for an endpoint at this weight, hash key, priority and locality. */
  boolean sameEndpoint(ClusterConfig.Endpoint e) {
    return weight == e.weight() && priority == e.priority() && locality.equals(e.locality())
        && localityWeight == e.localityWeight()
        && hashKey().equals(e.hashKey().isEmpty() ? located.text() : e.hashKey());
  }

  /** When the host joined a running cluster, or {@link #NOT_JOINING}. */
  public long joinedNanos() {
    return joinedNanos;
  }

  /**
   * What ring hash and Maglev hash for this host: the endpoint's {@code envoy.lb} {@code hash_key}
   * metadata when it has one, else the address as Envoy writes it, {@code ip:port} or {@code
   * [ipv6]:port} in the short form.
   */
  public String hashKey() {
    return hashKeyOverride.isEmpty() ? located.text : hashKeyOverride;
  }

  /** A socket address as Envoy's {@code asString()} writes it: {@code ip:port}, {@code [ipv6]:port} (short form). */
  public static String envoyAddress(InetSocketAddress a) {
    if (a.getAddress() == null) {
      return a.getHostString() + ":" + a.getPort();
    }
    String ip = io.netty.util.NetUtil.toAddressString(a.getAddress());
    return a.getAddress() instanceof java.net.Inet6Address ? "[" + ip + "]:" + a.getPort() : ip + ":" + a.getPort();
  }

  /**
   * The address as Envoy prints upstream hosts ({@code ip:port}, {@code [ipv6]:port}); built once
   * per address, since the access log and the tracer read it for every request.
   */
  public String addressString() {
    return located.text;
  }

  /** An address with its printed form, swapped as one so a reader never sees a mismatched pair. */
  private record Located(InetSocketAddress address, String text) {
    Located(InetSocketAddress address) {
      this(address, envoyAddress(address));
    }
  }

  public int activeRequests() {
    return activeRequests.get();
  }

  public void requestStarted() {
    activeRequests.incrementAndGet();
    rqTotal.add(1);
  }

  public void requestFinished(boolean success) {
    activeRequests.decrementAndGet();
    (success ? rqSuccess : rqError).add(1);
  }

  /** Whether {@link #requestLatency} is wanted (the cluster's policy reads latency). */
  public boolean tracksLatency() {
    return tracksLatency;
  }

  /** A request to this host finished {@code nanos} after its stream was handed out. */
  public void requestLatency(long nanos) {
    latencyNanos.add(Math.max(0, nanos));
    latencyCount.add(1);
  }

  /**
   * Keeps the ORCA load report a response (headers or trailers) carries, when the cluster's policy
   * wants one: only the raw value is stored, the control thread parses the latest at its next
   * weight update, so the request path pays a header lookup and a reference write.
   */
  public void loadReport(HttpHeaders headers) {
    if (!collectsLoadReports || headers.isEmpty()) {
      return;
    }
    String bin = headers.get(OrcaLoadReportParser.BIN_HEADER);
    if (bin != null) {
      pendingBinaryReport.lazySet(bin);
      return;
    }
    String text = headers.get(OrcaLoadReportParser.HEADER);
    if (text != null) {
      pendingTextReport.lazySet(text);
    }
  }

  /** A request to this host timed out (route or per-try timeout). */
  public void requestTimedOut() {
    rqTimeout.add(1);
    outlier.localOriginTimeout();
  }

  /** This worker's pool for the host, or null before the worker first used it. */
  HostPool pool(int worker) {
    return pools[worker];
  }

  void setPool(int worker, HostPool pool) {
    pools[worker] = pool;
  }

  /** Closes every worker's pool (the host left the cluster); each pool closes on its own loop. */
  void drainPools() {
    for (HostPool p : pools) {
      if (p != null) {
        p.drain();
      }
    }
  }

  /** Per-host counters for the admin /clusters page. */
  public HostCounters counters() {
    return new HostCounters(rqTotal.sum(), rqSuccess.sum(), rqError.sum(), rqTimeout.sum(),
        activeRequests.get(), cxTotal.sum(), cxConnectFail.sum(), cxActive.get());
  }

  /** A consistent-enough read of a host's counters. */
  public record HostCounters(long rqTotal, long rqSuccess, long rqError, long rqTimeout, int rqActive,
      long cxTotal, long cxConnectFail, int cxActive) {}

  @Override
  public String toString() {
    return clusterName + "/" + addressString();
  }
}
