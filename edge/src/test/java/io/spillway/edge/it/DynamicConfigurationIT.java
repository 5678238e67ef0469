package io.spillway.edge.it;

import static io.spillway.edge.it.XdsResources.edsCluster;
import static io.spillway.edge.it.XdsResources.rdsListener;
import static io.spillway.edge.it.XdsResources.resource;
import static io.spillway.edge.it.XdsResources.routeTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Message;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.spillway.edge.config.ConfigException;
import io.spillway.edge.xds.XdsConfigSink;
import io.spillway.edge.xds.XdsResourceType;
import io.spillway.testkit.FreePorts;
import io.spillway.testkit.OriginServer;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the edge does with resources once its ADS client accepted them: clusters, endpoints,
 * listeners and routes applied to a running edge, checked with real traffic. The xDS server in the
 * bootstrap is a closed port, so nothing but these calls changes the configuration.
 */
class DynamicConfigurationIT {

  private OriginServer a;
  private OriginServer b;
  private EdgeHarness edge;
  private XdsConfigSink sink;

  @BeforeEach
  void start() throws Exception {
    a = OriginServer.start("a");
    b = OriginServer.start("b");
    int deadXds = FreePorts.pick();
    edge = EdgeHarness.start(XdsResources.adsBootstrap("", deadXds, "0.1s"));
    sink = edge.server().xdsSink();
    assertThat(sink).isNotNull();
  }

  @AfterEach
  void stop() throws Exception {
    if (edge != null) {
      edge.close();
    }
    a.close();
    b.close();
  }

  @Test
  void clustersEndpointsListenersAndRoutesTakeEffectInOrder() throws Exception {
    sink.apply(XdsResourceType.CLUSTER, Map.of("backend", edsCluster("backend")));
    sink.apply(XdsResourceType.ENDPOINT, Map.of("backend", endpoints("backend", a)));
    sink.apply(XdsResourceType.LISTENER, Map.of("ingress", rdsListener("ingress", 0, "main")));
    assertThat(listenerPort("ingress")).as("waits for its routes").isEqualTo(-1);

    sink.apply(XdsResourceType.ROUTE, Map.of("main", routeTo("main", "backend")));
    int port = listenerPort("ingress");
    assertThat(port).isPositive();
    assertThat(get(port, "/x").headers().firstValue("x-origin")).hasValue("a");

    // EDS: the endpoint moves to b.
    sink.apply(XdsResourceType.ENDPOINT, Map.of("backend", endpoints("backend", b)));
    assertThat(get(port, "/x").headers().firstValue("x-origin")).hasValue("b");

    // RDS: the route now answers directly.
    sink.apply(XdsResourceType.ROUTE, Map.of("main", resource("""
        name: main
        virtual_hosts:
        - name: all
          domains: ["*"]
          routes: [{match: {prefix: /}, direct_response: {status: 204}}]
        """, RouteConfiguration.getDefaultInstance())));
    assertThat(get(port, "/x").statusCode()).isEqualTo(204);
  }

  @Test
  void aRejectedSetChangesNothingAndNamesTheResourceAndField() throws Exception {
    sink.apply(XdsResourceType.CLUSTER, Map.of("backend", edsCluster("backend")));
    sink.apply(XdsResourceType.ENDPOINT, Map.of("backend", endpoints("backend", a)));
    sink.apply(XdsResourceType.ROUTE, Map.of("main", routeTo("main", "backend")));
    sink.apply(XdsResourceType.LISTENER, Map.of("ingress", rdsListener("ingress", 0, "main")));
    int port = listenerPort("ingress");

    Map<String, Message> bad = new LinkedHashMap<>();
    bad.put("ingress", rdsListener("ingress", 0, "main"));
    bad.put("broken", resource("""
        name: broken
        address: {socket_address: {address: 127.0.0.1, port_value: 0}}
        filter_chains: []
        """, Listener.getDefaultInstance()));
    assertThatThrownBy(() -> sink.apply(XdsResourceType.LISTENER, bad))
        .isInstanceOf(ConfigException.class)
        .hasMessage("listener \"broken\".filter_chains: one filter chain (or default_filter_chain) is required");

    Map<String, Message> badCluster = Map.of("backend", resource("""
        name: backend
        type: EDS
        lb_policy: CLUSTER_PROVIDED
        eds_cluster_config: {eds_config: {ads: {}}}
        """, Cluster.getDefaultInstance()));
    assertThatThrownBy(() -> sink.apply(XdsResourceType.CLUSTER, badCluster))
        .isInstanceOf(ConfigException.class)
        .hasMessage("cluster \"backend\".lb_policy: CLUSTER_PROVIDED is not supported");

    assertThat(listenerPort("broken")).isEqualTo(-1);
    assertThat(get(port, "/x").headers().firstValue("x-origin")).hasValue("a");
  }

