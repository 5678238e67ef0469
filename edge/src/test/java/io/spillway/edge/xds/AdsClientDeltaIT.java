package io.spillway.edge.xds;

import static io.spillway.edge.xds.XdsFixtures.CDS;
import static io.spillway.edge.xds.XdsFixtures.EDS;
import static io.spillway.edge.xds.XdsFixtures.LDS;
import static io.spillway.edge.xds.XdsFixtures.POLICY;
import static io.spillway.edge.xds.XdsFixtures.RDS;
import static io.spillway.edge.xds.XdsFixtures.delta;
import static io.spillway.edge.xds.XdsFixtures.edsCluster;
import static io.spillway.edge.xds.XdsFixtures.endpoints;
import static io.spillway.edge.xds.XdsFixtures.listener;
import static io.spillway.edge.xds.XdsFixtures.resource;
import static io.spillway.edge.xds.XdsFixtures.routes;
import static io.spillway.edge.xds.XdsFixtures.stat;
import static io.spillway.edge.xds.XdsFixtures.staticCluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.spillway.edge.config.XdsClientConfig;
import io.spillway.policy.v1.Outbound;
import io.spillway.policy.v1.OverloadPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The Delta (incremental) ADS client against a scripted server on a real loopback port. */
class AdsClientDeltaIT extends AdsClientIT {

  private static final Duration LONG = Duration.ofSeconds(30);

  private static boolean is(DeltaDiscoveryRequest r, String typeUrl) {
    return r.getTypeUrl().equals(typeUrl);
  }

  private static boolean ack(DeltaDiscoveryRequest r, String typeUrl, String nonce) {
    return is(r, typeUrl) && r.getResponseNonce().equals(nonce) && !r.hasErrorDetail();
  }

  private void start() {
    client = XdsFixtures.client(XdsFixtures.config(XdsClientConfig.Variant.DELTA, LONG, Optional.of(dir),
        server.port()), sink, stats);
    client.start();
  }

  private void firstRound() throws Exception {
    DeltaDiscoveryRequest cds = server.awaitDelta(0, r -> is(r, CDS));
    assertThat(cds.getResourceNamesSubscribeList()).isEmpty();
    assertThat(cds.getInitialResourceVersionsMap()).isEmpty();
    assertThat(cds.getNode().getId()).isEqualTo("edge-1");
    server.awaitDelta(0, r -> is(r, POLICY));

    server.send(delta(CDS, "s1", "n1", List.of(resource("web", "w1", edsCluster("web", null)),
        resource("a", "a1", staticCluster("a", 9)), resource("b", "b1", staticCluster("b", 10))), List.of()));
    server.awaitDelta(0, r -> ack(r, CDS, "n1"));
    DeltaDiscoveryRequest eds = server.awaitDelta(0, r -> is(r, EDS));
    assertThat(eds.getResourceNamesSubscribeList()).containsExactly("web");
    assertThat(server.deltaRequests()).noneMatch(r -> is(r.request(), LDS));

    server.send(delta(EDS, "s2", "n2", List.of(resource("web", "e1", endpoints("web", 8081))), List.of()));
    server.awaitDelta(0, r -> ack(r, EDS, "n2"));
    server.awaitDelta(0, r -> is(r, LDS));
    server.send(delta(LDS, "s3", "n3", List.of(resource("ingress", "l1", listener("ingress", 10000, "routes-a"))),
        List.of()));
    server.awaitDelta(0, r -> ack(r, LDS, "n3"));
    DeltaDiscoveryRequest rds = server.awaitDelta(0, r -> is(r, RDS));
    assertThat(rds.getResourceNamesSubscribeList()).containsExactly("routes-a");
    server.send(delta(RDS, "s4", "n4", List.of(resource("routes-a", "r1", routes("routes-a", "a.example"))),
        List.of()));
    server.awaitDelta(0, r -> ack(r, RDS, "n4"));
    client.ready().get(LONG.toSeconds(), TimeUnit.SECONDS);
  }

  @Test
  void firstRoundIsOrderedAndRemovalsAndAdditionsMergeIntoTheCompleteSet() throws Exception {
    server = ScriptedAdsServer.start();
    start();
    firstRound();
    assertThat(sink.order()).containsExactly(XdsResourceType.CLUSTER, XdsResourceType.ENDPOINT,
        XdsResourceType.LISTENER, XdsResourceType.ROUTE);
    int before = sink.applied().size();

    server.send(delta(CDS, "s5", "n5", List.of(resource("c", "c1", staticCluster("c", 11))), List.of("a")));

    assertThat(sink.await(before, XdsResourceType.CLUSTER, x -> true).names())
        .containsExactlyInAnyOrder("web", "b", "c");
    server.awaitDelta(0, r -> ack(r, CDS, "n5"));
    assertThat(client.status().types().get(XdsResourceType.CLUSTER).acceptedVersion()).contains("s5");

    // Removing the EDS cluster unsubscribes its endpoints and drops them.
    int requests = server.deltaRequests().size();
    server.send(delta(CDS, "s6", "n6", List.of(), List.of("web")));
    assertThat(sink.await(before, XdsResourceType.ENDPOINT, x -> true).names()).isEmpty();
    DeltaDiscoveryRequest unsubscribe = server.awaitDelta(requests, r -> is(r, EDS));
    assertThat(unsubscribe.getResourceNamesUnsubscribeList()).containsExactly("web");
    assertThat(unsubscribe.getResourceNamesSubscribeList()).isEmpty();
  }

