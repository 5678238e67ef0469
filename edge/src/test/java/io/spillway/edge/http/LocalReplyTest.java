package io.spillway.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.AccessLogConfig;
import io.spillway.edge.config.ConfigException;
import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.LocalReplyConfig;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.runtime.RuntimeSnapshot;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Local replies through {@code local_reply_config} (Envoy's {@code LocalReply::rewrite} and
 * {@code prepareLocalReply}): the first matching mapper, its status, body, headers and body format,
 * the default body format, content types, HEAD, and the trailers-only answer a gRPC call gets.
 */
class LocalReplyTest {

  private final StreamInfo info = new StreamInfo(1_000, 0, "10.0.0.1", false);
  private final RequestHeaders request = new RequestHeaders("GET", "http", "example.com", "/a/b?q=1",
      DefaultHttpHeadersFactory.headersFactory().newHeaders());

  private LocalReply.Target target(LocalReplyConfig config, boolean head, boolean grpc) {
    return new LocalReply.Target(LocalReplyRewriter.compile(config, () -> RuntimeSnapshot.EMPTY), request, info,
        false, head, grpc, new SplittableRandom(1), 2_000_000_000L);
  }

  private LocalReply.Target target(LocalReplyConfig config) {
    return target(config, false, false);
  }

  private static AccessLogConfig.Filter status(int code) {
    return new AccessLogConfig.StatusCodeFilter(AccessLogConfig.Op.EQ, code);
  }

  private static LocalReplyConfig.Mapper mapper(AccessLogConfig.Filter filter, int status, String body) {
    return new LocalReplyConfig.Mapper(filter, status == 0 ? OptionalInt.empty() : OptionalInt.of(status),
        Optional.ofNullable(body), HeaderMutations.NONE, Optional.empty());
  }

  private static LocalReplyConfig.BodyFormat text(String format) throws ConfigException {
    return new LocalReplyConfig.BodyFormat(AccessLogConfig.textFormat(format, false), "text/plain");
  }

  private static String body(LocalReply reply) {
    ByteBuf b = reply.body();
    if (b == null) {
      return null;
    }
    try {
      return b.toString(StandardCharsets.UTF_8);
    } finally {
      b.release();
    }
  }

  @Test
  void withoutConfigTheReplyIsItsTextAsPlainText() {
    LocalReply reply = LocalReply.of(503, "no healthy upstream", ResponseFlag.UH, null, target(LocalReplyConfig.NONE));
    assertThat(reply.headers().status()).isEqualTo(503);
    assertThat(reply.headers().headers().get("content-type")).isEqualTo("text/plain");
    assertThat(reply.headers().headers().get("content-length")).isEqualTo("19");
    assertThat(body(reply)).isEqualTo("no healthy upstream");

    LocalReply empty = LocalReply.of(404, "", ResponseFlag.NR, null, target(LocalReplyConfig.NONE));
    assertThat(empty.headers().headers().get("content-type")).isNull();
    assertThat(empty.headers().headers().get("content-length")).isEqualTo("0");
    assertThat(empty.body()).isNull();
  }

  @Test
  void theFirstMatchingMapperWinsAndSetsStatusBodyAndTheStreamsResponseCode() {
    LocalReplyConfig config = new LocalReplyConfig(List.of(
        mapper(status(404), 0, "first 404"), // matches: stops here
        mapper(status(404), 410, "second 404"),
        mapper(status(503), 0, "not this")), Optional.empty());
    LocalReply reply = LocalReply.of(404, "", ResponseFlag.NR, null, target(config));
    assertThat(reply.headers().status()).isEqualTo(404);
    assertThat(body(reply)).isEqualTo("first 404");
    assertThat(reply.headers().headers().get("content-type")).isEqualTo("text/plain");
    assertThat(reply.headers().headers().get("content-length")).isEqualTo("9");

    LocalReplyConfig overriding = new LocalReplyConfig(List.of(mapper(status(503), 0, "nope"),
        mapper(status(404), 418, null)), Optional.empty());
    LocalReply teapot = LocalReply.of(404, "gone", ResponseFlag.NR, null, target(overriding));
    assertThat(teapot.headers().status()).isEqualTo(418);
    assertThat(info.responseCode()).isEqualTo(418); // what status filters and %RESPONSE_CODE% read
    assertThat(body(teapot)).isEqualTo("gone");
  }

  @Test
  void noMatchingMapperLeavesTheReplyAloneButTheBodyFormatStillApplies() throws Exception {
    LocalReplyConfig config = new LocalReplyConfig(List.of(mapper(status(401), 403, "x")),
        Optional.of(text("[%RESPONSE_CODE%] %LOCAL_REPLY_BODY% for %REQ(:PATH)%")));
    LocalReply reply = LocalReply.of(503, "no healthy upstream", ResponseFlag.UH, null, target(config));
    assertThat(reply.headers().status()).isEqualTo(503);
    assertThat(body(reply)).isEqualTo("[503] no healthy upstream for /a/b?q=1");
    assertThat(reply.headers().headers().get("content-length")).isEqualTo("38");
  }