  @Test
  void aListenerThatMovesRebindsAndARemovedOneStopsAccepting() throws Exception {
    sink.apply(XdsResourceType.CLUSTER, Map.of("backend", edsCluster("backend")));
    sink.apply(XdsResourceType.ENDPOINT, Map.of("backend", endpoints("backend", a)));
    sink.apply(XdsResourceType.ROUTE, Map.of("main", routeTo("main", "backend")));
    int first = FreePorts.pick();
    sink.apply(XdsResourceType.LISTENER, Map.of("ingress", rdsListener("ingress", first, "main")));
    assertThat(get(first, "/x").statusCode()).isEqualTo(200);

    int second = FreePorts.pick();
    sink.apply(XdsResourceType.LISTENER, Map.of("ingress", rdsListener("ingress", second, "main")));
    assertThat(get(second, "/x").statusCode()).isEqualTo(200);
    assertThatThrownBy(() -> freshGet(first)).isInstanceOf(ConnectException.class);

    sink.apply(XdsResourceType.LISTENER, Map.of());
    assertThat(listenerPort("ingress")).isEqualTo(-1);
    assertThatThrownBy(() -> freshGet(second)).isInstanceOf(ConnectException.class);
  }

  @Test
  void aListenerChangedInPlaceKeepsItsPortAndServesTheNewChain() throws Exception {
    sink.apply(XdsResourceType.CLUSTER, Map.of("backend", edsCluster("backend"), "other", edsCluster("other")));
    sink.apply(XdsResourceType.ENDPOINT, Map.of("backend", endpoints("backend", a), "other", endpoints("other", b)));
    sink.apply(XdsResourceType.ROUTE, Map.of("main", routeTo("main", "backend"), "alt", routeTo("alt", "other")));
    sink.apply(XdsResourceType.LISTENER, Map.of("ingress", rdsListener("ingress", 0, "main")));
    int port = listenerPort("ingress");
    assertThat(get(port, "/x").headers().firstValue("x-origin")).hasValue("a");

    sink.apply(XdsResourceType.LISTENER, Map.of("ingress", rdsListener("ingress", 0, "alt")));
    assertThat(listenerPort("ingress")).isEqualTo(port);
    // A kept-alive connection accepted before the change may still answer one request on the old
    // chain while its drain is on the way (as in Envoy); a new connection gets the new chain.
    assertThat(freshGet(port).headers().firstValue("x-origin")).hasValue("b");
  }

  @Test
  void aRemovedClusterAnswers503AndAReAddedOneServesAgain() throws Exception {
    sink.apply(XdsResourceType.CLUSTER, Map.of("backend", edsCluster("backend")));
    sink.apply(XdsResourceType.ENDPOINT, Map.of("backend", endpoints("backend", a)));
    sink.apply(XdsResourceType.ROUTE, Map.of("main", routeTo("main", "backend")));
    sink.apply(XdsResourceType.LISTENER, Map.of("ingress", rdsListener("ingress", 0, "main")));
    int port = listenerPort("ingress");

    sink.apply(XdsResourceType.CLUSTER, Map.of());
    assertThat(get(port, "/x").statusCode()).isEqualTo(503);
    sink.apply(XdsResourceType.CLUSTER, Map.of("backend", edsCluster("backend")));
    assertThat(get(port, "/x").statusCode()).isEqualTo(200);
  }

