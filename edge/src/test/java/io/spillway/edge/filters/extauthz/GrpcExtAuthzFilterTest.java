package io.spillway.edge.filters.extauthz;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.spillway.edge.authz.AuthorizationClient;
import io.spillway.edge.authz.AuthorizationClients;
import io.spillway.edge.authz.AuthzAnswer;
import io.spillway.edge.authz.AuthzHeader;
import io.spillway.edge.authz.AuthzHeader.Action;
import io.spillway.edge.authz.AuthzRequest;
import io.spillway.edge.config.ExtAuthzConfig;
import io.spillway.edge.config.Route.StringMatch;
import io.spillway.edge.http.filter.FilterContext;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.FilterTrailersStatus;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.StatsStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The ext_authz filter with a gRPC service, through a fake client and fake stream callbacks: what
 * the check carries, each verdict's effect on the request and the response, the body buffering of
 * {@code with_request_body}, and an answer arriving after the request went away.
 */
class GrpcExtAuthzFilterTest {

  private final StatsStore stats = new StatsStore();
  private final List<AuthzRequest> checks = new ArrayList<>();
  private final List<Consumer<AuthzAnswer>> answers = new ArrayList<>();
  private final List<Duration> deadlines = new ArrayList<>();
  private int cancelled;

  private final AuthorizationClient client = (request, timeout, loop, onAnswer) -> {
    checks.add(request);
    deadlines.add(timeout);
    answers.add(onAnswer);
    return () -> cancelled++;
  };
  private final AuthorizationClients clients = config -> client;

  private static ExtAuthzConfig config(List<StringMatch> allowedHeaders, boolean failureModeAllow,
      Optional<ExtAuthzConfig.RequestBody> body) {
    return new ExtAuthzConfig("ext-authz", "", Duration.ofMillis(200), "", allowedHeaders, List.of(), List.of(),
        List.of(), List.of(), failureModeAllow, true, 403, "", "envoy.filters.http.ext_authz",
        ExtAuthzConfig.Service.GRPC, body);
  }

  private ExtAuthzFilter filter(ExtAuthzConfig config, FakeStream stream) {
    FilterContext context = new FilterContext(null, stats.rootScope().scope("http").scope("ingress"), null, null,
        null, 1 << 20, false, stats.rootScope(), System::nanoTime, null, clients, () -> false,
        io.spillway.edge.rls.RateLimitClients.NONE, "", java.util.List.of());
    ExtAuthzFilter f = new ExtAuthzFilter(new ExtAuthzFactory(config, context));
    f.setDecoderFilterCallbacks(stream);
    return f;
  }

  private static RequestHeaders request(String method, String pathAndQuery, String... headers) {
    DefaultHttpHeaders h = new DefaultHttpHeaders();
    for (int i = 0; i < headers.length; i += 2) {
      h.add(headers[i], headers[i + 1]);
    }
    return new RequestHeaders(method, "https", "shop.example", pathAndQuery, h);
  }

  private long counter(String name) {
    return stats.find(name).map(s -> ((Counter) s).value()).orElse(0L);
  }

  private static AuthzAnswer ok(List<AuthzHeader> request, List<String> remove, List<AuthzHeader> response,
      List<AuthzAnswer.QueryParameter> set, List<String> unset) {
    return new AuthzAnswer(AuthzAnswer.Verdict.OK, request, remove, response, set, unset, 0, List.of(), "", "", false);
  }

  @Test
  void theCheckCarriesEnvoysAttributes() {
    RequestHeaders r = request("GET", "/cart?id=1", "X-Tag", "a", "x-tag", "b", "Cookie", "c=1",
        "x-envoy-downstream-service-cluster", "frontend", "x-envoy-auth-partial-body", "forged");
    FakeStream stream = new FakeStream(r);
    ExtAuthzFilter f = filter(config(List.of(), false, Optional.empty()), stream);
    assertThat(f.decodeHeaders(r, true)).isEqualTo(FilterHeadersStatus.STOP_ITERATION);

    AuthzRequest check = checks.get(0);
    assertThat(check.method()).isEqualTo("GET");
    assertThat(check.path()).isEqualTo("/cart?id=1");
    assertThat(check.host()).isEqualTo("shop.example");
    assertThat(check.scheme()).isEqualTo("https");
    assertThat(check.protocol()).isEqualTo("HTTP/1.1");
    assertThat(check.source().getPort()).isEqualTo(5555);
    assertThat(check.destination().getPort()).isEqualTo(8080);
    assertThat(check.sourceService()).isEqualTo("frontend");
    assertThat(check.startEpochNanos()).isEqualTo(1_700_000_000_123_000_000L);
    assertThat(check.id()).isNotEmpty();
    assertThat(check.headers()).containsEntry(":authority", "shop.example").containsEntry(":method", "GET")
        .containsEntry(":path", "/cart?id=1").containsEntry(":scheme", "https")
        .containsEntry("x-tag", "a,b").containsEntry("cookie", "c=1")
        .doesNotContainKey("x-envoy-auth-partial-body");
    assertThat(check.body()).isNull();
    assertThat(deadlines).containsExactly(Duration.ofMillis(200)); // no guard: the configured timeout
    assertThat(List.copyOf(check.headers().keySet()).subList(0, 4))
        .containsExactly(":authority", ":method", ":path", ":scheme");
  }