  @Test
  void theBodyFormatSeesTheMappersStatusAndBodyAndAnOverrideReplacesIt() throws Exception {
    LocalReplyConfig.Mapper withOverride = new LocalReplyConfig.Mapper(status(429), OptionalInt.of(503),
        Optional.of("slow down"), HeaderMutations.NONE, Optional.of(text("override %RESPONSE_CODE% %LOCAL_REPLY_BODY%")));
    LocalReplyConfig config = new LocalReplyConfig(List.of(withOverride, mapper(status(404), 0, "missing")),
        Optional.of(text("default %RESPONSE_CODE% %LOCAL_REPLY_BODY%")));
    assertThat(body(LocalReply.of(429, "local_rate_limited", ResponseFlag.RL, null, target(config))))
        .isEqualTo("override 503 slow down");
    assertThat(body(LocalReply.of(404, "", ResponseFlag.NR, null, target(config)))).isEqualTo("default 404 missing");
  }

  @Test
  void aJsonBodyFormatGivesApplicationJsonWithTypedValues() throws Exception {
    AccessLogConfig.JsonFormat json = new AccessLogConfig.JsonFormat(List.of(
        new AccessLogConfig.JsonField("code", new AccessLogConfig.FormattedValue(
            AccessLogConfig.textFormat("%RESPONSE_CODE%", false).tokens())),
        new AccessLogConfig.JsonField("message", new AccessLogConfig.FormattedValue(
            AccessLogConfig.textFormat("%LOCAL_REPLY_BODY%", false).tokens())),
        new AccessLogConfig.JsonField("flags", new AccessLogConfig.FormattedValue(
            AccessLogConfig.textFormat("%RESPONSE_FLAGS%", false).tokens()))), true, false);
    info.setResponseFlag(ResponseFlag.UH);
    LocalReplyConfig config = new LocalReplyConfig(List.of(),
        Optional.of(new LocalReplyConfig.BodyFormat(json, "application/json")));
    LocalReply reply = LocalReply.of(503, "no \"healthy\" upstream", ResponseFlag.UH, null, target(config));
    assertThat(body(reply)).isEqualTo("{\"code\":503,\"message\":\"no \\\"healthy\\\" upstream\",\"flags\":\"UH\"}\n");
    assertThat(reply.headers().headers().get("content-type")).isEqualTo("application/json");
  }

  @Test
  void headersToAddSeeTheStatusBeforeTheMappersAndMayReplaceOrAppend() {
    HeaderMutations headers = new HeaderMutations(List.of(
        new HeaderMutations.HeaderValue("x-original-status", "", false, format("%RESPONSE_CODE%"), false),
        new HeaderMutations.HeaderValue("x-tag", "mapped", true),
        new HeaderMutations.HeaderValue("www-authenticate", "Basic", false)), List.of());
    LocalReplyConfig config = new LocalReplyConfig(List.of(new LocalReplyConfig.Mapper(status(401),
        OptionalInt.of(403), Optional.empty(), headers, Optional.empty())), Optional.empty());
    LocalReply reply = LocalReply.of(401, "Jwt is missing", null,
        h -> h.add("x-tag", "filter").set("www-authenticate", "Bearer realm=\"x\""), target(config));
    HttpHeaders h = reply.headers().headers();
    assertThat(reply.headers().status()).isEqualTo(403);
    assertThat(h.get("x-original-status")).isEqualTo("401");
    assertThat(h.getAll("x-tag")).containsExactly("filter", "mapped");
    assertThat(h.getAll("www-authenticate")).containsExactly("Basic");
    assertThat(body(reply)).isEqualTo("Jwt is missing");
  }

  @Test
  void aContentTypeTheReplyCarriesStaysUnlessTheTextChangedAndTheMapperSetNone() throws Exception {
    LocalReplyConfig.BodyFormat html = new LocalReplyConfig.BodyFormat(
        AccessLogConfig.textFormat("<p>%LOCAL_REPLY_BODY%</p>", false), "text/html");
    LocalReplyConfig config = new LocalReplyConfig(List.of(), Optional.of(html));
    LocalReply changed = LocalReply.of(403, "denied", null, h -> h.set("content-type", "application/xml"),
        target(config));
    assertThat(changed.headers().headers().get("content-type")).isEqualTo("text/html");
    assertThat(body(changed)).isEqualTo("<p>denied</p>");

    HeaderMutations ownType = new HeaderMutations(List.of(
        new HeaderMutations.HeaderValue("content-type", "text/x-own", false)), List.of());
    LocalReplyConfig mapperSetsType = new LocalReplyConfig(List.of(new LocalReplyConfig.Mapper(status(403),
        OptionalInt.empty(), Optional.empty(), ownType, Optional.empty())), Optional.of(html));
    LocalReply own = LocalReply.of(403, "denied", null, null, target(mapperSetsType));
    assertThat(own.headers().headers().get("content-type")).isEqualTo("text/x-own");
    assertThat(body(own)).isEqualTo("<p>denied</p>");
  }

