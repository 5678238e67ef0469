package io.spillway.edge.server;

import com.google.protobuf.Message;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.config.ConfigException;
import io.spillway.edge.config.ListenerConfig;
import io.spillway.edge.config.RouteConfig;
import io.spillway.edge.config.XdsResourceTranslator;
import io.netty.handler.ssl.SslContext;
import io.spillway.edge.http.HttpConnectionManager;
import io.spillway.edge.listener.Listener;
import io.spillway.edge.router.RouteTable;
import io.spillway.edge.xds.XdsConfigSink;
import io.spillway.edge.xds.XdsResourceType;
import io.spillway.policy.OverloadPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The edge's xDS-delivered configuration: receives each accepted resource set from the ADS client,
 * validates it with the bootstrap's translator, and applies it to the running server on the main
 * thread — clusters (kept, rebuilt or drained), EDS endpoints, listeners (bound, changed in place
 * or drained; a listener whose RDS routes have not arrived waits), routes (swapped into the
 * connection managers that name them) and the overload policy.
 *
 * <p>Validation happens before anything changes, so a rejected set leaves the edge exactly as it
 * was. The state below is touched only on the main thread.
 */
final class DynamicConfiguration implements XdsConfigSink {
  private static final Logger log = LoggerFactory.getLogger(DynamicConfiguration.class);

  private final EdgeServer server;
  private final ScheduledExecutorService control;
  private final XdsResourceTranslator translator;
  private final Map<String, ClusterConfig> staticClusters;
  private final Set<String> staticListenerNames;
  private final Set<String> unguardedClusters;
  private final Function<Message, ControlPlanePolicy> policyDecoder;

  private Map<String, ClusterConfig> dynamicClusters = Map.of();
  /** Accepted CDS versions held back because their EDS endpoints have not arrived; old ones serve. */
  private final Map<String, ClusterConfig> warmingClusters = new HashMap<>();
  private Map<String, ClusterConfig.LoadAssignment> endpoints = Map.of();
  private Map<String, ListenerConfig> acceptedListeners = Map.of();
  private final Map<String, Listener> activeListeners = new HashMap<>();
  private Map<String, RouteConfig> routes = Map.of();

  /**
   * @param staticClusters the bootstrap's clusters (CDS may not replace them)
   * @param staticListenerNames the bootstrap's listeners (LDS may not replace them)
   * @param unguardedClusters clusters the outbound guard never limits (the xDS servers')
   * @param policyDecoder the {@code spillway.policy.v1.OverloadPolicy} resource → the validated
   *     overload policy and rate limits; throws {@link IllegalArgumentException} with the validator's message
   */
  DynamicConfiguration(EdgeServer server, ScheduledExecutorService control, XdsResourceTranslator translator,
      Map<String, ClusterConfig> staticClusters, Set<String> staticListenerNames, Set<String> unguardedClusters,
      Function<Message, ControlPlanePolicy> policyDecoder) {
    this.server = server;
    this.control = control;
    this.translator = translator;
    this.staticClusters = Map.copyOf(staticClusters);
    this.staticListenerNames = Set.copyOf(staticListenerNames);
    this.unguardedClusters = Set.copyOf(unguardedClusters);
    this.policyDecoder = policyDecoder;
  }

  @Override
  public void apply(XdsResourceType type, Map<String, ? extends Message> resources) throws ConfigException {
    switch (type) {
      case CLUSTER -> applyClusters(resources);
      case ENDPOINT -> applyEndpoints(resources);
      case LISTENER -> applyListeners(resources);
      case ROUTE -> applyRoutes(resources);
      case OVERLOAD_POLICY -> applyPolicy(resources);
      case RUNTIME -> applyRuntime(resources);
    }
  }

  // ---- runtime (RTDS) ----

  private void applyRuntime(Map<String, ? extends Message> resources) throws ConfigException {
    Map<String, Map<String, String>> layers = new LinkedHashMap<>();
    for (Map.Entry<String, ? extends Message> e : resources.entrySet()) {
      var runtime = (io.envoyproxy.envoy.service.runtime.v3.Runtime) e.getValue();
      requireName("runtime", e.getKey(), runtime.getName());
      layers.put(runtime.getName(), translator.runtimeLayer(runtime));
    }
    server.runtime().applyRtds(layers);
  }

