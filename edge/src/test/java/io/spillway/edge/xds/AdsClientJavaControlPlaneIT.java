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
  private final StatsStore stats = new StatsStore();
  private final RecordingSink sink = new RecordingSink();
  private Server server;
  private AdsClient client;

  @BeforeEach
  void startServer() throws Exception {
    server = JavaControlPlane.start(cache, requests);
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
}
