package io.spillway.edge.filters.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.spillway.edge.config.GlobalRateLimitConfig;
import io.spillway.edge.config.GrpcServiceConfig;
import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.RateLimitPolicy;
import io.spillway.edge.config.RetryPolicy;
import io.spillway.edge.config.RuntimeFraction;
import io.spillway.edge.config.Route;
import io.spillway.edge.http.filter.FilterContext;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.rls.RateLimitAnswer;
import io.spillway.edge.rls.RateLimitClient;
import io.spillway.edge.rls.RateLimitRequest;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.upstream.ConnectionShare;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The global rate limit filter through a fake rate limit client and fake stream callbacks: which
 * descriptors a request sends (stage, per-route config, virtual host, request type), what each
 * answer does to the request and the response, the failure modes, and an answer after the request
 * went away.
 */
class GlobalRateLimitFilterTest {

  private static final String NAME = "envoy.filters.http.ratelimit";

  private final StatsStore stats = new StatsStore();
  private final List<RateLimitRequest> calls = new ArrayList<>();
  private final List<Duration> deadlines = new ArrayList<>();
  private final List<Consumer<RateLimitAnswer>> answers = new ArrayList<>();
  private int cancelled;
  private final RateLimitClient client = (request, timeout, loop, onAnswer) -> {
    calls.add(request);
    deadlines.add(timeout);
    answers.add(onAnswer);
    return () -> cancelled++;
  };

  /** A stream that records continues and built local replies. */
  private static final class Stream extends FakeCallbacks {
    int continued;
    String body;

    Stream(RouteEntry route, RequestHeaders request) {
      super(FakeCallbacks.worker(1), new ConnectionShare(), route, request, "10.0.0.7");
    }

    @Override
    public void continueDecoding() {
      continued++;
    }

    @Override
    public void sendLocalReply(ResponseHeaders headers, ByteBuf b, ResponseFlag flag) {
      localReply = headers;
      localReplyFlag = flag;
      body = b == null ? "" : b.toString(StandardCharsets.UTF_8);
      if (b != null) {
        b.release();
      }
    }
  }

  private static GlobalRateLimitConfig config(int stage, GlobalRateLimitConfig.RequestType type, boolean deny,
      boolean xHeaders) {
    return new GlobalRateLimitConfig(NAME, "edge", stage, type, Duration.ofMillis(20), deny,
        new GrpcServiceConfig("rls", "rls", Optional.empty(), List.of()), xHeaders, true, 429,
        new HeaderMutations(List.of(new HeaderMutations.HeaderValue("x-limited-by", "edge", false)), List.of()), 500,
        GlobalRateLimitConfig.DEFAULT_ENABLED, GlobalRateLimitConfig.DEFAULT_ENFORCED);
  }

  private static GlobalRateLimitConfig withFractions(GlobalRateLimitConfig c, int enabled, int enforced) {
    return new GlobalRateLimitConfig(c.filterName(), c.domain(), c.stage(), c.requestType(), c.timeout(),
        c.failureModeDeny(), c.service(), c.xRateLimitHeaders(), c.xEnvoyRateLimitedHeader(), c.rateLimitedStatus(),
        c.responseHeadersToAdd(), c.statusOnError(), RuntimeFraction.of(enabled), RuntimeFraction.of(enforced));
  }

  private static GlobalRateLimitConfig config() {
    return config(0, GlobalRateLimitConfig.RequestType.BOTH, false, false);
  }

  private GlobalRateLimitFilter filter(GlobalRateLimitConfig config, Stream stream) {
    FilterContext context = new FilterContext(null, stats.rootScope().scope("http").scope("ingress"), null, null,
        null, 1 << 20, false, stats.rootScope(), System::nanoTime, null,
        io.spillway.edge.authz.AuthorizationClients.NONE, () -> false, service -> client, "edge-fleet", List.of());
    GlobalRateLimitFilter f = new GlobalRateLimitFilter(new GlobalRateLimitFactory(config, context));
    f.setDecoderFilterCallbacks(stream);
    return f;
  }

  private static RouteEntry route(Route.RateLimits limits, Map<String, Object> filterConfigs) {
    return route(new Route.RouteAction(List.of(new Route.WeightedCluster("backend", 1)), Optional.empty(),
        Optional.empty(), Optional.empty(), false, Duration.ofSeconds(15), Optional.empty(), RetryPolicy.NONE),
        limits, filterConfigs);
  }

  private static RouteEntry route(Route.Action action, Route.RateLimits limits, Map<String, Object> filterConfigs) {
    Route route = new Route("r", new Route.Match(new Route.PathMatch.Prefix("/"), true, List.of(), List.of()),
        action, HeaderMutations.NONE, HeaderMutations.NONE, Map.of(), Set.of(), Map.of(), limits, Optional.empty());
    return new RouteEntry(route, "vh", List.of(), List.of(), RetryPolicy.NONE, new int[0], filterConfigs);
  }

