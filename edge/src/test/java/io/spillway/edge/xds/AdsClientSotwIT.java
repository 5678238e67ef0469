package io.spillway.edge.xds;

import static io.spillway.edge.xds.XdsFixtures.CDS;
import static io.spillway.edge.xds.XdsFixtures.EDS;
import static io.spillway.edge.xds.XdsFixtures.LDS;
import static io.spillway.edge.xds.XdsFixtures.POLICY;
import static io.spillway.edge.xds.XdsFixtures.RDS;
import static io.spillway.edge.xds.XdsFixtures.edsCluster;
import static io.spillway.edge.xds.XdsFixtures.endpoints;
import static io.spillway.edge.xds.XdsFixtures.listener;
import static io.spillway.edge.xds.XdsFixtures.routes;
import static io.spillway.edge.xds.XdsFixtures.sotw;
import static io.spillway.edge.xds.XdsFixtures.stat;
import static io.spillway.edge.xds.XdsFixtures.staticCluster;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.Resource;
import io.grpc.Metadata;
import io.spillway.edge.config.ConfigException;
import io.spillway.edge.config.XdsClientConfig;
import io.spillway.edge.xds.LastKnownGoodStore.StoredResource;
import io.spillway.edge.xds.LastKnownGoodStore.StoredType;
import io.spillway.policy.ParseResult;
import io.spillway.policy.PolicyProto;
import io.spillway.policy.v1.Inbound;
import io.spillway.policy.v1.OverloadPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The State-of-the-World ADS client against a scripted server on a real loopback port. */
class AdsClientSotwIT extends AdsClientIT {

  private static final Duration LONG = Duration.ofSeconds(30);

  private static boolean is(DiscoveryRequest r, String typeUrl) {
    return r.getTypeUrl().equals(typeUrl);
  }

  private static boolean ack(DiscoveryRequest r, String typeUrl, String version, String nonce) {
    return is(r, typeUrl) && r.getVersionInfo().equals(version) && r.getResponseNonce().equals(nonce)
        && !r.hasErrorDetail();
  }

  /** Drives the first round: CDS (EDS cluster web + static), EDS web-eds, LDS (routes-a), RDS routes-a. */
  private void firstRound() throws Exception {
    DiscoveryRequest cds = server.awaitSotw(0, r -> is(r, CDS));
    assertThat(cds.getVersionInfo()).isEmpty();
    assertThat(cds.getResponseNonce()).isEmpty();
    assertThat(cds.getResourceNamesList()).isEmpty();
    assertThat(cds.getNode().getId()).isEqualTo("edge-1");
    assertThat(cds.getNode().getUserAgentName()).isEqualTo("spillway");
    server.awaitSotw(0, r -> is(r, POLICY));
    assertThat(server.sotwRequests()).noneMatch(r -> is(r.request(), LDS) || is(r.request(), EDS));

    server.send(sotw(CDS, "c1", "n1", edsCluster("web", "web-eds"), staticCluster("local", 9)));
    server.awaitSotw(0, r -> ack(r, CDS, "c1", "n1"));
    DiscoveryRequest eds = server.awaitSotw(0, r -> is(r, EDS));
    assertThat(eds.getResourceNamesList()).containsExactly("web-eds");
    assertThat(server.sotwRequests()).noneMatch(r -> is(r.request(), LDS));

    server.send(sotw(EDS, "e1", "n2", endpoints("web-eds", 8081), endpoints("not-asked-for", 8082)));
    server.awaitSotw(0, r -> ack(r, EDS, "e1", "n2"));
    DiscoveryRequest lds = server.awaitSotw(0, r -> is(r, LDS));
    assertThat(lds.getResourceNamesList()).isEmpty();

    server.send(sotw(LDS, "l1", "n3", listener("ingress", 10000, "routes-a")));
    server.awaitSotw(0, r -> ack(r, LDS, "l1", "n3"));
    DiscoveryRequest rds = server.awaitSotw(0, r -> is(r, RDS));
    assertThat(rds.getResourceNamesList()).containsExactly("routes-a");

    server.send(sotw(RDS, "r1", "n4", routes("routes-a", "a.example")));
    server.awaitSotw(0, r -> ack(r, RDS, "r1", "n4"));
    client.ready().get(LONG.toSeconds(), TimeUnit.SECONDS);
  }