  @Test
  void allowedHeadersNarrowWhatTheCheckCarries() {
    RequestHeaders r = request("GET", "/", "x-tag", "a", "cookie", "c=1");
    filter(config(List.of(new StringMatch.Exact("x-tag", false)), false, Optional.empty()), new FakeStream(r))
        .decodeHeaders(r, true);
    assertThat(checks.get(0).headers()).containsOnlyKeys("x-tag");
  }

  @Test
  void anOkAnswerChangesTheRequestAndTheResponse() {
    RequestHeaders r = request("GET", "/cart?id=1&drop=2&keep", "x-tag", "a", "x-gone", "1", "x-once", "client",
        "x-only", "old");
    FakeStream stream = new FakeStream(r);
    ExtAuthzFilter f = filter(config(List.of(), false, Optional.empty()), stream);
    f.decodeHeaders(r, true);
    answers.get(0).accept(ok(List.of(
            new AuthzHeader("x-user", "alice", Action.OVERWRITE),
            new AuthzHeader("x-tag", "b", Action.APPEND_TO_VALUE),
            new AuthzHeader("x-new", "1", Action.APPEND_TO_VALUE),
            new AuthzHeader("x-multi", "1", Action.ADD),
            new AuthzHeader("x-multi", "2", Action.ADD),
            new AuthzHeader("x-once", "server", Action.ADD_IF_ABSENT),
            new AuthzHeader("x-only", "new", Action.OVERWRITE_IF_EXISTS),
            new AuthzHeader("x-absent", "new", Action.OVERWRITE_IF_EXISTS)),
        List.of("x-gone"),
        List.of(new AuthzHeader("x-authz", "ok", Action.ADD), new AuthzHeader("server", "authz", Action.OVERWRITE)),
        List.of(new AuthzAnswer.QueryParameter("id", "9"), new AuthzAnswer.QueryParameter("added", "1")),
        List.of("drop")));

    assertThat(stream.continued).isEqualTo(1);
    var h = r.headers();
    assertThat(h.get("x-user")).isEqualTo("alice");
    assertThat(h.get("x-tag")).isEqualTo("a,b");
    assertThat(h.get("x-new")).isEqualTo("1");
    assertThat(h.getAll("x-multi")).containsExactly("1", "2");
    assertThat(h.get("x-once")).isEqualTo("client");
    assertThat(h.get("x-only")).isEqualTo("new");
    assertThat(h.contains("x-absent")).isFalse();
    assertThat(h.contains("x-gone")).isFalse();
    assertThat(r.pathAndQuery()).isEqualTo("/cart?id=9&keep&added=1");

    ResponseHeaders response = new ResponseHeaders(200, new DefaultHttpHeaders().add("server", "origin"));
    assertThat(f.encodeHeaders(response, false)).isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(response.headers().get("x-authz")).isEqualTo("ok");
    assertThat(response.headers().get("server")).isEqualTo("authz");
    assertThat(counter("http.ingress.ext_authz.ok")).isEqualTo(1);
    assertThat(counter("http.ingress.ext_authz.invalid")).isZero();
  }

  @Test
  void changesThatWouldBreakTheRequestAreSkippedAndCounted() {
    RequestHeaders r = request("GET", "/a?x=1");
    FakeStream stream = new FakeStream(r);
    filter(config(List.of(), false, Optional.empty()), stream).decodeHeaders(r, true);
    answers.get(0).accept(ok(List.of(
            new AuthzHeader(":path", "/admin", Action.OVERWRITE),
            new AuthzHeader("host", "evil", Action.OVERWRITE),
            new AuthzHeader("content-length", "0", Action.OVERWRITE),
            new AuthzHeader("x-split", "a\r\nx-injected: 1", Action.OVERWRITE),
            new AuthzHeader("bad name", "v", Action.OVERWRITE),
            new AuthzHeader("x-fine", "v", Action.OVERWRITE)),
        List.of("host", ":authority"), List.of(),
        List.of(new AuthzAnswer.QueryParameter("a", "b&c=d"), new AuthzAnswer.QueryParameter("", "v")), List.of()));
    assertThat(stream.continued).isEqualTo(1);
    assertThat(r.headers().names()).containsExactly("x-fine");
    assertThat(r.pathAndQuery()).isEqualTo("/a?x=1");
    assertThat(counter("http.ingress.ext_authz.invalid")).isEqualTo(9);
  }