  private static RateLimitPolicy policy(int stage, RateLimitPolicy.Action... actions) {
    return new RateLimitPolicy(stage, List.of(actions));
  }

  private static RequestHeaders request(String... headers) {
    DefaultHttpHeaders h = new DefaultHttpHeaders();
    for (int i = 0; i < headers.length; i += 2) {
      h.add(headers[i], headers[i + 1]);
    }
    return new RequestHeaders("GET", "http", "shop.example", "/cart", h);
  }

  private static final Route.RateLimits LIMITS = new Route.RateLimits(
      List.of(policy(0, new RateLimitPolicy.RequestHeaders("x-client", "client", false),
              new RateLimitPolicy.GenericKey("generic_key", "cart")),
          policy(1, new RateLimitPolicy.GenericKey("generic_key", "stage-one"))),
      List.of(policy(0, new RateLimitPolicy.SourceCluster()), policy(0, new RateLimitPolicy.RemoteAddress())), false);

  private static List<List<String>> sent(RateLimitRequest r) {
    return r.descriptors().stream().map(d -> d.stream().map(e -> e.key() + "=" + e.value()).toList()).toList();
  }

  private static RateLimitAnswer answer(RateLimitAnswer.Code code, List<RateLimitAnswer.Header> request,
      List<RateLimitAnswer.Header> response, List<RateLimitAnswer.DescriptorStatus> statuses, String body) {
    return new RateLimitAnswer(code, request, response, statuses, body, "", false);
  }

  @Test
  void theDescriptorsAreTheRoutesEntriesOfTheFiltersStage() {
    RequestHeaders r = request("x-client", "alice");
    Stream s = new Stream(route(LIMITS, Map.of()), r);
    assertThat(filter(config(), s).decodeHeaders(r, true)).isEqualTo(FilterHeadersStatus.STOP_ITERATION);
    assertThat(calls).hasSize(1);
    assertThat(calls.get(0).domain()).isEqualTo("edge");
    assertThat(sent(calls.get(0))).containsExactly(List.of("client=alice", "generic_key=cart"));
    assertThat(deadlines).containsExactly(Duration.ofMillis(20));

    calls.clear();
    filter(config(1, GlobalRateLimitConfig.RequestType.BOTH, false, false), new Stream(route(LIMITS, Map.of()), r))
        .decodeHeaders(r, true);
    assertThat(sent(calls.get(0))).containsExactly(List.of("generic_key=stage-one"));
  }

  @Test
  void perRouteConfigPicksTheVirtualHostsEntriesTheirOwnAndTheDomain() {
    RequestHeaders r = request("x-client", "alice");
    var include = new GlobalRateLimitConfig.PerRoute(RateLimitPolicy.VhRateLimits.INCLUDE, List.of(), Optional.empty());
    filter(config(), new Stream(route(LIMITS, Map.of(NAME, include)), r)).decodeHeaders(r, true);
    assertThat(sent(calls.get(0))).containsExactly(List.of("client=alice", "generic_key=cart"),
        List.of("source_cluster=edge-fleet"), List.of("remote_address=10.0.0.7"));

    calls.clear();
    var own = new GlobalRateLimitConfig.PerRoute(RateLimitPolicy.VhRateLimits.OVERRIDE,
        List.of(policy(0, new RateLimitPolicy.GenericKey("k", "own"))), Optional.of("other"));
    filter(config(), new Stream(route(LIMITS, Map.of(NAME, own)), r)).decodeHeaders(r, true);
    assertThat(calls.get(0).domain()).isEqualTo("other");
    assertThat(sent(calls.get(0))).containsExactly(List.of("k=own"));

    calls.clear();
    var hostOnly = new Route.RateLimits(List.of(), LIMITS.virtualHost(), false);
    filter(config(), new Stream(route(hostOnly, Map.of()), r)).decodeHeaders(r, true);
    assertThat(sent(calls.get(0))).as("OVERRIDE: the host's entries when the route has none")
        .containsExactly(List.of("source_cluster=edge-fleet"), List.of("remote_address=10.0.0.7"));
  }