  @Test
  void firstRoundIsOrderedAndEveryResponseIsAckedAfterTheSinkApplied() throws Exception {
    server = ScriptedAdsServer.start();
    client = XdsFixtures.client(XdsFixtures.config(XdsClientConfig.Variant.SOTW, LONG, Optional.of(dir), server.port()),
        sink, stats);
    client.start();

    firstRound();

    assertThat(sink.order()).containsExactly(XdsResourceType.CLUSTER, XdsResourceType.ENDPOINT,
        XdsResourceType.LISTENER, XdsResourceType.ROUTE);
    assertThat(sink.applied().get(0).names()).containsExactlyInAnyOrder("web", "local");
    assertThat(sink.applied().get(1).names()).containsExactly("web-eds");
    assertThat(sink.applied()).allMatch(a -> a.thread().equals("spillway-xds"));
    assertThat(server.streamHeaders().get(0).get(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER)))
        .isEqualTo("Bearer test-token");

    assertThat(stat(stats, "control_plane.connected_state")).isEqualTo(1);
    assertThat(stat(stats, "cluster_manager.cds.update_success")).isEqualTo(1);
    assertThat(stat(stats, "cluster_manager.cds.version")).isEqualTo(XdsStats.versionHash("c1"));
    assertThat(stat(stats, "listener_manager.lds.update_success")).isEqualTo(1);
    assertThat(stat(stats, "xds.eds.update_success")).isEqualTo(1);
    assertThat(stat(stats, "xds.rds.update_success")).isEqualTo(1);
    // Envoy's per cluster EDS stats, under the cluster's name (not its EDS service name).
    assertThat(stat(stats, "cluster.web.update_attempt")).isEqualTo(1);
    assertThat(stat(stats, "cluster.web.update_success")).isEqualTo(1);
    assertThat(stat(stats, "cluster.web.version")).isEqualTo(XdsStats.versionHash("e1"));
    assertThat(stats.find("cluster.web-eds.update_success")).isEmpty();
    // Envoy's per route configuration stats, under the connection manager's stat prefix.
    assertThat(stat(stats, "http.ingress.rds.routes-a.update_success")).isEqualTo(1);
    assertThat(stat(stats, "http.ingress.rds.routes-a.version")).isEqualTo(XdsStats.versionHash("r1"));

    XdsStatus status = client.status();
    assertThat(status.connected()).isTrue();
    assertThat(status.server()).contains("127.0.0.1:" + server.port());
    assertThat(status.types().get(XdsResourceType.CLUSTER).acceptedVersion()).contains("c1");
    assertThat(status.types().get(XdsResourceType.ROUTE).lastNonce()).isEqualTo("n4");
    assertThat(status.types().get(XdsResourceType.ENDPOINT).subscribed()).containsExactly("web-eds");

