package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.upstream.ClusterManager;
import io.spillway.testkit.OriginServer;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** LOGICAL_DNS clusters through the edge to a real origin on 127.0.0.1. */
class LogicalDnsIT {
  private static final String ROUTES = """
      - match: { prefix: "/" }
        route: { cluster: logical, auto_host_rewrite: true }
      """;

  private OriginServer origin;

  @BeforeEach
  void startOrigin() {
    origin = OriginServer.start("origin-a");
  }

  @AfterEach
  void stopOrigin() {
    origin.close();
  }

  /** A resolver the test answers for: empty means the name does not resolve (yet). */
  private static final class SwitchableResolver implements ClusterManager.Resolver {
    final AtomicReference<List<InetAddress>> answer = new AtomicReference<>(List.of());
    final AtomicInteger lookups = new AtomicInteger();

    @Override
    public List<InetAddress> resolve(String host) throws UnknownHostException {
      lookups.incrementAndGet();
      List<InetAddress> a = answer.get();
      if (!host.equals("service1") || a.isEmpty()) {
        throw new UnknownHostException(host);
      }
      return a;
    }
  }

  private static String logicalCluster(String name, int port, String extra) {
    return """
        - name: logical
          type: LOGICAL_DNS
          dns_lookup_family: V4_ONLY
          connect_timeout: 1s
        %s
          load_assignment:
            cluster_name: logical
            endpoints:
            - lb_endpoints:
              - endpoint: { address: { socket_address: { address: %s, port_value: %d } } }
        """.formatted(EdgeHarness.indent(extra, 2), name, port);
  }

  private static String clusters(EdgeHarness edge) throws Exception {
    return edge.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.adminPort() + "/clusters"))
        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
  }

  /** Polls (bounded, with a deadline) until the route answers with {@code status}; returns the last status. */
  private static int awaitStatus(EdgeHarness edge, int status) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    int last = edge.get("/wait").statusCode();
    for (int i = 0; i < 1000 && last != status && System.nanoTime() < deadline; i++) {
      Thread.sleep(20);
      last = edge.get("/wait").statusCode();
    }
    return last;
  }

  private static long awaitAtLeast(java.util.function.LongSupplier value, long atLeast) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    long v = value.getAsLong();
    while (v < atLeast && System.nanoTime() < deadline) {
      Thread.sleep(10);
      v = value.getAsLong();
    }
    return v;
  }

  @Test
  void aLogicalDnsClusterOnLocalhostServesRequests() throws Exception {
    try (EdgeHarness edge = EdgeHarness.start(bootstrap(ROUTES, logicalCluster("localhost", origin.port(), "")))) {
      HttpResponse<String> r = edge.get("/logical");

      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).contains("origin-a");
      // auto_host_rewrite: the upstream sees the logical host's DNS name.
      assertThat(origin.lastRequest().authority()).isEqualTo("localhost");
      assertThat(edge.stat("cluster.logical.membership_total")).isEqualTo(1);
      assertThat(edge.stat("cluster.logical.update_success")).isPositive();
      assertThat(clusters(edge)).contains("logical::127.0.0.1:" + origin.port() + "::hostname::localhost");
    }
  }

  @Test
  void aNameThatDoesNotResolveYetIs503UntilTheResolverAnswers() throws Exception {
    SwitchableResolver resolver = new SwitchableResolver();
    String cluster = logicalCluster("service1", origin.port(), """
        dns_refresh_rate: 60s
        dns_failure_refresh_rate: { base_interval: 0.1s, max_interval: 0.2s }
        """);
    try (EdgeHarness edge = EdgeHarness.start(bootstrap(ROUTES, cluster), resolver)) {
      HttpResponse<String> r = edge.get("/early");
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(r.body()).isEqualTo("no healthy upstream");
      assertThat(edge.stat("cluster.logical.upstream_cx_none_healthy")).isEqualTo(1);
      assertThat(edge.stat("cluster.logical.membership_total")).isZero();

      // The cluster keeps trying on the failure back-off (well before dns_refresh_rate's 60 s).
      assertThat(awaitAtLeast(() -> edge.stat("cluster.logical.update_failure"), 2)).isGreaterThanOrEqualTo(2);
      resolver.answer.set(List.of(InetAddress.getByName("127.0.0.1")));

      assertThat(awaitStatus(edge, 200)).isEqualTo(200);
      assertThat(origin.lastRequest().authority()).isEqualTo("service1");
      assertThat(edge.stat("cluster.logical.membership_total")).isEqualTo(1);
      assertThat(clusters(edge)).contains("logical::127.0.0.1:" + origin.port() + "::hostname::service1");
    }
  }

  @Test
  void failedReResolutionsKeepTheHostAndItsOpenConnection() throws Exception {
    SwitchableResolver resolver = new SwitchableResolver();
    resolver.answer.set(List.of(InetAddress.getByName("127.0.0.1")));
    String cluster = logicalCluster("service1", origin.port(), """
        dns_refresh_rate: 0.1s
        dns_failure_refresh_rate: { base_interval: 0.1s, max_interval: 0.2s }
        """);
    try (EdgeHarness edge = EdgeHarness.start(bootstrap(ROUTES, cluster), resolver)) {
      assertThat(edge.get("/first").statusCode()).isEqualTo(200);
      assertThat(origin.connectionCount()).isEqualTo(1);
      assertThat(awaitAtLeast(() -> edge.stat("cluster.logical.update_success"), 3)).isGreaterThanOrEqualTo(3);

      resolver.answer.set(List.of());
      assertThat(awaitAtLeast(() -> edge.stat("cluster.logical.update_failure"), 2)).isGreaterThanOrEqualTo(2);

      HttpResponse<String> r = edge.get("/second");
      assertThat(r.statusCode()).isEqualTo(200);
      // The same upstream connection carried both requests: re-resolution never closes it.
      assertThat(origin.connectionCount()).isEqualTo(1);
      assertThat(edge.stat("cluster.logical.membership_total")).isEqualTo(1);
    }
  }
}
