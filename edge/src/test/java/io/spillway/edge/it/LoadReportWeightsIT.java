package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.OriginServer;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Client-side weighted round robin through the edge: three origins on 127.0.0.1 report different
 * utilization in {@code endpoint-load-metrics} (TEXT, JSON and the binary header), and the share of
 * requests each receives follows {@code qps / utilization}.
 */
class LoadReportWeightsIT {

  private final List<OriginServer> origins = new ArrayList<>();

  @AfterEach
  void stop() {
    origins.forEach(OriginServer::close);
  }

  private OriginServer origin(String name, String header, String value) {
    OriginServer o = OriginServer.builder().name(name).responseHeader(header, value).start();
    origins.add(o);
    return o;
  }

  /** A weighted cluster of the ports with no blackout and weights rebuilt every 100 ms. */
  private static String yaml(int... ports) {
    return bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", """
        load_balancing_policy:
          policies:
          - typed_extension_config:
              name: envoy.load_balancing_policies.client_side_weighted_round_robin
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.load_balancing_policies.client_side_weighted_round_robin.v3.ClientSideWeightedRoundRobin
                blackout_period: 0s
                weight_update_period: 0.1s
        """, ports));
  }

  @Test
  void sharesFollowTheReportedUtilization() throws Exception {
    String bin = Base64.getEncoder().encodeToString(com.github.xds.data.orca.v3.OrcaLoadReport.newBuilder()
        .setRpsFractional(100).setCpuUtilization(0.8).build().toByteArray());
    OriginServer a = origin("a", "endpoint-load-metrics", "TEXT rps_fractional=100, application_utilization=0.2");
    OriginServer b = origin("b", "endpoint-load-metrics", "JSON {\"rps_fractional\": 100, \"cpu_utilization\": 0.4}");
    OriginServer c = origin("c", "endpoint-load-metrics-bin", bin);
    try (EdgeHarness edge = EdgeHarness.start(yaml(a.port(), b.port(), c.port()))) {
      Map<String, Integer> warmUp = send(edge, 60);
      assertThat(warmUp).containsOnlyKeys("a", "b", "c"); // every host reported at least once
      Thread.sleep(400); // a few weight updates (100 ms apart) take the reports in

      Map<String, Integer> shares = send(edge, 1400);
      System.out.println("client-side weighted round robin, 1400 requests: " + shares);
      // weights 100/0.2 : 100/0.4 : 100/0.8 = 4 : 2 : 1, i.e. 800 : 400 : 200; allowed 5 % of all requests
      assertThat(shares.get("a")).isBetween(730, 870);
      assertThat(shares.get("b")).isBetween(330, 470);
      assertThat(shares.get("c")).isBetween(130, 270);
      assertThat(edge.stat("cluster.origin.lb_orca_report_parse_error")).isZero();
      // /clusters shows each host's weight in the schedule, the largest scaled to 65535
      String clusters = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
          java.net.URI.create("http://127.0.0.1:" + edge.adminPort() + "/clusters")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertThat(clusters).contains("origin::127.0.0.1:" + a.port() + "::orca_weight::65535")
          .contains("origin::127.0.0.1:" + c.port() + "::orca_weight::16384");
      // The report reaches the client too: the edge reads it, it does not take it away.
      assertThat(edge.get("/x").headers().firstValue("x-origin")).isPresent();
    }
  }

  @Test
  void unreadableReportsAreCountedAndTheClusterRoundRobins() throws Exception {
    OriginServer a = origin("a", "endpoint-load-metrics", "TEXT rps_fractional=lots");
    OriginServer b = origin("b", "endpoint-load-metrics", "XML <load/>");
    try (EdgeHarness edge = EdgeHarness.start(yaml(a.port(), b.port()))) {
      send(edge, 20);
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (edge.stat("cluster.origin.lb_orca_report_parse_error") < 2 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(edge.stat("cluster.origin.lb_orca_report_parse_error")).isGreaterThanOrEqualTo(2);
      Map<String, Integer> shares = send(edge, 200);
      assertThat(shares.get("a")).isEqualTo(100);
      assertThat(shares.get("b")).isEqualTo(100);
    }
  }

  private static Map<String, Integer> send(EdgeHarness edge, int requests) throws Exception {
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < requests; i++) {
      HttpResponse<String> r = edge.get("/w/" + i);
      assertThat(r.statusCode()).isEqualTo(200);
      counts.merge(r.headers().firstValue("x-origin").orElseThrow(), 1, Integer::sum);
    }
    return counts;
  }
}
