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
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the clusters. Lives on the main (control) side: builds clusters from configuration,
 * resolves STRICT_DNS hosts off the event loops, and publishes each cluster's host set as one
 * immutable reference. Workers read {@link #get(String)} from an immutable map.
 */
public final class ClusterManager {
  private static final Logger log = LoggerFactory.getLogger(ClusterManager.class);

  private final Scope statsRoot;
  private final int workers;
  private final ScheduledExecutorService control;
  private final Resolver resolver;
  private final long seed;
  private volatile Map<String, Cluster> clusters = Map.of();
  private ConnectionGate gate = ConnectionGate.OPEN;

  /** Resolves a DNS name to addresses; blocking, called only on the control thread. */
  @FunctionalInterface
  public interface Resolver {
    List<InetAddress> resolve(String host) throws UnknownHostException;

    Resolver SYSTEM = host -> List.of(InetAddress.getAllByName(host));
  }

  public ClusterManager(Scope statsRoot, int workers, ScheduledExecutorService control, Resolver resolver, long seed) {
    this.statsRoot = statsRoot;
    this.workers = workers;
    this.control = control;
    this.resolver = resolver;
    this.seed = seed;
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
   * STRICT_DNS names are resolved now (a name that does not resolve leaves the cluster empty and
   * is retried at the refresh rate), then re-resolved at {@code dns_refresh_rate}.
   */
  public void initialize(Map<String, ClusterConfig> configs) {
    Map<String, Cluster> built = new LinkedHashMap<>();
    long s = seed;
    for (ClusterConfig config : configs.values()) {
      Scope scope = statsRoot.taggedScope("cluster", config.name(), "envoy_cluster_name");
      Cluster cluster = Cluster.create(config, new ClusterStats(scope), workers, s++, gate);
      built.put(config.name(), cluster);
      refreshHosts(cluster);
      if (config.discoveryType() == ClusterConfig.DiscoveryType.STRICT_DNS) {
        long every = Math.max(100, config.dnsRefreshRate().toMillis());
        control.scheduleWithFixedDelay(() -> refreshHosts(cluster), every, every, TimeUnit.MILLISECONDS);
      }
    }
    clusters = Collections.unmodifiableMap(built);
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

  /** Resolves the cluster's endpoints and publishes a new host set if the addresses changed. */
  void refreshHosts(Cluster cluster) {
    ClusterConfig config = cluster.config();
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
        if (!existing.isEmpty()) {
          return; // keep the last good answer
        }
        continue;
      }
      for (InetAddress a : byFamily(addresses, config.dnsLookupFamily())) {
        InetSocketAddress sa = new InetSocketAddress(a, e.address().port());
        Host h = existing.remove(sa);
        hosts.add(h != null ? h : new Host(config.name(), sa, e.address().host(), e.weight(), workers));
      }
    }
    if (!existing.isEmpty() || hosts.size() != cluster.hosts().hosts().size()) {
      cluster.setHosts(HostSet.of(hosts));
      existing.values().forEach(Host::drainPools);
    } else if (cluster.hosts() == HostSet.EMPTY) {
      cluster.setHosts(HostSet.of(hosts));
    }
  }
}
