package io.spillway.edge.filters.headertometadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.HeaderToMetadataConfig;
import io.spillway.edge.config.HeaderToMetadataConfig.GroupPart;
import io.spillway.edge.config.HeaderToMetadataConfig.KeyValue;
import io.spillway.edge.config.HeaderToMetadataConfig.LiteralPart;
import io.spillway.edge.config.HeaderToMetadataConfig.Rewrite;
import io.spillway.edge.config.HeaderToMetadataConfig.Rule;
import io.spillway.edge.config.HeaderToMetadataConfig.Source;
import io.spillway.edge.config.HeaderToMetadataConfig.ValueType;
import io.spillway.edge.config.RetryPolicy;
import io.spillway.edge.config.Route;
import io.spillway.edge.http.filter.DynamicMetadata;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.MetadataValue;
import io.spillway.edge.http.filter.MetadataValue.BoolValue;
import io.spillway.edge.http.filter.MetadataValue.NumberValue;
import io.spillway.edge.http.filter.MetadataValue.StringValue;
import io.spillway.edge.http.filter.StreamFilter;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The header-to-metadata filter through a fake stream: on_header_present and on_header_missing,
 * each value type, BASE64, regex_value_rewrite, remove, cookies, response rules, Envoy's drops
 * (empty, 8 KiB, bad numbers and encodings) and a route's own rules.
 */
class HeaderToMetadataFilterTest {

  private static final String NAME = "envoy.filters.http.header_to_metadata";
  private static final String NS = HeaderToMetadataConfig.DEFAULT_NAMESPACE;

  private static KeyValue kv(String key, String value, ValueType type, boolean base64) {
    return new KeyValue(NS, key, value, Optional.empty(), type, base64);
  }

  private static KeyValue kv(String key) {
    return kv(key, "", ValueType.STRING, false);
  }

  private static Rule header(String name, KeyValue present, KeyValue missing, boolean remove) {
    return new Rule(Source.HEADER, name, Optional.ofNullable(present), Optional.ofNullable(missing), remove);
  }

  private static HeaderToMetadataConfig request(Rule... rules) {
    return new HeaderToMetadataConfig(List.of(rules), List.of());
  }

  private static RouteEntry route(Map<String, Object> filterConfigs) {
    Route route = new Route("r", new Route.Match(new Route.PathMatch.Prefix("/"), true, List.of(), List.of()),
        new Route.RouteAction(List.of(new Route.WeightedCluster("backend", 1)), Optional.empty(), Optional.empty(),
            Optional.empty(), false, Duration.ofSeconds(15), Optional.empty(), RetryPolicy.NONE),
        HeaderMutations.NONE, HeaderMutations.NONE, Map.of(), Set.of(), Map.of(), Route.RateLimits.NONE,
        Optional.empty());
    return new RouteEntry(route, "vh", List.of(), List.of(), RetryPolicy.NONE, new int[0], filterConfigs);
  }

  private static RequestHeaders requestHeaders(String... nameValues) {
    HttpHeaders h = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    for (int i = 0; i < nameValues.length; i += 2) {
      h.add(nameValues[i], nameValues[i + 1]);
    }
    return new RequestHeaders("GET", "http", "api.example", "/items?x=1", h);
  }

  /** Runs one request (and a 200 response with {@code responseHeaders}) through the filter; the stream. */
  private static FakeStream run(HeaderToMetadataConfig config, RouteEntry route, RequestHeaders request,
      HttpHeaders responseHeaders) {
    List<StreamFilter> filters = new ArrayList<>();
    new HeaderToMetadataFactory(NAME, config).createFilters(new FilterChainBuilder() {
      @Override
      public void addDecoderFilter(io.spillway.edge.http.filter.DecoderFilter f) {
        throw new AssertionError("a stream filter is expected");
      }

      @Override
      public void addEncoderFilter(io.spillway.edge.http.filter.EncoderFilter f) {
        throw new AssertionError("a stream filter is expected");
      }

      @Override
      public void addStreamFilter(StreamFilter f) {
        filters.add(f);
      }
    });
    StreamFilter filter = filters.get(0);
    FakeStream stream = new FakeStream(route, request);
    filter.setDecoderFilterCallbacks(stream);
    filter.setEncoderFilterCallbacks(stream);
    assertThat(filter.decodeHeaders(request, true)).isEqualTo(FilterHeadersStatus.CONTINUE);
    ResponseHeaders response = new ResponseHeaders(200, responseHeaders);
    assertThat(filter.encodeHeaders(response, true)).isEqualTo(FilterHeadersStatus.CONTINUE);
    return stream;
  }

