package io.spillway.central.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.Resource;
import io.envoyproxy.envoy.service.runtime.v3.Runtime;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.spillway.central.api.Json;
import io.spillway.central.auth.Secrets;
import io.spillway.central.edges.EdgeStore;
import io.spillway.central.policy.PolicyStore;
import io.spillway.central.store.Database;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The protocol rules of the xDS server with clusters, endpoints, listeners and routes from a
 * hand-set {@link EdgeResourceSource}: make-before-break ordering, State-of-the-World removal,
 * Delta's per-resource versions, {@code initial_resource_versions} and {@code removed_resources};
 * runtime layers (RTDS) by name, beside the ordered four, an absent one served empty.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdsProtocolIT {

  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Duration QUIET = Duration.ofMillis(300);

  private Path dataDir;
  private Database database;
  private EdgeStore edges;
  private LocalChangeBus bus;
  private XdsServer server;
  private final Map<String, AtomicReference<EdgeResources>> resources = new java.util.concurrent.ConcurrentHashMap<>();

  @BeforeAll
  void start() throws Exception {
    dataDir = Files.createTempDirectory("central-xds-protocol-");
    database = Database.open(Database.embeddedUrl(dataDir), null, null);
    Json json = new Json();
    edges = new EdgeStore(database, json, Clock.systemUTC());
    bus = new LocalChangeBus();
    server = XdsServer.start(new XdsServer.Settings("127.0.0.1", 0, Duration.ofMinutes(5)), edges,
        new PolicyStore(database, json, Clock.systemUTC()),
        id -> resources.getOrDefault(id, new AtomicReference<>(EdgeResources.EMPTY)).get(), bus, new PrometheusRegistry(),
        new io.spillway.central.edges.EdgeGauges(Clock.systemUTC()));
  }

  @AfterAll
  void stop() throws Exception {
    if (server != null) {
      server.close();
    }
    if (database != null) {
      database.close();
    }
    try (var files = Files.walk(dataDir)) {
      for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** Registers an edge with the given resources; returns its credential. */
  private String edge(String id, EdgeResources initial) {
    String credential = "spe_" + UUID.randomUUID();
    assertThat(edges.register(id, Map.of(), Secrets.hash(credential))).isPresent();
    resources.put(id, new AtomicReference<>(initial));
    return credential;
  }

  private void change(String id, EdgeResources next) {
    resources.get(id).set(next);
    bus.publish(id);
  }

  private static String newId() {
    return "edge-" + UUID.randomUUID().toString().substring(0, 8);
  }

  static Cluster cluster(String name) {
    return Cluster.newBuilder().setName(name).setType(Cluster.DiscoveryType.EDS).build();
  }

  static ClusterLoadAssignment endpoints(String cluster) {
    return ClusterLoadAssignment.newBuilder().setClusterName(cluster).build();
  }

  static Listener listener(String name) {
    return Listener.newBuilder().setName(name).build();
  }

  static RouteConfiguration route(String name, String cluster) {
    return RouteConfiguration.newBuilder().setName(name)
        .addVirtualHosts(io.envoyproxy.envoy.config.route.v3.VirtualHost.newBuilder().setName("all").addDomains("*")
            .addRoutes(io.envoyproxy.envoy.config.route.v3.Route.newBuilder()
                .setMatch(io.envoyproxy.envoy.config.route.v3.RouteMatch.newBuilder().setPrefix("/"))
                .setRoute(io.envoyproxy.envoy.config.route.v3.RouteAction.newBuilder().setCluster(cluster))))
        .build();
  }

  private static <M extends Message> TypeResources set(String version, List<M> messages, java.util.function.Function<M, String> name) {
    Map<String, M> byName = new LinkedHashMap<>();
    messages.forEach(m -> byName.put(name.apply(m), m));
    return TypeResources.of(version, byName);
  }

  static EdgeResources resources(String version, List<String> clusters, String routeCluster) {
    return new EdgeResources(
        set(version, clusters.stream().map(AdsProtocolIT::cluster).toList(), Cluster::getName),
        set(version, clusters.stream().map(AdsProtocolIT::endpoints).toList(), ClusterLoadAssignment::getClusterName),
        set(version, List.of(listener("l1")), Listener::getName),
        set(version, List.of(route("r1", routeCluster)), RouteConfiguration::getName),
        TypeResources.EMPTY);
  }

  /** A runtime layer with one key. */
  static Runtime runtime(String name, String key, double value) {
    return Runtime.newBuilder().setName(name).setLayer(com.google.protobuf.Struct.newBuilder()
        .putFields(key, com.google.protobuf.Value.newBuilder().setNumberValue(value).build())).build();
  }

  /** {@code base} with these runtime layers at {@code version}. */
  static EdgeResources withRuntimes(EdgeResources base, String version, Runtime... layers) {
    return new EdgeResources(base.clusters(), base.endpoints(), base.listeners(), base.routes(),
        set(version, List.of(layers), Runtime::getName));
  }

  private static Map<String, Runtime> runtimes(DiscoveryResponse response) throws Exception {
    Map<String, Runtime> byName = new LinkedHashMap<>();
    for (com.google.protobuf.Any any : response.getResourcesList()) {
      Runtime runtime = any.unpack(Runtime.class);
      byName.put(runtime.getName(), runtime);
    }
    return byName;
  }

  private static List<String> names(DiscoveryResponse response) throws Exception {
    List<String> names = new java.util.ArrayList<>();
    for (com.google.protobuf.Any any : response.getResourcesList()) {
      XdsType type = XdsType.ofUrl(any.getTypeUrl());
      Message m = switch (type) {
        case CLUSTER -> any.unpack(Cluster.class);
        case ENDPOINT -> any.unpack(ClusterLoadAssignment.class);
        case LISTENER -> any.unpack(Listener.class);
        case ROUTE -> any.unpack(RouteConfiguration.class);
        case OVERLOAD_POLICY, RUNTIME -> throw new AssertionError("unexpected");
      };
      names.add(switch (m) {
        case Cluster c -> c.getName();
        case ClusterLoadAssignment c -> c.getClusterName();
        case Listener l -> l.getName();
        case RouteConfiguration r -> r.getName();
        default -> throw new AssertionError();
      });
    }
    return names;
  }

  @Test
  void typesGoOutInOrderEachAfterThePreviousAck() throws Exception {
    String id = newId();
    String credential = edge(id, resources("v1", List.of("a"), "a"));
    try (ScriptedAdsClient client = ScriptedAdsClient.sotw(central(), credential)) {
      Node node = ScriptedAdsClient.node(id);
      // A reconnecting edge subscribes to everything at once.
      client.subscribe(node, XdsType.CLUSTER, "");
      client.subscribe(null, XdsType.ENDPOINT, "", "a");
      client.subscribe(null, XdsType.LISTENER, "");
      client.subscribe(null, XdsType.ROUTE, "", "r1");
      for (XdsType type : XdsType.ORDERED) {
        DiscoveryResponse response = client.expect(WAIT);
        assertThat(response.getTypeUrl()).isEqualTo(type.typeUrl());
        assertThat(response.getVersionInfo()).isEqualTo("v1");
        assertThat(client.next(QUIET)).as("nothing before %s is ACKed", type).isNull();
        client.ack(response, type == XdsType.ENDPOINT ? new String[] {"a"} : type == XdsType.ROUTE ? new String[] {"r1"} : new String[0]);
      }
      // The route moves to a new cluster: clusters, then its endpoints, then the route; never the route first.
      change(id, resources("v2", List.of("a", "b"), "b"));
      DiscoveryResponse clusters = client.expect(WAIT);
      assertThat(clusters.getTypeUrl()).isEqualTo(XdsType.CLUSTER.typeUrl());
      assertThat(names(clusters)).containsExactly("a", "b");
      assertThat(client.next(QUIET)).isNull();
      client.ack(clusters);
      // The edge now asks for b's endpoints too.
      DiscoveryResponse next = client.expect(WAIT);
      assertThat(next.getTypeUrl()).isEqualTo(XdsType.ENDPOINT.typeUrl());
      client.subscribe(null, XdsType.ENDPOINT, "v1", "a", "b"); // (a re-subscription with the new names)
      client.ack(next, "a", "b");
      DiscoveryResponse endpoints = client.expect(WAIT);
      while (!endpoints.getTypeUrl().equals(XdsType.ENDPOINT.typeUrl()) || names(endpoints).size() < 2) {
        assertThat(endpoints.getTypeUrl()).isNotEqualTo(XdsType.ROUTE.typeUrl());
        client.ack(endpoints, "a", "b");
        endpoints = client.expect(WAIT);
      }
      assertThat(names(endpoints)).containsExactly("a", "b");
      client.ack(endpoints, "a", "b");
      DiscoveryResponse listeners = client.expect(WAIT);
      assertThat(listeners.getTypeUrl()).isEqualTo(XdsType.LISTENER.typeUrl());
      client.ack(listeners);
      DiscoveryResponse routes = client.expect(WAIT);
      assertThat(routes.getTypeUrl()).isEqualTo(XdsType.ROUTE.typeUrl());
      assertThat(routes.getVersionInfo()).isEqualTo("v2");
    }
  }

  @Test
  void stateOfTheWorldRemovesByLeavingOut() throws Exception {
    String id = newId();
    String credential = edge(id, resources("v1", List.of("a", "b"), "a"));
    try (ScriptedAdsClient client = ScriptedAdsClient.sotw(central(), credential)) {
      client.subscribe(ScriptedAdsClient.node(id), XdsType.CLUSTER, "");
      DiscoveryResponse first = client.expect(WAIT);
      assertThat(names(first)).containsExactly("a", "b");
      client.ack(first);
      change(id, resources("v2", List.of("b"), "b"));
      DiscoveryResponse second = client.expect(WAIT);
      assertThat(second.getVersionInfo()).isEqualTo("v2");
      assertThat(names(second)).containsExactly("b");
    }
  }

  @Test
  void deltaSendsWhatDiffersAndRemovals() throws Exception {
    String id = newId();
    String credential = edge(id, resources("v1", List.of("a", "b"), "a"));
    String versionOfA = EdgeSnapshot.hash(cluster("a"));
    try (ScriptedAdsClient client = ScriptedAdsClient.delta(central(), credential)) {
      // Reconnecting with a at its current version: only b is sent.
      client.send(DeltaDiscoveryRequest.newBuilder().setNode(ScriptedAdsClient.node(id)).setTypeUrl(XdsType.CLUSTER.typeUrl())
          .putInitialResourceVersions("a", versionOfA).build());
      DeltaDiscoveryResponse first = client.expectDelta(WAIT);
      assertThat(first.getResourcesList().stream().map(Resource::getName).toList()).containsExactly("b");
      assertThat(first.getResources(0).getVersion()).isEqualTo(EdgeSnapshot.hash(cluster("b")));
      assertThat(first.getSystemVersionInfo()).isEqualTo("v1");
      client.send(DeltaDiscoveryRequest.newBuilder().setTypeUrl(XdsType.CLUSTER.typeUrl()).setResponseNonce(first.getNonce()).build());
      assertThat(client.nextDelta(QUIET)).isNull();

      change(id, resources("v2", List.of("b", "c"), "b"));
      DeltaDiscoveryResponse second = client.expectDelta(WAIT);
      assertThat(second.getResourcesList().stream().map(Resource::getName).toList()).containsExactly("c");
      assertThat(second.getRemovedResourcesList()).containsExactly("a");

      // NACKed: not resent, and the client's versions stay those it ACKed.
      client.send(DeltaDiscoveryRequest.newBuilder().setTypeUrl(XdsType.CLUSTER.typeUrl()).setResponseNonce(second.getNonce())
          .setErrorDetail(com.google.rpc.Status.newBuilder().setCode(3).setMessage("no")).build());
      assertThat(client.nextDelta(QUIET)).isNull();
      change(id, resources("v3", List.of("b", "c"), "b"));
      DeltaDiscoveryResponse third = client.expectDelta(WAIT);
      assertThat(third.getResourcesList().stream().map(Resource::getName).toList()).containsExactly("c");
      assertThat(third.getRemovedResourcesList()).containsExactly("a");
    }
  }

  @Test
  void deltaAndStateOfTheWorldConvergeToTheSameSet() throws Exception {
    String id = newId();
    String credential = edge(id, resources("v1", List.of("x", "y", "z"), "x"));
    List<String> sotwNames;
    try (ScriptedAdsClient client = ScriptedAdsClient.sotw(central(), credential)) {
      client.subscribe(ScriptedAdsClient.node(id), XdsType.CLUSTER, "");
      sotwNames = names(client.expect(WAIT));
    }
    try (ScriptedAdsClient client = ScriptedAdsClient.delta(central(), credential)) {
      client.send(DeltaDiscoveryRequest.newBuilder().setNode(ScriptedAdsClient.node(id)).setTypeUrl(XdsType.CLUSTER.typeUrl()).build());
      DeltaDiscoveryResponse response = client.expectDelta(WAIT);
      assertThat(response.getResourcesList().stream().map(Resource::getName).collect(Collectors.toList()))
          .containsExactlyElementsOf(sotwNames);
    }
  }

  @Test
  void runtimeLayersGoOutByNameBesideTheOrderedTypesAndAnAbsentOneIsEmpty() throws Exception {
    String id = newId();
    EdgeResources base = resources("v1", List.of("a"), "a");
    String credential = edge(id, withRuntimes(base, "rt1", runtime("layer-a", "k", 1), runtime("layer-b", "k", 2)));
    try (ScriptedAdsClient client = ScriptedAdsClient.sotw(central(), credential)) {
      client.subscribe(ScriptedAdsClient.node(id), XdsType.RUNTIME, "", "layer-a", "missing");
      DiscoveryResponse first = client.expect(WAIT);
      assertThat(first.getTypeUrl()).isEqualTo(XdsType.RUNTIME.typeUrl());
      assertThat(first.getVersionInfo()).isEqualTo("rt1");
      Map<String, Runtime> layers = runtimes(first);
      assertThat(layers).as("only the names subscribed; one central has none of is an empty layer")
          .containsOnlyKeys("layer-a", "missing");
      assertThat(layers.get("layer-a")).isEqualTo(runtime("layer-a", "k", 1));
      assertThat(layers.get("missing").getLayer().getFieldsCount()).isZero();
      // The runtime's response is not ACKed yet: clusters go out all the same.
      client.subscribe(null, XdsType.CLUSTER, "");
      DiscoveryResponse clusters = client.expect(WAIT);
      assertThat(clusters.getTypeUrl()).isEqualTo(XdsType.CLUSTER.typeUrl());
      client.ack(first, "layer-a", "missing");
      // Clusters are not ACKed: a runtime change goes out all the same.
      change(id, withRuntimes(base, "rt2", runtime("layer-a", "k", 3)));
      DiscoveryResponse second = client.expect(WAIT);
      assertThat(second.getTypeUrl()).isEqualTo(XdsType.RUNTIME.typeUrl());
      assertThat(second.getVersionInfo()).isEqualTo("rt2");
      assertThat(runtimes(second).get("layer-a")).isEqualTo(runtime("layer-a", "k", 3));
      client.ack(second, "layer-a", "missing");
      // Deleted: State of the World cannot leave it out (that would keep it), so it goes out empty.
      change(id, withRuntimes(base, "rt3"));
      DiscoveryResponse third = client.expect(WAIT);
      assertThat(third.getVersionInfo()).isEqualTo("rt3");
      assertThat(runtimes(third)).containsOnlyKeys("layer-a", "missing");
      assertThat(runtimes(third).get("layer-a").getLayer().getFieldsCount()).isZero();
    }
  }

  @Test
  void deltaServesRuntimeLayersByNameAndADeletedOneAsAnEmptyLayer() throws Exception {
    String id = newId();
    EdgeResources base = resources("v1", List.of("a"), "a");
    String credential = edge(id, withRuntimes(base, "rt1", runtime("layer-a", "k", 1), runtime("layer-b", "k", 2)));
    try (ScriptedAdsClient client = ScriptedAdsClient.delta(central(), credential)) {
      client.send(DeltaDiscoveryRequest.newBuilder().setNode(ScriptedAdsClient.node(id)).setTypeUrl(XdsType.RUNTIME.typeUrl())
          .addResourceNamesSubscribe("layer-a").build());
      DeltaDiscoveryResponse first = client.expectDelta(WAIT);
      assertThat(first.getResourcesList().stream().map(Resource::getName).toList()).containsExactly("layer-a");
      assertThat(first.getResources(0).getVersion()).isEqualTo(EdgeSnapshot.hash(runtime("layer-a", "k", 1)));
      assertThat(first.getResources(0).getResource().unpack(Runtime.class)).isEqualTo(runtime("layer-a", "k", 1));
      client.send(DeltaDiscoveryRequest.newBuilder().setTypeUrl(XdsType.RUNTIME.typeUrl()).setResponseNonce(first.getNonce()).build());
      assertThat(client.nextDelta(QUIET)).as("layer-b changed, nobody asked for it").isNull();
      change(id, withRuntimes(base, "rt2", runtime("layer-a", "k", 1), runtime("layer-b", "k", 5)));
      assertThat(client.nextDelta(QUIET)).isNull();

      change(id, withRuntimes(base, "rt3", runtime("layer-b", "k", 5)));
      DeltaDiscoveryResponse deleted = client.expectDelta(WAIT);
      Runtime empty = Runtime.newBuilder().setName("layer-a").build();
      assertThat(deleted.getRemovedResourcesList()).isEmpty();
      assertThat(deleted.getResourcesList()).hasSize(1);
      assertThat(deleted.getResources(0).getVersion()).isEqualTo(EdgeSnapshot.hash(empty));
      assertThat(deleted.getResources(0).getResource().unpack(Runtime.class)).isEqualTo(empty);
    }
  }

  private int central() {
    return server.port();
  }
}