  // ---- clusters and endpoints ----

  private void applyClusters(Map<String, ? extends Message> resources) throws ConfigException {
    Map<String, ClusterConfig> next = new LinkedHashMap<>();
    for (Map.Entry<String, ? extends Message> e : resources.entrySet()) {
      ClusterConfig c = translator.cluster((Cluster) e.getValue());
      requireName("cluster", e.getKey(), c.name());
      if (staticClusters.containsKey(c.name())) {
        throw new ConfigException("cluster \"" + c.name() + "\"", "a static cluster of that name exists;"
            + " CDS cannot replace it");
      }
      next.put(c.name(), c);
    }
    onMain(() -> {
      for (ClusterConfig c : next.values()) {
        if (c.discoveryType() == ClusterConfig.DiscoveryType.EDS && endpoints.containsKey(c.edsServiceName())) {
          requireBalanceable(c, c.edsServiceName(), endpoints.get(c.edsServiceName()));
        }
      }
      dynamicClusters = Map.copyOf(next);
      publishClusters();
      return null;
    });
  }

  /** Publishes static + dynamic clusters; a changed EDS cluster without endpoints yet keeps its old version. */
  private void publishClusters() {
    Map<String, ClusterConfig> all = new LinkedHashMap<>(staticClusters);
    warmingClusters.clear();
    for (ClusterConfig c : dynamicClusters.values()) {
      var running = server.clusters().get(c.name());
      boolean waitsForEndpoints = c.discoveryType() == ClusterConfig.DiscoveryType.EDS
          && !endpoints.containsKey(c.edsServiceName());
      if (waitsForEndpoints && running != null && !running.config().equals(c)) {
        warmingClusters.put(c.name(), c);
        all.put(c.name(), running.config());
      } else {
        all.put(c.name(), c);
      }
    }
    server.clusters().update(all, endpoints);
    Set<String> guarded = new HashSet<>(all.keySet());
    guarded.removeAll(unguardedClusters);
    server.guards().setPeers(guarded);
  }

  private void applyEndpoints(Map<String, ? extends Message> resources) throws ConfigException {
    Map<String, ClusterConfig.LoadAssignment> next = new HashMap<>();
    for (Map.Entry<String, ? extends Message> e : resources.entrySet()) {
      ClusterLoadAssignment assignment = (ClusterLoadAssignment) e.getValue();
      requireName("cluster_load_assignment", e.getKey(), assignment.getClusterName());
      next.put(assignment.getClusterName(), translator.endpoints(assignment));
    }
    onMain(() -> {
      for (Map.Entry<String, ClusterConfig.LoadAssignment> e : next.entrySet()) {
        for (var cluster : server.clusters().all().values()) {
          ClusterConfig c = cluster.config();
          if (c.discoveryType() == ClusterConfig.DiscoveryType.EDS && c.edsServiceName().equals(e.getKey())) {
            requireBalanceable(c, e.getKey(), e.getValue());
          }
        }
      }
      Map<String, ClusterConfig.LoadAssignment> previous = endpoints;
      endpoints = Map.copyOf(next);
      boolean warmingReady = warmingClusters.values().stream()
          .anyMatch(c -> endpoints.containsKey(c.edsServiceName()));
      if (warmingReady) {
        publishClusters();
      }
      for (Map.Entry<String, ClusterConfig.LoadAssignment> e : endpoints.entrySet()) {
        if (!e.getValue().equals(previous.get(e.getKey()))) {
          server.clusters().updateEndpoints(e.getKey(), e.getValue());
        }
      }
      return null;
    });
  }

  /**
   * Refuses a load assignment the cluster's policy cannot balance (priorities under client-side
   * weighted round robin or the pressure policy): the update is NACKed, the last one stays.
   */
  private static void requireBalanceable(ClusterConfig cluster, String serviceName,
      ClusterConfig.LoadAssignment assignment) throws ConfigException {
    String problem = cluster.assignmentProblem(assignment);
    if (problem != null) {
      throw new ConfigException("cluster_load_assignment \"" + serviceName + "\".endpoints", problem);
    }
  }