  private static FakeStream run(HeaderToMetadataConfig config, RequestHeaders request) {
    return run(config, route(Map.of()), request, DefaultHttpHeadersFactory.headersFactory().newHeaders());
  }

  private static MetadataValue value(FakeStream s, String namespace, String key) {
    DynamicMetadata m = s.info.dynamicMetadata();
    return m == null ? null : m.value(namespace, List.of(key));
  }

  @Test
  void aPresentHeaderGivesItsValueUnderTheKey() {
    FakeStream s = run(request(header("x-version", kv("version"), null, false)),
        requestHeaders("x-version", "v2", "x-version", "v3"));
    assertThat(value(s, NS, "version")).as("the first value, as Envoy reads it").isEqualTo(new StringValue("v2"));
    assertThat(s.requestHeaders().headers().getAll("x-version")).containsExactly("v2", "v3");
  }

  @Test
  void aConfiguredValueIsUsedInsteadOfTheHeadersAndItsNamespaceIsHonoured() {
    FakeStream s = run(request(header("x-beta",
        new KeyValue("acme.flags", "beta", "true", Optional.empty(), ValueType.STRING, false), null, false)),
        requestHeaders("x-beta", "anything"));
    assertThat(value(s, "acme.flags", "beta")).isEqualTo(new StringValue("true"));
    assertThat(s.info.dynamicMetadata().namespaces()).containsExactly("acme.flags");
  }

  @Test
  void aMissingHeaderGivesTheOnHeaderMissingValue() {
    HeaderToMetadataConfig config = request(header("x-version", kv("version"),
        kv("default", "true", ValueType.STRING, false), false));
    FakeStream missing = run(config, requestHeaders());
    assertThat(value(missing, NS, "default")).isEqualTo(new StringValue("true"));
    assertThat(value(missing, NS, "version")).isNull();
    FakeStream present = run(config, requestHeaders("x-version", "v1"));
    assertThat(value(present, NS, "default")).isNull();
  }

  @Test
  void anEmptyHeaderIsPresentButWritesNothing() {
    FakeStream s = run(request(header("x-version", kv("version"), kv("default", "yes", ValueType.STRING, false),
        false)), requestHeaders("x-version", ""));
    assertThat(s.info.dynamicMetadata()).as("present, so not missing; empty, so not added").isNull();
  }

  @Test
  void aRequestWithoutMatchingRulesAllocatesNoMetadata() {
    FakeStream s = run(request(header("x-version", kv("version"), null, false)), requestHeaders("x-other", "1"));
    assertThat(s.info.dynamicMetadata()).isNull();
  }

  @Test
  void numbersAreDecimalAndAnythingElseIsDropped() {
    HeaderToMetadataConfig config = request(header("x-n", kv("n", "", ValueType.NUMBER, false), null, false));
    assertThat(value(run(config, requestHeaders("x-n", "+42")), NS, "n")).isEqualTo(new NumberValue(42));
    assertThat(value(run(config, requestHeaders("x-n", "-1.5e3")), NS, "n")).isEqualTo(new NumberValue(-1500));
    assertThat(value(run(config, requestHeaders("x-n", ".5")), NS, "n")).isEqualTo(new NumberValue(0.5));
    for (String bad : List.of("abc", "1,5", "0x10", "1f", "Infinity", "NaN", "1e999", "")) {
      assertThat(run(config, requestHeaders("x-n", bad)).info.dynamicMetadata()).as(bad).isNull();
    }
  }

  @Test
  void base64IsDecodedFirstAndAValueThatDoesNotDecodeIsDropped() {
    HeaderToMetadataConfig config = request(header("x-b", kv("b", "", ValueType.STRING, true), null, false));
    String encoded = Base64.getEncoder().encodeToString("héllo".getBytes(StandardCharsets.UTF_8));
    assertThat(value(run(config, requestHeaders("x-b", encoded)), NS, "b")).isEqualTo(new StringValue("héllo"));
    assertThat(value(run(config, requestHeaders("x-b", "aGk")), NS, "b")).as("padding is optional")
        .isEqualTo(new StringValue("hi"));
    assertThat(run(config, requestHeaders("x-b", "not base64!")).info.dynamicMetadata()).isNull();
    HeaderToMetadataConfig number = request(header("x-b", kv("b", "", ValueType.NUMBER, true), null, false));
    assertThat(value(run(number, requestHeaders("x-b", "MTIz")), NS, "b")).isEqualTo(new NumberValue(123));
  }