  @Test
  void aRefusedUpdateIsNackedAndTheSetStaysAsItWas() throws Exception {
    server = ScriptedAdsServer.start();
    start();
    firstRound();
    sink.refuse(name -> name.equals("bad"));
    int before = sink.applied().size();

    server.send(delta(CDS, "s5", "n5", List.of(resource("bad", "x1", staticCluster("bad", 12))), List.of("a")));

    DeltaDiscoveryRequest nack = server.awaitDelta(0, r -> is(r, CDS) && r.getResponseNonce().equals("n5"));
    assertThat(nack.getErrorDetail().getMessage()).isEqualTo("cds[\"bad\"].name: refused by the test sink");
    assertThat(sink.applied()).hasSize(before);
    assertThat(client.status().types().get(XdsResourceType.CLUSTER).resourceNames())
        .containsExactlyInAnyOrder("web", "a", "b");
    assertThat(client.status().types().get(XdsResourceType.CLUSTER).acceptedVersion()).contains("s1");
    assertThat(stat(stats, "cluster_manager.cds.update_rejected")).isEqualTo(1);

    server.send(delta(CDS, "s6", "n6", List.of(), List.of("a")));
    server.awaitDelta(0, r -> ack(r, CDS, "n6"));
    assertThat(sink.await(before, XdsResourceType.CLUSTER, x -> true).names()).containsExactlyInAnyOrder("web", "b");
  }

  @Test
  void theOverloadPolicyArrivesByName() throws Exception {
    server = ScriptedAdsServer.start();
    start();
    server.awaitDelta(0, r -> is(r, POLICY));

    OverloadPolicy policy = OverloadPolicy.newBuilder().setOutbound(Outbound.newBuilder().setMaxQueue(7)).build();
    server.send(delta(POLICY, "p1", "n1", List.of(resource("edge-1", "p1", policy)), List.of()));

    assertThat(sink.await(XdsResourceType.OVERLOAD_POLICY, x -> true).resources()).isEqualTo(Map.of("edge-1", policy));
    server.awaitDelta(0, r -> ack(r, POLICY, "n1"));

    server.send(delta(POLICY, "p2", "n2", List.of(), List.of("edge-1")));
    assertThat(sink.await(1, XdsResourceType.OVERLOAD_POLICY, x -> true).resources()).isEmpty();
  }

  @Test
  void onReconnectEveryTypeIsResubscribedWithItsResourceVersions() throws Exception {
    server = ScriptedAdsServer.start();
    int port = server.port();
    start();
    firstRound();

    server.close();
    AdsClientSotwIT.awaitTrue(() -> !client.status().connected());
    server = ScriptedAdsServer.start(port);

    DeltaDiscoveryRequest cds = server.awaitDelta(0, r -> is(r, CDS));
    assertThat(cds.getInitialResourceVersionsMap()).isEqualTo(Map.of("web", "w1", "a", "a1", "b", "b1"));
    assertThat(cds.getResourceNamesSubscribeList()).isEmpty();
    DeltaDiscoveryRequest eds = server.awaitDelta(0, r -> is(r, EDS));
    assertThat(eds.getResourceNamesSubscribeList()).containsExactly("web");
    assertThat(eds.getInitialResourceVersionsMap()).isEqualTo(Map.of("web", "e1"));
    assertThat(server.awaitDelta(0, r -> is(r, LDS)).getInitialResourceVersionsMap())
        .isEqualTo(Map.of("ingress", "l1"));
    DeltaDiscoveryRequest rds = server.awaitDelta(0, r -> is(r, RDS));
    assertThat(rds.getResourceNamesSubscribeList()).containsExactly("routes-a");
    assertThat(rds.getInitialResourceVersionsMap()).isEqualTo(Map.of("routes-a", "r1"));

    // The per-resource versions survive a restart through the last-known-good file.
    assertThat(new LastKnownGoodStore(dir).load().get(XdsResourceType.CLUSTER).resources().get("web").version())
        .isEqualTo("w1");
  }
}
