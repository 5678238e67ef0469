package io.spillway.edge.xds;

import static io.spillway.edge.xds.XdsFixtures.LDS;
import static io.spillway.edge.xds.XdsFixtures.edsCluster;
import static io.spillway.edge.xds.XdsFixtures.endpoints;
import static io.spillway.edge.xds.XdsFixtures.listener;
import static io.spillway.edge.xds.XdsFixtures.routes;
import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.controlplane.cache.v3.SimpleCache;
import io.envoyproxy.controlplane.cache.v3.Snapshot;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.grpc.Server;
import io.spillway.edge.config.XdsClientConfig;
import io.spillway.edge.stats.StatsStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The State-of-the-World client against java-control-plane, an xDS server nobody here wrote,
 * serving {@link SimpleCache} snapshots.
 */
class AdsClientJavaControlPlaneIT {

  private final SimpleCache<String> cache = new SimpleCache<>(node -> node.getId());
  private final List<DiscoveryRequest> requests = new CopyOnWriteArrayList<>();
  private final List<String> streamEvents = new CopyOnWriteArrayList<>();
  private final StatsStore stats = new StatsStore();
  private final RecordingSink sink = new RecordingSink();
  private Server server;
  private AdsClient client;

  @BeforeEach
  void startServer() throws Exception {
    server = JavaControlPlane.start(cache, requests, streamEvents);
  }

  @AfterEach
  void stop() throws Exception {
    if (client != null) {
      client.close();
    }
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  private static Snapshot snapshot(String version, ClusterLoadAssignment endpoints, Listener... listeners) {
    return Snapshot.create(List.of(edsCluster("web", null)), List.of(endpoints), List.of(listeners),
        List.of(routes("routes-a", "a.example")), List.of(), version);
  }

  private DiscoveryRequest awaitRequest(Predicate<DiscoveryRequest> match) throws InterruptedException {
    long deadline = System.nanoTime() + ScriptedAdsServer.WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      for (DiscoveryRequest r : List.copyOf(requests)) {
        if (match.test(r)) {
          return r;
        }
      }
      Thread.sleep(5);
    }
    throw new AssertionError("no matching request; got " + requests);
  }

  @Test
  void receivesSnapshotsAndNacksWhatTheSinkRefuses() throws Exception {
    cache.setSnapshot("edge-1", snapshot("1", endpoints("web", 8081), listener("ingress", 10000, "routes-a")));
    client = XdsFixtures.client(XdsFixtures.config(XdsClientConfig.Variant.SOTW, Duration.ofSeconds(30),
        Optional.empty(), server.getPort()).withoutOverloadPolicy(), sink, stats);
    client.start();

    client.ready().get(30, TimeUnit.SECONDS);
    assertThat(sink.order()).containsExactly(XdsResourceType.CLUSTER, XdsResourceType.ENDPOINT,
        XdsResourceType.LISTENER, XdsResourceType.ROUTE);
    assertThat(sink.await(XdsResourceType.ENDPOINT, a -> true).resources()).containsKey("web");
    assertThat(client.status().types().get(XdsResourceType.ROUTE).acceptedVersion()).contains("1");

    // A new snapshot with a changed endpoint reaches the sink.
    int before = sink.applied().size();
    cache.setSnapshot("edge-1", snapshot("2", endpoints("web", 9091), listener("ingress", 10000, "routes-a")));
    RecordingSink.Applied changed = sink.await(before, XdsResourceType.ENDPOINT,
        a -> a.resources().get("web").equals(endpoints("web", 9091)));
    assertThat(changed.names()).containsExactly("web");

    // A snapshot the sink refuses is NACKed; the error reaches the server's callbacks.
    sink.refuse(name -> name.equals("bad"));
    cache.setSnapshot("edge-1", snapshot("3", endpoints("web", 9091), listener("ingress", 10000, "routes-a"),
        listener("bad", 10001, null)));
    DiscoveryRequest nack = awaitRequest(r -> r.getTypeUrl().equals(LDS) && r.hasErrorDetail());
    assertThat(nack.getErrorDetail().getMessage()).isEqualTo("lds[\"bad\"].name: refused by the test sink");
    assertThat(nack.getVersionInfo()).isEqualTo("2");
    assertThat(client.status().types().get(XdsResourceType.LISTENER).acceptedVersion()).contains("2");

    // The next good snapshot is ACKed.
    cache.setSnapshot("edge-1", snapshot("4", endpoints("web", 9091), listener("ingress", 10000, "routes-a")));
    awaitRequest(r -> r.getTypeUrl().equals(LDS) && r.getVersionInfo().equals("4") && !r.hasErrorDetail());
    assertThat(client.status().types().get(XdsResourceType.LISTENER).acceptedVersion()).contains("4");
  }