  @Test
  void aDenialAnswersWithItsStatusHeadersAndBody() {
    RequestHeaders r = request("GET", "/");
    FakeStream stream = new FakeStream(r);
    filter(config(List.of(), false, Optional.empty()), stream).decodeHeaders(r, true);
    answers.get(0).accept(new AuthzAnswer(AuthzAnswer.Verdict.DENIED, List.of(), List.of(), List.of(), List.of(),
        List.of(), 401, List.of(new AuthzHeader("www-authenticate", "Bearer", Action.OVERWRITE),
        new AuthzHeader("content-type", "application/json", Action.OVERWRITE)), "{\"e\":1}", "", false));
    assertThat(stream.continued).isZero();
    assertThat(stream.localReply.status()).isEqualTo(401);
    assertThat(stream.localReply.headers().get("www-authenticate")).isEqualTo("Bearer");
    assertThat(stream.localReply.headers().get("content-type")).isEqualTo("application/json");
    assertThat(stream.localReply.headers().get("content-length")).isEqualTo("7");
    assertThat(stream.localReplyBody).isEqualTo("{\"e\":1}");
    assertThat(stream.localReplyFlag).isEqualTo(ResponseFlag.UAEX);
    assertThat(counter("http.ingress.ext_authz.denied")).isEqualTo(1);
  }

  @Test
  void aHeadRequestsDenialHasNoBody() {
    RequestHeaders r = request("HEAD", "/");
    FakeStream stream = new FakeStream(r);
    filter(config(List.of(), false, Optional.empty()), stream).decodeHeaders(r, true);
    answers.get(0).accept(new AuthzAnswer(AuthzAnswer.Verdict.DENIED, List.of(), List.of(), List.of(), List.of(),
        List.of(), 403, List.of(), "no", "", false));
    assertThat(stream.localReply.status()).isEqualTo(403);
    assertThat(stream.localReply.headers().get("content-length")).isEqualTo("2");
    assertThat(stream.localReplyBody).isNull();
  }

  @Test
  void aFailedCallAnswersStatusOnErrorOrLetsThroughWithFailureModeAllow() {
    RequestHeaders r = request("GET", "/");
    FakeStream stream = new FakeStream(r);
    filter(config(List.of(), false, Optional.empty()), stream).decodeHeaders(r, true);
    answers.get(0).accept(AuthzAnswer.error("UNAVAILABLE", false));
    assertThat(stream.localReply.status()).isEqualTo(403);
    assertThat(stream.localReplyFlag).isEqualTo(ResponseFlag.UAEX);

    RequestHeaders allowed = request("GET", "/");
    FakeStream through = new FakeStream(allowed);
    filter(config(List.of(), true, Optional.empty()), through).decodeHeaders(allowed, true);
    answers.get(1).accept(AuthzAnswer.error("DEADLINE_EXCEEDED", true));
    assertThat(through.continued).isEqualTo(1);
    assertThat(allowed.headers().get("x-envoy-auth-failure-mode-allowed")).isEqualTo("true");
    assertThat(counter("http.ingress.ext_authz.error")).isEqualTo(2);
    assertThat(counter("http.ingress.ext_authz.failure_mode_allowed")).isEqualTo(1);
  }

  @Test
  void anAnswerAfterTheRequestWentAwayIsIgnored() {
    RequestHeaders r = request("GET", "/");
    FakeStream stream = new FakeStream(r);
    ExtAuthzFilter f = filter(config(List.of(), false, Optional.empty()), stream);
    f.decodeHeaders(r, true);
    f.onDestroy();
    assertThat(cancelled).isEqualTo(1);
    answers.get(0).accept(ok(List.of(), List.of(), List.of(), List.of(), List.of()));
    assertThat(stream.continued).isZero();
    assertThat(counter("http.ingress.ext_authz.ok")).isZero();
  }

  private static ByteBuf text(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
  }