    // The accepted state is on disk.
    Map<XdsResourceType, StoredType> stored = new LastKnownGoodStore(dir).load();
    assertThat(stored.get(XdsResourceType.ROUTE).version()).isEqualTo("r1");
    assertThat(stored.get(XdsResourceType.CLUSTER).resources()).containsOnlyKeys("web", "local");
  }

  @Test
  void aClusterMissingFromAResponseIsRemovedAndItsEndpointsUnsubscribed() throws Exception {
    server = ScriptedAdsServer.start();
    client = XdsFixtures.client(XdsFixtures.config(XdsClientConfig.Variant.SOTW, LONG, Optional.empty(), server.port()),
        sink, stats);
    client.start();
    firstRound();
    int before = sink.applied().size();
    int requests = server.sotwRequests().size();

    server.send(sotw(CDS, "c2", "n5", staticCluster("local", 9)));

    assertThat(sink.await(before, XdsResourceType.CLUSTER, a -> true).names()).containsExactly("local");
    assertThat(sink.await(before, XdsResourceType.ENDPOINT, a -> true).names()).isEmpty();
    server.awaitSotw(requests, r -> ack(r, CDS, "c2", "n5"));
    DiscoveryRequest eds = server.awaitSotw(requests, r -> is(r, EDS));
    assertThat(eds.getResourceNamesList()).isEmpty();
    assertThat(eds.getVersionInfo()).isEqualTo("e1");
    assertThat(eds.getResponseNonce()).isEqualTo("n2");

    // A listener that names new routes subscribes to them; the old name is dropped.
    server.send(sotw(LDS, "l2", "n6", listener("ingress", 10000, "routes-b")));
    DiscoveryRequest rds = server.awaitSotw(requests, r -> is(r, RDS) && r.getResourceNamesList().contains("routes-b"));
    assertThat(rds.getResourceNamesList()).containsExactly("routes-b");
  }

  @Test
  void aRefusedUpdateIsNackedWithTheSinksMessageAndThePreviousVersionStays() throws Exception {
    server = ScriptedAdsServer.start();
    client = XdsFixtures.client(XdsFixtures.config(XdsClientConfig.Variant.SOTW, LONG, Optional.empty(), server.port()),
        sink, stats);
    client.start();
    firstRound();
    sink.refuse(name -> name.equals("bad"));
    int requests = server.sotwRequests().size();
    int applied = sink.applied().size();

    server.send(sotw(LDS, "l2", "n5", listener("ingress", 10000, "routes-a"), listener("bad", 10001, null)));

    DiscoveryRequest nack = server.awaitSotw(requests, r -> is(r, LDS) && r.hasErrorDetail());
    assertThat(nack.getVersionInfo()).isEqualTo("l1");
    assertThat(nack.getResponseNonce()).isEqualTo("n5");
    assertThat(nack.getErrorDetail().getMessage()).isEqualTo("lds[\"bad\"].name: refused by the test sink");
    assertThat(nack.getErrorDetail().getCode()).isEqualTo(3);
    assertThat(stat(stats, "listener_manager.lds.update_rejected")).isEqualTo(1);
    assertThat(stat(stats, "listener_manager.lds.version")).isEqualTo(XdsStats.versionHash("l1"));
    XdsStatus.TypeStatus lds = client.status().types().get(XdsResourceType.LISTENER);
    assertThat(lds.acceptedVersion()).contains("l1");
    assertThat(lds.lastNackMessage()).contains("lds[\"bad\"].name: refused by the test sink");
    assertThat(lds.lastNackTime()).isPresent();

    // A resource of the wrong type is NACKed too, naming it.
    server.send(DiscoveryResponse.newBuilder().setTypeUrl(LDS).setVersionInfo("l3").setNonce("n6")
        .addResources(Any.pack(routes("oops", "x"))).build());
    DiscoveryRequest wrongType = server.awaitSotw(requests, r -> is(r, LDS) && r.getResponseNonce().equals("n6"));
    assertThat(wrongType.getErrorDetail().getMessage()).startsWith("listener at resources[0] is a " + RDS);
    assertThat(wrongType.getVersionInfo()).isEqualTo("l1");

    // One that cannot be parsed is named by its type and, read from what parsed, its name.
    com.google.protobuf.ByteString broken = Listener.newBuilder().setName("broken").build().toByteString()
        .concat(com.google.protobuf.ByteString.copyFrom(new byte[] {0}));
    server.send(DiscoveryResponse.newBuilder().setTypeUrl(LDS).setVersionInfo("l3").setNonce("n6b")
        .addResources(Any.newBuilder().setTypeUrl(LDS).setValue(broken)).build());
    DiscoveryRequest unparsable = server.awaitSotw(requests, r -> is(r, LDS) && r.getResponseNonce().equals("n6b"));
    assertThat(unparsable.getErrorDetail().getMessage()).startsWith("listener \"broken\" (resources[0]) cannot be "
        + "decoded as " + LDS + ": ");
    assertThat(client.status().types().get(XdsResourceType.LISTENER).lastNackMessage())
        .hasValueSatisfying(m -> assertThat(m).startsWith("listener \"broken\""));

    server.send(sotw(LDS, "l4", "n7", listener("ingress", 10000, "routes-a"), listener("good", 10002, null)));
    server.awaitSotw(requests, r -> ack(r, LDS, "l4", "n7"));
    assertThat(sink.applied().subList(applied, sink.applied().size()))
        .extracting(RecordingSink.Applied::type).containsExactly(XdsResourceType.LISTENER);
    assertThat(client.status().types().get(XdsResourceType.LISTENER).acceptedVersion()).contains("l4");
  }

  @Test
  void theOverloadPolicyTravelsAsItsOwnResourceAndIsValidatedByThePolicyValidator() throws Exception {
    server = ScriptedAdsServer.start();
    XdsConfigSink validating = (type, resources) -> {
      if (type == XdsResourceType.OVERLOAD_POLICY) {
        for (var e : resources.entrySet()) {
          ParseResult parsed = PolicyProto.parse((OverloadPolicy) e.getValue());
          if (!parsed.valid()) {
            throw new ConfigException("policy[\"" + e.getKey() + "\"]", parsed.firstProblem().orElseThrow().message());
          }
        }
      }
      sink.apply(type, resources);
    };
    client = XdsFixtures.client(XdsFixtures.config(XdsClientConfig.Variant.SOTW, LONG, Optional.empty(), server.port()),
        validating, stats);
    client.start();
    server.awaitSotw(0, r -> is(r, POLICY));

    OverloadPolicy good = OverloadPolicy.newBuilder().setInbound(Inbound.newBuilder().setMaxInFlight(300)).build();
    server.send(DiscoveryResponse.newBuilder().setTypeUrl(POLICY).setVersionInfo("p1").setNonce("n1")
        .addResources(Any.pack(Resource.newBuilder().setName("edge-1").setResource(Any.pack(good)).build())).build());
    RecordingSink.Applied applied = sink.await(XdsResourceType.OVERLOAD_POLICY, a -> true);
    assertThat(applied.resources()).containsEntry("edge-1", good);
    server.awaitSotw(0, r -> ack(r, POLICY, "p1", "n1"));

    OverloadPolicy outOfRange = OverloadPolicy.newBuilder()
        .setInbound(Inbound.newBuilder().setRetryAfterSeconds(61)).build();
    server.send(sotw(POLICY, "p2", "n2", outOfRange));
    DiscoveryRequest nack = server.awaitSotw(0, r -> is(r, POLICY) && r.hasErrorDetail());
    assertThat(nack.getErrorDetail().getMessage())
        .isEqualTo("policy[\"default\"]: inbound.retryAfterSeconds must be between 1 and 60");
    assertThat(nack.getVersionInfo()).isEqualTo("p1");
    assertThat(stat(stats, "xds.policy.update_rejected")).isEqualTo(1);
  }

  @Test
  void aServerThatDiesAndComesBackGetsTheHeldVersionsOnTheNewStream() throws Exception {
    server = ScriptedAdsServer.start();
    int port = server.port();
    client = XdsFixtures.client(XdsFixtures.config(XdsClientConfig.Variant.SOTW, LONG, Optional.empty(), port),
        sink, stats);
    client.start();
    firstRound();
    int applied = sink.applied().size();

    server.close();
    awaitTrue(() -> stat(stats, "control_plane.connected_state") == 0 && !client.status().connected());
    server = ScriptedAdsServer.start(port);

    DiscoveryRequest cds = server.awaitSotw(0, r -> is(r, CDS));
    assertThat(cds.getVersionInfo()).isEqualTo("c1");
    assertThat(cds.getResponseNonce()).isEmpty();
    assertThat(cds.hasNode()).isTrue();
    DiscoveryRequest eds = server.awaitSotw(0, r -> is(r, EDS));
    assertThat(eds.getVersionInfo()).isEqualTo("e1");
    assertThat(eds.getResourceNamesList()).containsExactly("web-eds");
    assertThat(server.awaitSotw(0, r -> is(r, LDS)).getVersionInfo()).isEqualTo("l1");
    DiscoveryRequest rds = server.awaitSotw(0, r -> is(r, RDS));
    assertThat(rds.getVersionInfo()).isEqualTo("r1");
    assertThat(rds.getResourceNamesList()).containsExactly("routes-a");
    // Nothing was re-applied while disconnected: the edge kept serving what it had.
    assertThat(sink.applied()).hasSize(applied);

    server.send(sotw(CDS, "c2", "m1", edsCluster("web", "web-eds")));
    server.awaitSotw(0, r -> ack(r, CDS, "c2", "m1"));
    awaitTrue(() -> client.status().connected());
    assertThat(stat(stats, "control_plane.connected_state")).isEqualTo(1);
    assertThat(stat(stats, "cluster_manager.cds.update_failure")).isGreaterThanOrEqualTo(1);
  }

  @Test
  void byDefaultThePolicyIsAskedForOnceAResponseAdvertisesIt() throws Exception {
    server = ScriptedAdsServer.start();
    client = XdsFixtures.client(XdsFixtures.config(XdsClientConfig.Variant.SOTW, LONG, Optional.empty(), server.port())
        .withPolicySubscription(XdsClientConfig.PolicySubscription.ADVERTISED), sink, stats);
    client.start();

    server.awaitSotw(0, r -> is(r, CDS));
    server.send(sotw(CDS, "c1", "n1", staticCluster("local", 9)));
    server.awaitSotw(0, r -> ack(r, CDS, "c1", "n1"));
    server.awaitSotw(0, r -> is(r, LDS));
    // A server that does not say it serves the policy is not asked for it.
    assertThat(server.sotwRequests()).noneMatch(r -> is(r.request(), POLICY));

    server.send(sotw(LDS, "l1", "n2").toBuilder().setControlPlane(io.envoyproxy.envoy.config.core.v3.ControlPlane
        .newBuilder().setIdentifier("spillway-central " + POLICY)).build());
    server.awaitSotw(0, r -> ack(r, LDS, "l1", "n2"));
    DiscoveryRequest policy = server.awaitSotw(0, r -> is(r, POLICY));
    assertThat(policy.getResponseNonce()).isEmpty();
    client.ready().get(10, java.util.concurrent.TimeUnit.SECONDS);
  }

  @Test
  void theNodeGoesOnlyOnTheFirstRequestWhenSoConfigured() throws Exception {
    server = ScriptedAdsServer.start();
    XdsClientConfig base = XdsFixtures.config(XdsClientConfig.Variant.SOTW, LONG, Optional.empty(), server.port());
    XdsClientConfig firstOnly = new XdsClientConfig(base.servers(), base.variant(), base.node(), true,
        base.initialFetchTimeout(), base.backoffBase(), base.backoffCap(), base.stateDirectory(),
        base.policySubscription());
    client = XdsFixtures.client(firstOnly, sink, stats);
    client.start();

    server.awaitSotw(0, r -> is(r, POLICY));
    server.send(sotw(CDS, "c1", "n1", staticCluster("local", 9)));
    server.awaitSotw(0, r -> ack(r, CDS, "c1", "n1"));

    List<DiscoveryRequest> sent = server.sotwRequests().stream().map(ScriptedAdsServer.Received::request).toList();
    assertThat(sent.get(0).getNode().getId()).isEqualTo("edge-1");
    assertThat(sent.subList(1, sent.size())).isNotEmpty().noneMatch(DiscoveryRequest::hasNode);
  }

  @Test
  void failsOverToTheNextServer() throws Exception {
    int deadPort;
    try (ScriptedAdsServer dead = ScriptedAdsServer.start()) {
      deadPort = dead.port();
    }
    server = ScriptedAdsServer.start();
    client = XdsFixtures.client(XdsFixtures.config(XdsClientConfig.Variant.SOTW, LONG, Optional.empty(), deadPort,
        server.port()), sink, stats);
    client.start();

    server.awaitSotw(0, r -> is(r, CDS));
    server.send(sotw(CDS, "c1", "n1", staticCluster("local", 9)));
    sink.await(XdsResourceType.CLUSTER, a -> a.names().equals(List.of("local")));
    assertThat(client.status().server()).contains("127.0.0.1:" + server.port());
  }

  @Test
  void withNoServerTheLastKnownGoodStateIsAppliedInTypeOrderAndOfferedOnReconnect() throws Exception {
    new LastKnownGoodStore(dir).save(Map.of(
        XdsResourceType.LISTENER, stored("l9", listener("ingress", 10000, "routes-a")),
        XdsResourceType.ROUTE, stored("r9", routes("routes-a", "a.example")),
        XdsResourceType.CLUSTER, stored("c9", edsCluster("web", null)),
        XdsResourceType.ENDPOINT, stored("e9", endpoints("web", 8081))), Instant.now());
    int port;
    try (ScriptedAdsServer nobody = ScriptedAdsServer.start()) {
      port = nobody.port();
    }
    client = XdsFixtures.client(XdsFixtures.config(XdsClientConfig.Variant.SOTW, Duration.ofMillis(300),
        Optional.of(dir), port), sink, stats);
    client.start();

    client.ready().get(LONG.toSeconds(), TimeUnit.SECONDS);

    assertThat(sink.order()).containsExactly(XdsResourceType.CLUSTER, XdsResourceType.ENDPOINT,
        XdsResourceType.LISTENER, XdsResourceType.ROUTE);
    assertThat(sink.applied().get(3).names()).containsExactly("routes-a");
    XdsStatus.TypeStatus clusters = client.status().types().get(XdsResourceType.CLUSTER);
    assertThat(clusters.fromLastKnownGood()).isTrue();
    assertThat(clusters.acceptedVersion()).contains("c9");
    assertThat(stat(stats, "cluster_manager.cds.init_fetch_timeout")).isEqualTo(1);

    server = ScriptedAdsServer.start(port);
    assertThat(server.awaitSotw(0, r -> is(r, CDS)).getVersionInfo()).isEqualTo("c9");
    DiscoveryRequest eds = server.awaitSotw(0, r -> is(r, EDS));
    assertThat(eds.getVersionInfo()).isEqualTo("e9");
    assertThat(eds.getResourceNamesList()).containsExactly("web");
    assertThat(server.awaitSotw(0, r -> is(r, RDS)).getVersionInfo()).isEqualTo("r9");
  }

  @Test
  void aServerThatNeverAnswersLetsTheEdgeStartFromTheLastKnownGoodState() throws Exception {
    new LastKnownGoodStore(dir).save(Map.of(XdsResourceType.CLUSTER, stored("c9", staticCluster("local", 9)),
        XdsResourceType.LISTENER, stored("l9", listener("ingress", 10000, null))), Instant.now());
    server = ScriptedAdsServer.start();
    client = XdsFixtures.client(XdsFixtures.config(XdsClientConfig.Variant.SOTW, Duration.ofMillis(300),
        Optional.of(dir), server.port()), sink, stats);
    client.start();

    server.awaitSotw(0, r -> is(r, CDS));
    client.ready().get(LONG.toSeconds(), TimeUnit.SECONDS);

    assertThat(sink.order()).containsExactly(XdsResourceType.CLUSTER, XdsResourceType.LISTENER);
    // Connected, though the server says nothing.
    awaitTrue(() -> client.status().connected());
    assertThat(stat(stats, "control_plane.connected_state")).isEqualTo(1);
    // The gate opened by the timeout: listeners are now subscribed on the open stream.
    server.awaitSotw(0, r -> is(r, LDS));
  }

  @Test
  void aCorruptLastKnownGoodFileIsIgnoredAndTheEdgeStartsEmpty() throws Exception {
    java.nio.file.Files.writeString(dir.resolve(LastKnownGoodStore.FILE_NAME), "garbage");
    int port;
    try (ScriptedAdsServer nobody = ScriptedAdsServer.start()) {
      port = nobody.port();
    }
    client = XdsFixtures.client(XdsFixtures.config(XdsClientConfig.Variant.SOTW, Duration.ofMillis(200),
        Optional.of(dir), port), sink, stats);
    client.start();

    client.ready().get(LONG.toSeconds(), TimeUnit.SECONDS);

    assertThat(sink.applied()).isEmpty();
  }

  private static StoredType stored(String version, com.google.protobuf.Message resource) {
    String name = switch (resource) {
      case io.envoyproxy.envoy.config.cluster.v3.Cluster c -> c.getName();
      case io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment a -> a.getClusterName();
      case io.envoyproxy.envoy.config.listener.v3.Listener l -> l.getName();
      case io.envoyproxy.envoy.config.route.v3.RouteConfiguration r -> r.getName();
      default -> "default";
    };
    return new StoredType(version, Map.of(name, new StoredResource("", Any.pack(resource))));
  }

  static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + ScriptedAdsServer.WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within " + ScriptedAdsServer.WAIT);
      }
      Thread.sleep(5);
    }
  }
}
