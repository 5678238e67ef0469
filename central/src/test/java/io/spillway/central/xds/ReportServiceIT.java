package io.spillway.central.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.spillway.report.EdgeReportProto;
import io.spillway.report.EdgeReportProto.EdgeReport;
import io.spillway.report.EdgeReportProto.ReportAck;
import io.spillway.report.EdgeReportService;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The edge report service on central's real xDS server, called by a plain grpc-java client over
 * loopback: authentication by credential and node id, and the reports visible at
 * {@code GET /configuration/edges/{id}/metrics}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReportServiceIT {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private TestCentral central;

  @BeforeAll
  void start() throws Exception {
    central = TestCentral.h2();
  }

  @AfterAll
  void stop() throws Exception {
    if (central != null) {
      central.close();
    }
  }

  private static String newId() {
    return "edge-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** One report stream of a grpc-java client presenting {@code credential}. */
  private final class ReportCall implements AutoCloseable {
    final ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", central.xdsPort()).usePlaintext().build();
    final CompletableFuture<Status> ended = new CompletableFuture<>();
    final StreamObserver<EdgeReport> requests;

    ReportCall(String credential) {
      Metadata headers = new Metadata();
      if (credential != null) {
        headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + credential);
      }
      io.grpc.Channel intercepted = io.grpc.ClientInterceptors.intercept(channel,
          MetadataUtils.newAttachHeadersInterceptor(headers));
      requests = ClientCalls.asyncClientStreamingCall(intercepted.newCall(EdgeReportService.REPORT, CallOptions.DEFAULT),
          new StreamObserver<ReportAck>() {
            @Override
            public void onNext(ReportAck value) {}

            @Override
            public void onError(Throwable t) {
              ended.complete(Status.fromThrowable(t));
            }

            @Override
            public void onCompleted() {
              ended.complete(Status.OK);
            }
          });
    }

    Status ended() throws Exception {
      return ended.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() throws InterruptedException {
      channel.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static EdgeReport report(String nodeId, long t, long enforceProxy, long shadowStart) {
    return EdgeReport.newBuilder()
        .setNodeId(nodeId).setTimestampMs(t).setIntervalMs(5_000).setStartedAtMs(1)
        .setAdmission(EdgeReportProto.Admission.newBuilder().setMode("enforce").setLimit(200).setInFlight(12)
            .addRefused(EdgeReportProto.TierRefusals.newBuilder().setTier("start").setShadow(shadowStart))
            .addRefused(EdgeReportProto.TierRefusals.newBuilder().setTier("continuation"))
            .addRefused(EdgeReportProto.TierRefusals.newBuilder().setTier("proxy").setEnforce(enforceProxy)))
        .setExecutorLagMs(4)
        .addPeers(EdgeReportProto.Peer.newBuilder().setName("backend").setInFlight(3).setWaiting(1)
            .setBreaker(EdgeReportProto.BreakerState.HALF_OPEN))
        .build();
  }

  private JsonNode metricsWithPoints(String id, int points) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      HttpResponse<String> response = central.send("GET", "/configuration/edges/" + id + "/metrics", null);
      assertThat(response.statusCode()).isEqualTo(200);
      JsonNode body = TestCentral.parse(response.body());
      if (body.get("points").size() >= points || System.nanoTime() > deadline) {
        return body;
      }
      Thread.sleep(20);
    }
  }

  @Test
  void aReportOfAnotherEdgeIsRefused() throws Exception {
    String mine = newId();
    String other = newId();
    String credential = central.register(mine);
    central.register(other);
    try (ReportCall call = new ReportCall(credential)) {
      call.requests.onNext(report(other, 1, 0, 0));
      Status status = call.ended();
      assertThat(status.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(status.getDescription()).contains("credential does not match").contains(other);
    }
    assertThat(metricsWithPoints(other, 0).get("points")).isEmpty();
  }

  @Test
  void aReportOfAnUnregisteredNodeOrWithoutCredentialIsRefused() throws Exception {
    try (ReportCall call = new ReportCall("spe_whatever")) {
      call.requests.onNext(report("no-such-edge", 1, 0, 0));
      Status status = call.ended();
      assertThat(status.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(status.getDescription()).contains("not a registered edge");
    }
    try (ReportCall call = new ReportCall(null)) {
      call.requests.onNext(report("no-such-edge", 1, 0, 0));
      assertThat(call.ended().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    }
    assertThat(central.send("GET", "/configuration/edges/no-such-edge/metrics", null).statusCode()).isEqualTo(404);
  }

  @Test
  void reportsOfTheAuthenticatedEdgeAreServedAsPoints() throws Exception {
    String id = newId();
    String credential = central.register(id);
    assertThat(metricsWithPoints(id, 0).get("points")).isEmpty();
    try (ReportCall call = new ReportCall(credential)) {
      call.requests.onNext(report(id, 1_000, 10, 2));
      call.requests.onNext(report(id, 6_000, 13, 2));
      call.requests.onNext(report(id, 11_000, 13, 7));
      JsonNode body = metricsWithPoints(id, 3);
      assertThat(body.get("edgeId").asText()).isEqualTo(id);
      assertThat(body.get("intervalSeconds").asInt()).isEqualTo(5);
      JsonNode points = body.get("points");
      assertThat(points).hasSize(3);
      JsonNode second = points.get(1);
      assertThat(second.get("t").asLong()).isEqualTo(6_000);
      assertThat(second.get("mode").asText()).isEqualTo("enforce");
      assertThat(second.get("limit").asInt()).isEqualTo(200);
      assertThat(second.get("inFlight").asInt()).isEqualTo(12);
      assertThat(second.get("lagMs").asInt()).isEqualTo(4);
      assertThat(second.at("/refused/enforce/proxy").asInt()).isEqualTo(3);
      assertThat(second.at("/refused/shadow/start").asInt()).isZero();
      assertThat(points.get(2).at("/refused/shadow/start").asInt()).isEqualTo(5);
      assertThat(points.get(0).at("/refused/enforce/proxy").asInt()).isZero(); // the baseline
      assertThat(second.at("/peers/backend/inFlight").asInt()).isEqualTo(3);
      assertThat(second.at("/peers/backend/waiting").asInt()).isEqualTo(1);
      assertThat(second.at("/peers/backend/breaker").asText()).isEqualTo("half_open");

      // The same stream may not speak for another node.
      call.requests.onNext(report("someone-else", 16_000, 13, 7));
      Status status = call.ended();
      assertThat(status.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(status.getDescription()).contains("does not match the edge " + id);
    }
    // A deregistered edge's points are forgotten with it.
    assertThat(central.send("DELETE", "/configuration/edges/" + id, null).statusCode()).isEqualTo(204);
    assertThat(central.send("GET", "/configuration/edges/" + id + "/metrics", null).statusCode()).isEqualTo(404);
  }

  @Test
  void centralAdvertisesTheServiceInItsControlPlaneIdentifier() throws Exception {
    String id = newId();
    String credential = central.register(id);
    try (ScriptedAdsClient client = ScriptedAdsClient.sotw(central.xdsPort(), credential)) {
      client.subscribe(ScriptedAdsClient.node(id), XdsType.OVERLOAD_POLICY, "");
      String identifier = client.expect(WAIT).getControlPlane().getIdentifier();
      assertThat(EdgeReportService.advertisedBy(identifier)).isTrue();
    }
  }
}
