package io.spillway.edge.filters.cors;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.CorsPolicy;
import io.spillway.edge.config.RuntimeFraction;
import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.RetryPolicy;
import io.spillway.edge.config.Route;
import io.spillway.edge.config.Route.StringMatch;
import io.spillway.edge.http.filter.DecoderFilter;
import io.spillway.edge.http.filter.EncoderFilter;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.upstream.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The CORS filter through fake stream callbacks: preflights answered or forwarded, actual
 * requests' response headers, wildcards, private network access, shadow mode and fractions, the
 * choice of policy (typed_per_filter_config over the older cors field) and the stats.
 */
class CorsFilterTest {

  private static final String NAME = "envoy.filters.http.cors";
  private static final String ORIGIN = "https://app.example";

  private final StatsStore stats = new StatsStore();
  private final CorsFactory factory = new CorsFactory(NAME, stats.rootScope().scope("http").scope("ingress"),
      () -> io.spillway.edge.runtime.RuntimeSnapshot.EMPTY);
  private final Worker worker = new Worker(0, null, new SplittableRandom(11), null, null, null);

  /** A policy: every field at the value a test states, the rest unset (Envoy's defaults). */
  private static final class Policy {
    List<StringMatch> origins = List.of(new StringMatch.Exact(ORIGIN, false));
    String methods = "";
    String headers = "";
    String expose = "";
    String maxAge = "";
    Optional<Boolean> credentials = Optional.empty();
    Optional<Boolean> privateNetwork = Optional.empty();
    Optional<Boolean> forward = Optional.empty();
    int enabled = CorsPolicy.MILLION;
    int shadow = 0;

    CorsPolicy build() {
      return new CorsPolicy(origins, methods, headers, expose, maxAge, credentials, privateNetwork, forward,
          RuntimeFraction.of(enabled), RuntimeFraction.of(shadow));
    }
  }

  /** A forwarding route whose per-filter configs and older cors policy are these. */
  private static RouteEntry route(Map<String, Object> filterConfigs, Optional<CorsPolicy> cors) {
    Route route = new Route("r", new Route.Match(new Route.PathMatch.Prefix("/"), true, List.of(), List.of()),
        new Route.RouteAction(List.of(new Route.WeightedCluster("backend", 1)), Optional.empty(), Optional.empty(),
            Optional.empty(), false, Duration.ofSeconds(15), Optional.empty(), RetryPolicy.NONE),
        HeaderMutations.NONE, HeaderMutations.NONE, Map.of(), Set.of(), Map.of(), Route.RateLimits.NONE, cors);
    return new RouteEntry(route, "vh", List.of(), List.of(), RetryPolicy.NONE, new int[0], filterConfigs);
  }

  private static RouteEntry route(CorsPolicy perFilter) {
    return route(Map.of(NAME, perFilter), Optional.empty());
  }

  private static HttpHeaders headers(String... nameValues) {
    HttpHeaders h = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    for (int i = 0; i < nameValues.length; i += 2) {
      h.add(nameValues[i], nameValues[i + 1]);
    }
    return h;
  }

  private static RequestHeaders request(String method, String... nameValues) {
    return new RequestHeaders(method, "http", "api.example", "/", headers(nameValues));
  }

  private static RequestHeaders preflight(String... extra) {
    List<String> all = new ArrayList<>(List.of("origin", ORIGIN, "access-control-request-method", "PUT"));
    all.addAll(List.of(extra));
    return request("OPTIONS", all.toArray(String[]::new));
  }

  /**
   * One request: decodeHeaders, then encodeHeaders of the filter's own reply when it sent one,
   * else of an upstream 200 with {@code upstreamHeaders}.
   */
  private record Outcome(FilterHeadersStatus status, FakeCallbacks callbacks, ResponseHeaders response) {
    boolean answeredLocally() {
      return callbacks.reply != null;
    }

    String header(String name) {
      return response.headers().get(name);
    }
  }

