package io.spillway.central.xds;

import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.Resource;
import io.spillway.policy.v1.Mode;
import io.spillway.policy.v1.OverloadPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Two centrals on one PostgreSQL schema: a PATCH through replica A reaches an edge whose stream is
 * on replica B (LISTEN/NOTIFY), and B's status writes show through A's API.
 */
class TwoReplicasPostgresIT {

  private static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void changeThroughOneReplicaReachesAnEdgeOnTheOther() throws Exception {
    try (TestCentral.Schema schema = new TestCentral.Schema();
        TestCentral a = TestCentral.postgres(schema);
        TestCentral b = TestCentral.postgres(schema)) {
      String id = "edge-replicas";
      String credential = a.register(id);
      try (ScriptedAdsClient client = ScriptedAdsClient.sotw(b.xdsPort(), credential)) {
        client.subscribe(ScriptedAdsClient.node(id), XdsType.OVERLOAD_POLICY, "");
        DiscoveryResponse first = client.expect(WAIT);
        assertThat(first.getVersionInfo()).isEqualTo("0");
        client.ack(first);

        List<Double> millis = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
          String mode = i % 2 == 1 ? "enforce" : "shadow";
          long started = System.nanoTime();
          a.patch(id, "{\"overload\": {\"inbound\": {\"mode\": \"" + mode + "\"}}}");
          ScriptedAdsClient.Received<DiscoveryResponse> received = client.next(WAIT);
          assertThat(received).as("push %d through the other replica", i).isNotNull();
          millis.add((received.atNanos() - started) / 1e6);
          DiscoveryResponse push = received.response();
          assertThat(push.getVersionInfo()).isEqualTo(Integer.toString(i));
          OverloadPolicy policy = push.getResources(0).unpack(Resource.class).getResource().unpack(OverloadPolicy.class);
          assertThat(policy.getInbound().getMode()).isEqualTo(i % 2 == 1 ? Mode.ENFORCE : Mode.SHADOW);
          client.ack(push);
        }
        System.out.println("xDS push across replicas (PATCH on A -> response from B, PostgreSQL LISTEN/NOTIFY): "
            + AdsServerIT.distribution(millis));

        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!a.edge(id).path("status").path("ackedVersions").path(XdsType.OVERLOAD_POLICY.typeUrl()).asText().equals("20")) {
          assertThat(System.nanoTime()).as("B's ACK record visible through A").isLessThan(deadline);
          Thread.sleep(20);
        }
        assertThat(a.edge(id).path("status").path("connected").asBoolean()).isTrue();
      }
    }
  }
}
