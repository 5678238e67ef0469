package io.spillway.edge.upstream;

import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.upstream.lb.HashTable;
import io.spillway.edge.upstream.lb.MaglevTable;
import io.spillway.edge.upstream.lb.PriorityLoad;
import io.spillway.edge.upstream.lb.RingHashTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * Builds a cluster's {@link Cluster.Routing} from its hosts' health, on the control side (under
 * {@link Cluster#publishRouting()}'s lock): Envoy's priority load over healthy and degraded hosts,
 * each level's host sets and their balancers and hash tables, kept across builds where the hosts
 * are the same so round robin carries on and tables are not rebuilt. Workers only read the result.
 */
final class RoutingBuilder {
  private final ClusterConfig config;
  private final int workers;
  private final RandomGenerator.SplittableGenerator seeds;
  private final ClientSideWeights weights;
  private final PressureWeights pressure;
  private final LongSupplier nanoClock;
  /** Leaf balancers by leaf key (priority, healthy or degraded, locality), kept across routings. */
  private Map<String, LoadBalancer[]> leafBalancers = Map.of();
  /** RING_HASH / MAGLEV over levels: the last table of each leaf key and the hosts it was built over. */
  private Map<String, HashTable> levelTables = Map.of();
  private Map<String, List<Host>> levelTableHosts = Map.of();
  /** The last single-level hash table and the host set it was built for. */
  private HashTable lastTable;
  private HostSet lastTableHosts;

  RoutingBuilder(ClusterConfig config, int workers, RandomGenerator.SplittableGenerator seeds,
      ClientSideWeights weights, PressureWeights pressure, LongSupplier nanoClock) {
    this.config = config;
    this.workers = workers;
    this.seeds = seeds;
    this.weights = weights;
    this.pressure = pressure;
    this.nanoClock = nanoClock;
  }

  /** The hosts' coarse health, read once per build so that every list of one build agrees. */
  private record Snapshot(Map<Host, Host.Health> health) {
    static Snapshot of(List<Host> hosts) {
      Map<Host, Host.Health> m = new IdentityHashMap<>(hosts.size() * 2);
      for (Host h : hosts) {
        m.put(h, h.health());
      }
      return new Snapshot(m);
    }

    List<Host> only(List<Host> hosts, Host.Health wanted) {
      List<Host> out = new ArrayList<>(hosts.size());
      for (Host h : hosts) {
        if (health.get(h) == wanted) {
          out.add(h);
        }
      }
      return out;
    }

    PriorityLoad.Level counts(List<Host> hosts) {
      int healthy = 0;
      int degraded = 0;
      long total = 0;
      long healthyWeight = 0;
      long degradedWeight = 0;
      for (Host h : hosts) {
        total += h.weight();
        switch (health.get(h)) {
          case HEALTHY -> {
            healthy++;
            healthyWeight += h.weight();
          }
          case DEGRADED -> {
            degraded++;
            degradedWeight += h.weight();
          }
          case UNHEALTHY -> { }
        }
      }
      return new PriorityLoad.Level(healthy, degraded, hosts.size(), healthyWeight, degradedWeight, total);
    }
  }

  /**
   * The routing over {@code all} under {@code policy}: a single level (one host set, in panic
   * every host) when the cluster has one priority, no locality weighting and no degraded host;
   * otherwise levels, each with its healthy and its degraded hosts.
   */
  Cluster.Routing build(HostSet all, ClusterConfig.AssignmentPolicy policy) {
    List<Host> list = all.hosts();
    Snapshot snapshot = Snapshot.of(list);
    int maxPriority = 0;
    boolean anyDegraded = false;
    for (Host h : list) {
      maxPriority = Math.max(maxPriority, h.priority());
      anyDegraded |= snapshot.health().get(h) == Host.Health.DEGRADED;
    }
    if (maxPriority > 0 || config.lb().localityWeighted() || anyDegraded) {
      return leveled(list, maxPriority, snapshot, policy);
    }
    List<Host> healthy = snapshot.only(list, Host.Health.HEALTHY);
    PriorityLoad load = PriorityLoad.compute(new PriorityLoad.Level[] {snapshot.counts(list)},
        policy.overprovisioningFactor(), policy.weightedPriorityHealth(), config.hostHealth().healthyPanicThreshold());
    // An empty cluster is in panic too (Envoy's isHostSetInPanic), so each of its picks counts lb_healthy_panic.
    boolean panic = load.panic()[0];
    HostSet chosen = panic || healthy.size() == list.size() ? all : HostSet.of(healthy);
    leafBalancers = Map.of();
    return new Cluster.Routing(chosen, panic, table(chosen));
  }

  /** What one level's healthy or degraded hosts add to the routing being built. */
  private final class Leaves {
    final List<HostSet> sets = new ArrayList<>();
    final List<String> keys = new ArrayList<>();
    final Map<String, HashTable> tables = new HashMap<>();
    final Map<String, List<Host>> tableHosts = new HashMap<>();
    boolean anyLocalities;

    /**
     * A level's target: {@code chosen} as one leaf (with its table under RING_HASH / MAGLEV), or,
     * under locality weighting outside panic, one leaf per locality with eligible hosts.
     */
    PriorityRouting.Level target(int priority, String kind, HostSet levelSet, HostSet chosen, boolean panic,
        List<Host> eligible, int factor) {
      int firstLeaf = sets.size();
      String key = priority + "/" + kind;
      double[] localityWeights = null;
      HashTable table = null;
      if (config.lbPolicy().hashed()) {
        table = levelTable(key, chosen);
        tables.put(key, table);
        tableHosts.put(key, chosen.hosts());
      } else if (config.lb().localityWeighted() && !panic) {
        localityWeights = localityLeaves(key, levelSet.hosts(), eligible, factor);
      }
      if (localityWeights == null) {
        sets.add(chosen);
        keys.add(key + "/*");
      } else {
        anyLocalities = true;
      }
      return new PriorityRouting.Level(priority, levelSet, chosen, panic, firstLeaf, localityWeights, table);
    }

    /**
     * Locality weighted balancing in one level outside panic: one leaf per locality whose
     * effective weight for the {@code eligible} hosts is above 0; their weights, or null when no
     * locality has any (the target then balances over all of its eligible hosts, as Envoy does).
     */
    private double[] localityLeaves(String key, List<Host> levelHosts, List<Host> eligible, int factor) {
      Map<ClusterConfig.Locality, List<Host>> byLocality = new LinkedHashMap<>();
      for (Host h : levelHosts) {
        byLocality.computeIfAbsent(h.locality(), l -> new ArrayList<>()).add(h);
      }
      java.util.Set<Host> allowed = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
      allowed.addAll(eligible);
      List<Double> ws = new ArrayList<>();
      for (var e : byLocality.entrySet()) {
        List<Host> there = e.getValue();
        List<Host> ok = there.stream().filter(allowed::contains).toList();
        double w = PriorityRouting.effectiveLocalityWeight(there.get(0).localityWeight(), ok.size(), there.size(),
            factor);
        if (w > 0) {
          ws.add(w);
          sets.add(HostSet.of(ok));
          keys.add(key + "/" + e.getKey());
        }
      }
      if (ws.isEmpty()) {
        return null;
      }
      double[] out = new double[ws.size()];
      for (int i = 0; i < out.length; i++) {
        out[i] = ws.get(i);
      }
      return out;
    }
  }

  /**
   * The routing of a cluster with priority levels, locality weighted balancing or degraded hosts:
   * Envoy's priority load over the levels 0 to {@code maxPriority} (a level without hosts takes no
   * load); per level a target for its healthy hosts and, when its degraded load is above 0, one
   * for its degraded hosts (the same target as the healthy one in panic: every host of the level).
   */
  private Cluster.Routing leveled(List<Host> list, int maxPriority, Snapshot snapshot,
      ClusterConfig.AssignmentPolicy policy) {
    int levelCount = maxPriority + 1;
    List<List<Host>> byPriority = new ArrayList<>(levelCount);
    for (int p = 0; p < levelCount; p++) {
      byPriority.add(new ArrayList<>());
    }
    for (Host h : list) {
      byPriority.get(h.priority()).add(h);
    }
    PriorityLoad.Level[] counts = new PriorityLoad.Level[levelCount];
    for (int p = 0; p < levelCount; p++) {
      counts[p] = snapshot.counts(byPriority.get(p));
    }
    PriorityLoad load = PriorityLoad.compute(counts, policy.overprovisioningFactor(), policy.weightedPriorityHealth(),
        config.hostHealth().healthyPanicThreshold());
    int factor = policy.overprovisioningFactor();
    PriorityRouting.Level[] levels = new PriorityRouting.Level[levelCount];
    PriorityRouting.Level[] degradedLevels = new PriorityRouting.Level[levelCount];
    Leaves leaves = new Leaves();
    boolean totalPanic = true;
    for (int p = 0; p < levelCount; p++) {
      List<Host> levelHosts = byPriority.get(p);
      List<Host> healthy = snapshot.only(levelHosts, Host.Health.HEALTHY);
      boolean panic = load.panic()[p];
      totalPanic &= panic;
      HostSet levelSet = HostSet.of(levelHosts);
      HostSet chosen = panic || healthy.size() == levelHosts.size() ? levelSet : HostSet.of(healthy);
      levels[p] = leaves.target(p, "healthy", levelSet, chosen, panic, healthy, factor);
      if (load.degradedLoad()[p] > 0) {
        List<Host> degraded = snapshot.only(levelHosts, Host.Health.DEGRADED);
        degradedLevels[p] = panic ? levels[p]
            : leaves.target(p, "degraded", levelSet, HostSet.of(degraded), false, degraded, factor);
      }
    }
    Map<String, LoadBalancer[]> kept = new HashMap<>();
    boolean hashed = config.lbPolicy().hashed();
    LoadBalancer[][] balancers = new LoadBalancer[leaves.sets.size()][];
    for (int i = 0; i < leaves.sets.size() && !hashed; i++) {
      LoadBalancer[] forLeaf = leafBalancers.get(leaves.keys.get(i));
      if (forLeaf == null) {
        forLeaf = new LoadBalancer[workers];
        for (int w = 0; w < workers; w++) {
          forLeaf[w] = LoadBalancer.create(config, seeds.split(), weights, pressure, nanoClock);
        }
      }
      kept.put(leaves.keys.get(i), forLeaf);
      balancers[i] = forLeaf;
    }
    leafBalancers = kept;
    levelTables = leaves.tables;
    levelTableHosts = leaves.tableHosts;
    double[][] deadlines = new double[workers][];
    for (int w = 0; w < workers; w++) {
      deadlines[w] = leaves.anyLocalities
          ? PriorityRouting.initialDeadlines(levels, degradedLevels, leaves.sets.size(), seeds.split())
          : new double[0];
    }
    PriorityRouting routed = new PriorityRouting(load, levels, degradedLevels, leaves.sets.toArray(HostSet[]::new),
        balancers, deadlines);
    return new Cluster.Routing(routed.servingHosts(), totalPanic, null, routed);
  }

  /** RING_HASH / MAGLEV: a level's table, the last one of that leaf key when its hosts are the same. */
  private HashTable levelTable(String key, HostSet set) {
    HashTable last = levelTables.get(key);
    if (last != null && levelTableHosts.get(key).equals(set.hosts())) {
      return last;
    }
    return buildTable(set);
  }

  /**
   * RING_HASH and MAGLEV: the table over {@code set}, built again only when the hosts differ from
   * the last table's (a health change that leaves the same hosts keeps it); null under the other
   * policies.
   */
  private HashTable table(HostSet set) {
    if (!config.lbPolicy().hashed()) {
      return null;
    }
    if (lastTable != null && lastTableHosts.hosts().equals(set.hosts())) {
      return lastTable;
    }
    lastTable = buildTable(set);
    lastTableHosts = set;
    return lastTable;
  }

  private HashTable buildTable(HostSet set) {
    List<HashTable.Member> members = new ArrayList<>(set.hosts().size());
    for (Host h : set.hosts()) {
      members.add(new HashTable.Member(h.hashKey(), Math.max(1, h.weight())));
    }
    ClusterConfig.ConsistentHash sizes = config.lb().consistentHash();
    return config.lbPolicy() == ClusterConfig.LbPolicy.RING_HASH
        ? RingHashTable.build(members, sizes.minimumRingSize(), sizes.maximumRingSize())
        : MaglevTable.build(members, sizes.tableSize());
  }
}