  // ---- listeners and routes ----

  private void applyListeners(Map<String, ? extends Message> resources) throws ConfigException {
    Set<String> knownClusters = knownClusters();
    Map<String, ListenerConfig> next = new LinkedHashMap<>();
    Map<String, String> addresses = new HashMap<>();
    for (Listener l : server.listeners()) {
      if (staticListenerNames.contains(l.config().name()) && l.config().address().port() != 0) {
        addresses.put(l.config().address().toString(), l.config().name());
      }
    }
    for (Map.Entry<String, ? extends Message> e : resources.entrySet()) {
      ListenerConfig lc = translator.listener((io.envoyproxy.envoy.config.listener.v3.Listener) e.getValue(),
          knownClusters);
      requireName("listener", e.getKey(), lc.name());
      if (staticListenerNames.contains(lc.name())) {
        throw new ConfigException("listener \"" + lc.name() + "\"", "a static listener of that name exists;"
            + " LDS cannot replace it");
      }
      if (lc.address().port() != 0) {
        String other = addresses.putIfAbsent(lc.address().toString(), lc.name());
        if (other != null) {
          throw new ConfigException("listener \"" + lc.name() + "\".address", "duplicate address "
              + lc.address() + " (also listener \"" + other + "\")");
        }
      }
      next.put(lc.name(), lc);
    }
    onMain(() -> {
      activateListeners(next);
      acceptedListeners = Map.copyOf(next);
      return null;
    });
  }

  /**
   * Brings the running listeners in line with {@code wanted}: binds first (a failure undoes this
   * call's binds and rejects the update), then changes in place, then retires. A listener whose
   * RDS routes are missing is left as it is (new: not started; changed: the old one keeps serving).
   */
  private void activateListeners(Map<String, ListenerConfig> wanted) throws ConfigException {
    record InPlace(Listener running, ListenerConfig config, HttpConnectionManager hcm,
        io.spillway.edge.listener.ListenerChains chains,
        io.spillway.edge.accesslog.AccessLogs accessLogs) {}
    List<Listener> bound = new ArrayList<>();
    Map<String, Listener> started = new HashMap<>();
    List<InPlace> inPlace = new ArrayList<>();
    try {
      for (ListenerConfig lc : wanted.values()) {
        Listener running = activeListeners.get(lc.name());
        if (running != null && running.config().equals(lc)) {
          continue;
        }
        // A listener of TCP proxy chains only has no routes to wait for.
        Optional<RouteTable> table = lc.hasHttp() ? routeTable(lc) : Optional.empty();
        if (lc.hasHttp() && table.isEmpty()) {
          log.info("listener {} waits for route configuration {}", lc.name(), lc.hcm().rdsRouteConfigName().get());
          continue;
        }
        try {
          if (running != null && running.config().address().equals(lc.address())) {
            inPlace.add(new InPlace(running, lc, server.listenerAssembler().connectionManager(lc, table.orElse(null)),
                server.listenerAssembler().chains(lc),
                server.listenerAssembler().accessLogs(lc)));
            continue;
          }
          Listener listener = server.listenerAssembler().listener(lc, table.orElse(null));
          server.bind(listener);
          bound.add(listener);
          started.put(lc.name(), listener);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new ConfigException("listener \"" + lc.name() + "\"", "interrupted while starting");
        } catch (Exception e) {
          // Netty rethrows a failed bind's IOException (address in use) unchecked-style: catch it too.
          throw new ConfigException("listener \"" + lc.name() + "\"", "cannot start on " + lc.address() + ": "
              + e.getMessage());
        }
      }
    } catch (ConfigException e) {
      bound.forEach(Listener::stopAccepting);
      throw e;
    }
    for (InPlace p : inPlace) {
      p.running().replace(p.config(), p.hcm(), p.chains(), p.accessLogs());
      if (p.hcm() != null) {
        server.addConnectionManager(p.hcm());
      }
      log.info("listener {} updated in place", p.config().name());
    }
    for (Map.Entry<String, Listener> e : started.entrySet()) {
      Listener old = activeListeners.put(e.getKey(), e.getValue());
      server.addListener(e.getValue());
      if (old != null) {
        server.retireListener(old);
      }
    }
    for (String name : new ArrayList<>(activeListeners.keySet())) {
      if (!wanted.containsKey(name)) {
        server.retireListener(activeListeners.remove(name));
        log.info("listener {} removed; draining", name);
      }
    }
  }

