package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static io.spillway.edge.it.EdgeHarness.withHttpFilterBeforeRouter;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.BoolValue;
import com.google.rpc.Status;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.config.core.v3.HeaderValueOption;
import io.envoyproxy.envoy.config.core.v3.QueryParameter;
import io.envoyproxy.envoy.service.auth.v3.AttributeContext;
import io.envoyproxy.envoy.service.auth.v3.AuthorizationGrpc;
import io.envoyproxy.envoy.service.auth.v3.CheckRequest;
import io.envoyproxy.envoy.service.auth.v3.CheckResponse;
import io.envoyproxy.envoy.service.auth.v3.DeniedHttpResponse;
import io.envoyproxy.envoy.service.auth.v3.OkHttpResponse;
import io.envoyproxy.envoy.type.v3.HttpStatus;
import io.envoyproxy.envoy.type.v3.StatusCode;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.spillway.testkit.H2cClient;
import io.spillway.testkit.HeaderField;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RawHttp;
import io.spillway.testkit.RecordedRequest;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ext_authz over gRPC: a real grpc-java {@code Authorization} service on 127.0.0.1 as the
 * {@code ext-authz} cluster, behind a real edge in front of a real origin. The service answers by
 * the checked request's path: {@code /deny…} is denied, {@code /slow…} answers after 3 s, anything
 * else is allowed with header, query and response changes.
 */
class GrpcExtAuthzIT {

  private OriginServer upstream;
  private AuthzServer authz;
  private EdgeHarness edge;
  private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();

  @BeforeEach
  void start() throws Exception {
    upstream = OriginServer.start("upstream");
    authz = new AuthzServer("a");
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    upstream.close();
    authz.close();
    later.shutdownNow();
  }

  /** The scripted authorization service: records each check and the call's metadata. */
  private final class AuthzServer extends AuthorizationGrpc.AuthorizationImplBase implements AutoCloseable {
    final String name;
    final ConcurrentLinkedQueue<CheckRequest> checks = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Metadata> metadata = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<String> authorities = new ConcurrentLinkedQueue<>();
    final java.util.concurrent.atomic.AtomicInteger cancelled = new java.util.concurrent.atomic.AtomicInteger();
    final Server server;

