package io.spillway.edge.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.controlplane.cache.v3.SimpleCache;
import io.envoyproxy.controlplane.cache.v3.Snapshot;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.grpc.Server;
import io.spillway.edge.xds.JavaControlPlane;
import io.spillway.testkit.FreePorts;
import io.spillway.testkit.OriginServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole edge against java-control-plane, an xDS server written elsewhere: the edge starts with
 * nothing but {@code dynamic_resources}, gets clusters, endpoints, a listener and its routes over
 * ADS (State of the World), follows snapshot changes with its traffic, NACKs a bad listener while
 * serving on, and ACKs the next good version. Also measures push-to-traffic latency (printed and
 * written to {@code target/xds-push-latency.txt}, never asserted).
 */
class XdsControlPlaneIT {
  private static final String GROUP = "edges";

  private final List<DiscoveryRequest> requests = new CopyOnWriteArrayList<>();
  private OriginServer a;
  private OriginServer b;
  private SimpleCache<String> cache;
  private Server xds;
  private EdgeHarness edge;
  private int port;

  @BeforeEach
  void start() throws Exception {
    a = OriginServer.start("a");
    b = OriginServer.start("b");
    cache = new SimpleCache<>(node -> GROUP);
    xds = JavaControlPlane.start(cache, requests);
    port = FreePorts.pick();
    cache.setSnapshot(GROUP, snapshot("1", a, "backend", listener(port, "main")));
  }

  private static String bootstrap(int xdsPort) {
    return XdsResources.adsBootstrap("node: {id: edge-1, cluster: edges}\n", xdsPort, "1s");
  }


  @AfterEach
  void stop() throws Exception {
    if (edge != null) {
      edge.close();
    }
    if (xds != null) {
      xds.shutdownNow();
    }
    a.close();
    b.close();
  }

  @Test
  void servesWhatTheControlPlaneSendsAndFollowsItsChanges() throws Exception {
    edge = EdgeHarness.startForEnvoyXds(bootstrap(xds.getPort()), null);
    assertThat(origin()).isEqualTo("a");

    cache.setSnapshot(GROUP, snapshot("2", b, "backend", listener(port, "main")));
    awaitOrigin("b");

    // A listener the edge cannot take: NACKed with a reason naming it; traffic stays on version 2.
    Listener broken = listener(port, "main").toBuilder().addFilterChains(listener(port, "main").getFilterChains(0))
        .build();
    cache.setSnapshot(GROUP, snapshot("3", b, "backend", broken));
    DiscoveryRequest nack = awaitRequest(r -> r.getTypeUrl().endsWith("Listener") && r.hasErrorDetail());
    assertThat(nack.getErrorDetail().getMessage())
        .isEqualTo("listener \"ingress\".filter_chains[1].filter_chain_match: the same matching rules as"
            + " listener \"ingress\".filter_chains[0] (each filter chain's match must differ)");
    assertThat(nack.getVersionInfo()).isEqualTo("2");
    assertThat(origin()).isEqualTo("b");

    cache.setSnapshot(GROUP, snapshot("4", a, "backend", listener(port, "main")));
    awaitRequest(r -> r.getTypeUrl().endsWith("Listener") && !r.hasErrorDetail() && r.getVersionInfo().equals("4"));
    awaitOrigin("a");
    assertThat(edge.stat("listener_manager.lds.update_rejected")).isGreaterThanOrEqualTo(1);
  }

