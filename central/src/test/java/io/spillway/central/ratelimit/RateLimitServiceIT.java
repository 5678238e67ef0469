package io.spillway.central.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.UInt64Value;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.spillway.central.ApiClient;
import io.spillway.central.CentralConfig;
import io.spillway.central.CentralServer;
import io.spillway.testkit.RedisRequired;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Central's rate limit service against the real Redis at 127.0.0.1:6379 (skipped without it unless
 * CI is set), called by grpc-java clients presenting registered edges' credentials, as the edges'
 * (or Envoy's) {@code envoy.filters.http.ratelimit} filter does. Every run counts under its own key
 * prefix, and every test under its own descriptor values, so runs and tests never share a count.
 */
@ExtendWith(RedisRequired.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RateLimitServiceIT {

  private static final String ADMIN_TOKEN = "rls-it-admin-" + UUID.randomUUID();
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private static final String LIMITS = """
      domain: it
      descriptors:
        - key: per_second
          rate_limit: {unit: second, requests_per_unit: 10}
        - key: per_minute
          rate_limit: {unit: minute, requests_per_unit: 20}
        - key: shared
          rate_limit: {unit: minute, requests_per_unit: 25}
        - key: api_key
          rate_limit: {unit: minute, requests_per_unit: 3}
        - key: api_key
          value: partner
          rate_limit: {unit: minute, requests_per_unit: 6}
        - key: api_key
          value: internal
          rate_limit: {unlimited: true}
        - key: shadow
          rate_limit: {unit: minute, requests_per_unit: 2}
          shadow_mode: true
        - key: route
          value: checkout
          descriptors:
            - key: user
              rate_limit: {unit: hour, requests_per_unit: 4}
      """;

  @TempDir
  static Path dir;

  private final String prefix = "rls-it-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()) + ":";
  private CentralServer central;
  private ApiClient api;
  private String edgeA;
  private String edgeB;
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<CentralServer> others = new ArrayList<>();

  @BeforeAll
  void start() throws IOException {
    RedisRequired.check();
    Path limits = Files.writeString(dir.resolve("limits.yaml"), LIMITS);
    // a bound far above a round trip: these tests count, the bound is the unreachable ones' (50 ms)
    central = startCentral("main", new RateLimitSettings(List.of(limits), "redis://127.0.0.1:6379", prefix,
        Duration.ofSeconds(5)));
    api = new ApiClient(central.httpPort());
    edgeA = register("edge-a");
    edgeB = register("edge-b");
  }

  private CentralServer startCentral(String name, RateLimitSettings settings) throws IOException {
    Path data = Files.createDirectories(dir.resolve(name));
    return CentralServer.start(CentralConfig.defaults(data, null, null, ADMIN_TOKEN).withRateLimit(settings),
        Clock.systemUTC(), new SecureRandom(), System.out);
  }

  @AfterAll
  void stop() {
    channels.forEach(ManagedChannel::shutdownNow);
    others.forEach(CentralServer::close);
    if (central != null) {
      central.close();
    }
    if (RedisRequired.answers()) {
      RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
      try (StatefulRedisConnection<String, String> c = client.connect()) {
        ScanIterator<String> keys = ScanIterator.scan(c.sync(), ScanArgs.Builder.matches(prefix + "*").limit(1000));
        List<String> all = new ArrayList<>();
        keys.forEachRemaining(all::add);
        if (!all.isEmpty()) {
          c.sync().del(all.toArray(new String[0]));
        }
      } finally {
        client.shutdown();
      }
    }
  }

  private String register(String id) {
    HttpResponse<String> response = api.send("POST", "/configuration/edges", ADMIN_TOKEN, "application/json",
        ("{\"id\": \"" + id + "\", \"labels\": {}}").getBytes(StandardCharsets.UTF_8));
    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
    try {
      return new ObjectMapper().readTree(response.body()).get("credential").asText();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** A client of {@code server}'s rate limit service presenting {@code credential} (none when null). */
  private RateLimitServiceGrpc.RateLimitServiceBlockingStub client(CentralServer server, String credential) {
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.xdsPort()).usePlaintext().build();
    channels.add(channel);
    Metadata headers = new Metadata();
    if (credential != null) {
      headers.put(AUTHORIZATION, "Bearer " + credential);
    }
    return RateLimitServiceGrpc.newBlockingStub(channel).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  private RateLimitServiceGrpc.RateLimitServiceBlockingStub client(String credential) {
    return client(central, credential);
  }

  private static RateLimitRequest request(String... keyValues) {
    return RateLimitRequest.newBuilder().setDomain("it").addDescriptors(descriptor(keyValues)).build();
  }

  private static RateLimitDescriptor descriptor(String... keyValues) {
    RateLimitDescriptor.Builder d = RateLimitDescriptor.newBuilder();
    for (int i = 0; i < keyValues.length; i += 2) {
      d.addEntries(RateLimitDescriptor.Entry.newBuilder().setKey(keyValues[i]).setValue(keyValues[i + 1]));
    }
    return d.build();
  }

  private static RateLimitResponse call(RateLimitServiceGrpc.RateLimitServiceBlockingStub stub, RateLimitRequest request) {
    return stub.withDeadlineAfter(WAIT.toMillis(), TimeUnit.MILLISECONDS).shouldRateLimit(request);
  }

  private static String unique() {
    return UUID.randomUUID().toString().substring(0, 8);
  }

  /** Waits (at most a few seconds) until the window of {@code unitSeconds} has at least {@code room} ms left. */
  private static void awaitWindowStart(long unitSeconds, long room) throws InterruptedException {
    long window = unitSeconds * 1000;
    long left = window - Math.floorMod(System.currentTimeMillis(), window);
    if (left < room) {
      Thread.sleep(left + 20);
    }
  }

  @Test
  void aPerSecondLimitAdmitsExactlyItsCountInABurst() throws InterruptedException {
    var stub = client(edgeA);
    String value = unique();
    awaitWindowStart(1, 700);
    int ok = 0;
    int over = 0;
    List<Integer> remaining = new ArrayList<>();
    for (int i = 0; i < 15; i++) {
      RateLimitResponse r = call(stub, request("per_second", value));
      assertThat(r.getStatusesCount()).isEqualTo(1);
      RateLimitResponse.DescriptorStatus s = r.getStatuses(0);
      assertThat(s.getCode()).isEqualTo(r.getOverallCode());
      assertThat(s.getCurrentLimit().getRequestsPerUnit()).isEqualTo(10);
      assertThat(s.getCurrentLimit().getUnit()).isEqualTo(RateLimitResponse.RateLimit.Unit.SECOND);
      assertThat(Duration.ofSeconds(s.getDurationUntilReset().getSeconds(), s.getDurationUntilReset().getNanos()))
          .isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1));
      remaining.add(s.getLimitRemaining());
      if (r.getOverallCode() == Code.OK) {
        ok++;
      } else {
        assertThat(r.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
        over++;
      }
    }
    assertThat(ok).isEqualTo(10);
    assertThat(over).isEqualTo(5);
    assertThat(remaining).containsExactly(9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0, 0, 0, 0);
  }

  @Test
  void aPerMinuteLimitAdmitsExactlyItsCountAndTheKeyIsLyfts() throws InterruptedException {
    var stub = client(edgeA);
    String value = unique();
    awaitWindowStart(60, 5_000);
    int ok = 0;
    for (int i = 0; i < 30; i++) {
      RateLimitResponse r = call(stub, request("per_minute", value));
      if (r.getOverallCode() == Code.OK) {
        ok++;
      }
      assertThat(r.getStatuses(0).getCurrentLimit().getUnit()).isEqualTo(RateLimitResponse.RateLimit.Unit.MINUTE);
    }
    assertThat(ok).isEqualTo(20);
    // <prefix><domain>_<key>_<value>_<window start>, as Lyft's service names it, expiring with the window
    long windowStart = System.currentTimeMillis() / 1000 / 60 * 60;
    RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      String key = prefix + "it_per_minute_" + value + "_" + windowStart;
      assertThat(c.sync().get(key)).isEqualTo("30");
      assertThat(c.sync().ttl(key)).isBetween(1L, 60L);
    } finally {
      client.shutdown();
    }
  }

  @Test
  void twoEdgesShareOneLimit() throws Exception {
    var a = client(edgeA);
    var b = client(edgeB);
    String value = unique();
    awaitWindowStart(60, 10_000);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Callable<Integer> burstA = () -> burst(a, value, 25);
      Callable<Integer> burstB = () -> burst(b, value, 25);
      Future<Integer> okA = pool.submit(burstA);
      Future<Integer> okB = pool.submit(burstB);
      int fromA = okA.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      int fromB = okB.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(fromA + fromB).isEqualTo(25);
    } finally {
      pool.shutdownNow();
    }
  }

  private static int burst(RateLimitServiceGrpc.RateLimitServiceBlockingStub stub, String value, int calls) {
    int ok = 0;
    for (int i = 0; i < calls; i++) {
      if (call(stub, request("shared", value)).getOverallCode() == Code.OK) {
        ok++;
      }
    }
    return ok;
  }

  @Test
  void keyAndValueWinsOverKeyAlone() throws InterruptedException {
    var stub = client(edgeA);
    awaitWindowStart(60, 5_000);
    // the value "partner" has its own limit (6); any other API key gets the key's (3), each its own count
    String someone = "someone-" + unique();
    assertThat(okCount(stub, request("api_key", "partner"), 10)).isEqualTo(6);
    assertThat(okCount(stub, request("api_key", someone), 10)).isEqualTo(3);
    assertThat(okCount(stub, request("api_key", "else-" + unique()), 10)).isEqualTo(3);
    RateLimitResponse unlimited = call(stub, request("api_key", "internal"));
    assertThat(unlimited.getOverallCode()).isEqualTo(Code.OK);
    assertThat(unlimited.getStatuses(0).hasCurrentLimit()).isFalse();
    assertThat(Integer.toUnsignedLong(unlimited.getStatuses(0).getLimitRemaining())).isEqualTo(0xFFFF_FFFFL);
  }

  private static int okCount(RateLimitServiceGrpc.RateLimitServiceBlockingStub stub, RateLimitRequest request, int calls) {
    int ok = 0;
    for (int i = 0; i < calls; i++) {
      if (call(stub, request).getOverallCode() == Code.OK) {
        ok++;
      }
    }
    return ok;
  }

  @Test
  void nestedDescriptorsAndUnmatchedOnesInOneCall() throws InterruptedException {
    var stub = client(edgeA);
    awaitWindowStart(3600, 5_000);
    String user = unique();
    RateLimitRequest request = RateLimitRequest.newBuilder().setDomain("it")
        .addDescriptors(descriptor("route", "checkout", "user", user))
        .addDescriptors(descriptor("nothing", "here"))
        .build();
    List<Code> overall = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      RateLimitResponse r = call(stub, request);
      overall.add(r.getOverallCode());
      assertThat(r.getStatuses(1).getCode()).isEqualTo(Code.OK);
      assertThat(r.getStatuses(1).hasCurrentLimit()).isFalse();
    }
    assertThat(overall).containsExactly(Code.OK, Code.OK, Code.OK, Code.OK, Code.OVER_LIMIT, Code.OVER_LIMIT);
  }

  @Test
  void hitsAddendCountsThatMany() throws InterruptedException {
    var stub = client(edgeA);
    awaitWindowStart(60, 5_000);
    String value = unique();
    RateLimitRequest fives = request("per_minute", value).toBuilder().setHitsAddend(5).build();
    List<Integer> remaining = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      remaining.add(call(stub, fives).getStatuses(0).getLimitRemaining());
    }
    assertThat(remaining).containsExactly(15, 10, 5, 0, 0);
    // the descriptor's own hits_addend wins over the request's; zero only reads the count
    String other = unique();
    RateLimitRequest peek = RateLimitRequest.newBuilder().setDomain("it").setHitsAddend(7)
        .addDescriptors(descriptor("per_minute", other).toBuilder().setHitsAddend(UInt64Value.of(0))).build();
    assertThat(call(stub, peek).getStatuses(0).getLimitRemaining()).isEqualTo(20);
    RateLimitRequest two = RateLimitRequest.newBuilder().setDomain("it").setHitsAddend(7)
        .addDescriptors(descriptor("per_minute", other).toBuilder().setHitsAddend(UInt64Value.of(2))).build();
    assertThat(call(stub, two).getStatuses(0).getLimitRemaining()).isEqualTo(18);
  }

  @Test
  void shadowModeAnswersOkAndCountsIt() throws InterruptedException {
    var stub = client(edgeA);
    awaitWindowStart(60, 5_000);
    String value = unique();
    assertThat(okCount(stub, request("shadow", value), 5)).isEqualTo(5);
    assertThat(metrics()).contains("central_ratelimit_shadow_over_limit_total{domain=\"it\"}");
  }

  @Test
  void answersAreCountedOnTheMetricsEndpoint() {
    call(client(edgeA), request("per_minute", unique()));
    call(client(edgeA), RateLimitRequest.newBuilder().setDomain("nobody-configures-this")
        .addDescriptors(descriptor("k", "v")).build());
    String metrics = metrics();
    assertThat(metrics).contains("central_ratelimit_requests_total{code=\"ok\",domain=\"it\"}")
        .contains("central_ratelimit_requests_total{code=\"ok\",domain=\"_other\"}")
        .contains("central_ratelimit_latency_seconds_count");
  }

  private String metrics() {
    return api.send("GET", "/metrics", ADMIN_TOKEN, null, null).body();
  }

  @Test
  void aCallerMustPresentARegisteredEdgesCredential() {
    assertThatThrownBy(() -> call(client(null), request("per_minute", unique())))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
    assertThatThrownBy(() -> call(client("not-a-credential"), request("per_minute", unique())))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
  }

  @Test
  void aRequestWithoutDomainOrDescriptorsIsInvalid() {
    var stub = client(edgeA);
    assertThatThrownBy(() -> call(stub, RateLimitRequest.newBuilder().addDescriptors(descriptor("k", "v")).build()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription()).isEqualTo("domain: must not be empty");
        });
    assertThatThrownBy(() -> call(stub, RateLimitRequest.newBuilder().setDomain("it").build()))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getDescription()).isEqualTo("descriptors: must not be empty"));
  }

  @Test
  void redisOnAClosedPortAnswersUnavailableWithinTheBound() throws IOException {
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    CentralServer down = unreachable("closed", "redis://127.0.0.1:" + closed);
    String credential = registerOn(down, "edge-down");
    assertUnavailableWithinBound(client(down, credential));
    assertThat(metricsOf(down)).contains("central_ratelimit_redis_errors_total{reason=\"error\"}")
        .contains("central_ratelimit_requests_total{code=\"error\",domain=\"it\"}");
  }

  @Test
  void aRedisThatNeverAnswersIsCutAtTheBound() throws IOException {
    try (ServerSocket silent = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      CentralServer slow = unreachable("silent", "redis://127.0.0.1:" + silent.getLocalPort());
      String credential = registerOn(slow, "edge-slow");
      assertUnavailableWithinBound(client(slow, credential));
      assertThat(metricsOf(slow)).contains("central_ratelimit_redis_errors_total{reason=\"timeout\"}");
    }
  }

  private CentralServer unreachable(String name, String redisUri) throws IOException {
    Path limits = Files.writeString(dir.resolve(name + ".yaml"), LIMITS);
    CentralServer server = startCentral(name, new RateLimitSettings(List.of(limits), redisUri, prefix,
        Duration.ofMillis(50)));
    others.add(server);
    return server;
  }

  private static String registerOn(CentralServer server, String id) {
    HttpResponse<String> response = new ApiClient(server.httpPort()).send("POST", "/configuration/edges", ADMIN_TOKEN,
        "application/json", ("{\"id\": \"" + id + "\", \"labels\": {}}").getBytes(StandardCharsets.UTF_8));
    assertThat(response.statusCode()).isEqualTo(201);
    try {
      return new ObjectMapper().readTree(response.body()).get("credential").asText();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static String metricsOf(CentralServer server) {
    return new ApiClient(server.httpPort()).send("GET", "/metrics", ADMIN_TOKEN, null, null).body();
  }

  /** Each call ends with UNAVAILABLE, never waiting for the client's deadline; the bound is 50 ms plus scheduling. */
  private static void assertUnavailableWithinBound(RateLimitServiceGrpc.RateLimitServiceBlockingStub stub) {
    call(stub.withDeadlineAfter(WAIT.toMillis(), TimeUnit.MILLISECONDS), RateLimitRequest.newBuilder().setDomain("it")
        .addDescriptors(descriptor("unmatched", "x")).build()); // warms the channel: no Redis round trip for it
    for (int i = 0; i < 5; i++) {
      long started = System.nanoTime();
      assertThatThrownBy(() -> stub.withDeadlineAfter(2, TimeUnit.SECONDS).shouldRateLimit(request("per_minute", unique())))
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(500));
    }
  }

  @Test
  void aBadLimitsFileFailsStartUpNamingItsPath() throws IOException {
    Path bad = Files.writeString(dir.resolve("bad.yaml"), "domain: it\ndescriptors: [{key: k, rate_limit: {unit: week, requests_per_unit: 1}}]\n");
    assertThatThrownBy(() -> startCentral("bad", new RateLimitSettings(List.of(bad), "redis://127.0.0.1:6379", prefix,
        RateLimitSettings.DEFAULT_REDIS_TIMEOUT)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rate limit config " + bad + ": descriptors[0].rate_limit.unit: 'week' is not supported: second, minute, "
            + "hour or day");
  }
}