  @Test
  void withRequestBodyTheCheckWaitsForTheWholeBody() {
    RequestHeaders r = request("POST", "/upload");
    FakeStream stream = new FakeStream(r);
    ExtAuthzFilter f = filter(config(List.of(), false, Optional.of(new ExtAuthzConfig.RequestBody(16, false, false))),
        stream);
    assertThat(f.decodeHeaders(r, false)).isEqualTo(FilterHeadersStatus.STOP_ITERATION);
    assertThat(stream.bufferLimit).isEqualTo(16);
    ByteBuf first = text("hello ");
    assertThat(f.decodeData(first, false)).isEqualTo(FilterDataStatus.STOP_ITERATION_AND_BUFFER);
    assertThat(checks).isEmpty();
    ByteBuf second = text("world");
    assertThat(f.decodeData(second, true)).isEqualTo(FilterDataStatus.STOP_ITERATION_AND_WATERMARK);
    AuthzRequest check = checks.get(0);
    assertThat(new String(check.body(), StandardCharsets.UTF_8)).isEqualTo("hello world");
    assertThat(check.headers()).containsEntry("x-envoy-auth-partial-body", "false");
    assertThat(first.refCnt()).as("the chain's parts, not retained by the filter any more").isEqualTo(1);
    assertThat(second.refCnt()).isEqualTo(1);
    first.release();
    second.release();
    answers.get(0).accept(ok(List.of(), List.of(), List.of(), List.of(), List.of()));
    assertThat(stream.continued).isEqualTo(1);
  }

  @Test
  void withRequestBodyALargerBodyGets413() {
    RequestHeaders r = request("POST", "/upload");
    FakeStream stream = new FakeStream(r);
    ExtAuthzFilter f = filter(config(List.of(), false, Optional.of(new ExtAuthzConfig.RequestBody(4, false, false))),
        stream);
    f.decodeHeaders(r, false);
    ByteBuf data = text("too long");
    assertThat(f.decodeData(data, true)).isEqualTo(FilterDataStatus.STOP_ITERATION_NO_BUFFER);
    assertThat(data.refCnt()).isZero();
    assertThat(stream.localReply.status()).isEqualTo(413);
    assertThat(stream.localReplyFlag).isEqualTo(ResponseFlag.DPE);
    assertThat(checks).isEmpty();
    assertThat(counter("http.ingress.downstream_rq_too_large")).isEqualTo(1);
  }

  @Test
  void withAllowPartialMessageTheCheckStartsOnceTheLimitIsReached() {
    RequestHeaders r = request("POST", "/upload");
    FakeStream stream = new FakeStream(r);
    ExtAuthzFilter f = filter(config(List.of(), false, Optional.of(new ExtAuthzConfig.RequestBody(4, true, true))),
        stream);
    f.decodeHeaders(r, false);
    assertThat(stream.bufferLimit).as("the listener's limit stays").isEqualTo(1 << 20);
    ByteBuf data = text("0123456789");
    assertThat(f.decodeData(data, false)).isEqualTo(FilterDataStatus.STOP_ITERATION_AND_WATERMARK);
    AuthzRequest check = checks.get(0);
    assertThat(new String(check.body(), StandardCharsets.UTF_8)).isEqualTo("0123");
    assertThat(check.packAsBytes()).isTrue();
    assertThat(check.headers()).containsEntry("x-envoy-auth-partial-body", "true");
    data.release();
    ByteBuf more = text("rest");
    assertThat(f.decodeData(more, true)).as("held until the verdict").isEqualTo(FilterDataStatus.STOP_ITERATION_AND_WATERMARK);
    more.release();
  }

  @Test
  void trailersEndTheBodyAndARequestWithoutBodyIsCheckedAtOnce() {
    RequestHeaders r = request("POST", "/upload");
    FakeStream stream = new FakeStream(r);
    ExtAuthzFilter f = filter(config(List.of(), false, Optional.of(new ExtAuthzConfig.RequestBody(64, false, false))),
        stream);
    f.decodeHeaders(r, false);
    ByteBuf data = text("abc");
    f.decodeData(data, false);
    data.release();
    assertThat(f.decodeTrailers(new DefaultHttpHeaders())).isEqualTo(FilterTrailersStatus.STOP_ITERATION);
    assertThat(new String(checks.get(0).body(), StandardCharsets.UTF_8)).isEqualTo("abc");

    RequestHeaders get = request("GET", "/");
    filter(config(List.of(), false, Optional.of(new ExtAuthzConfig.RequestBody(64, false, false))),
        new FakeStream(get)).decodeHeaders(get, true);
    assertThat(checks.get(1).body()).isNull();
    assertThat(checks.get(1).headers()).doesNotContainKey("x-envoy-auth-partial-body");
  }
}
