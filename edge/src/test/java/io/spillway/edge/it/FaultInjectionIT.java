package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RawHttp;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.fault in a real edge from an Envoy bootstrap, on 127.0.0.1: fixed and
 * header-controlled aborts and delays, a gRPC abort, the header condition, per-route
 * configuration and turning the filter off for a route, {@code max_active_faults}, and Envoy's
 * stats. Delays are checked from below only (a request delayed 300 ms cannot answer sooner).
 */
class FaultInjectionIT {

  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.fault.v3.HTTPFault";
  private static final String ALL = "{numerator: 100, denominator: HUNDRED}";

  private OriginServer upstream;
  private EdgeHarness edge;

  @BeforeEach
  void origin() {
    upstream = OriginServer.start("upstream");
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    upstream.close();
  }

  private void start(String routes, String filterFields) throws Exception {
    edge = EdgeHarness.startWithFilter(routes, cluster("upstream", "", upstream.port()), "envoy.filters.http.fault",
        TYPE, filterFields);
  }


  private static final String ROUTE = """
      - match: { prefix: "/" }
        route: { cluster: upstream, timeout: 10s }
      """;

  @Test
  void aFixedAbortAnswersWithItsStatusAndNeverReachesTheUpstream() throws Exception {
    start(ROUTE, "abort: { http_status: 503, percentage: %s }".formatted(ALL));
    HttpResponse<String> r = edge.get("/a");
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(r.body()).isEqualTo("fault filter abort");
    assertThat(upstream.requestCount()).isZero();
    assertThat(edge.awaitStat("http.ingress.fault.aborts_injected", 1)).isEqualTo(1);
    assertThat(edge.stat("http.ingress.fault.delays_injected")).isZero();
    assertThat(edge.awaitStat("http.ingress.fault.active_faults", 0)).isZero();
  }

  @Test
  void aFixedDelayHoldsTheRequestThenForwardsItAndThenAnAbortFollowsTheDelay() throws Exception {
    start("""
        - match: { prefix: "/delayed-abort" }
          route: { cluster: upstream, timeout: 10s }
          typed_per_filter_config:
            envoy.filters.http.fault:
              "@type": %s
              delay: { fixed_delay: 0.2s, percentage: %s }
              abort: { http_status: 429, percentage: %s }
        """.formatted(TYPE, ALL, ALL) + ROUTE, "delay: { fixed_delay: 0.3s, percentage: %s }".formatted(ALL));
    long start = System.nanoTime();
    HttpResponse<String> r = edge.get("/slow");
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(tookMs).isGreaterThanOrEqualTo(300);
    assertThat(upstream.requestCount()).isEqualTo(1);

    start = System.nanoTime();
    HttpResponse<String> aborted = edge.get("/delayed-abort");
    assertThat(aborted.statusCode()).isEqualTo(429);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(200);
    assertThat(upstream.requestCount()).isEqualTo(1);
    assertThat(edge.awaitStat("http.ingress.fault.delays_injected", 2)).isEqualTo(2);
    assertThat(edge.stat("http.ingress.fault.aborts_injected")).isEqualTo(1);
  }

  @Test
  void headerControlledFaultsComeFromTheRequestAndNeverExceedTheConfiguredPercentage() throws Exception {
    start(ROUTE, """
        abort: { header_abort: {}, percentage: %s }
        delay: { header_delay: {}, percentage: %s }
        """.formatted(ALL, ALL));
    assertThat(edge.get("/plain").statusCode()).isEqualTo(200);
    assertThat(edge.get("/teapot", "x-envoy-fault-abort-request", "418").statusCode()).isEqualTo(418);
    assertThat(edge.get("/none", "x-envoy-fault-abort-request", "418",
        "x-envoy-fault-abort-request-percentage", "0").statusCode()).isEqualTo(200);
    assertThat(edge.get("/bad", "x-envoy-fault-abort-request", "700").statusCode())
        .as("a status outside [200, 600) injects nothing").isEqualTo(200);

    HttpResponse<String> grpc = edge.get("/grpc", "x-envoy-fault-abort-grpc-request", "14");
    assertThat(grpc.statusCode()).isEqualTo(200);
    assertThat(grpc.headers().firstValue("grpc-status")).contains("14");
    assertThat(grpc.headers().firstValue("content-type")).contains("application/grpc");

    long start = System.nanoTime();
    assertThat(edge.get("/wait", "x-envoy-fault-delay-request", "250").statusCode()).isEqualTo(200);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(250);
    assertThat(upstream.requestCount()).isEqualTo(4);
  }

  @Test
  void onlyRequestsMatchingTheHeadersAreFaultedAndARouteCanTurnTheFilterOff() throws Exception {
    start("""
        - match: { prefix: "/exempt" }
          route: { cluster: upstream, timeout: 10s }
          typed_per_filter_config:
            envoy.filters.http.fault:
              "@type": type.googleapis.com/envoy.config.route.v3.FilterConfig
              disabled: true
        """ + ROUTE, """
        abort: { http_status: 500, percentage: %s }
        headers: [ { name: x-chaos, string_match: { exact: "yes" } } ]
        upstream_cluster: upstream
        """.formatted(ALL));
    assertThat(edge.get("/a").statusCode()).isEqualTo(200);
    assertThat(edge.get("/a", "x-chaos", "yes").statusCode()).isEqualTo(500);
    assertThat(edge.get("/exempt", "x-chaos", "yes").statusCode()).isEqualTo(200);
    assertThat(edge.awaitStat("http.ingress.fault.aborts_injected", 1)).isEqualTo(1);
  }

  @Test
  void maxActiveFaultsLetsTheRequestBeyondItThroughUnfaultedAndCountsIt() throws Exception {
    start(ROUTE, """
        delay: { fixed_delay: 2s, percentage: %s }
        max_active_faults: 1
        """.formatted(ALL));
    CompletableFuture<HttpResponse<String>> held = CompletableFuture.supplyAsync(() -> {
      try {
        return edge.get("/held");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    assertThat(edge.awaitStat("http.ingress.fault.active_faults", 1)).isEqualTo(1);
    HttpResponse<String> passed = edge.get("/passes");
    assertThat(passed.statusCode()).isEqualTo(200);
    assertThat(held.isDone()).as("the first request is still delayed").isFalse();
    assertThat(edge.stat("http.ingress.fault.faults_overflow")).isEqualTo(1);
    assertThat(held.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    assertThat(edge.awaitStat("http.ingress.fault.active_faults", 0)).isZero();
    assertThat(edge.stat("http.ingress.fault.delays_injected")).isEqualTo(1);
  }

  @Test
  void aClientThatLeavesDuringTheDelayFreesItsPlaceAndNothingReachesTheUpstream() throws Exception {
    start(ROUTE, """
        delay: { fixed_delay: 5s, percentage: %s }
        max_active_faults: 1
        """.formatted(ALL));
    try (RawHttp.Connection c = RawHttp.connect(edge.port(), java.time.Duration.ofSeconds(5))) {
      c.send("GET /gone HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(edge.awaitStat("http.ingress.fault.active_faults", 1)).isEqualTo(1);
    }
    assertThat(edge.awaitStat("http.ingress.fault.active_faults", 0)).isZero();
    assertThat(upstream.requestCount()).isZero();
    assertThat(edge.stat("http.ingress.fault.faults_overflow")).isZero();
  }
}
