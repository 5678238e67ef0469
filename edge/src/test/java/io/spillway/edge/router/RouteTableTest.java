package io.spillway.edge.router;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.RetryPolicy;
import io.spillway.edge.config.Route;
import io.spillway.edge.config.Route.StringMatch;
import io.spillway.edge.config.RouteConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class RouteTableTest {

  static Route route(String name, Route.PathMatch path, List<Route.HeaderMatch> headers,
      List<Route.QueryParameterMatch> queries, String cluster) {
    return new Route(name, new Route.Match(path, true, headers, queries), action(cluster),
        HeaderMutations.NONE, HeaderMutations.NONE, Map.of());
  }

  static Route.RouteAction action(String cluster) {
    return new Route.RouteAction(List.of(new Route.WeightedCluster(cluster, 1)), Optional.empty(), Optional.empty(),
        Optional.empty(), false, Duration.ofSeconds(15), Optional.empty(), RetryPolicy.NONE);
  }

  static Route prefix(String prefix, String cluster) {
    return route(prefix, new Route.PathMatch.Prefix(prefix), List.of(), List.of(), cluster);
  }

  static RouteConfig.VirtualHost vhost(String name, List<String> domains, Route... routes) {
    return new RouteConfig.VirtualHost(name, domains, List.of(routes), HeaderMutations.NONE, HeaderMutations.NONE,
        RetryPolicy.NONE);
  }

  static RouteTable table(RouteConfig.VirtualHost... vhosts) {
    return RouteTable.compile(new RouteConfig("test", List.of(vhosts), HeaderMutations.NONE, HeaderMutations.NONE));
  }

  record Req(String authority, String path, String query, Map<String, String> headers) implements RequestView {
    static Req of(String authority, String pathAndQuery) {
      int q = pathAndQuery.indexOf('?');
      return new Req(authority, q < 0 ? pathAndQuery : pathAndQuery.substring(0, q),
          q < 0 ? "" : pathAndQuery.substring(q + 1), Map.of());
    }

    Req with(String name, String value) {
      return new Req(authority, path, query, Map.of(name, value));
    }

    @Override
    public String header(String name) {
      return headers.get(name);
    }
  }

  static String cluster(RouteEntry e) {
    return e == null ? null : e.routeAction().clusters().get(0).name();
  }

  @Test
  void aRuntimeFractionShiftsTrafficByTheRuntimesValue() {
    Route canary = new Route("canary", new Route.Match(new Route.PathMatch.Prefix("/"), true, List.of(), List.of(),
        Optional.of(new io.spillway.edge.config.RuntimeFraction("shift.canary", 0))), action("canary"),
        HeaderMutations.NONE, HeaderMutations.NONE, Map.of());
    RouteConfig config = new RouteConfig("test", List.of(vhost("all", List.of("*"), canary, prefix("/", "stable"))),
        HeaderMutations.NONE, HeaderMutations.NONE);
    java.util.concurrent.atomic.AtomicReference<io.spillway.edge.runtime.RuntimeSnapshot> runtime =
        new java.util.concurrent.atomic.AtomicReference<>(io.spillway.edge.runtime.RuntimeSnapshot.EMPTY);
    RouteTable t = RouteTable.compile(config, RouteFilterCompiler.NONE, runtime::get);

    // Default 0 %: every request falls through to the next route.
    assertThat(cluster(t.match(Req.of("a", "/x")))).isEqualTo("stable");
    runtime.set(new io.spillway.edge.runtime.RuntimeSnapshot(List.of("admin"), List.of(Map.of("shift.canary", "100"))));
    assertThat(cluster(t.match(Req.of("a", "/x")))).isEqualTo("canary");
    int canaries = 0;
    runtime.set(new io.spillway.edge.runtime.RuntimeSnapshot(List.of("admin"), List.of(Map.of("shift.canary", "50"))));
    for (int i = 0; i < 2_000; i++) {
      canaries += "canary".equals(cluster(t.match(Req.of("a", "/x")))) ? 1 : 0;
    }
    assertThat(canaries).isBetween(800, 1_200);
  }

  @Test
  void domainsFollowEnvoyPrecedence() {
    RouteTable t = table(
        vhost("any", List.of("*"), prefix("/", "any")),
        vhost("exact", List.of("api.example.com"), prefix("/", "exact")),
        vhost("suffix", List.of("*.example.com"), prefix("/", "suffix")),
        vhost("longer-suffix", List.of("*.api.example.com"), prefix("/", "longer-suffix")),
        vhost("prefix", List.of("api.*"), prefix("/", "prefix")),
        vhost("with-port", List.of("ported.example.org:8443"), prefix("/", "with-port")));
    assertThat(cluster(t.match(Req.of("api.example.com", "/")))).isEqualTo("exact");
    assertThat(cluster(t.match(Req.of("API.Example.com", "/")))).isEqualTo("exact");
    // The port is part of the authority, as in Envoy: no exact match, the prefix wildcard takes it.
    assertThat(cluster(t.match(Req.of("api.example.com:443", "/")))).isEqualTo("prefix");
    assertThat(cluster(t.match(Req.of("www.example.com", "/")))).isEqualTo("suffix");
    assertThat(cluster(t.match(Req.of("v1.api.example.com", "/")))).isEqualTo("longer-suffix");
    assertThat(cluster(t.match(Req.of("api.other.net", "/")))).isEqualTo("prefix");
    assertThat(cluster(t.match(Req.of("ported.example.org:8443", "/")))).isEqualTo("with-port");
    assertThat(cluster(t.match(Req.of("ported.example.org", "/")))).isEqualTo("any");
    assertThat(cluster(t.match(Req.of("example.com", "/")))).isEqualTo("any");
  }

  @Test
  void noMatchingVirtualHostIsNoRoute() {
    RouteTable t = table(vhost("only", List.of("a.example"), prefix("/", "a")));
    assertThat(t.match(Req.of("b.example", "/"))).isNull();
  }

  @Test
  void onlyConnectMatcherMatchesConnectAndItMatchesNothingElse() {
    RouteTable t = table(
        vhost("proxy", List.of("proxy.example:443"),
            prefix("", "any-prefix"),
            route("connect", new Route.PathMatch.Connect(), List.of(), List.of(), "tunnel"),
            prefix("/", "web")),
        vhost("other", List.of("*"), prefix("", "fallback")));
    // A CONNECT has no path; routed by its authority, then only connect_matcher takes it.
    assertThat(cluster(t.match(Req.of("proxy.example:443", "").with(":method", "CONNECT")))).isEqualTo("tunnel");
    assertThat(t.match(Req.of("elsewhere:443", "").with(":method", "CONNECT"))).isNull();
    // An ordinary request never matches connect_matcher.
    RouteTable connectFirst = table(vhost("v", List.of("*"),
        route("connect", new Route.PathMatch.Connect(), List.of(), List.of(), "tunnel"), prefix("/", "web")));
    assertThat(cluster(connectFirst.match(Req.of("h", "/x").with(":method", "GET")))).isEqualTo("web");
    assertThat(cluster(connectFirst.match(Req.of("h", "/x").with(":method", "CONNECT")))).isEqualTo("web");
  }

  @Test
  void firstMatchingRouteWins() {
    RouteTable t = table(vhost("v", List.of("*"),
        prefix("/api/v2", "v2"),
        prefix("/api", "api"),
        route("exact", new Route.PathMatch.Exact("/health"), List.of(), List.of(), "health"),
        route("regex", new Route.PathMatch.Regex(Pattern.compile("/users/[0-9]+")), List.of(), List.of(), "users")));
    assertThat(cluster(t.match(Req.of("h", "/api/v2/x")))).isEqualTo("v2");
    assertThat(cluster(t.match(Req.of("h", "/api/v1/x")))).isEqualTo("api");
    assertThat(cluster(t.match(Req.of("h", "/health?verbose=1")))).isEqualTo("health");
    assertThat(t.match(Req.of("h", "/health/x"))).isNull();
    assertThat(cluster(t.match(Req.of("h", "/users/42")))).isEqualTo("users");
    assertThat(t.match(Req.of("h", "/users/42/x"))).isNull();
  }

  @Test
  void caseInsensitivePrefix() {
    Route r = new Route("ci", new Route.Match(new Route.PathMatch.Prefix("/API"), false, List.of(), List.of()),
        action("c"), HeaderMutations.NONE, HeaderMutations.NONE, Map.of());
    RouteTable t = table(vhost("v", List.of("*"), r));
    assertThat(cluster(t.match(Req.of("h", "/api/x")))).isEqualTo("c");
  }

  @Test
  void headerMatchers() {
    RouteTable t = table(vhost("v", List.of("*"),
        route("exact", new Route.PathMatch.Prefix("/"),
            List.of(new Route.HeaderMatch("x-env", new StringMatch.Exact("canary", false), false)), List.of(), "canary"),
        route("present", new Route.PathMatch.Prefix("/"),
            List.of(new Route.HeaderMatch("x-debug", new StringMatch.Present(true), false)), List.of(), "debug"),
        route("inverted", new Route.PathMatch.Prefix("/"),
            List.of(new Route.HeaderMatch("x-tenant", new StringMatch.Prefix("acme", true), true)), List.of(), "not-acme"),
        prefix("/", "acme")));
    Req base = Req.of("h", "/");
    assertThat(cluster(t.match(base.with("x-env", "canary")))).isEqualTo("canary");
    assertThat(cluster(t.match(base.with("x-env", "Canary")))).isEqualTo("not-acme");
    assertThat(cluster(t.match(base.with("x-debug", "")))).isEqualTo("debug");
    assertThat(cluster(t.match(base.with("x-tenant", "ACME-1")))).isEqualTo("acme");
    assertThat(cluster(t.match(base))).isEqualTo("not-acme");
  }

  @Test
  void stringMatchKinds() {
    assertThat(RouteMatcher.matches(new StringMatch.Suffix(".json", false), "a.json")).isTrue();
    assertThat(RouteMatcher.matches(new StringMatch.Suffix(".JSON", true), "a.json")).isTrue();
    assertThat(RouteMatcher.matches(new StringMatch.Contains("mid", false), "amidst")).isTrue();
    assertThat(RouteMatcher.matches(new StringMatch.Contains("MID", true), "amidst")).isTrue();
    assertThat(RouteMatcher.matches(new StringMatch.Contains("MID", false), "amidst")).isFalse();
    assertThat(RouteMatcher.matches(new StringMatch.Regex(Pattern.compile("v[0-9]")), "v1")).isTrue();
    assertThat(RouteMatcher.matches(new StringMatch.Regex(Pattern.compile("v[0-9]")), "v1x")).isFalse();
    assertThat(RouteMatcher.matches(new StringMatch.Exact("x", false), null)).isFalse();
    assertThat(RouteMatcher.matches(new StringMatch.Present(false), null)).isTrue();
  }

  @Test
  void queryParameterMatchers() {
    RouteTable t = table(vhost("v", List.of("*"),
        route("q", new Route.PathMatch.Prefix("/"), List.of(),
            List.of(new Route.QueryParameterMatch("debug", new StringMatch.Exact("1", false))), "debug"),
        route("p", new Route.PathMatch.Prefix("/"), List.of(),
            List.of(new Route.QueryParameterMatch("flag", new StringMatch.Present(true))), "flag"),
        prefix("/", "default")));
    assertThat(cluster(t.match(Req.of("h", "/x?a=b&debug=1")))).isEqualTo("debug");
    assertThat(cluster(t.match(Req.of("h", "/x?debug=2")))).isEqualTo("default");
    assertThat(cluster(t.match(Req.of("h", "/x?flag")))).isEqualTo("flag");
    assertThat(cluster(t.match(Req.of("h", "/x?flagged=1")))).isEqualTo("default");
    assertThat(RouteMatcher.queryParameter("a=1&b=&c", "b")).isEqualTo("");
    assertThat(RouteMatcher.queryParameter("a=1&b=&c", "c")).isEqualTo("");
    assertThat(RouteMatcher.queryParameter("a=1&b=&c", "d")).isNull();
  }

  @Test
  void weightedClustersFollowWeights() {
    Route.RouteAction weighted = new Route.RouteAction(
        List.of(new Route.WeightedCluster("a", 80), new Route.WeightedCluster("b", 20)), Optional.empty(),
        Optional.empty(), Optional.empty(), false, Duration.ofSeconds(15), Optional.empty(), RetryPolicy.NONE);
    Route r = new Route("w", new Route.Match(new Route.PathMatch.Prefix("/"), true, List.of(), List.of()), weighted,
        HeaderMutations.NONE, HeaderMutations.NONE, Map.of());
    RouteEntry e = table(vhost("v", List.of("*"), r)).match(Req.of("h", "/"));
    SplittableRandom random = new SplittableRandom(7);
    int a = 0;
    int n = 10_000;
    for (int i = 0; i < n; i++) {
      if (e.pickCluster(random).equals("a")) {
        a++;
      }
    }
    // 80 % expected; 5 standard deviations of a binomial(10000, 0.8) is 200.
    assertThat(a).isBetween(7_800, 8_200);
  }

  @Test
  void headerMutationsMergeMostSpecificFirst() {
    HeaderMutations routeLevel = new HeaderMutations(List.of(new HeaderMutations.HeaderValue("x-level", "route", true)), List.of());
    HeaderMutations vhostLevel = new HeaderMutations(List.of(new HeaderMutations.HeaderValue("x-level", "vhost", true)), List.of("x-drop"));
    Route r = new Route("r", new Route.Match(new Route.PathMatch.Prefix("/"), true, List.of(), List.of()), action("c"),
        routeLevel, HeaderMutations.NONE, Map.of("spillway.admission.tier", "start"));
    RouteConfig.VirtualHost vh = new RouteConfig.VirtualHost("v", List.of("*"), List.of(r), vhostLevel,
        HeaderMutations.NONE, RetryPolicy.NONE);
    RouteEntry e = table(vh).match(Req.of("h", "/"));
    assertThat(e.requestHeaders()).containsExactly(routeLevel, vhostLevel);
    assertThat(e.responseHeaders()).isEmpty();
    assertThat(e.metadata("spillway.admission.tier")).isEqualTo("start");
  }

  @Test
  void routeRetryPolicyOverridesVirtualHost() {
    RetryPolicy vhostRetry = new RetryPolicy(java.util.Set.of(RetryPolicy.RetryOn.FIVE_XX), 2, Duration.ZERO,
        java.util.Set.of(), Duration.ofMillis(25), Duration.ofMillis(250));
    RouteConfig.VirtualHost vh = new RouteConfig.VirtualHost("v", List.of("*"), List.of(prefix("/", "c")),
        HeaderMutations.NONE, HeaderMutations.NONE, vhostRetry);
    assertThat(table(vh).match(Req.of("h", "/")).retryPolicy()).isEqualTo(vhostRetry);
  }

  /** A route's filter configuration with the given per-filter entry (as the translator merges them). */
  private static Route withFilterConfig(String prefix, io.spillway.edge.config.RouteFilterConfig config) {
    return new Route(prefix, new Route.Match(new Route.PathMatch.Prefix(prefix), true, List.of(), List.of()),
        action("c"), HeaderMutations.NONE, HeaderMutations.NONE, Map.of(), java.util.Set.of(), Map.of("rl", config),
        Route.RateLimits.NONE, Optional.empty());
  }

  private static io.spillway.edge.config.LocalRateLimitConfig rateLimit(String statPrefix) {
    return new io.spillway.edge.config.LocalRateLimitConfig(statPrefix, 429,
        Optional.of(new io.spillway.edge.config.LocalRateLimitConfig.TokenBucket(1, 1, Duration.ofSeconds(1))),
        io.spillway.edge.config.RuntimeFraction.NEVER, io.spillway.edge.config.RuntimeFraction.NEVER,
        HeaderMutations.NONE, HeaderMutations.NONE, List.of(), 0, false, false,
        io.spillway.edge.config.RateLimitPolicy.VhRateLimits.OVERRIDE, true, List.of());
  }

  @Test
  void aVirtualHostsFilterConfigIsCompiledOnceForItsRoutesAndARoutesOwnForItAlone() {
    var shared = rateLimit("vh");
    var own = rateLimit("vh"); // equal, but a route's own object: a bucket of its own
    List<Object> compiled = new java.util.ArrayList<>();
    RouteTable t = RouteTable.compile(new RouteConfig("test", List.of(vhost("v", List.of("*"),
        withFilterConfig("/a", shared), withFilterConfig("/b", shared), withFilterConfig("/c", own))),
        HeaderMutations.NONE, HeaderMutations.NONE), (name, config) -> {
          Object o = new Object();
          compiled.add(o);
          return o;
        });
    assertThat(compiled).hasSize(2);
    Object a = t.match(Req.of("x", "/a")).filterConfig("rl");
    assertThat(t.match(Req.of("x", "/b")).filterConfig("rl")).isSameAs(a);
    assertThat(t.match(Req.of("x", "/c")).filterConfig("rl")).isNotSameAs(a).isNotNull();
    assertThat(t.match(Req.of("x", "/c")).filterConfig("other")).isNull();
  }
}