  /**
   * The edge's own share of push-to-traffic: from handing an accepted EDS or RDS set to the edge
   * until the next request sees it (no gRPC, no control plane). Printed, never asserted.
   */
  @Test
  void measuresApplyToTrafficLatency() throws Exception {
    sink.apply(XdsResourceType.CLUSTER, Map.of("backend", edsCluster("backend"), "other", edsCluster("other")));
    sink.apply(XdsResourceType.ENDPOINT, Map.of("backend", endpoints("backend", a), "other", endpoints("other", b)));
    sink.apply(XdsResourceType.ROUTE, Map.of("main", routeTo("main", "backend")));
    sink.apply(XdsResourceType.LISTENER, Map.of("ingress", rdsListener("ingress", 0, "main")));
    int port = listenerPort("ingress");
    get(port, "/warm");
    int rounds = 50;
    java.util.List<Long> eds = new java.util.ArrayList<>();
    java.util.List<Long> rds = new java.util.ArrayList<>();
    java.util.List<Long> edsApply = new java.util.ArrayList<>();
    java.util.List<Long> rdsApply = new java.util.ArrayList<>();
    java.util.List<Long> plainGet = new java.util.ArrayList<>();
    // Resources are parsed before the clock starts: only the edge's work is timed.
    Map<String, Message> toA = Map.of("backend", endpoints("backend", a), "other", endpoints("other", b));
    Map<String, Message> toB = Map.of("backend", endpoints("backend", b), "other", endpoints("other", b));
    Map<String, Message> routeOther = Map.of("main", routeTo("main", "other"));
    Map<String, Message> routeBackend = Map.of("main", routeTo("main", "backend"));
    for (int i = 0; i < rounds; i++) {
      OriginServer target = i % 2 == 0 ? b : a;
      long g0 = System.nanoTime();
      get(port, "/x"); // the measuring request alone, for comparison
      plainGet.add(System.nanoTime() - g0);
      long t0 = System.nanoTime();
      sink.apply(XdsResourceType.ENDPOINT, i % 2 == 0 ? toB : toA);
      edsApply.add(System.nanoTime() - t0);
      assertThat(get(port, "/x").headers().firstValue("x-origin")).hasValue(target.name());
      eds.add(System.nanoTime() - t0);
    }
    sink.apply(XdsResourceType.ENDPOINT, Map.of("backend", endpoints("backend", a), "other", endpoints("other", b)));
    for (int i = 0; i < rounds; i++) {
      boolean toOther = i % 2 == 0;
      long t0 = System.nanoTime();
      sink.apply(XdsResourceType.ROUTE, toOther ? routeOther : routeBackend);
      rdsApply.add(System.nanoTime() - t0);
      assertThat(get(port, "/x").headers().firstValue("x-origin")).hasValue(toOther ? "b" : "a");
      rds.add(System.nanoTime() - t0);
    }
    System.out.printf(java.util.Locale.ROOT, "apply-to-traffic (edge only, %d rounds): EDS %s; RDS %s%n", rounds,
        percentiles(eds), percentiles(rds));
    System.out.printf(java.util.Locale.ROOT, "  of which the apply call: EDS %s; RDS %s; a GET through the edge alone: %s%n",
        percentiles(edsApply), percentiles(rdsApply), percentiles(plainGet));
  }

  private static String percentiles(java.util.List<Long> nanos) {
    java.util.List<Long> sorted = new java.util.ArrayList<>(nanos);
    java.util.Collections.sort(sorted);
    return String.format(java.util.Locale.ROOT, "median %.2f ms p99 %.2f ms", sorted.get(sorted.size() / 2) / 1e6,
        sorted.get(sorted.size() * 99 / 100) / 1e6);
  }

  private int listenerPort(String name) {
    for (io.spillway.edge.listener.Listener l : edge.server().listeners()) {
      if (l.config().name().equals(name)) {
        return l.localAddress().getPort();
      }
    }
    return -1;
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    return edge.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** On a new connection: the shared client could reuse one accepted before the listener changed. */
  private static HttpResponse<String> freshGet(int port) throws Exception {
    try (java.net.http.HttpClient client = java.net.http.HttpClient.newBuilder()
        .connectTimeout(Duration.ofSeconds(5)).build()) {
      return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/x"))
          .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  private static ClusterLoadAssignment endpoints(String name, OriginServer origin) throws ConfigException {
    return XdsResources.endpoints(name, origin.port());
  }
}