  @Test
  void protobufValuesAreReadFromTheirWireForm() {
    HeaderToMetadataConfig config = request(header("x-p", kv("p", "", ValueType.PROTOBUF_VALUE, true), null,
        false));
    // Value{string_value: "abc"}: field 3, length-delimited.
    String string = Base64.getEncoder().encodeToString(new byte[] {0x1a, 3, 'a', 'b', 'c'});
    assertThat(value(run(config, requestHeaders("x-p", string)), NS, "p")).isEqualTo(new StringValue("abc"));
    // Value{bool_value: true}
    String bool = Base64.getEncoder().encodeToString(new byte[] {0x20, 1});
    assertThat(value(run(config, requestHeaders("x-p", bool)), NS, "p")).isEqualTo(new BoolValue(true));
    // Value{struct_value: {fields: {"k": Value{number_value: 2.0}}}}
    byte[] number = {0x11, 0, 0, 0, 0, 0, 0, 0, 0x40};
    byte[] entry = concat(new byte[] {0x0a, 1, 'k', 0x12, (byte) number.length}, number);
    byte[] struct = concat(new byte[] {0x0a, (byte) entry.length}, entry);
    byte[] value = concat(new byte[] {0x2a, (byte) struct.length}, struct);
    assertThat(value(run(config, requestHeaders("x-p", Base64.getEncoder().encodeToString(value))), NS, "p"))
        .isEqualTo(new MetadataValue.StructValue(Map.of("k", new NumberValue(2))));
    // A length past the end is no Value.
    String truncated = Base64.getEncoder().encodeToString(new byte[] {0x1a, 9, 'a'});
    assertThat(run(config, requestHeaders("x-p", truncated)).info.dynamicMetadata()).isNull();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void valuesOf8KiBOrMoreAreDropped() {
    HeaderToMetadataConfig config = request(header("x-big", kv("big"), null, false));
    assertThat(value(run(config, requestHeaders("x-big", "a".repeat(8191))), NS, "big")).isNotNull();
    assertThat(run(config, requestHeaders("x-big", "a".repeat(8192))).info.dynamicMetadata()).isNull();
  }

  @Test
  void aRegexRewriteReplacesEveryMatchAndNoMatchKeepsTheValue() {
    Rewrite rewrite = new Rewrite(Pattern.compile("^/(\\w+).*$"),
        List.of(new LiteralPart("svc-"), new GroupPart(1)));
    HeaderToMetadataConfig config = request(header(":path",
        new KeyValue(NS, "service", "", Optional.of(rewrite), ValueType.STRING, false), null, false));
    assertThat(value(run(config, requestHeaders()), NS, "service")).isEqualTo(new StringValue("svc-items"));
    Rewrite every = new Rewrite(Pattern.compile("-"), List.of(new LiteralPart("_")));
    HeaderToMetadataConfig all = request(header("x-id",
        new KeyValue(NS, "id", "", Optional.of(every), ValueType.STRING, false), null, false));
    assertThat(value(run(all, requestHeaders("x-id", "a-b-c")), NS, "id")).isEqualTo(new StringValue("a_b_c"));
    assertThat(value(run(all, requestHeaders("x-id", "abc")), NS, "id")).isEqualTo(new StringValue("abc"));
    Rewrite toEmpty = new Rewrite(Pattern.compile(".*"), List.of());
    HeaderToMetadataConfig empty = request(header("x-id",
        new KeyValue(NS, "id", "", Optional.of(toEmpty), ValueType.STRING, false), null, false));
    assertThat(run(empty, requestHeaders("x-id", "abc")).info.dynamicMetadata()).as("rewritten to nothing").isNull();
  }

  @Test
  void removeTakesTheHeaderOutWhenItIsPresent() {
    FakeStream s = run(request(header("x-secret", kv("secret"), null, true),
        header("x-only-missing", null, kv("m", "1", ValueType.STRING, false), true)),
        requestHeaders("x-secret", "s3", "x-secret", "again", "x-only-missing", "here", "x-kept", "k"));
    assertThat(value(s, NS, "secret")).isEqualTo(new StringValue("s3"));
    assertThat(s.requestHeaders().headers().contains("x-secret")).isFalse();
    assertThat(s.requestHeaders().headers().contains("x-only-missing"))
        .as("removed once read, whatever the rule writes").isFalse();
    assertThat(s.requestHeaders().headers().get("x-kept")).isEqualTo("k");
  }

  @Test
  void aCookieIsReadFromTheCookieHeaderAndAnEmptyOneIsMissing() {
    HeaderToMetadataConfig config = request(new Rule(Source.COOKIE, "session", Optional.of(kv("session")),
        Optional.of(kv("anonymous", "true", ValueType.STRING, false)), false));
    FakeStream s = run(config, requestHeaders("cookie", "theme=dark; session=\"abc123\"", "cookie", "session=later"));
    assertThat(value(s, NS, "session")).isEqualTo(new StringValue("abc123"));
    assertThat(s.requestHeaders().headers().get("cookie")).isEqualTo("theme=dark; session=\"abc123\"");
    FakeStream empty = run(config, requestHeaders("cookie", "session=; theme=dark"));
    assertThat(value(empty, NS, "anonymous")).isEqualTo(new StringValue("true"));
    assertThat(value(empty, NS, "session")).isNull();
  }

  @Test
  void pseudoHeadersAreRead() {
    FakeStream s = run(request(header(":authority", kv("host"), null, false), header(":method", kv("m"), null, false),
        header("host", kv("h"), null, false)), requestHeaders());
    assertThat(value(s, NS, "host")).isEqualTo(new StringValue("api.example"));
    assertThat(value(s, NS, "h")).isEqualTo(new StringValue("api.example"));
    assertThat(value(s, NS, "m")).isEqualTo(new StringValue("GET"));
  }

  @Test
  void responseRulesReadAndRemoveResponseHeaders() {
    HeaderToMetadataConfig config = new HeaderToMetadataConfig(List.of(),
        List.of(header("x-cache", kv("cache"), kv("cache", "none", ValueType.STRING, false), true),
            header(":status", kv("status", "", ValueType.NUMBER, false), null, false)));
    HttpHeaders response = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    response.add("x-cache", "HIT");
    FakeStream s = run(config, route(Map.of()), requestHeaders("x-cache", "request side"), response);
    assertThat(value(s, NS, "cache")).isEqualTo(new StringValue("HIT"));
    assertThat(value(s, NS, "status")).isEqualTo(new NumberValue(200));
    assertThat(response.contains("x-cache")).isFalse();
    assertThat(s.requestHeaders().headers().get("x-cache")).as("request rules are a separate list")
        .isEqualTo("request side");
  }

  @Test
  void laterRulesOverrideEarlierOnesForTheSameKey() {
    FakeStream s = run(request(header("x-a", kv("k"), null, false), header("x-b", kv("k"), null, false)),
        requestHeaders("x-a", "first", "x-b", "second"));
    assertThat(value(s, NS, "k")).isEqualTo(new StringValue("second"));
  }

  @Test
  void aRoutesOwnRulesReplaceTheFiltersInBothDirections() {
    HeaderToMetadataConfig filterRules = new HeaderToMetadataConfig(
        List.of(header("x-a", kv("a"), null, false)), List.of(header("x-r", kv("r"), null, false)));
    MetadataRules routeRules = MetadataRules.compile(request(header("x-b", kv("b"), null, true)));
    HttpHeaders response = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    response.add("x-r", "resp");
    FakeStream s = run(filterRules, route(Map.of(NAME, routeRules)), requestHeaders("x-a", "1", "x-b", "2"), response);
    assertThat(value(s, NS, "a")).isNull();
    assertThat(value(s, NS, "b")).isEqualTo(new StringValue("2"));
    assertThat(value(s, NS, "r")).as("the route's Config has no response rules").isNull();
    assertThat(s.requestHeaders().headers().contains("x-b")).isFalse();
    FakeStream other = run(filterRules, route(Map.of()), requestHeaders("x-a", "1", "x-b", "2"), response);
    assertThat(value(other, NS, "a")).isEqualTo(new StringValue("1"));
  }

  @Test
  void aConfiguredValueThatIsNoNumberNeverWrites() {
    FakeStream s = run(request(header("x-a", null, kv("n", "not a number", ValueType.NUMBER, false), false)),
        requestHeaders());
    assertThat(s.info.dynamicMetadata()).isNull();
    FakeStream ok = run(request(header("x-a", null, kv("n", " 7 ", ValueType.NUMBER, false), false)),
        requestHeaders());
    assertThat(value(ok, NS, "n")).isEqualTo(new NumberValue(7));
  }
}
