package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.OriginServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The pressure policy through the edge: three origins on 127.0.0.1 report their CPU in ORCA's
 * {@code endpoint-load-metrics}; the hot one gets a clearly smaller share of a bounded number of
 * requests, or none once ejected, and {@code /clusters} shows each host's score and state.
 */
class PressureLoadBalancingIT {

  private final List<OriginServer> origins = new ArrayList<>();

  @AfterEach
  void stop() {
    origins.forEach(OriginServer::close);
  }

  private OriginServer origin(String name, double cpu) {
    OriginServer o = OriginServer.builder().name(name)
        .responseHeader("endpoint-load-metrics", "TEXT cpu_utilization=" + cpu).start();
    origins.add(o);
    return o;
  }

  /** No blackout, weights rebuilt every 100 ms, a short smoothing time, ejection after 3 updates above 0.8. */
  private static String yaml(int... ports) {
    return bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", """
        load_balancing_policy:
          policies:
          - typed_extension_config:
              name: spillway.load_balancing_policies.pressure
              typed_config:
                "@type": type.googleapis.com/spillway.edge.lb.v1.Pressure
                blackout_period: 0s
                weight_update_period: 0.1s
                smoothing_time_constant: 0.2s
        """, ports));
  }

  @Test
  void aHotHostGetsASmallerShare() throws Exception {
    OriginServer a = origin("a", 0.1);
    OriginServer b = origin("b", 0.1);
    OriginServer hot = origin("hot", 0.7);
    try (EdgeHarness edge = EdgeHarness.start(yaml(a.port(), b.port(), hot.port()))) {
      assertThat(send(edge, 60)).containsOnlyKeys("a", "b", "hot"); // every host reported at least once
      Thread.sleep(600); // several updates, 100 ms apart, take the reports in

      Map<String, Integer> shares = send(edge, 1400);
      System.out.println("pressure, 1400 requests: " + shares);
      // weights 0.9 : 0.9 : 0.3, i.e. 600 : 600 : 200; a generous margin
      assertThat(shares.getOrDefault("hot", 0)).isBetween(100, 330);
      assertThat(shares.get("a")).isGreaterThan(480);
      assertThat(shares.get("b")).isGreaterThan(480);
      assertThat(edge.stat("cluster.origin.lb_pressure_report_parse_error")).isZero();
      assertThat(edge.stat("cluster.origin.lb_pressure_ejections_total")).isZero();

      String clusters = admin(edge, "/clusters");
      assertThat(clusters).contains("origin::127.0.0.1:" + hot.port() + "::pressure_score::0.7");
      assertThat(clusters).contains("origin::127.0.0.1:" + hot.port() + "::pressure_ejected::false");
      assertThat(clusters).contains("origin::127.0.0.1:" + a.port() + "::pressure_scored::true");
    }
  }

  @Test
  void aSaturatedHostIsEjected() throws Exception {
    OriginServer a = origin("a", 0.2);
    OriginServer b = origin("b", 0.3);
    OriginServer hot = origin("hot", 0.97);
    try (EdgeHarness edge = EdgeHarness.start(yaml(a.port(), b.port(), hot.port()))) {
      send(edge, 60);
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (edge.stat("cluster.origin.lb_pressure_ejections_total") < 1 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(edge.stat("cluster.origin.lb_pressure_ejections_total")).isEqualTo(1);
      Thread.sleep(250); // the next schedule leaves it out

      Map<String, Integer> shares = send(edge, 300);
      assertThat(shares.getOrDefault("hot", 0)).isZero(); // ejected for 30 s, far longer than this test
      assertThat(shares.get("a") + shares.get("b")).isEqualTo(300);
      assertThat(edge.stat("cluster.origin.lb_pressure_ejections_active")).isEqualTo(1);
      assertThat(admin(edge, "/clusters")).contains("origin::127.0.0.1:" + hot.port() + "::pressure_ejected::true");
    }
  }

  private static String admin(EdgeHarness edge, String path) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.adminPort()
        + path)).build(), HttpResponse.BodyHandlers.ofString()).body();
  }

  private static Map<String, Integer> send(EdgeHarness edge, int requests) throws Exception {
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < requests; i++) {
      HttpResponse<String> r = edge.get("/p/" + i);
      assertThat(r.statusCode()).isEqualTo(200);
      counts.merge(r.headers().firstValue("x-origin").orElseThrow(), 1, Integer::sum);
    }
    return counts;
  }
}