  private Outcome send(RouteEntry route, RequestHeaders request, String... upstreamHeaders) {
    List<CorsFilter> made = new ArrayList<>();
    factory.createFilters(new FilterChainBuilder() {
      @Override
      public void addDecoderFilter(DecoderFilter filter) {
        made.add((CorsFilter) filter);
      }

      @Override
      public void addEncoderFilter(EncoderFilter filter) {
        assertThat(filter).isSameAs(made.get(0));
      }
    });
    CorsFilter filter = made.get(0);
    FakeCallbacks callbacks = new FakeCallbacks(worker, route, request);
    filter.setDecoderFilterCallbacks(callbacks);
    FilterHeadersStatus status = filter.decodeHeaders(request, true);
    ResponseHeaders response = callbacks.reply != null
        ? callbacks.reply : new ResponseHeaders(200, headers(upstreamHeaders));
    assertThat(filter.encodeHeaders(response, true)).isEqualTo(FilterHeadersStatus.CONTINUE);
    return new Outcome(status, callbacks, response);
  }

  private long counter(String name) {
    return stats.find(name).map(s -> ((Counter) s).value()).orElse(0L);
  }

  private long valid() {
    return counter("http.ingress.cors.origin_valid");
  }

  private long invalid() {
    return counter("http.ingress.cors.origin_invalid");
  }

  @Test
  void anAllowedPreflightIsAnsweredWith200AndEveryConfiguredHeader() {
    Policy p = new Policy();
    p.methods = "GET, PUT";
    p.headers = "content-type";
    p.expose = "x-total";
    p.maxAge = "600";
    p.credentials = Optional.of(true);
    Outcome o = send(route(p.build()), preflight());
    assertThat(o.status()).isEqualTo(FilterHeadersStatus.STOP_ITERATION);
    assertThat(o.callbacks().replies).isEqualTo(1);
    assertThat(o.response().status()).isEqualTo(200);
    assertThat(o.callbacks().replyFlag).isNull(); // Envoy sends it as a response, not as a local error reply
    assertThat(o.callbacks().info.responseCodeDetails()).isEqualTo("cors_response");
    assertThat(o.header("access-control-allow-origin")).isEqualTo(ORIGIN);
    assertThat(o.header("access-control-allow-methods")).isEqualTo("GET, PUT");
    assertThat(o.header("access-control-allow-headers")).isEqualTo("content-type");
    assertThat(o.header("access-control-max-age")).isEqualTo("600");
    assertThat(o.header("access-control-allow-credentials")).isEqualTo("true");
    // The reply passes the filter's encoder side too, which adds the exposed headers as Envoy's does.
    assertThat(o.header("access-control-expose-headers")).isEqualTo("x-total");
    assertThat(o.header("access-control-allow-private-network")).isNull();
    assertThat(valid()).isEqualTo(1);
    assertThat(invalid()).isZero();
  }

  @Test
  void aPreflightWithNothingConfiguredButTheOriginGetsOnlyTheOrigin() {
    Outcome o = send(route(new Policy().build()), preflight());
    assertThat(o.answeredLocally()).isTrue();
    assertThat(o.response().headers().names()).containsExactly("access-control-allow-origin");
  }

  @Test
  void wildcardMethodsAndHeadersEchoThePreflightsOwn() {
    Policy p = new Policy();
    p.methods = "*";
    p.headers = "*";
    Outcome o = send(route(p.build()), preflight("access-control-request-headers", "x-a, x-b"));
    assertThat(o.header("access-control-allow-methods")).isEqualTo("PUT");
    assertThat(o.header("access-control-allow-headers")).isEqualTo("x-a, x-b");
    Outcome none = send(route(p.build()), preflight());
    assertThat(none.header("access-control-allow-headers")).isEmpty(); // Envoy echoes the absent header as ""
  }

  @Test
  void privateNetworkAccessIsAllowedOnlyWhenThePreflightAsksForIt() {
    Policy p = new Policy();
    p.privateNetwork = Optional.of(true);
    assertThat(send(route(p.build()), preflight("access-control-request-private-network", "true"))
        .header("access-control-allow-private-network")).isEqualTo("true");
    assertThat(send(route(p.build()), preflight("access-control-request-private-network", "false"))
        .header("access-control-allow-private-network")).isNull();
    assertThat(send(route(p.build()), preflight()).header("access-control-allow-private-network")).isNull();
    p.privateNetwork = Optional.of(false);
    assertThat(send(route(p.build()), preflight("access-control-request-private-network", "true"))
        .header("access-control-allow-private-network")).isNull();
  }

