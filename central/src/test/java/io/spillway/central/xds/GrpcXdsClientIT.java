package io.spillway.central.xds;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 7's interop check: grpc-java's own xDS client (grpc-xds, an {@code xds:///greeter}
 * channel) against central's ADS server. Central serves the edge id {@code grpc-client} an API
 * listener {@code greeter} (HttpConnectionManager with RDS), its RouteConfiguration, an EDS cluster
 * and its ClusterLoadAssignment, all PUT through the REST API; calls reach a plain gRPC health
 * server, and after the ClusterLoadAssignment is PUT with a second server's port, calls reach that
 * one. The xDS client authenticates as the edge with {@link BearerXdsCredentialsProvider} (channel
 * credentials type {@code spillway_bearer} in the bootstrap), since central requires
 * {@code authorization: Bearer <credential>}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrpcXdsClientIT {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String EDGE = "grpc-client";
  private static final String TARGET = "greeter";
  private static final String ROUTE = "greeter-route";
  private static final String CLUSTER = "greeter-cluster";

  private TestCentral central;
  private final CountingServer first = new CountingServer();
  private final CountingServer second = new CountingServer();
  private final CountingServer registered = new CountingServer();
  private ManagedChannel channel;

  /** A health server on loopback that counts the calls it receives and notes when the first came. */
  static final class CountingServer implements ServerInterceptor {
    final AtomicInteger calls = new AtomicInteger();
    final AtomicLong firstCallNanos = new AtomicLong();
    final AtomicLong lastCallNanos = new AtomicLong();
    Server server;

    CountingServer start() throws Exception {
      HealthStatusManager health = new HealthStatusManager();
      server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0), InsecureServerCredentials.create())
          .addService(ServerInterceptors.intercept(health.getHealthService(), this)).build().start();
      return this;
    }

    int port() {
      return server.getPort();
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      long now = System.nanoTime();
      firstCallNanos.compareAndSet(0, now);
      lastCallNanos.set(now);
      calls.incrementAndGet();
      return next.startCall(call, headers);
    }

    void stop() throws InterruptedException {
      if (server != null) {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  @BeforeAll
  void start() throws Exception {
    central = TestCentral.h2();
    String credential = central.register(EDGE);
    first.start();
    second.start();
    registered.start();
    // grpc-xds reads its bootstrap once per JVM; the content goes in this system property.
    System.setProperty("io.grpc.xds.bootstrapConfig", """
        {"xds_servers": [{"server_uri": "127.0.0.1:%d",
                          "channel_creds": [{"type": "%s", "config": {"credential": "%s"}}],
                          "server_features": ["xds_v3"]}],
         "node": {"id": "%s"}}
        """.formatted(central.xdsPort(), BearerXdsCredentialsProvider.TYPE, credential, EDGE));
  }

  @AfterAll
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    first.stop();
    second.stop();
    registered.stop();
    if (central != null) {
      central.close();
    }
    System.clearProperty("io.grpc.xds.bootstrapConfig");
  }

  private void put(String type, String name, String json) {
    HttpResponse<String> response = central.send("PUT", "/configuration/resources/" + type + "/" + name + "?edgeId=" + EDGE, json);
    assertThat(response.statusCode()).as("PUT %s/%s: %s", type, name, response.body()).isIn(200, 201);
  }

  private static String assignment(int port) {
    return """
        {"cluster_name": "%s",
         "endpoints": [{"locality": {"zone": "z1"}, "load_balancing_weight": 1,
                        "lb_endpoints": [{"endpoint": {"address": {"socket_address": {"address": "127.0.0.1", "port_value": %d}}}}]}]}
        """.formatted(CLUSTER, port);
  }

  private HealthCheckResponse check() {
    return check(channel);
  }

  private static HealthCheckResponse check(ManagedChannel channel) {
    return HealthGrpc.newBlockingStub(channel).withWaitForReady().withDeadlineAfter(WAIT.toMillis(), TimeUnit.MILLISECONDS)
        .check(HealthCheckRequest.getDefaultInstance());
  }

  /** An API listener {@code target} routing everything to the EDS cluster {@code cluster} through RDS {@code route}. */
  private void serveTarget(String target, String route, String cluster) {
    put("clusters", cluster, """
        {"name": "%s", "type": "EDS", "connect_timeout": "1s",
         "eds_cluster_config": {"eds_config": {"ads": {}, "resource_api_version": "V3"}}}
        """.formatted(cluster));
    put("routes", route, """
        {"name": "%s",
         "virtual_hosts": [{"name": "%s", "domains": ["%s"],
                            "routes": [{"match": {"prefix": "/"}, "route": {"cluster": "%s"}}]}]}
        """.formatted(route, target, target, cluster));
    put("listeners", target, """
        {"name": "%s",
         "api_listener": {"api_listener": {
           "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
           "stat_prefix": "%s",
           "rds": {"route_config_name": "%s", "config_source": {"ads": {}, "resource_api_version": "V3"}},
           "http_filters": [{"name": "envoy.filters.http.router",
                             "typed_config": {"@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]}}}
        """.formatted(target, target, route));
  }

  @Test
  void grpcXdsClientReachesEndpointsRegisteredThroughTheEndpointsApi() throws Exception {
    // A deploy tool registers the backend with the endpoints API, not a whole ClusterLoadAssignment:
    // the locality it lands in must carry a load_balancing_weight, or grpc-java skips it
    // (UNAVAILABLE: No usable endpoint).
    serveTarget("registered", "registered-route", "registered-cluster");
    HttpResponse<String> added = central.send("POST", "/configuration/clusters/registered-cluster/endpoints?edgeId=" + EDGE,
        "{\"address\": \"127.0.0.1\", \"port\": " + registered.port() + "}");
    assertThat(added.statusCode()).as("POST endpoints: %s", added.body()).isEqualTo(201);

    ManagedChannel registeredChannel = Grpc.newChannelBuilder("xds:///registered", InsecureChannelCredentials.create()).build();
    try {
      assertThat(check(registeredChannel).getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
      assertThat(registered.calls.get()).isEqualTo(1);
    } finally {
      registeredChannel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void grpcXdsClientFollowsEndpointChanges() throws Exception {
    put("clusters", CLUSTER, """
        {"name": "%s", "type": "EDS", "connect_timeout": "1s",
         "eds_cluster_config": {"eds_config": {"ads": {}, "resource_api_version": "V3"}}}
        """.formatted(CLUSTER));
    put("endpoints", CLUSTER, assignment(first.port()));
    put("routes", ROUTE, """
        {"name": "%s",
         "virtual_hosts": [{"name": "greeter", "domains": ["%s"],
                            "routes": [{"match": {"prefix": "/"}, "route": {"cluster": "%s"}}]}]}
        """.formatted(ROUTE, TARGET, CLUSTER));
    put("listeners", TARGET, """
        {"name": "%s",
         "api_listener": {"api_listener": {
           "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
           "stat_prefix": "greeter",
           "rds": {"route_config_name": "%s", "config_source": {"ads": {}, "resource_api_version": "V3"}},
           "http_filters": [{"name": "envoy.filters.http.router",
                             "typed_config": {"@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]}}}
        """.formatted(TARGET, ROUTE));

    long created = System.nanoTime();
    channel = Grpc.newChannelBuilder("xds:///" + TARGET, InsecureChannelCredentials.create()).build();
    assertThat(check().getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    double firstCallMillis = (System.nanoTime() - created) / 1e6;
    assertThat(first.calls.get()).isEqualTo(1);
    assertThat(second.calls.get()).isZero();

    // Move the cluster to the second server.
    long putAt = System.nanoTime();
    put("endpoints", CLUSTER, assignment(second.port()));
    long deadline = putAt + WAIT.toNanos();
    int calls = 0;
    while (second.calls.get() == 0) {
      assertThat(System.nanoTime()).as("a call reaches the second server within %s", WAIT).isLessThan(deadline);
      check();
      calls++;
      Thread.sleep(5);
    }
    double switchMillis = (second.firstCallNanos.get() - putAt) / 1e6;
    int onFirst = first.calls.get();
    for (int i = 0; i < 10; i++) {
      check();
    }
    assertThat(first.calls.get()).as("calls after the switch stay on the second server").isEqualTo(onFirst);
    assertThat(second.calls.get()).isEqualTo(11);

    // Back and forth a few more times, for a distribution.
    List<Double> switches = new ArrayList<>(List.of(switchMillis));
    List<Double> puts = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      CountingServer to = i % 2 == 0 ? first : second;
      int before = to.calls.get();
      long sent = System.nanoTime();
      put("endpoints", CLUSTER, assignment(to.port()));
      puts.add((System.nanoTime() - sent) / 1e6);
      while (to.calls.get() == before) {
        assertThat(System.nanoTime()).as("switch %d reaches its server within %s", i, WAIT).isLessThan(sent + WAIT.toNanos());
        check();
        Thread.sleep(5);
      }
      switches.add((to.lastCallNanos.get() - sent) / 1e6);
    }
    // grpc-xds accepted (ACKed) everything central sent.
    var status = central.edge(EDGE).path("status");
    assertThat(status.path("lastNack").isNull() || status.path("lastNack").isMissingNode()).as("no NACK: %s", status).isTrue();
    System.out.printf("grpc-java xDS client (grpc-xds) via central: channel created -> first call answered %.1f ms; "
        + "endpoints PUT sent -> first call at the new server %.1f ms (%d calls in between, %d on the old server); "
        + "over %d switches: %s; of which the PUT (answered, includes validation and commit): %s%n",
        firstCallMillis, switchMillis, calls - 1, onFirst - 1, switches.size(), AdsServerIT.distribution(switches),
        AdsServerIT.distribution(puts));
  }
}
