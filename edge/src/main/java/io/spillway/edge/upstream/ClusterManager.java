package io.spillway.edge.upstream;

import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.stats.Scope;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the clusters. Lives on the main (control) side: builds clusters from configuration,
 * resolves STRICT_DNS and LOGICAL_DNS names off the event loops, and publishes each cluster's
 * host set as one immutable reference. Workers read {@link #get(String)} from an immutable map.
 */
public final class ClusterManager {
  private static final Logger log = LoggerFactory.getLogger(ClusterManager.class);

  private final Scope statsRoot;
  private final int workers;
  private final ScheduledExecutorService control;
  private final Resolver resolver;
  private volatile Map<String, Cluster> clusters = Map.of();
  private ConnectionGate gate = ConnectionGate.OPEN;
  private HostHealthServices healthServices;
  /** STRICT_DNS and LOGICAL_DNS re-resolution by cluster name; touched on the control thread only. */
  private final Map<String, DnsRefreshLoop> dnsRefresh = new HashMap<>();
  /** Client-side weighted round robin's weight updates by cluster name; control thread only. */
  private final Map<String, ScheduledFuture<?>> weightUpdates = new HashMap<>();
  private final LongSupplier nanoClock;
  private long nextSeed;

  /** Resolves a DNS name to addresses; blocking, called only on the control thread. */
  @FunctionalInterface
  public interface Resolver {
    List<InetAddress> resolve(String host) throws UnknownHostException;

    Resolver SYSTEM = host -> List.of(InetAddress.getAllByName(host));
  }

  public ClusterManager(Scope statsRoot, int workers, ScheduledExecutorService control, Resolver resolver, long seed) {
    this(statsRoot, workers, control, resolver, seed, System::nanoTime);
  }

  /** @param nanoClock the control thread's clock (load-report weights age by it) */
  public ClusterManager(Scope statsRoot, int workers, ScheduledExecutorService control, Resolver resolver, long seed,
      LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
    this.statsRoot = statsRoot;
    this.workers = workers;
    this.control = control;
    this.resolver = resolver;
    this.nextSeed = seed;
    this.healthServices = new HostHealthServices(control, nanoClock, null);
  }

  /** The loop active health checks run on; call before {@link #initialize} when any cluster has them. */
  public void setHealthCheckLoop(HealthCheckLoop loop) {
    this.healthServices = new HostHealthServices(control, nanoClock, loop);
  }

  /** Sets the gate every pool asks before opening a connection; call before {@link #initialize}. */
  public void setConnectionGate(ConnectionGate gate) {
    this.gate = gate;
  }

  /** The cluster of that name, or null. */
  public Cluster get(String name) {
    return clusters.get(name);
  }

  public Map<String, Cluster> all() {
    return clusters;
  }

  /**
   * Builds and publishes the given clusters (static configuration: called once at start-up).
   * STRICT_DNS and LOGICAL_DNS names are resolved now, unless {@code wait_for_warm_on_init} is
   * false (a name that does not resolve leaves the cluster empty and is retried), then re-resolved
   * at {@code dns_refresh_rate}, as {@link DnsRefreshLoop} times it.
   */
  public void initialize(Map<String, ClusterConfig> configs) {
    update(configs, Map.of());
  }

  /**
   * Publishes a new complete set of clusters (the static ones plus those CDS delivered); call on
   * the control thread. A cluster whose configuration is unchanged stays as it is (its pools,
   * balancers and breakers carry on); a changed cluster is rebuilt and the old one's connections
   * drain (requests in flight finish on them); a cluster that is gone drains the same way. EDS
   * clusters take their hosts from {@code edsEndpoints} (by service name); one without an entry
   * has no hosts until {@link #updateEndpoints} brings them.
   *
   * @param edsEndpoints EDS load assignments by {@code ClusterLoadAssignment} name
   */
  public void update(Map<String, ClusterConfig> configs, Map<String, ClusterConfig.LoadAssignment> edsEndpoints) {
    Map<String, Cluster> current = clusters;
    Map<String, Cluster> built = new LinkedHashMap<>();
    List<Cluster> retired = new ArrayList<>();
    for (ClusterConfig config : configs.values()) {
      Cluster old = current.get(config.name());
      if (old != null && old.config().equals(config)) {
        built.put(config.name(), old);
        if (config.discoveryType() == ClusterConfig.DiscoveryType.EDS) {
          ClusterConfig.LoadAssignment endpoints = edsEndpoints.get(config.edsServiceName());
          if (endpoints != null) {
            publishHosts(old, endpoints);
          }
        }
        continue;
      }
      Scope scope = statsRoot.taggedScope("cluster", config.name(), "envoy_cluster_name");
      long seed = nextSeed++;
      Cluster cluster = Cluster.create(config,
          new ClusterStats(scope, config.protocol() == ClusterConfig.UpstreamProtocol.HTTP2), workers, seed, gate,
          healthServices, scope);
      built.put(config.name(), cluster);
      scheduleWeightUpdates(cluster);
      if (old != null) {
        retired.add(old);
      }
      DnsRefreshLoop previousRefresh = dnsRefresh.remove(config.name());
      if (previousRefresh != null) {
        previousRefresh.stop();
      }
      switch (config.discoveryType()) {
        case STATIC -> publishHosts(cluster, config.loadAssignment());
        case EDS -> publishHosts(cluster, edsEndpoints.getOrDefault(config.edsServiceName(),
            ClusterConfig.LoadAssignment.of(List.of())));
        case STRICT_DNS, LOGICAL_DNS -> {
          BooleanSupplier resolve = config.discoveryType() == ClusterConfig.DiscoveryType.STRICT_DNS
              ? () -> refreshHosts(cluster)
              : () -> refreshLogicalHost(cluster);
          DnsRefreshLoop refresh = new DnsRefreshLoop(config, control, new SplittableRandom(seed), resolve);
          dnsRefresh.put(config.name(), refresh);
          refresh.start(config.dnsRefresh().waitForWarmOnInit());
        }
      }
      cluster.startHostHealth(control);
    }
    for (Map.Entry<String, Cluster> e : current.entrySet()) {
      if (!configs.containsKey(e.getKey())) {
        retired.add(e.getValue());
        DnsRefreshLoop refresh = dnsRefresh.remove(e.getKey());
        if (refresh != null) {
          refresh.stop();
        }
        ScheduledFuture<?> weightsTask = weightUpdates.remove(e.getKey());
        if (weightsTask != null) {
          weightsTask.cancel(false);
        }
      }
    }
    clusters = Collections.unmodifiableMap(built);
    for (Cluster old : retired) {
      old.stopHostHealth();
      old.hosts().hosts().forEach(Host::drainPools);
      log.info("cluster {} {}", old.name(), configs.containsKey(old.name()) ? "replaced" : "removed");
    }
  }

  /** Rebuilds a weighted cluster's weights every weight_update_period (and stops those of the cluster it replaces). */
  private void scheduleWeightUpdates(Cluster cluster) {
    ScheduledFuture<?> previous = null;
    if (cluster.weightUpdatePeriod() != null) {
      long every = cluster.weightUpdatePeriod().toMillis();
      previous = weightUpdates.put(cluster.name(),
          control.scheduleWithFixedDelay(cluster::updateWeights, every, every, TimeUnit.MILLISECONDS));
    } else {
      previous = weightUpdates.remove(cluster.name());
    }
    if (previous != null) {
      previous.cancel(false);
    }
  }

  /**
   * An EDS update: publishes the endpoints of every EDS cluster whose service name is
   * {@code serviceName}. Hosts at an unchanged address and weight keep their pools.
   */
  public void updateEndpoints(String serviceName, ClusterConfig.LoadAssignment endpoints) {
    for (Cluster cluster : clusters.values()) {
      ClusterConfig config = cluster.config();
      if (config.discoveryType() == ClusterConfig.DiscoveryType.EDS && config.edsServiceName().equals(serviceName)) {
        publishHosts(cluster, endpoints);
      }
    }
  }

  /**
   * Publishes hosts for endpoints that are IP literals (STATIC and EDS clusters): hosts whose
   * address, weight, priority and locality stay keep their pools (and take the endpoint's
   * {@code health_status}), hosts that went away drain. A new assignment policy, or a new
   * {@code health_status}, alone publishes a new routing.
   */
  void publishHosts(Cluster cluster, ClusterConfig.LoadAssignment assignment) {
    List<ClusterConfig.Endpoint> endpoints = assignment.endpoints();
    Map<InetSocketAddress, Host> existing = new HashMap<>();
    for (Host h : cluster.hosts().hosts()) {
      existing.put(h.address(), h);
    }
    List<Host> hosts = new ArrayList<>(endpoints.size());
    boolean changed = endpoints.size() != cluster.hosts().hosts().size() || cluster.hosts() == HostSet.EMPTY;
    boolean healthChanged = false;
    for (ClusterConfig.Endpoint e : endpoints) {
      InetSocketAddress sa = new InetSocketAddress(literal(e.address().host()), e.address().port());
      Host h = existing.get(sa);
      if (h != null && h.sameEndpoint(e)) {
        existing.remove(sa);
        healthChanged |= h.setEdsHealth(e.health());
      } else {
        h = cluster.newHost(sa, e, joined(cluster));
        changed = true;
      }
      hosts.add(h);
    }
    if (changed) {
      cluster.setHosts(HostSet.of(hosts), assignment.policy());
      existing.values().forEach(Host::drainPools);
    } else if (!assignment.policy().equals(cluster.assignmentPolicy())) {
      cluster.setAssignmentPolicy(assignment.policy());
    } else if (healthChanged) {
      cluster.publishRouting();
    }
  }

  /**
   * The join time of a host added now: the members a cluster gets while it has none (its first,
   * as an EDS cluster's first assignment) are not new; Envoy starts slow start only for hosts that
   * join a cluster already in service.
   */
  private long joined(Cluster cluster) {
    return cluster.hosts().hosts().isEmpty() ? Host.NOT_JOINING : nanoClock.getAsLong();
  }

  private static InetAddress literal(String host) {
    try {
      return InetAddress.getByName(host); // an IP literal: no lookup happens
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an IP address: " + host, e);
    }
  }

  /** The addresses of the family the cluster asks for (Envoy's dns_lookup_family rules). */
  static List<InetAddress> byFamily(List<InetAddress> addresses, ClusterConfig.DnsLookupFamily family) {
    List<InetAddress> v4 = addresses.stream().filter(a -> a instanceof java.net.Inet4Address).toList();
    List<InetAddress> v6 = addresses.stream().filter(a -> a instanceof java.net.Inet6Address).toList();
    return switch (family) {
      case ALL -> addresses;
      case V4_ONLY -> v4;
      case V6_ONLY -> v6;
      case AUTO -> v6.isEmpty() ? v4 : v6;
      case V4_PREFERRED -> v4.isEmpty() ? v6 : v4;
    };
  }

  /**
   * STRICT_DNS: resolves the cluster's endpoints and publishes a new host set if the addresses
   * changed; false when a name did not resolve.
   */
  boolean refreshHosts(Cluster cluster) {
    ClusterConfig config = cluster.config();
    cluster.stats().updateAttempt.inc();
    boolean resolved = true;
    Map<InetSocketAddress, Host> existing = new HashMap<>();
    for (Host h : cluster.hosts().hosts()) {
      existing.put(h.address(), h);
    }
    List<Host> hosts = new ArrayList<>();
    for (ClusterConfig.Endpoint e : config.endpoints()) {
      List<InetAddress> addresses;
      try {
        addresses = resolver.resolve(e.address().host());
      } catch (UnknownHostException ex) {
        log.warn("cluster {}: cannot resolve {}: {}", config.name(), e.address().host(), ex.getMessage());
        resolved = false;
        if (!existing.isEmpty()) {
          cluster.stats().updateFailure.inc();
          return false; // keep the last good answer
        }
        continue;
      }
      for (InetAddress a : byFamily(addresses, config.dnsLookupFamily())) {
        InetSocketAddress sa = new InetSocketAddress(a, e.address().port());
        Host h = existing.remove(sa);
        hosts.add(h != null ? h : cluster.newHost(sa, e, joined(cluster)));
      }
    }
    if (!existing.isEmpty() || hosts.size() != cluster.hosts().hosts().size()) {
      cluster.setHosts(HostSet.of(hosts));
      existing.values().forEach(Host::drainPools);
    } else if (cluster.hosts() == HostSet.EMPTY) {
      cluster.setHosts(HostSet.of(hosts));
    }
    (resolved ? cluster.stats().updateSuccess : cluster.stats().updateFailure).inc();
    return resolved;
  }

  /**
   * LOGICAL_DNS: resolves the one endpoint's name; the cluster's one host takes the first address
   * of the lookup family. The first answer creates the host; a later one with another first
   * address moves it, so that new connections go there while those already open stay in its
   * pools (Envoy does not drain them). A failure, or an answer without an address of the family,
   * keeps the host where it is (or the cluster empty); false then.
   */
  boolean refreshLogicalHost(Cluster cluster) {
    ClusterConfig config = cluster.config();
    ClusterConfig.Endpoint endpoint = config.endpoints().get(0);
    String name = endpoint.address().host();
    cluster.stats().updateAttempt.inc();
    List<InetAddress> addresses;
    try {
      addresses = byFamily(resolver.resolve(name), config.dnsLookupFamily());
    } catch (UnknownHostException ex) {
      log.warn("cluster {}: cannot resolve {}: {}", config.name(), name, ex.getMessage());
      cluster.stats().updateFailure.inc();
      return false;
    }
    if (addresses.isEmpty()) {
      log.warn("cluster {}: {} has no {} address", config.name(), name, config.dnsLookupFamily());
      cluster.stats().updateFailure.inc();
      return false;
    }
    InetSocketAddress first = new InetSocketAddress(addresses.get(0), endpoint.address().port());
    List<Host> current = cluster.hosts().hosts();
    if (current.isEmpty()) {
      cluster.setHosts(HostSet.of(List.of(cluster.newHost(first, endpoint, Host.NOT_JOINING))));
    } else if (!current.get(0).address().equals(first)) {
      log.info("cluster {}: {} now resolves to {}; new connections go there", config.name(), name,
          first.getAddress().getHostAddress());
      current.get(0).moveTo(first);
    }
    cluster.stats().updateSuccess.inc();
    return true;
  }
}