  /** The client as the edge builds it from a bootstrap with only {@code dynamic_resources}. */
  private XdsClientConfig defaults() {
    return XdsFixtures.config(XdsClientConfig.Variant.SOTW, Duration.ofSeconds(30), Optional.empty(), server.getPort())
        .withPolicySubscription(XdsClientConfig.PolicySubscription.ADVERTISED);
  }

  @Test
  void withTheDefaultsOneStreamStaysUpAndANackReachesTheServer() throws Exception {
    cache.setSnapshot("edge-1", snapshot("1", endpoints("web", 8081), listener("ingress", 10000, "routes-a")));
    client = XdsFixtures.client(defaults(), sink, stats);
    client.start();
    client.ready().get(30, TimeUnit.SECONDS);

    // Ten seconds (the reconnect back-off here is 20 to 200 ms: a stream the server ended would
    // have been replaced many times over).
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < until) {
      assertThat(streamEvents).hasSize(1);
      Thread.sleep(100);
    }
    assertThat(streamEvents).hasSize(1).allMatch(e -> e.startsWith("open "));
    assertThat(client.status().connected()).isTrue();
    assertThat(XdsFixtures.stat(stats, "control_plane.connected_state")).isEqualTo(1);
    assertThat(XdsFixtures.stat(stats, "cluster_manager.cds.update_failure")).isZero();
    assertThat(requests).noneMatch(r -> r.getTypeUrl().equals(XdsFixtures.POLICY));

    // A listener the edge refuses is NACKed on that same stream, and the server sees why.
    sink.refuse(name -> name.equals("bad"));
    cache.setSnapshot("edge-1", snapshot("2", endpoints("web", 8081), listener("ingress", 10000, "routes-a"),
        listener("bad", 10001, null)));
    DiscoveryRequest nack = awaitRequest(r -> r.getTypeUrl().equals(LDS) && r.hasErrorDetail());
    assertThat(nack.getErrorDetail().getMessage()).isEqualTo("lds[\"bad\"].name: refused by the test sink");
    assertThat(nack.getVersionInfo()).isEqualTo("1");
    assertThat(streamEvents).hasSize(1);
  }

  @Test
  void askedForThePolicyTypeJavaControlPlaneEndsTheStream() throws Exception {
    // Why the policy waits for the server to advertise it: asked from the start, this server ends
    // every stream, and the client keeps reconnecting.
    cache.setSnapshot("edge-1", snapshot("1", endpoints("web", 8081), listener("ingress", 10000, "routes-a")));
    client = XdsFixtures.client(defaults().withPolicySubscription(XdsClientConfig.PolicySubscription.ALWAYS),
        sink, stats);
    client.start();
    long deadline = System.nanoTime() + ScriptedAdsServer.WAIT.toNanos();
    while (streamEvents.stream().filter(e -> e.startsWith("open ")).count() < 3 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(streamEvents.stream().filter(e -> e.startsWith("open ")).count()).isGreaterThanOrEqualTo(3);
    assertThat(XdsFixtures.stat(stats, "xds.policy.update_failure")).isGreaterThanOrEqualTo(2);
  }
}