  @Test
  void withoutDescriptorsOrARouteActionOrOfTheOtherRequestTypeNothingIsAsked() {
    RequestHeaders noClient = request();
    Stream s = new Stream(route(LIMITS, Map.of()), noClient);
    assertThat(filter(config(), s).decodeHeaders(noClient, true)).isEqualTo(FilterHeadersStatus.CONTINUE);

    RequestHeaders r = request("x-client", "alice");
    RouteEntry direct = route(new Route.DirectResponse(200, Optional.empty()), LIMITS, Map.of());
    assertThat(filter(config(), new Stream(direct, r)).decodeHeaders(r, true)).isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(filter(config(), new Stream(null, r)).decodeHeaders(r, true)).isEqualTo(FilterHeadersStatus.CONTINUE);

    GlobalRateLimitConfig internalOnly = config(0, GlobalRateLimitConfig.RequestType.INTERNAL, false, false);
    assertThat(filter(internalOnly, new Stream(route(LIMITS, Map.of()), r)).decodeHeaders(r, true))
        .isEqualTo(FilterHeadersStatus.CONTINUE);
    RequestHeaders internal = request("x-client", "alice", "x-envoy-internal", "true");
    GlobalRateLimitConfig externalOnly = config(0, GlobalRateLimitConfig.RequestType.EXTERNAL, false, false);
    assertThat(filter(externalOnly, new Stream(route(LIMITS, Map.of()), internal)).decodeHeaders(internal, true))
        .isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(calls).isEmpty();

    assertThat(filter(internalOnly, new Stream(route(LIMITS, Map.of()), internal)).decodeHeaders(internal, true))
        .isEqualTo(FilterHeadersStatus.STOP_ITERATION);
    assertThat(calls).hasSize(1);
  }

  @Test
  void anOkAnswerResumesTheRequestWithTheServicesHeaders() {
    RequestHeaders r = request("x-client", "alice");
    Stream s = new Stream(route(LIMITS, Map.of()), r);
    GlobalRateLimitFilter f = filter(config(0, GlobalRateLimitConfig.RequestType.BOTH, false, true), s);
    f.decodeHeaders(r, false);
    assertThat(f.decodeData(Unpooled.EMPTY_BUFFER, true)).isEqualTo(FilterDataStatus.STOP_ITERATION_AND_WATERMARK);
    answers.get(0).accept(answer(RateLimitAnswer.Code.OK,
        List.of(new RateLimitAnswer.Header("X-Checked", "yes"), new RateLimitAnswer.Header("host", "evil"),
            new RateLimitAnswer.Header("x-bad", "a\r\nb")),
        List.of(new RateLimitAnswer.Header("x-rls", "ok")),
        List.of(new RateLimitAnswer.DescriptorStatus(true, 10, 1, "", 4, 1)), ""));
    assertThat(s.continued).isEqualTo(1);
    assertThat(s.localReply).isNull();
    assertThat(r.headers().get("x-checked")).isEqualTo("yes");
    assertThat(r.headers().contains("x-bad")).isFalse();
    assertThat(r.authority()).isEqualTo("shop.example");
    assertThat(f.decodeData(Unpooled.EMPTY_BUFFER, true)).isEqualTo(FilterDataStatus.CONTINUE);

    ResponseHeaders response = new ResponseHeaders(200, new DefaultHttpHeaders());
    f.encodeHeaders(response, true);
    assertThat(response.headers().get("x-rls")).isEqualTo("ok");
    assertThat(response.headers().get("x-ratelimit-limit")).isEqualTo("10, 10;w=1");
    assertThat(response.headers().get("x-ratelimit-remaining")).isEqualTo("4");
    assertThat(response.headers().get("x-ratelimit-reset")).isEqualTo("1");
    assertThat(response.headers().contains("x-envoy-ratelimited")).isFalse();
  }

  @Test
  void overTheLimitTheClientGetsTheRefusal() {
    RequestHeaders r = request("x-client", "alice");
    Stream s = new Stream(route(LIMITS, Map.of()), r);
    GlobalRateLimitFilter f = filter(config(), s);
    f.decodeHeaders(r, true);
    answers.get(0).accept(answer(RateLimitAnswer.Code.OVER_LIMIT, List.of(new RateLimitAnswer.Header("x-no", "1")),
        List.of(new RateLimitAnswer.Header("x-rls", "over")), List.of(), "slow down"));
    assertThat(s.continued).isZero();
    assertThat(s.localReply.status()).isEqualTo(429);
    assertThat(s.localReplyFlag).isEqualTo(ResponseFlag.RL);
    assertThat(s.info.responseCodeDetails()).isEqualTo("request_rate_limited");
    assertThat(s.body).isEqualTo("slow down");
    assertThat(s.localReply.headers().get("x-envoy-ratelimited")).isEqualTo("true");
    assertThat(s.localReply.headers().get("x-rls")).isEqualTo("over");
    assertThat(s.localReply.headers().get("x-limited-by")).isEqualTo("edge");
    assertThat(s.localReply.headers().get("content-length")).isEqualTo("9");
    assertThat(r.headers().contains("x-no")).as("an over-limit answer's request headers are not used").isFalse();
  }