    AuthzServer(String name) throws Exception {
      this.name = name;
      ServerInterceptor recordMetadata = new ServerInterceptor() {
        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
            ServerCallHandler<Q, R> next) {
          metadata.add(headers);
          authorities.add(String.valueOf(call.getAuthority()));
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

    CheckRequest last() {
      CheckRequest last = null;
      for (CheckRequest c : checks) {
        last = c;
      }
      return last;
    }

    @Override
    public void check(CheckRequest request, StreamObserver<CheckResponse> answer) {
      checks.add(request);
      String path = request.getAttributes().getRequest().getHttp().getPath();
      if (path.startsWith("/deny")) {
        answer.onNext(CheckResponse.newBuilder()
            .setStatus(Status.newBuilder().setCode(7)) // PERMISSION_DENIED
            .setDeniedResponse(DeniedHttpResponse.newBuilder()
                .setStatus(HttpStatus.newBuilder().setCode(StatusCode.Unauthorized))
                .addHeaders(option("x-reason", "no ticket", null))
                .setBody("go away"))
            .build());
        answer.onCompleted();
      } else if (path.startsWith("/bare-deny")) {
        answer.onNext(CheckResponse.newBuilder().setStatus(Status.newBuilder().setCode(16)).build());
        answer.onCompleted();
      } else if (path.startsWith("/slow")) {
        io.grpc.Context.current().addListener(context -> cancelled.incrementAndGet(), Runnable::run);
        later.schedule(() -> {
          answer.onNext(CheckResponse.newBuilder().build());
          answer.onCompleted();
        }, 3, TimeUnit.SECONDS);
      } else {
        answer.onNext(CheckResponse.newBuilder()
            .setStatus(Status.newBuilder().setCode(0))
            .setOkResponse(OkHttpResponse.newBuilder()
                .addHeaders(option("x-user", "alice", false))
                .addHeaders(option("x-tag", "b", true))
                .addHeaders(HeaderValueOption.newBuilder()
                    .setHeader(HeaderValue.newBuilder().setKey("x-once").setValue("server"))
                    .setAppendAction(HeaderValueOption.HeaderAppendAction.ADD_IF_ABSENT))
                .addHeadersToRemove("x-remove-me")
                .addResponseHeadersToAdd(option("x-authz", name, false))
                .addQueryParametersToSet(QueryParameter.newBuilder().setKey("added").setValue("1"))
                .addQueryParametersToRemove("drop"))
            .build());
        answer.onCompleted();
      }
    }

    @Override
    public void close() {
      server.shutdownNow();
    }
  }

  @SuppressWarnings("deprecation") // HeaderValueOption.append, as services still send it
  private static HeaderValueOption option(String key, String value, Boolean append) {
    HeaderValueOption.Builder o = HeaderValueOption.newBuilder().setHeader(HeaderValue.newBuilder().setKey(key).setValue(value));
    if (append != null) {
      o.setAppend(BoolValue.of(append));
    }
    return o.build();
  }

  private static String yaml(int upstreamPort, String extAuthzFields, int... authzPorts) {
    String base = bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: upstream, timeout: 10s }
        """, cluster("upstream", "", upstreamPort) + "\n" + cluster("ext-authz", """
        typed_extension_protocol_options:
          envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
            "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
            explicit_http_config:
              http2_protocol_options: {}
        """, authzPorts));
    return withHttpFilterBeforeRouter(base, """
        - name: envoy.filters.http.ext_authz
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz
        %s""".formatted(extAuthzFields.stripIndent().indent(4).stripTrailing()));
  }

  private static final String GRPC = """
      grpc_service:
        envoy_grpc: { cluster_name: ext-authz }
        timeout: 2s
        initial_metadata: [{ key: x-tenant, value: acme }]
      transport_api_version: V3
      """;

  @Test
  void anAllowedRequestGoesUpstreamWithTheServicesChanges() throws Exception {
    edge = EdgeHarness.start(yaml(upstream.port(), GRPC, authz.port()));
    HttpResponse<String> r = edge.get("/headers?q=1&drop=x", "X-Tag", "a", "X-Remove-Me", "1", "X-Once", "client",
        "Authorization", "Bearer t");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("x-authz")).hasValue("a"); // response_headers_to_add

    RecordedRequest forwarded = upstream.lastRequest();
    assertThat(forwarded.path()).isEqualTo("/headers?q=1&added=1");
    assertThat(forwarded.header("x-user")).isEqualTo("alice");
    assertThat(forwarded.header("x-tag")).isEqualTo("a,b");
    assertThat(forwarded.header("x-once")).isEqualTo("client");
    assertThat(forwarded.header("x-remove-me")).isNull();
    assertThat(forwarded.header("authorization")).isEqualTo("Bearer t");

    CheckRequest check = authz.last();
    AttributeContext attributes = check.getAttributes();
    AttributeContext.HttpRequest http = attributes.getRequest().getHttp();
    assertThat(http.getMethod()).isEqualTo("GET");
    assertThat(http.getPath()).isEqualTo("/headers?q=1&drop=x");
    assertThat(http.getHost()).startsWith("127.0.0.1:");
    assertThat(http.getScheme()).isEqualTo("http");
    assertThat(http.getProtocol()).isEqualTo("HTTP/1.1");
    assertThat(http.getId()).isNotEmpty();
    assertThat(http.getHeadersMap()).containsEntry("x-tag", "a").containsEntry("authorization", "Bearer t")
        .containsEntry(":method", "GET").containsEntry(":path", "/headers?q=1&drop=x").containsKey("x-request-id")
        .doesNotContainKey("x-envoy-auth-partial-body");
    assertThat(http.getBody()).isEmpty();
    assertThat(attributes.getSource().getAddress().getSocketAddress().getAddress()).isEqualTo("127.0.0.1");
    assertThat(attributes.getDestination().getAddress().getSocketAddress().getPortValue()).isEqualTo(edge.port());
    assertThat(attributes.getRequest().getTime().getSeconds()).isPositive();

    Metadata md = authz.metadata.peek();
    assertThat(md.get(Metadata.Key.of("x-tenant", Metadata.ASCII_STRING_MARSHALLER))).isEqualTo("acme");
    assertThat(authz.authorities.peek()).isEqualTo("ext-authz"); // the cluster's name by default
    assertThat(edge.awaitStat("http.ingress.ext_authz.ok", 1)).isEqualTo(1);
    assertThat(edge.stat("http.ingress.ext_authz.denied")).isZero();
  }

  @Test
  void aDeniedRequestGetsTheDeniedResponseAndNeverReachesTheUpstream() throws Exception {
    edge = EdgeHarness.start(yaml(upstream.port(), GRPC, authz.port()));
    HttpResponse<String> denied = edge.get("/deny/this");
    assertThat(denied.statusCode()).isEqualTo(401);
    assertThat(denied.body()).isEqualTo("go away");
    assertThat(denied.headers().firstValue("x-reason")).hasValue("no ticket");
    HttpResponse<String> bare = edge.get("/bare-deny");
    assertThat(bare.statusCode()).as("no denied_response: 403").isEqualTo(403);
    assertThat(bare.body()).isEmpty();
    assertThat(upstream.requestCount()).isZero();
    assertThat(edge.awaitStat("http.ingress.ext_authz.denied", 2)).isEqualTo(2);
    assertThat(edge.stat("http.ingress.ext_authz.ok")).isZero();
  }

  @Test
  void aServiceThatIsDownAnswersStatusOnErrorOrLetsThroughWithFailureModeAllow() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    edge = EdgeHarness.start(yaml(upstream.port(), GRPC, closedPort));
    assertThat(edge.get("/anything").statusCode()).isEqualTo(403);
    assertThat(edge.awaitStat("http.ingress.ext_authz.error", 1)).isEqualTo(1);
    edge.close();

    edge = EdgeHarness.start(yaml(upstream.port(), GRPC + "status_on_error: { code: ServiceUnavailable }\n", closedPort));
    assertThat(edge.get("/anything").statusCode()).isEqualTo(503);
    edge.close();

    edge = EdgeHarness.start(yaml(upstream.port(), GRPC + """
        failure_mode_allow: true
        failure_mode_allow_header_add: true
        """, closedPort));
    assertThat(edge.get("/anything").statusCode()).isEqualTo(200);
    assertThat(upstream.lastRequest().header("x-envoy-auth-failure-mode-allowed")).isEqualTo("true");
    assertThat(edge.awaitStat("http.ingress.ext_authz.error", 1)).isEqualTo(1);
    assertThat(edge.awaitStat("http.ingress.ext_authz.failure_mode_allowed", 1)).isEqualTo(1);
    assertThat(upstream.requestCount()).isEqualTo(1);
  }

  @Test
  void aCheckPastTheTimeoutIsAnError() throws Exception {
    edge = EdgeHarness.start(yaml(upstream.port(), """
        grpc_service:
          envoy_grpc: { cluster_name: ext-authz }
          timeout: 0.3s
        """, authz.port()));
    long start = System.nanoTime();
    assertThat(edge.get("/slow").statusCode()).isEqualTo(403);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(2900));
    assertThat(upstream.requestCount()).isZero();
    assertThat(edge.awaitStat("http.ingress.ext_authz.error", 1)).isEqualTo(1);
  }

  @Test
  void aClientLeavingMidCheckCancelsTheCall() throws Exception {
    edge = EdgeHarness.start(yaml(upstream.port(), """
        grpc_service:
          envoy_grpc: { cluster_name: ext-authz }
          timeout: 30s
        """, authz.port()));
    RawHttp.Connection leaving = RawHttp.connect(edge.port(), Duration.ofSeconds(5));
    leaving.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (authz.checks.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(authz.checks).hasSize(1);
    leaving.close();
    deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (authz.cancelled.get() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(authz.cancelled.get()).as("the service saw the call cancelled").isEqualTo(1);
    assertThat(edge.get("/after").statusCode()).isEqualTo(200);
    assertThat(upstream.requestCount()).isEqualTo(1);
    assertThat(edge.awaitStat("http.ingress.ext_authz.ok", 1)).isEqualTo(1);
    assertThat(edge.stat("http.ingress.ext_authz.error")).isZero();
  }

  @Test
  void http2RequestsAreCheckedTheSameWay() throws Exception {
    edge = EdgeHarness.start(yaml(upstream.port(), GRPC + "with_request_body: { max_request_bytes: 100000 }\n",
        authz.port()));
    try (H2cClient h2 = H2cClient.connect(edge.port())) {
      H2cClient.Response allowed = H2cClient.await(h2.send("POST", "/drain",
          List.of(new HeaderField("x-tenant", "acme")), "x".repeat(50_000).getBytes(StandardCharsets.US_ASCII)));
      assertThat(allowed.status()).isEqualTo(200);
      assertThat(allowed.header("x-received-bytes")).isEqualTo("50000");
      assertThat(allowed.header("x-authz")).isEqualTo("a");
      AttributeContext.HttpRequest http = authz.last().getAttributes().getRequest().getHttp();
      assertThat(http.getProtocol()).isEqualTo("HTTP/2");
      assertThat(http.getBody()).hasSize(50_000);
      assertThat(http.getHeadersMap()).containsEntry("x-tenant", "acme");
      H2cClient.Response denied = H2cClient.await(h2.send("GET", "/deny", List.of(), null));
      assertThat(denied.status()).isEqualTo(401);
      assertThat(denied.bodyText()).isEqualTo("go away");
    }
    assertThat(upstream.requestCount()).isEqualTo(1);
  }

  @Test
  void theChecksPassTheClustersOutboundGuard() throws Exception {
    edge = EdgeHarness.start(yaml(upstream.port(), """
        grpc_service:
          envoy_grpc: { cluster_name: ext-authz }
          timeout: 10s
        """, authz.port()), """
        {"outbound": {"mode": "enforce", "maxConcurrent": 1, "maxQueue": 1, "queueTimeoutMillis": 200}}
        """);
    var slow = edge.http.sendAsync(HttpRequest.newBuilder(edge.uri("/slow")).build(),
        HttpResponse.BodyHandlers.ofString());
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (authz.checks.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    HttpResponse<String> refused = edge.get("/second");
    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.body()).isEqualTo("upstream guard refused the auth call: queue_timeout"); // queued, then timed out
    assertThat(authz.checks).hasSize(1); // the refused call was never made
    assertThat(slow.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    assertThat(edge.awaitStat("http.ingress.ext_authz.error", 1)).isEqualTo(1);
    assertThat(edge.awaitStat("http.ingress.ext_authz.ok", 1)).isEqualTo(1);
    long inFlight = -1;
    deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (inFlight != 0 && System.nanoTime() < deadline) {
      java.util.regex.Matcher m = java.util.regex.Pattern
          .compile("(?m)^http_client_guard_in_flight\\{[^}]*peer=\"ext-authz\"[^}]*\\} (\\d+)")
          .matcher(io.spillway.edge.stats.PrometheusStatsFormat.render(edge.stats(), io.spillway.edge.stats.StatFilter.ALL));
      inFlight = m.find() ? Long.parseLong(m.group(1)) : -1;
      if (inFlight != 0) {
        Thread.sleep(10);
      }
    }
    assertThat(inFlight).as("the permit went back").isZero();
  }

  @Test
  void withRequestBodyTheBodyReachesTheService() throws Exception {
    edge = EdgeHarness.start(yaml(upstream.port(), GRPC + "with_request_body: { max_request_bytes: 1024 }\n",
        authz.port()));
    HttpResponse<String> r = edge.http.send(HttpRequest.newBuilder(edge.uri("/drain"))
        .POST(HttpRequest.BodyPublishers.ofString("hello authz")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("x-received-bytes")).hasValue("11");
    AttributeContext.HttpRequest http = authz.last().getAttributes().getRequest().getHttp();
    assertThat(http.getBody()).isEqualTo("hello authz");
    assertThat(http.getRawBody().isEmpty()).isTrue();
    assertThat(http.getSize()).isEqualTo(11);
    assertThat(http.getHeadersMap()).containsEntry("x-envoy-auth-partial-body", "false");

    HttpResponse<String> tooLarge = edge.http.send(HttpRequest.newBuilder(edge.uri("/drain"))
        .POST(HttpRequest.BodyPublishers.ofString("x".repeat(5000))).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(tooLarge.statusCode()).isEqualTo(413);
    assertThat(authz.checks).hasSize(1);
  }

  @Test
  void aPartialBodyIsPackedAsBytesAndTheWholeBodyStillGoesUpstream() throws Exception {
    edge = EdgeHarness.start(yaml(upstream.port(), GRPC + """
        with_request_body: { max_request_bytes: 4, allow_partial_message: true, pack_as_bytes: true }
        """, authz.port()));
    HttpResponse<String> r = edge.http.send(HttpRequest.newBuilder(edge.uri("/drain"))
        .POST(HttpRequest.BodyPublishers.ofString("0123456789")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("x-received-bytes")).hasValue("10");
    AttributeContext.HttpRequest http = authz.last().getAttributes().getRequest().getHttp();
    assertThat(http.getRawBody().toStringUtf8()).isEqualTo("0123");
    assertThat(http.getBody()).isEmpty();
    assertThat(http.getHeadersMap()).containsEntry("x-envoy-auth-partial-body", "true");
  }

  @Test
  void checksAreSpreadOverTheClustersHosts() throws Exception {
    try (AuthzServer second = new AuthzServer("b")) {
      edge = EdgeHarness.start(yaml(upstream.port(), GRPC, authz.port(), second.port()));
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      int sent = 0;
      while ((authz.checks.isEmpty() || second.checks.isEmpty()) && System.nanoTime() < deadline && sent < 40) {
        assertThat(edge.get("/ok/" + sent).statusCode()).isEqualTo(200);
        sent++;
      }
      assertThat(authz.checks).isNotEmpty();
      assertThat(second.checks).isNotEmpty();
    }
  }

  @Test
  void anHttpServiceGetsTheBodyToo() throws Exception {
    OriginServer httpAuth = OriginServer.start("auth");
    try {
      String base = bootstrap("""
          - match: { prefix: "/" }
            route: { cluster: upstream, timeout: 10s }
          """, cluster("upstream", "", upstream.port()) + "\n" + cluster("auth", "", httpAuth.port()));
      edge = EdgeHarness.start(withHttpFilterBeforeRouter(base, """
          - name: envoy.filters.http.ext_authz
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz
              http_service:
                server_uri: { uri: "http://auth", cluster: auth, timeout: 2s }
              allowed_headers: { patterns: [{ exact: x-envoy-auth-partial-body }] }
              with_request_body: { max_request_bytes: 64 }
          """));
      HttpResponse<String> r = edge.http.send(HttpRequest.newBuilder(edge.uri("/drain"))
          .POST(HttpRequest.BodyPublishers.ofString("hello")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      RecordedRequest check = httpAuth.lastRequest();
      assertThat(check.header("content-length")).isEqualTo("5");
      assertThat(check.body()).isEqualTo("hello");
      assertThat(check.header("x-envoy-auth-partial-body")).isEqualTo("false");
      assertThat(upstream.lastRequest().bodyLength()).isEqualTo(5);
    } finally {
      httpAuth.close();
    }
  }

  @Test
  void theEdgeStopsWithItsChannels() throws Exception {
    edge = EdgeHarness.start(yaml(upstream.port(), GRPC, authz.port()));
    assertThat(edge.get("/ok").statusCode()).isEqualTo(200);
    edge.close();
    edge = null;
    boolean stopped = false;
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!stopped && System.nanoTime() < deadline) {
      stopped = Thread.getAllStackTraces().keySet().stream()
          .noneMatch(t -> t.getName().startsWith("spillway-grpc-client") && t.isAlive());
      if (!stopped) {
        Thread.sleep(20);
      }
    }
    assertThat(stopped).as("the gRPC clients' event loop ended").isTrue();
  }
}
