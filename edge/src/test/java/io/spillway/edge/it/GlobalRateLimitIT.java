package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static io.spillway.edge.it.EdgeHarness.withHttpFilterBeforeRouter;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RecordedRequest;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The global rate limit filter against a real grpc-java {@code RateLimitService} on 127.0.0.1 (the
 * {@code rls} cluster), behind a real edge in front of a real origin. The service answers by the
 * {@code client} descriptor entry: {@code over} is over the limit, {@code slow} answers OK after
 * 3 s, anything else is OK with header changes.
 */
class GlobalRateLimitIT {

  private OriginServer upstream;
  private RlsServer rls;
  private EdgeHarness edge;
  private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();

  @BeforeEach
  void start() throws Exception {
    upstream = OriginServer.start("upstream");
    rls = new RlsServer();
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    upstream.close();
    rls.close();
    later.shutdownNow();
  }

  /** The scripted rate limit service: records each request and its call's metadata. */
  private final class RlsServer extends RateLimitServiceGrpc.RateLimitServiceImplBase implements AutoCloseable {
    final ConcurrentLinkedQueue<RateLimitRequest> requests = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Metadata> metadata = new ConcurrentLinkedQueue<>();
    final Server server;

    RlsServer() throws Exception {
      ServerInterceptor recordMetadata = new ServerInterceptor() {
        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
            ServerCallHandler<Q, R> next) {
          metadata.add(headers);
          return next.startCall(call, headers);
        }
      };
      server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
          .addService(ServerInterceptors.intercept(this, recordMetadata))
          .build().start();
    }

    int port() {
      return server.getPort();
    }

    @Override
    public void shouldRateLimit(RateLimitRequest request, StreamObserver<RateLimitResponse> answer) {
      requests.add(request);
      String client = "";
      for (RateLimitDescriptor d : request.getDescriptorsList()) {
        for (RateLimitDescriptor.Entry e : d.getEntriesList()) {
          if (e.getKey().equals("client")) {
            client = e.getValue();
          }
        }
      }
      RateLimitResponse.DescriptorStatus perMinute = RateLimitResponse.DescriptorStatus.newBuilder()
          .setCode(RateLimitResponse.Code.OK)
          .setCurrentLimit(RateLimitResponse.RateLimit.newBuilder().setRequestsPerUnit(100)
              .setUnit(RateLimitResponse.RateLimit.Unit.MINUTE).setName("per-client"))
          .setLimitRemaining(client.equals("over") ? 0 : 7)
          .setDurationUntilReset(com.google.protobuf.Duration.newBuilder().setSeconds(42))
          .build();
      switch (client) {
        case "over" -> {
          answer.onNext(RateLimitResponse.newBuilder()
              .setOverallCode(RateLimitResponse.Code.OVER_LIMIT)
              .addStatuses(perMinute.toBuilder().setCode(RateLimitResponse.Code.OVER_LIMIT))
              .addResponseHeadersToAdd(HeaderValue.newBuilder().setKey("x-rls-reason").setValue("too many"))
              .setRawBody(ByteString.copyFromUtf8("slow down"))
              .build());
          answer.onCompleted();
        }
        case "slow" -> later.schedule(() -> {
          answer.onNext(RateLimitResponse.newBuilder().setOverallCode(RateLimitResponse.Code.OK).build());
          answer.onCompleted();
        }, 3, TimeUnit.SECONDS);
        case "unknown" -> {
          answer.onNext(RateLimitResponse.newBuilder().build()); // overall_code UNKNOWN
          answer.onCompleted();
        }
        default -> {
          answer.onNext(RateLimitResponse.newBuilder()
              .setOverallCode(RateLimitResponse.Code.OK)
              .addStatuses(perMinute)
              .addRequestHeadersToAdd(HeaderValue.newBuilder().setKey("x-rls-checked").setValue("yes"))
              .addRequestHeadersToAdd(HeaderValue.newBuilder().setKey("content-length").setValue("9"))
              .addResponseHeadersToAdd(HeaderValue.newBuilder().setKey("X-Rls-Response").setValue("ok"))
              .build());
          answer.onCompleted();
        }
      }
    }