  /** EDS and RDS push-to-traffic latency: from setSnapshot to the first request that sees the change. */
  @Test
  void measuresPushToTrafficLatency() throws Exception {
    edge = EdgeHarness.startForEnvoyXds(bootstrap(xds.getPort()), null);
    assertThat(origin()).isEqualTo("a");
    int rounds = 30;
    List<Long> eds = new ArrayList<>();
    List<Long> rds = new ArrayList<>();
    int version = 10;
    // Snapshots are built before the clock starts: only delivery and the edge's work are timed.
    List<Snapshot> edsSnapshots = new ArrayList<>();
    for (int i = 0; i < rounds; i++) {
      edsSnapshots.add(snapshot(String.valueOf(version++), i % 2 == 0 ? b : a, "backend", listener(port, "main")));
    }
    for (int i = 0; i < rounds; i++) {
      OriginServer target = i % 2 == 0 ? b : a;
      Snapshot next = edsSnapshots.get(i);
      long t0 = System.nanoTime();
      cache.setSnapshot(GROUP, next);
      awaitOrigin(target.name());
      eds.add(System.nanoTime() - t0);
    }
    // RDS: the route moves between two clusters whose endpoints are already there.
    List<Cluster> clusters = List.of(cluster("backend"), cluster("other"));
    List<ClusterLoadAssignment> assignments = List.of(endpoints("backend", a), endpoints("other", b));
    List<Listener> listeners = List.of(listener(port, "main"));
    List<RouteConfiguration> toOther = List.of(routes("main", "other"));
    List<RouteConfiguration> toBackend = List.of(routes("main", "backend"));
    for (int i = 0; i < rounds; i++) {
      String expected = i % 2 == 0 ? "b" : "a";
      Snapshot next = Snapshot.create(clusters, "c", assignments, "e", listeners, "l",
          i % 2 == 0 ? toOther : toBackend, "r" + version++, List.of(), "s");
      long t0 = System.nanoTime();
      cache.setSnapshot(GROUP, next);
      awaitOrigin(expected);
      rds.add(System.nanoTime() - t0);
    }
    String report = String.format(Locale.ROOT,
        "xDS push-to-traffic (java-control-plane SotW, %d rounds each): EDS median %.2f ms p99 %.2f ms;"
            + " RDS median %.2f ms p99 %.2f ms%n", rounds, ms(percentile(eds, 50)), ms(percentile(eds, 99)),
        ms(percentile(rds, 50)), ms(percentile(rds, 99)));
    System.out.print(report);
    Path out = Path.of("target", "xds-push-latency.txt");
    Files.createDirectories(out.getParent());
    Files.writeString(out, report);
    assertThat(eds).hasSize(rounds);
  }

  @Test
  void restartsFromTheLastKnownGoodStateWhileTheControlPlaneIsDown(@TempDir Path state) throws Exception {
    edge = EdgeHarness.startForEnvoyXds(bootstrap(xds.getPort()), state);
    assertThat(origin()).isEqualTo("a");
    cache.setSnapshot(GROUP, snapshot("2", b, "backend", listener(port, "main")));
    awaitOrigin("b");
    edge.close();
    edge = null;
    int xdsPort = xds.getPort();
    xds.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);

    // The control plane is gone: the edge starts from version 2 on disk.
    long t0 = System.nanoTime();
    edge = EdgeHarness.startForEnvoyXds(bootstrap(xdsPort), state);
    long startMillis = (System.nanoTime() - t0) / 1_000_000;
    assertThat(origin()).isEqualTo("b");
    System.out.printf(Locale.ROOT, "edge start from last-known-good with the xDS server down: %d ms%n", startMillis);
    edge.close();
    edge = null;

    // A damaged state file is reported and ignored: the edge starts, with nothing dynamic.
    try (var files = Files.list(state)) {
      for (Path f : files.toList()) {
        Files.write(f, new byte[] {0x0a, 0x7f, 0x01, 0x02});
      }
    }
    edge = EdgeHarness.startForEnvoyXds(bootstrap(xdsPort), state);
    assertThat(edge.server().listeners()).isEmpty();
  }

  // ---- helpers ----

  private String origin() throws Exception {
    HttpResponse<String> r = edge.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/x"))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    return r.headers().firstValue("x-origin").orElse("status " + r.statusCode());
  }

  /** Polls (bounded: 10 s) until the edge routes to {@code name}. */
  private void awaitOrigin(String name) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    String seen = origin();
    while (!seen.equals(name) && System.nanoTime() < deadline) {
      seen = origin();
    }
    assertThat(seen).isEqualTo(name);
  }

  private DiscoveryRequest awaitRequest(java.util.function.Predicate<DiscoveryRequest> p) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      for (DiscoveryRequest r : requests) {
        if (p.test(r)) {
          return r;
        }
      }
      Thread.sleep(10);
    }
    throw new AssertionError("no such request; saw " + requests.size() + " requests");
  }

  private static Snapshot snapshot(String version, OriginServer origin, String cluster, Listener listener)
      throws Exception {
    return Snapshot.create(List.of(cluster(cluster)), List.of(endpoints(cluster, origin)), List.of(listener),
        List.of(routes("main", cluster)), List.of(), version);
  }

  private static Cluster cluster(String name) throws Exception {
    return XdsResources.edsCluster(name);
  }

  private static ClusterLoadAssignment endpoints(String name, OriginServer origin) throws Exception {
    return XdsResources.endpoints(name, origin.port());
  }

  private static Listener listener(int port, String routes) throws Exception {
    return XdsResources.rdsListener("ingress", port, routes);
  }

  private static RouteConfiguration routes(String name, String cluster) throws Exception {
    return XdsResources.routeTo(name, cluster);
  }

  private static long percentile(List<Long> values, int p) {
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(index, sorted.size() - 1)));
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }
}