  @Test
  void aPreflightFromAnotherOriginIsForwardedUnlessThePolicySaysOtherwise() {
    Policy p = new Policy();
    p.methods = "GET";
    RequestHeaders other = request("OPTIONS", "origin", "https://evil.example", "access-control-request-method", "GET");
    Outcome forwarded = send(route(p.build()), other);
    assertThat(forwarded.status()).isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(forwarded.answeredLocally()).isFalse();
    assertThat(forwarded.header("access-control-allow-origin")).isNull();

    p.forward = Optional.of(false);
    Outcome answered = send(route(p.build()), other);
    assertThat(answered.status()).isEqualTo(FilterHeadersStatus.STOP_ITERATION);
    assertThat(answered.response().status()).isEqualTo(200);
    assertThat(answered.header("access-control-allow-origin")).isNull();
    assertThat(answered.header("access-control-allow-methods")).isEqualTo("GET");
    assertThat(invalid()).isEqualTo(2);
    assertThat(valid()).isZero();

    p.forward = Optional.of(true);
    assertThat(send(route(p.build()), other).answeredLocally()).isFalse();
  }

  @Test
  void anActualRequestFromAnAllowedOriginGetsTheOriginCredentialsAndExposedHeaders() {
    Policy p = new Policy();
    p.expose = "x-total, x-page";
    p.credentials = Optional.of(true);
    p.methods = "GET";
    Outcome o = send(route(p.build()), request("GET", "origin", ORIGIN),
        "access-control-allow-origin", "*", "x-upstream", "1");
    assertThat(o.status()).isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(o.answeredLocally()).isFalse();
    assertThat(o.response().headers().getAll("access-control-allow-origin")).containsExactly(ORIGIN);
    assertThat(o.header("access-control-allow-credentials")).isEqualTo("true");
    assertThat(o.header("access-control-expose-headers")).isEqualTo("x-total, x-page");
    assertThat(o.header("access-control-allow-methods")).isNull(); // preflight headers only
    assertThat(o.header("x-upstream")).isEqualTo("1");
    assertThat(valid()).isEqualTo(1);
  }

  @Test
  void anOptionsRequestWithoutARequestMethodIsAnActualRequest() {
    Outcome o = send(route(new Policy().build()), request("OPTIONS", "origin", ORIGIN));
    assertThat(o.answeredLocally()).isFalse();
    assertThat(o.header("access-control-allow-origin")).isEqualTo(ORIGIN);
    Outcome empty = send(route(new Policy().build()),
        request("OPTIONS", "origin", ORIGIN, "access-control-request-method", ""));
    assertThat(empty.answeredLocally()).isFalse();
  }

  @Test
  void aResponseToAnotherOriginIsLeftAloneAndCountedInvalid() {
    Policy p = new Policy();
    p.credentials = Optional.of(true);
    p.expose = "x-total";
    Outcome o = send(route(p.build()), request("GET", "origin", "https://evil.example"), "x-upstream", "1");
    assertThat(o.response().headers().names()).containsExactly("x-upstream");
    assertThat(invalid()).isEqualTo(1);
  }

  @Test
  void requestsWithoutAnOriginAreNotCorsRequestsAndNotCounted() {
    Outcome get = send(route(new Policy().build()), request("GET"));
    Outcome options = send(route(new Policy().build()), request("OPTIONS", "access-control-request-method", "GET"));
    Outcome empty = send(route(new Policy().build()), request("GET", "origin", ""));
    for (Outcome o : List.of(get, options, empty)) {
      assertThat(o.answeredLocally()).isFalse();
      assertThat(o.response().headers().isEmpty()).isTrue();
    }
    assertThat(valid() + invalid()).isZero();
  }

  @Test
  void everyMatcherKindAndAMatcherOfTheLiteralStarAllowOrigins() {
    List<StringMatch> origins = List.of(
        new StringMatch.Prefix("https://pre", false),
        new StringMatch.Suffix(".suffix.example", false),
        new StringMatch.Contains("middle", false),
        new StringMatch.Regex(Pattern.compile("https://[a-z]+\\.regex\\.example")),
        new StringMatch.Exact("HTTPS://CASE.EXAMPLE", true));
    Policy p = new Policy();
    p.origins = origins;
    RouteEntry route = route(p.build());
    for (String allowed : List.of("https://prefixed.example", "https://a.suffix.example", "http://in-the-middle",
        "https://abc.regex.example", "https://case.example")) {
      assertThat(send(route, request("GET", "origin", allowed)).header("access-control-allow-origin"))
          .as(allowed).isEqualTo(allowed);
    }
    for (String refused : List.of("http://prefixed.example", "https://suffix.example.com", "https://ABC.regex.example",
        "https://case.example.org")) {
      assertThat(send(route, request("GET", "origin", refused)).header("access-control-allow-origin"))
          .as(refused).isNull();
    }
    // Envoy first asks each matcher whether it matches "*": one that does allows every origin.
    p.origins = List.of(new StringMatch.Exact("*", false));
    assertThat(send(route(p.build()), request("GET", "origin", "https://any.example"))
        .header("access-control-allow-origin")).isEqualTo("https://any.example");
    p.origins = List.of(new StringMatch.Regex(Pattern.compile(".*")));
    assertThat(send(route(p.build()), request("GET", "origin", "null")).header("access-control-allow-origin"))
        .isEqualTo("null");
    p.origins = List.of();
    assertThat(send(route(p.build()), request("GET", "origin", ORIGIN)).header("access-control-allow-origin"))
        .isNull();
  }