    @Override
    public void close() {
      server.shutdownNow();
    }
  }

  /**
   * The edge: routes {@code /} (its own rate_limits: the client header and a generic key at stage 0,
   * another at stage 1) and {@code /vh} (none: the virtual host's source_cluster entry), the ratelimit
   * filter with these extra fields (column 0).
   */
  private static String yaml(int upstreamPort, String filterFields, int rlsPort) {
    String base = "node: { id: it, cluster: edge-fleet }\n" + bootstrap("""
        - match: { prefix: "/vh" }
          route: { cluster: upstream, timeout: 10s }
        - match: { prefix: "/" }
          route:
            cluster: upstream
            timeout: 10s
            rate_limits:
            - actions:
              - request_headers: { header_name: x-client, descriptor_key: client }
              - generic_key: { descriptor_value: edge-route }
            - stage: 1
              actions: [{ generic_key: { descriptor_value: other-stage } }]
        """, cluster("upstream", "", upstreamPort) + "\n" + cluster("rls", """
        typed_extension_protocol_options:
          envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
            "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
            explicit_http_config:
              http2_protocol_options: {}
        """, rlsPort));
    base = base.replace("""
                      domains: ["*"]
        """, """
                      domains: ["*"]
                      rate_limits: [{ actions: [{ source_cluster: {} }] }]
        """);
    return withHttpFilterBeforeRouter(base, """
        - name: envoy.filters.http.ratelimit
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.http.ratelimit.v3.RateLimit
            domain: edge
            timeout: 1.5s
            rate_limit_service:
              grpc_service:
                envoy_grpc: { cluster_name: rls }
                initial_metadata: [{ key: x-tenant, value: acme }]
              transport_api_version: V3
        %s""".formatted(filterFields.stripIndent().indent(4).stripTrailing()));
  }

  private static List<List<String>> descriptors(RateLimitRequest request) {
    return request.getDescriptorsList().stream()
        .map(d -> d.getEntriesList().stream().map(e -> e.getKey() + "=" + e.getValue()).toList())
        .toList();
  }

  @Test
  void anAllowedRequestGoesUpstreamWithTheServicesHeadersAndTheRouteDescriptors() throws Exception {
    edge = EdgeHarness.start(yaml(upstream.port(), "enable_x_ratelimit_headers: DRAFT_VERSION_03", rls.port()));
    HttpResponse<String> r = edge.get("/headers", "X-Client", "alice");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("x-rls-response")).hasValue("ok");
    assertThat(r.headers().firstValue("x-ratelimit-limit")).hasValue("100, 100;w=60;name=\"per-client\"");
    assertThat(r.headers().firstValue("x-ratelimit-remaining")).hasValue("7");
    assertThat(r.headers().firstValue("x-ratelimit-reset")).hasValue("42");
    assertThat(r.headers().firstValue("x-envoy-ratelimited")).isEmpty();

    RecordedRequest forwarded = upstream.lastRequest();
    assertThat(forwarded.header("x-rls-checked")).isEqualTo("yes");
    assertThat(forwarded.header("content-length")).as("a framing header from the service is skipped").isNull();

    assertThat(rls.requests).hasSize(1);
    RateLimitRequest asked = rls.requests.peek();
    assertThat(asked.getDomain()).isEqualTo("edge");
    assertThat(descriptors(asked)).as("the stage-0 entry's actions, in order; not the stage-1 one nor the vh's")
        .containsExactly(List.of("client=alice", "generic_key=edge-route"));
    assertThat(rls.metadata.peek().get(Metadata.Key.of("x-tenant", Metadata.ASCII_STRING_MARSHALLER)))
        .isEqualTo("acme");
    assertThat(edge.awaitStat("cluster.upstream.ratelimit.ok", 1)).isEqualTo(1);
    assertThat(edge.stat("cluster.upstream.ratelimit.over_limit")).isZero();
    assertThat(edge.stat("cluster.upstream.ratelimit.error")).isZero();
  }

  @Test
  void aRouteWithoutItsOwnEntriesUsesTheVirtualHostsAndARequestWithoutDescriptorsIsNotChecked() throws Exception {
    edge = EdgeHarness.start(yaml(upstream.port(), "", rls.port()));
    HttpResponse<String> vh = edge.get("/vh/a");
    assertThat(vh.statusCode()).isEqualTo(200);
    assertThat(rls.requests).hasSize(1);
    assertThat(descriptors(rls.requests.peek())).containsExactly(List.of("source_cluster=edge-fleet"));

    rls.requests.clear();
    HttpResponse<String> none = edge.get("/no-client-header");
    assertThat(none.statusCode()).isEqualTo(200);
    assertThat(rls.requests).as("request_headers without the header: no descriptor, no call").isEmpty();
    assertThat(upstream.requestCount()).isEqualTo(2);
  }

  @Test
  void anOverLimitRequestGets429AndNeverReachesTheUpstream() throws Exception {
    edge = EdgeHarness.start(yaml(upstream.port(), """
        enable_x_ratelimit_headers: DRAFT_VERSION_03
        response_headers_to_add: [{ header: { key: x-limited-by, value: edge } }]
        """, rls.port()));
    HttpResponse<String> r = edge.get("/headers", "X-Client", "over");
    assertThat(r.statusCode()).isEqualTo(429);
    assertThat(r.headers().firstValue("x-envoy-ratelimited")).hasValue("true");
    assertThat(r.headers().firstValue("x-rls-reason")).hasValue("too many");
    assertThat(r.headers().firstValue("x-limited-by")).hasValue("edge");
    assertThat(r.headers().firstValue("x-ratelimit-remaining")).hasValue("0");
    assertThat(r.body()).isEqualTo("slow down");
    assertThat(upstream.requestCount()).isZero();
    assertThat(edge.awaitStat("cluster.upstream.ratelimit.over_limit", 1)).isEqualTo(1);
    assertThat(edge.stat("cluster.upstream.ratelimit.ok")).isZero();
  }

  @Test
  void theRefusalsStatusAndHeaderFollowTheConfig() throws Exception {
    edge = EdgeHarness.start(yaml(upstream.port(), """
        rate_limited_status: { code: ServiceUnavailable }
        disable_x_envoy_ratelimited_header: true
        """, rls.port()));
    HttpResponse<String> r = edge.get("/headers", "X-Client", "over");
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(r.headers().firstValue("x-envoy-ratelimited")).isEmpty();
    assertThat(r.headers().firstValue("x-ratelimit-limit")).as("x-ratelimit headers are off by default").isEmpty();
    assertThat(upstream.requestCount()).isZero();
  }

  @Test
  void aServiceThatIsDownLetsRequestsThroughUnlessFailureModeDeny() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    }
    edge = EdgeHarness.start(yaml(upstream.port(), "", closedPort));
    HttpResponse<String> r = edge.get("/headers", "X-Client", "alice");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(upstream.requestCount()).isEqualTo(1);
    assertThat(edge.awaitStat("cluster.upstream.ratelimit.failure_mode_allowed", 1)).isEqualTo(1);
    assertThat(edge.stat("cluster.upstream.ratelimit.error")).isEqualTo(1);
    edge.close();

    edge = EdgeHarness.start(yaml(upstream.port(), "failure_mode_deny: true", closedPort));
    HttpResponse<String> denied = edge.get("/headers", "X-Client", "alice");
    assertThat(denied.statusCode()).isEqualTo(500);
    assertThat(upstream.requestCount()).as("still only the first request").isEqualTo(1);
    assertThat(edge.awaitStat("cluster.upstream.ratelimit.error", 1)).isEqualTo(1);
    assertThat(edge.stat("cluster.upstream.ratelimit.failure_mode_allowed")).isZero();
  }

  @Test
  void theTimeoutEndsASlowCallAndAnUnknownCodeIsAnError() throws Exception {
    // The service answers OK after 3 s; a 200 ms deadline turns that into an error, refused with status_on_error.
    edge = EdgeHarness.start(yaml(upstream.port(), """
        failure_mode_deny: true
        status_on_error: { code: ServiceUnavailable }
        """, rls.port()).replace("timeout: 1.5s", "timeout: 0.2s"));
    HttpResponse<String> slow = edge.get("/headers", "X-Client", "slow");
    assertThat(slow.statusCode()).isEqualTo(503);
    assertThat(edge.awaitStat("cluster.upstream.ratelimit.error", 1)).isEqualTo(1);
    HttpResponse<String> unknown = edge.get("/headers", "X-Client", "unknown");
    assertThat(unknown.statusCode()).isEqualTo(503);
    assertThat(edge.awaitStat("cluster.upstream.ratelimit.error", 2)).isEqualTo(2);
    assertThat(upstream.requestCount()).isZero();
    assertThat(edge.stat("cluster.upstream.ratelimit.ok")).isZero();
  }

  @Test
  void theOutboundGuardOfTheServicesClusterRefusesExcessCallsWith503() throws Exception {
    // One call at a time and a queue of one: the slow call holds the slot until its deadline, the
    // second waits for it, the third finds the queue full.
    edge = EdgeHarness.start(yaml(upstream.port(), "failure_mode_deny: true", rls.port()), """
        {"outbound": {"mode": "enforce", "maxConcurrent": 1, "maxQueue": 1, "queueTimeoutMillis": 5000}}
        """);
    List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> calls = new java.util.ArrayList<>();
    for (String client : List.of("slow", "alice", "bob")) {
      calls.add(edge.http.sendAsync(java.net.http.HttpRequest.newBuilder(edge.uri("/c/" + client))
          .header("X-Client", client).build(), HttpResponse.BodyHandlers.ofString()));
      Thread.sleep(150);
    }
    HttpResponse<String> slow = calls.get(0).get(10, TimeUnit.SECONDS);
    HttpResponse<String> queued = calls.get(1).get(10, TimeUnit.SECONDS);
    HttpResponse<String> refused = calls.get(2).get(10, TimeUnit.SECONDS);
    assertThat(slow.statusCode()).as("its deadline passed: status_on_error").isEqualTo(500);
    assertThat(queued.statusCode()).isEqualTo(200);
    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.body()).isEqualTo("upstream guard refused the rate limit call: queue_full");
    assertThat(rls.requests).as("the refused call was never made").hasSize(2);
    assertThat(upstream.requestCount()).isEqualTo(1);
    assertThat(edge.awaitStat("cluster.upstream.ratelimit.error", 2)).isEqualTo(2);
    assertThat(edge.stat("cluster.upstream.ratelimit.ok")).isEqualTo(1);
  }

  @Test
  void theEdgeStopsWithItsChannels() throws Exception {
    edge = EdgeHarness.start(yaml(upstream.port(), "", rls.port()));
    assertThat(edge.get("/headers", "X-Client", "alice").statusCode()).isEqualTo(200);
    assertThat(Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getName().startsWith("spillway-grpc-client") && t.isAlive())).isTrue();
    edge.close();
    edge = null;
    boolean stopped = false;
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos();
    while (!stopped && System.nanoTime() < deadline) {
      stopped = Thread.getAllStackTraces().keySet().stream()
          .noneMatch(t -> t.getName().startsWith("spillway-grpc-client") && t.isAlive());
      if (!stopped) {
        Thread.sleep(20);
      }
    }
    assertThat(stopped).as("the gRPC channels' event loop ended").isTrue();
  }
}