  @Test
  void aFailedCallLetsTheRequestThroughUnlessFailureModeDeny() {
    RequestHeaders r = request("x-client", "alice");
    Stream allowed = new Stream(route(LIMITS, Map.of()), r);
    filter(config(), allowed).decodeHeaders(r, true);
    answers.get(0).accept(RateLimitAnswer.error("UNAVAILABLE", false));
    assertThat(allowed.continued).isEqualTo(1);
    assertThat(allowed.localReply).isNull();

    Stream denied = new Stream(route(LIMITS, Map.of()), r);
    filter(config(0, GlobalRateLimitConfig.RequestType.BOTH, true, false), denied).decodeHeaders(r, true);
    answers.get(1).accept(RateLimitAnswer.error("DEADLINE_EXCEEDED", true));
    assertThat(denied.continued).isZero();
    assertThat(denied.localReply.status()).isEqualTo(500);
    assertThat(denied.localReplyFlag).isEqualTo(ResponseFlag.RLSE);
    assertThat(denied.info.responseCodeDetails()).isEqualTo("rate_limiter_error");
    assertThat(denied.body).isEmpty();
  }

  @Test
  void anAnswerAfterTheRequestWentAwayIsIgnored() {
    RequestHeaders r = request("x-client", "alice");
    Stream s = new Stream(route(LIMITS, Map.of()), r);
    GlobalRateLimitFilter f = filter(config(), s);
    f.decodeHeaders(r, true);
    f.onDestroy();
    assertThat(cancelled).isEqualTo(1);
    answers.get(0).accept(answer(RateLimitAnswer.Code.OK, List.of(new RateLimitAnswer.Header("x-late", "1")),
        List.of(), List.of(), ""));
    assertThat(s.continued).isZero();
    assertThat(r.headers().contains("x-late")).isFalse();
    f.onDestroy();
    assertThat(cancelled).as("cancelled once").isEqualTo(1);
  }

  @Test
  void theXRateLimitHeadersDescribeTheLimitClosestToItsEnd() {
    RequestHeaders r = request("x-client", "alice");
    GlobalRateLimitFilter f = filter(config(0, GlobalRateLimitConfig.RequestType.BOTH, false, true),
        new Stream(route(LIMITS, Map.of()), r));
    String[] x = f.xRateLimitHeaders(List.of(
        new RateLimitAnswer.DescriptorStatus(true, 1000, 3600, "", 900, 1200),
        new RateLimitAnswer.DescriptorStatus(false, 0, 0, "", 0, 0),
        new RateLimitAnswer.DescriptorStatus(true, 10, 1, "per-ip", 3, 1),
        new RateLimitAnswer.DescriptorStatus(true, 5, 0, "", 4, 9)));
    assertThat(x).containsExactly("10, 1000;w=3600, 10;w=1;name=\"per-ip\"", "3", "1");
    assertThat(f.xRateLimitHeaders(List.of(new RateLimitAnswer.DescriptorStatus(false, 0, 0, "", 0, 0)))).isNull();
    assertThat(filter(config(), new Stream(route(LIMITS, Map.of()), r))
        .xRateLimitHeaders(List.of(new RateLimitAnswer.DescriptorStatus(true, 10, 1, "", 3, 1)))).isNull();
  }

  @Test
  void filterEnabledAndFilterEnforcedPickTheRequestsCheckedAndTheRefusalsMade() {
    RequestHeaders r = request("x-client", "alice");
    assertThat(filter(withFractions(config(), 0, RuntimeFraction.MILLION), new Stream(route(LIMITS, Map.of()), r))
        .decodeHeaders(r, true)).isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(calls).as("not enabled: not checked").isEmpty();

    Stream shadow = new Stream(route(LIMITS, Map.of()), r);
    GlobalRateLimitFilter f = filter(withFractions(config(), RuntimeFraction.MILLION, 0), shadow);
    assertThat(f.decodeHeaders(r, true)).isEqualTo(FilterHeadersStatus.STOP_ITERATION);
    answers.get(0).accept(answer(RateLimitAnswer.Code.OVER_LIMIT, List.of(new RateLimitAnswer.Header("x-seen", "1")),
        List.of(new RateLimitAnswer.Header("x-rls", "over")), List.of(), "slow down"));
    assertThat(shadow.localReply).as("over the limit but not enforced: through").isNull();
    assertThat(shadow.continued).isEqualTo(1);
    assertThat(r.headers().get("x-seen")).isEqualTo("1");
    ResponseHeaders response = new ResponseHeaders(200, new DefaultHttpHeaders());
    f.encodeHeaders(response, true);
    assertThat(response.headers().get("x-rls")).isEqualTo("over");
    assertThat(response.headers().contains("x-envoy-ratelimited")).isFalse();
  }
}