  /** The route table a listener starts with: its inline routes, or its RDS routes once they arrived. */
  private Optional<RouteTable> routeTable(ListenerConfig lc) {
    Optional<String> rds = lc.hcm().rdsRouteConfigName();
    if (rds.isEmpty()) {
      return Optional.of(server.compileRoutes(lc.hcm().routeConfig()));
    }
    RouteConfig rc = routes.get(rds.get());
    return rc == null ? Optional.empty() : Optional.of(server.compileRoutes(rc));
  }

  private void applyRoutes(Map<String, ? extends Message> resources) throws ConfigException {
    Set<String> knownClusters = knownClusters();
    Map<String, RouteConfig> next = new LinkedHashMap<>();
    for (Map.Entry<String, ? extends Message> e : resources.entrySet()) {
      RouteConfig rc = translator.routes((RouteConfiguration) e.getValue(), knownClusters);
      requireName("route_configuration", e.getKey(), rc.name());
      next.put(rc.name(), rc);
    }
    onMain(() -> {
      Map<String, RouteConfig> previous = routes;
      routes = Map.copyOf(next);
      for (Listener l : server.listeners()) {
        if (!l.config().hasHttp()) {
          continue;
        }
        Optional<String> rds = l.config().hcm().rdsRouteConfigName();
        if (rds.isPresent() && next.containsKey(rds.get()) && !next.get(rds.get()).equals(previous.get(rds.get()))) {
          l.hcm().setRoutes(server.compileRoutes(next.get(rds.get())));
        }
      }
      // Listeners that were waiting for these routes start now.
      try {
        activateListeners(acceptedListeners);
      } catch (ConfigException e) {
        log.error("a listener waiting for its routes cannot start: {}", e.getMessage());
      }
      return null;
    });
  }

  // ---- overload policy ----

  private void applyPolicy(Map<String, ? extends Message> resources) throws ConfigException {
    if (resources.size() > 1) {
      throw new ConfigException("", "one OverloadPolicy resource per edge, got " + resources.size() + ": "
          + resources.keySet());
    }
    Optional<ControlPlanePolicy> policy = Optional.empty();
    for (Map.Entry<String, ? extends Message> e : resources.entrySet()) {
      try {
        policy = Optional.of(policyDecoder.apply(e.getValue()));
      } catch (IllegalArgumentException ex) {
        throw new ConfigException("overload_policy \"" + e.getKey() + "\"", ex.getMessage());
      }
    }
    Optional<ControlPlanePolicy> chosen = policy;
    onMain(() -> {
      server.setControlPlanePolicy(chosen);
      return null;
    });
  }

  // ---- helpers ----

  /** The static clusters and the accepted CDS ones: what listeners and routes may name. */
  private Set<String> knownClusters() throws ConfigException {
    Set<String> known = new HashSet<>(staticClusters.keySet());
    known.addAll(onMain(() -> Set.copyOf(dynamicClusters.keySet())));
    return known;
  }

  private static void requireName(String kind, String key, String name) throws ConfigException {
    if (!key.equals(name)) {
      throw new ConfigException(kind + " \"" + key + "\"", "the resource is named \"" + name + "\"");
    }
  }

  /** Runs {@code task} on the main thread and waits for it; a ConfigException it throws comes back as is. */
  private <T> T onMain(Callable<T> task) throws ConfigException {
    if (server.onMainThread()) {
      try {
        return task.call();
      } catch (ConfigException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
    try {
      return control.submit(task).get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof ConfigException ce) {
        throw ce;
      }
      throw new IllegalStateException("applying the update failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while applying the update", e);
    }
  }
}