  @Test
  void aHeadRequestGetsTheHeadWithTheBodysLengthAndNoBody() throws Exception {
    LocalReplyConfig config = new LocalReplyConfig(List.of(), Optional.of(text("oops: %LOCAL_REPLY_BODY%")));
    LocalReply reply = LocalReply.of(503, "x", null, null, target(config, true, false));
    assertThat(reply.body()).isNull();
    assertThat(reply.headers().headers().get("content-length")).isEqualTo("7");
  }

  @Test
  void aGrpcCallGetsATrailersOnlyAnswerWithTheMappedStatusAndTheTextAsMessage() throws Exception {
    LocalReply reply = LocalReply.of(503, "no healthy upstream", ResponseFlag.UH, null,
        target(LocalReplyConfig.NONE, false, true));
    HttpHeaders h = reply.headers().headers();
    assertThat(reply.headers().status()).isEqualTo(200);
    assertThat(reply.body()).isNull();
    assertThat(h.get("content-type")).isEqualTo("application/grpc");
    assertThat(h.get("grpc-status")).isEqualTo("14");
    assertThat(h.get("grpc-message")).isEqualTo("no healthy upstream");
    assertThat(h.get("content-length")).isNull();

    // local_reply_config first: the mapped status decides grpc-status, the formatted text is the message.
    LocalReplyConfig config = new LocalReplyConfig(List.of(mapper(status(503), 403, null)),
        Optional.of(text("%LOCAL_REPLY_BODY%\n")));
    HttpHeaders mapped = LocalReply.of(503, "100% überlastet", ResponseFlag.UH, null, target(config, false, true))
        .headers().headers();
    assertThat(mapped.get("grpc-status")).isEqualTo("7");
    assertThat(mapped.get("grpc-message")).isEqualTo("100%25 %C3%BCberlastet%0A");

    // A grpc-status the reply carries already stays.
    HttpHeaders own = LocalReply.of(429, "", ResponseFlag.RL, x -> x.set("grpc-status", "8"),
        target(LocalReplyConfig.NONE, false, true)).headers().headers();
    assertThat(own.get("grpc-status")).isEqualTo("8");
    assertThat(own.get("grpc-message")).isNull();
  }

  @Test
  void aReplyAFilterBuiltIsRewrittenFromItsBodyOrPassesAsItIsWithoutConfig() throws Exception {
    HttpHeaders h = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    h.set("content-type", "text/plain").set("content-length", "6").set("x-authz", "1");
    ByteBuf denied = Unpooled.copiedBuffer("denied", StandardCharsets.UTF_8);
    LocalReply as = LocalReply.of(new ResponseHeaders(403, h), denied, target(LocalReplyConfig.NONE));
    assertThat(as.body()).isSameAs(denied);
    assertThat(body(as)).isEqualTo("denied");

    LocalReplyConfig config = new LocalReplyConfig(List.of(mapper(status(403), 401, null)),
        Optional.of(text("auth: %LOCAL_REPLY_BODY%")));
    HttpHeaders h2 = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    h2.set("content-type", "text/plain").set("content-length", "6").set("x-authz", "1");
    ByteBuf body = Unpooled.copiedBuffer("denied", StandardCharsets.UTF_8);
    LocalReply rewritten = LocalReply.of(new ResponseHeaders(403, h2), body, target(config));
    assertThat(body.refCnt()).isZero(); // the filter's buffer was read and released
    assertThat(rewritten.headers().status()).isEqualTo(401);
    assertThat(rewritten.headers().headers().get("x-authz")).isEqualTo("1");
    assertThat(rewritten.headers().headers().get("content-length")).isEqualTo("12");
    assertThat(body(rewritten)).isEqualTo("auth: denied");
  }

  @Test
  void runtimeAndResponseFlagFiltersChooseTheMapper() {
    info.setResponseFlag(ResponseFlag.UT);
    LocalReplyConfig config = new LocalReplyConfig(List.of(
        mapper(new AccessLogConfig.ResponseFlagFilter(java.util.Set.of("UH")), 0, "uh"),
        mapper(new AccessLogConfig.ResponseFlagFilter(java.util.Set.of("UT")), 0, "ut")), Optional.empty());
    assertThat(body(LocalReply.of(504, "upstream request timeout", ResponseFlag.UT, null, target(config))))
        .isEqualTo("ut");
  }

  private static HeaderMutations.Format format(String value) {
    try {
      return new HeaderMutations.Format(AccessLogConfig.textFormat(value, true).tokens());
    } catch (ConfigException e) {
      throw new AssertionError(e);
    }
  }
}
