package io.spillway.edge.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.controlplane.cache.v3.SimpleCache;
import io.envoyproxy.controlplane.cache.v3.Snapshot;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.grpc.Server;
import io.spillway.edge.xds.JavaControlPlane;
import io.spillway.testkit.FreePorts;
import io.spillway.testkit.OriginServer;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Slow start through the edge: an EDS cluster with {@code round_robin_lb_config.slow_start_config}
 * (window 3 s, linear, 10 % floor) serves from origin a; EDS then adds origin b, whose share of a
 * bounded stream of requests ramps from about 10 % towards the even 50 % over the window.
 */
class SlowStartIT {
  private static final String GROUP = "edges";

  private OriginServer a;
  private OriginServer b;
  private Server xds;
  private EdgeHarness edge;

  @AfterEach
  void stop() throws Exception {
    if (edge != null) {
      edge.close();
    }
    if (xds != null) {
      xds.shutdownNow();
    }
    if (a != null) {
      a.close();
    }
    if (b != null) {
      b.close();
    }
  }

  private static Cluster cluster() throws Exception {
    return XdsResources.resource("""
        name: backend
        type: EDS
        connect_timeout: 1s
        eds_cluster_config: {eds_config: {ads: {}, resource_api_version: V3}}
        round_robin_lb_config:
          slow_start_config: {slow_start_window: 3s, min_weight_percent: {value: 10}}
        """, Cluster.getDefaultInstance());
  }

  private static ClusterLoadAssignment endpoints(OriginServer... origins) throws Exception {
    StringBuilder list = new StringBuilder();
    for (OriginServer o : origins) {
      list.append(list.isEmpty() ? "" : ", ")
          .append("{endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: ")
          .append(o.port()).append("}}}}");
    }
    return XdsResources.resource("cluster_name: backend\nendpoints: [{lb_endpoints: [" + list + "]}]\n",
        ClusterLoadAssignment.getDefaultInstance());
  }

  private static Snapshot snapshot(String version, int port, OriginServer... origins) throws Exception {
    return Snapshot.create(List.of(cluster()), List.of(endpoints(origins)),
        List.of(XdsResources.rdsListener("ingress", port, "main")), List.of(XdsResources.routeTo("main", "backend")),
        List.of(), version);
  }

  @Test
  void aHostThatJoinsRampsUpOverTheWindow() throws Exception {
    a = OriginServer.start("a");
    b = OriginServer.start("b");
    SimpleCache<String> cache = new SimpleCache<>(node -> GROUP);
    List<DiscoveryRequest> requests = new CopyOnWriteArrayList<>();
    xds = JavaControlPlane.start(cache, requests);
    int port = FreePorts.pick();
    cache.setSnapshot(GROUP, snapshot("1", port, a));
    edge = EdgeHarness.startForEnvoyXds(XdsResources.adsBootstrap("node: {id: edge-1, cluster: edges}\n",
        xds.getPort(), "1s"), null);
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    java.net.URI uri = java.net.URI.create("http://127.0.0.1:" + port + "/ramp");
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!reachable(http, uri) && System.nanoTime() < deadline) {
      Thread.sleep(20); // the listener comes over LDS
    }
    assertThat(origin(http, uri)).isEqualTo("a");

    cache.setSnapshot(GROUP, snapshot("2", port, a, b));
    String first = origin(http, uri);
    while (!first.equals("b") && System.nanoTime() < deadline) {
      first = origin(http, uri);
    }
    assertThat(first).isEqualTo("b");
    long joined = System.nanoTime(); // within a request of when b joined
    // Requests in four buckets of time: 0-0.75 s, 0.75-1.5 s, 1.5-3 s after b joined, and after 3.5 s.
    long[] bucketEnds = {750_000_000L, 1_500_000_000L, 3_000_000_000L};
    int[][] counts = new int[4][2];
    int sent = 0;
    while (sent < 20_000) {
      long t = System.nanoTime() - joined;
      if (t > 3_000_000_000L && t < 3_500_000_000L) {
        Thread.sleep(10); // between the ramp and the even split: not counted
        continue;
      }
      if (t > 5_000_000_000L) {
        break;
      }
      int bucket = t < bucketEnds[0] ? 0 : t < bucketEnds[1] ? 1 : t < bucketEnds[2] ? 2 : 3;
      counts[bucket][origin(http, uri).equals("b") ? 1 : 0]++;
      sent++;
    }
    double[] share = new double[4];
    for (int i = 0; i < 4; i++) {
      assertThat(counts[i][0] + counts[i][1]).as("requests in bucket %d", i).isGreaterThan(50);
      share[i] = counts[i][1] / (double) (counts[i][0] + counts[i][1]);
    }
    String shares = java.util.Arrays.toString(share);
    // factor max(0.1, t / 3 s): b's share f / (1 + f) averages about 9-20 %, 25 %, 37 %, then 50 %.
    assertThat(share[0]).as(shares).isBetween(0.05, 0.27);
    assertThat(share[1]).as(shares).isBetween(0.15, 0.35);
    assertThat(share[2]).as(shares).isBetween(0.27, 0.47);
    assertThat(share[3]).as(shares).isBetween(0.45, 0.55);
    assertThat(share[0]).as(shares).isLessThan(share[2]);
    System.out.println("slow start shares of the new host by time bucket: " + shares);
  }

  private static boolean reachable(java.net.http.HttpClient http, java.net.URI uri) throws InterruptedException {
    try {
      return origin(http, uri).equals("a");
    } catch (java.io.IOException e) {
      return false;
    }
  }

  private static String origin(java.net.http.HttpClient http, java.net.URI uri)
      throws java.io.IOException, InterruptedException {
    HttpResponse<String> r = http.send(java.net.http.HttpRequest.newBuilder(uri)
            .timeout(java.time.Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
    return r.headers().firstValue("x-origin").orElse("none");
  }
}