  @Test
  void shadowModeCountsOriginsAndChangesNothing() {
    Policy p = new Policy();
    p.enabled = 0;
    p.shadow = CorsPolicy.MILLION;
    Outcome pre = send(route(p.build()), preflight());
    assertThat(pre.answeredLocally()).isFalse();
    assertThat(pre.status()).isEqualTo(FilterHeadersStatus.CONTINUE);
    Outcome get = send(route(p.build()), request("GET", "origin", "https://evil.example"));
    assertThat(get.response().headers().isEmpty()).isTrue();
    assertThat(valid()).isEqualTo(1);
    assertThat(invalid()).isEqualTo(1);
  }

  @Test
  void aDisabledPolicyIsNotEvenCounted() {
    Policy p = new Policy();
    p.enabled = 0;
    Outcome o = send(route(p.build()), preflight());
    assertThat(o.answeredLocally()).isFalse();
    assertThat(o.response().headers().isEmpty()).isTrue();
    assertThat(valid() + invalid()).isZero();
  }

  @Test
  void filterEnabledTakesPrecedenceOverShadowEnabled() {
    Policy p = new Policy();
    p.shadow = CorsPolicy.MILLION;
    assertThat(send(route(p.build()), preflight()).answeredLocally()).isTrue();
  }

  @Test
  void aFractionEnablesAboutThatShareOfRequests() {
    Policy p = new Policy();
    p.enabled = CorsPolicy.MILLION / 4;
    RouteEntry route = route(p.build());
    int answered = 0;
    for (int i = 0; i < 400; i++) {
      if (send(route, preflight()).answeredLocally()) {
        answered++;
      }
    }
    assertThat(answered).isBetween(60, 140);
    assertThat(valid()).isEqualTo(answered); // a request the policy is off for is not counted
  }

  @Test
  void thePerFilterPolicyComesFirstThenTheOlderCorsField() {
    Policy perFilter = new Policy();
    perFilter.methods = "PER-FILTER";
    Policy older = new Policy();
    older.methods = "OLDER";
    assertThat(send(route(Map.of(NAME, perFilter.build()), Optional.of(older.build())), preflight())
        .header("access-control-allow-methods")).isEqualTo("PER-FILTER");
    assertThat(send(route(Map.of(), Optional.of(older.build())), preflight())
        .header("access-control-allow-methods")).isEqualTo("OLDER");
    // A policy for another filter's name is not this filter's.
    assertThat(send(route(Map.of("other_cors", perFilter.build()), Optional.empty()), preflight())
        .answeredLocally()).isFalse();
  }

  @Test
  void requestsWithoutARouteOrOnARouteWithoutARouteActionPassThrough() {
    assertThat(send(null, preflight()).answeredLocally()).isFalse();
    Route direct = new Route("d", new Route.Match(new Route.PathMatch.Prefix("/"), true, List.of(), List.of()),
        new Route.DirectResponse(204, Optional.empty()), HeaderMutations.NONE, HeaderMutations.NONE, Map.of(),
        Set.of(), Map.of(), Route.RateLimits.NONE, Optional.of(new Policy().build()));
    RouteEntry entry = new RouteEntry(direct, "vh", List.of(), List.of(), RetryPolicy.NONE, new int[0],
        Map.of(NAME, new Policy().build()));
    Outcome o = send(entry, preflight());
    assertThat(o.answeredLocally()).isFalse();
    assertThat(o.response().headers().isEmpty()).isTrue();
    assertThat(valid() + invalid()).isZero();
  }
}
