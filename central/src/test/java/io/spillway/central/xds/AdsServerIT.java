package io.spillway.central.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.Resource;
import io.grpc.Status;
import io.spillway.policy.v1.Mode;
import io.spillway.policy.v1.OverloadPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Central's ADS server over real loopback sockets, driven by a scripted grpc-java client
 * (State of the World): authentication, the overload policy pushed on a PATCH, NACK handling,
 * re-subscription and the edge's status columns. One central (embedded database) per class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdsServerIT {

  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final String POLICY = XdsType.OVERLOAD_POLICY.typeUrl();

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

  private static OverloadPolicy policyOf(DiscoveryResponse response) throws Exception {
    assertThat(response.getTypeUrl()).isEqualTo(POLICY);
    assertThat(response.getResourcesCount()).isEqualTo(1);
    Resource wrapper = response.getResources(0).unpack(Resource.class);
    return wrapper.getResource().unpack(OverloadPolicy.class);
  }

  static String distribution(List<Double> millis) {
    List<Double> sorted = new ArrayList<>(millis);
    Collections.sort(sorted);
    return String.format("median %.2f ms, p99 %.2f ms, max %.2f ms (n=%d)", sorted.get(sorted.size() / 2),
        sorted.get((int) Math.ceil(sorted.size() * 0.99) - 1), sorted.get(sorted.size() - 1), sorted.size());
  }

  static double metric(String metrics, String prefix) {
    for (String line : metrics.split("\n")) {
      if (line.startsWith(prefix + " ")) {
        return Double.parseDouble(line.substring(prefix.length() + 1).trim());
      }
    }
    return 0;
  }

  private JsonNode awaitEdge(String id, Predicate<JsonNode> condition) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    JsonNode edge = central.edge(id);
    while (!condition.test(edge)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("edge " + id + " never reached the expected status: " + edge);
      }
      Thread.sleep(20);
      edge = central.edge(id);
    }
    return edge;
  }

  @Test
  void streamWithoutCredentialIsUnauthenticatedAndCounted() throws Exception {
    String label = "central_xds_auth_failures_total{reason=\"missing_credential\"}";
    double before = metric(central.metrics(), label);
    try (ScriptedAdsClient client = ScriptedAdsClient.sotw(central.xdsPort(), null)) {
      client.subscribe(ScriptedAdsClient.node("anyone"), XdsType.OVERLOAD_POLICY, "");
      Status status = client.ended(WAIT);
      assertThat(status.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
      assertThat(status.getDescription()).contains("authorization: Bearer");
    }
    assertThat(metric(central.metrics(), label)).isEqualTo(before + 1);
  }

  @Test
  void unregisteredNodeIsPermissionDeniedAndCounted() throws Exception {
    String label = "central_xds_auth_failures_total{reason=\"unknown_node\"}";
    double before = metric(central.metrics(), label);
    try (ScriptedAdsClient client = ScriptedAdsClient.sotw(central.xdsPort(), "spe_whatever")) {
      client.subscribe(ScriptedAdsClient.node("no-such-edge"), XdsType.OVERLOAD_POLICY, "");
      Status status = client.ended(WAIT);
      assertThat(status.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(status.getDescription()).contains("no-such-edge").contains("not a registered edge");
    }
    assertThat(metric(central.metrics(), label)).isEqualTo(before + 1);
  }

  @Test
  void wrongCredentialIsPermissionDeniedCountedAndRecorded() throws Exception {
    String id = newId();
    String credential = central.register(id);
    String label = "central_xds_auth_failures_total{reason=\"bad_credential\"}";
    double before = metric(central.metrics(), label);
    try (ScriptedAdsClient client = ScriptedAdsClient.sotw(central.xdsPort(), credential + "x")) {
      client.subscribe(ScriptedAdsClient.node(id), XdsType.OVERLOAD_POLICY, "");
      Status status = client.ended(WAIT);
      assertThat(status.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(status.getDescription()).contains("credential does not match").contains(id).doesNotContain(credential);
    }
    assertThat(metric(central.metrics(), label)).isEqualTo(before + 1);
    assertThat(central.edge(id).path("status").path("connected").asBoolean()).isFalse();
    // The registry shows the refusal.
    awaitEdge(id, e -> e.path("status").path("lastAuthFailure").path("reason").asText().contains("credential does not match"));
  }

  @Test
  void patchReachesTheConnectedEdge() throws Exception {
    String id = newId();
    String credential = central.register(id);
    try (ScriptedAdsClient client = ScriptedAdsClient.sotw(central.xdsPort(), credential)) {
      client.subscribe(ScriptedAdsClient.node(id), XdsType.OVERLOAD_POLICY, "");
      DiscoveryResponse first = client.expect(WAIT);
      assertThat(first.getTypeUrl()).isEqualTo(POLICY);
      assertThat(first.getVersionInfo()).isEqualTo("0");
      assertThat(first.getResourcesCount()).isZero(); // no policy: the edge's deployment defaults
      client.ack(first);

      List<Double> millis = new ArrayList<>();
      List<Double> patchMillis = new ArrayList<>();
      String metricsBefore = central.metrics();
      for (int i = 1; i <= 50; i++) {
        String mode = i % 2 == 1 ? "enforce" : "shadow";
        long started = System.nanoTime();
        central.patch(id, "{\"overload\": {\"inbound\": {\"mode\": \"" + mode + "\"}}}");
        patchMillis.add((System.nanoTime() - started) / 1e6);
        ScriptedAdsClient.Received<DiscoveryResponse> received = client.next(WAIT);
        assertThat(received).as("push %d", i).isNotNull();
        millis.add((received.atNanos() - started) / 1e6);
        DiscoveryResponse push = received.response();
        assertThat(push.getVersionInfo()).isEqualTo(Integer.toString(i));
        OverloadPolicy policy = policyOf(push);
        assertThat(policy.getInbound().getMode()).isEqualTo(i % 2 == 1 ? Mode.ENFORCE : Mode.SHADOW);
        assertThat(push.getResources(0).unpack(Resource.class).getName()).isEqualTo(id);
        client.ack(push);
      }
      String metricsAfter = central.metrics();
      System.out.println("xDS push over 50 PATCHes (SotW, embedded H2): PATCH sent -> response received at the client: "
          + distribution(millis) + "; PATCH answered (includes the commit): " + distribution(patchMillis)
          + "; central's own publish -> written to stream (whole class so far): median " + medianBucket(metricsAfter)
          + String.format(", mean %.3f ms",
              1000 * (metric(metricsAfter, "central_xds_push_latency_seconds_sum") - metric(metricsBefore, "central_xds_push_latency_seconds_sum"))
                  / (metric(metricsAfter, "central_xds_push_latency_seconds_count") - metric(metricsBefore, "central_xds_push_latency_seconds_count"))));
      assertThat(metricsAfter).contains("central_xds_push_latency_seconds_count");

      // Deleting the section empties the set: the edge falls back to its deployment defaults.
      central.patch(id, "{\"overload\": null}");
      DiscoveryResponse emptied = client.expect(WAIT);
      assertThat(emptied.getResourcesCount()).isZero();
      assertThat(emptied.getVersionInfo()).isEqualTo("51");
    }
  }

  @Test
  void nackIsRecordedAndNotResent() throws Exception {
    String id = newId();
    String credential = central.register(id);
    try (ScriptedAdsClient client = ScriptedAdsClient.sotw(central.xdsPort(), credential)) {
      Node node = ScriptedAdsClient.node(id);
      client.subscribe(node, XdsType.OVERLOAD_POLICY, "");
      client.ack(client.expect(WAIT));
      central.patch(id, "{\"overload\": {\"inbound\": {\"mode\": \"enforce\"}}}");
      DiscoveryResponse push = client.expect(WAIT);
      assertThat(push.getVersionInfo()).isEqualTo("1");
      client.nack(push, "0", "inbound.retryAfterSeconds must be between 1 and 60");

      JsonNode edge = awaitEdge(id, e -> !e.path("status").path("lastNack").isNull()
          && !e.path("status").path("lastNack").isMissingNode());
      JsonNode nack = edge.path("status").path("lastNack");
      assertThat(nack.path("type").asText()).isEqualTo(POLICY);
      assertThat(nack.path("version").asText()).isEqualTo("1");
      assertThat(nack.path("error").asText()).isEqualTo("inbound.retryAfterSeconds must be between 1 and 60");
      assertThat(metric(central.metrics(), "central_xds_nacks_total{type=\"policy\"}")).isGreaterThanOrEqualTo(1);

      // Not resent: neither on a re-subscription nor on a reconnect ...
      client.subscribe(null, XdsType.OVERLOAD_POLICY, "0");
      assertThat(client.next(Duration.ofMillis(500))).isNull();
      try (ScriptedAdsClient again = ScriptedAdsClient.sotw(central.xdsPort(), credential)) {
        again.subscribe(node, XdsType.OVERLOAD_POLICY, "0");
        assertThat(again.next(Duration.ofMillis(500))).isNull();
      }
    }
    // ... nor to a stream that starts after every stream of the edge ended (the refusal is read
    // back from the registry, as another replica would) ...
    try (ScriptedAdsClient later = ScriptedAdsClient.sotw(central.xdsPort(), credential)) {
      later.subscribe(ScriptedAdsClient.node(id), XdsType.OVERLOAD_POLICY, "0");
      assertThat(later.next(Duration.ofMillis(500))).isNull();
      // ... until a newer version exists; once the edge takes it, the refusal is lifted.
      assertThat(central.edge(id).path("status").path("refusedVersions").path(POLICY).asText()).isEqualTo("1");
      central.patch(id, "{\"overload\": {\"inbound\": {\"mode\": \"shadow\"}}}");
      DiscoveryResponse newer = later.expect(WAIT);
      assertThat(newer.getVersionInfo()).isEqualTo("2");
      assertThat(policyOf(newer).getInbound().getMode()).isEqualTo(Mode.SHADOW);
      later.ack(newer);
      awaitEdge(id, e -> e.path("status").path("refusedVersions").isEmpty());
    }
  }

  /** Refusals are remembered per type: a new stream gets neither of two refused versions. */
  @Test
  void refusalsOfSeveralTypesAreAllRememberedForTheNextStream() throws Exception {
    String id = newId();
    String credential = central.register(id);
    String cds = XdsType.CLUSTER.typeUrl();
    String cluster = "{\"name\": \"c\", \"connect_timeout\": \"1s\", \"load_assignment\": {\"cluster_name\": \"c\","
        + " \"endpoints\": [{\"lb_endpoints\": [{\"endpoint\": {\"address\": {\"socket_address\":"
        + " {\"address\": \"127.0.0.1\", \"port_value\": 8080}}}}]}]}}";
    String cdsVersion;
    try (ScriptedAdsClient client = ScriptedAdsClient.sotw(central.xdsPort(), credential)) {
      Node node = ScriptedAdsClient.node(id);
      client.subscribe(node, XdsType.OVERLOAD_POLICY, "");
      client.ack(client.expect(WAIT));
      client.subscribe(null, XdsType.CLUSTER, "");
      client.ack(client.expect(WAIT));
      central.patch(id, "{\"overload\": {\"inbound\": {\"mode\": \"enforce\"}}}");
      DiscoveryResponse policy = client.expect(WAIT);
      client.nack(policy, "0", "refused policy");
      assertThat(central.send("PUT", "/configuration/resources/clusters/c?edgeId=" + id, cluster).statusCode()).isEqualTo(201);
      DiscoveryResponse clusters = client.expect(WAIT);
      assertThat(clusters.getTypeUrl()).isEqualTo(cds);
      cdsVersion = clusters.getVersionInfo();
      client.nack(clusters, "", "refused clusters");
      awaitEdge(id, e -> e.path("status").path("refusedVersions").size() == 2);
    }
    try (ScriptedAdsClient later = ScriptedAdsClient.sotw(central.xdsPort(), credential)) {
      later.subscribe(ScriptedAdsClient.node(id), XdsType.OVERLOAD_POLICY, "0");
      later.subscribe(null, XdsType.CLUSTER, "");
      assertThat(later.next(Duration.ofMillis(500))).as("neither refused version is sent").isNull();
    }
    JsonNode refused = central.edge(id).path("status").path("refusedVersions");
    assertThat(refused.path(POLICY).asText()).isEqualTo("1");
    assertThat(refused.path(cds).asText()).isEqualTo(cdsVersion);
  }

  @Test
  void resubscribingResendsTheCurrentState() throws Exception {
    String id = newId();
    String credential = central.register(id);
    central.patch(id, "{\"overload\": {\"outbound\": {\"mode\": \"enforce\"}}}");
    try (ScriptedAdsClient client = ScriptedAdsClient.sotw(central.xdsPort(), credential)) {
      // Reporting the version it has does not stop the answer.
      client.subscribe(ScriptedAdsClient.node(id), XdsType.OVERLOAD_POLICY, "1");
      DiscoveryResponse first = client.expect(WAIT);
      assertThat(first.getVersionInfo()).isEqualTo("1");
      client.ack(first);
      assertThat(client.next(Duration.ofMillis(300))).isNull(); // nothing new after the ACK
      client.subscribe(null, XdsType.OVERLOAD_POLICY, "1");
      DiscoveryResponse again = client.expect(WAIT);
      assertThat(again.getVersionInfo()).isEqualTo("1");
      assertThat(policyOf(again).getOutbound().getMode()).isEqualTo(Mode.ENFORCE);
      assertThat(again.getNonce()).isNotEqualTo(first.getNonce());
    }
  }

  @Test
  void statusColumnsAreFilled() throws Exception {
    String id = newId();
    String credential = central.register(id);
    Struct defaults = Struct.newBuilder()
        .putFields("HTTP_ADMISSION_CONTINUATION_SHARE", Value.newBuilder().setStringValue("0.7").build())
        .putFields("HTTP_ADMISSION_MODE", Value.newBuilder().setStringValue("shadow").build())
        .build();
    Node node = ScriptedAdsClient.node(id).toBuilder()
        .setMetadata(Struct.newBuilder().putFields(AdsStream.DEPLOYMENT_DEFAULTS_KEY, Value.newBuilder().setStructValue(defaults).build()))
        .build();
    try (ScriptedAdsClient client = ScriptedAdsClient.sotw(central.xdsPort(), credential)) {
      client.subscribe(node, XdsType.OVERLOAD_POLICY, "");
      client.ack(client.expect(WAIT));
      JsonNode edge = awaitEdge(id, e -> e.path("status").path("ackedVersions").path(POLICY).asText().equals("0"));
      JsonNode status = edge.path("status");
      assertThat(status.path("connected").asBoolean()).isTrue();
      assertThat(status.path("lastSeen").asText()).isNotEmpty();
      JsonNode reported = awaitEdge(id, e -> e.path("status").path("reportedDefaults").size() > 0).path("status").path("reportedDefaults");
      assertThat(reported.path("HTTP_ADMISSION_CONTINUATION_SHARE").asText()).isEqualTo("0.7");
      assertThat(reported.path("HTTP_ADMISSION_MODE").asText()).isEqualToIgnoringCase("shadow");
      assertThat(metric(central.metrics(), "central_xds_connected_edges")).isGreaterThanOrEqualTo(1);
    }
    awaitEdge(id, e -> !e.path("status").path("connected").asBoolean());
  }

  @Test
  void replacedCredentialEndsTheStream() throws Exception {
    String id = newId();
    String credential = central.register(id);
    try (ScriptedAdsClient client = ScriptedAdsClient.sotw(central.xdsPort(), credential)) {
      client.subscribe(ScriptedAdsClient.node(id), XdsType.OVERLOAD_POLICY, "");
      client.ack(client.expect(WAIT));
      // The replacement itself ends the stream that presented the old credential.
      assertThat(central.send("POST", "/configuration/edges/" + id + "/credential", null).statusCode()).isEqualTo(200);
      Status status = client.ended(WAIT);
      assertThat(status.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    }
  }

  /**
   * A change assigned by selector reaches every edge it matches (one read for all of them, the
   * writes spread over the push threads), and the burst of ACKs that comes back is recorded for
   * each edge.
   */
  @Test
  void aSelectorChangeReachesEveryMatchedEdgeAndEachAckIsRecorded() throws Exception {
    String fleet = "f" + UUID.randomUUID().toString().substring(0, 8);
    String cds = XdsType.CLUSTER.typeUrl();
    List<String> ids = new ArrayList<>();
    List<ScriptedAdsClient> clients = new ArrayList<>();
    try {
      for (int i = 0; i < 20; i++) {
        String id = newId();
        var registered = central.send("POST", "/configuration/edges",
            "{\"id\": \"" + id + "\", \"labels\": {\"fleet\": \"" + fleet + "\"}}");
        assertThat(registered.statusCode()).isEqualTo(201);
        ScriptedAdsClient client = ScriptedAdsClient.sotw(central.xdsPort(),
            TestCentral.parse(registered.body()).get("credential").asText());
        client.subscribe(ScriptedAdsClient.node(id), XdsType.CLUSTER, "");
        DiscoveryResponse first = client.expect(WAIT);
        assertThat(first.getResourcesCount()).isZero();
        client.ack(first);
        ids.add(id);
        clients.add(client);
      }
      String cluster = "{\"name\": \"shared\", \"connect_timeout\": \"1s\", \"load_assignment\": {\"cluster_name\": \"shared\","
          + " \"endpoints\": [{\"lb_endpoints\": [{\"endpoint\": {\"address\": {\"socket_address\":"
          + " {\"address\": \"127.0.0.1\", \"port_value\": 8080}}}}]}]}}";
      assertThat(central.send("PUT", "/configuration/resources/clusters/shared?selector=fleet%3D" + fleet, cluster).statusCode())
          .isEqualTo(201);
      String version = null;
      for (ScriptedAdsClient client : clients) {
        DiscoveryResponse pushed = client.expect(WAIT);
        assertThat(pushed.getTypeUrl()).isEqualTo(cds);
        assertThat(pushed.getResourcesCount()).isEqualTo(1);
        assertThat(pushed.getResources(0).unpack(io.envoyproxy.envoy.config.cluster.v3.Cluster.class).getName())
            .isEqualTo("shared");
        if (version == null) {
          version = pushed.getVersionInfo();
        }
        assertThat(pushed.getVersionInfo()).as("the same content, the same version on every edge").isEqualTo(version);
        client.ack(pushed);
      }
      String acked = version;
      for (String id : ids) {
        awaitEdge(id, e -> e.path("status").path("ackedVersions").path(cds).asText().equals(acked));
      }
    } finally {
      for (ScriptedAdsClient client : clients) {
        client.close();
      }
    }
  }

  /** The histogram bucket holding the median of central's own push latency, from /metrics text. */
  static String medianBucket(String metrics) {
    List<double[]> buckets = new ArrayList<>();
    for (String line : metrics.split("\n")) {
      if (line.startsWith("central_xds_push_latency_seconds_bucket{le=\"")) {
        String le = line.substring(line.indexOf('"') + 1, line.lastIndexOf('"'));
        double bound = le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
        buckets.add(new double[] {bound, Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))});
      }
    }
    if (buckets.isEmpty()) {
      return "n/a";
    }
    double total = buckets.get(buckets.size() - 1)[1];
    for (double[] b : buckets) {
      if (b[1] >= total / 2) {
        return "<= " + (b[0] * 1000) + " ms";
      }
    }
    return "n/a";
  }
}
