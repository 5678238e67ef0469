package io.spillway.bench;

import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.RetryPolicy;
import io.spillway.edge.config.Route;
import io.spillway.edge.config.RouteConfig;
import io.spillway.edge.router.RequestView;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.router.RouteTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Route matching on a realistic table: 50 virtual hosts (exact, suffix-wildcard and catch-all
 * domains), 20 routes each (prefixes, an exact path, a regex, a header-conditioned route); requests
 * that hit an exact domain's last prefix route, the catch-all domain, the regex and the header route.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RouteMatchBenchmark {

  private RouteTable table;
  private final Req exactDomainLastRoute = new Req("svc-42.example.com", "/api/v19/items", "", Map.of());
  private final Req catchAllDomain = new Req("tenant-7.apps.example.net", "/api/v3/x", "", Map.of());
  private final Req regexRoute = new Req("svc-42.example.com", "/users/12345/profile", "", Map.of());
  private final Req headerRoute = new Req("svc-42.example.com", "/canary/x", "", Map.of("x-canary", "yes"));

  @Setup
  public void setup() {
    List<RouteConfig.VirtualHost> vhosts = new ArrayList<>();
    for (int v = 0; v < 50; v++) {
      List<Route> routes = new ArrayList<>();
      routes.add(route(new Route.PathMatch.Prefix("/canary"),
          List.of(new Route.HeaderMatch("x-canary", new Route.StringMatch.Exact("yes", false), false))));
      routes.add(route(new Route.PathMatch.Regex(Pattern.compile("/users/[0-9]+/profile")), List.of()));
      routes.add(route(new Route.PathMatch.Exact("/health"), List.of()));
      for (int r = 0; r < 17; r++) {
        routes.add(route(new Route.PathMatch.Prefix("/api/v" + (r + 3)), List.of()));
      }
      List<String> domains = v == 49 ? List.of("*") : v % 2 == 0
          ? List.of("svc-" + v + ".example.com")
          : List.of("*.apps-" + v + ".example.net", "svc-" + v + ".example.com");
      vhosts.add(new RouteConfig.VirtualHost("vh" + v, domains, routes, HeaderMutations.NONE, HeaderMutations.NONE,
          RetryPolicy.NONE));
    }
    table = RouteTable.compile(new RouteConfig("bench", vhosts, HeaderMutations.NONE, HeaderMutations.NONE));
    if (table.match(exactDomainLastRoute) == null || table.match(regexRoute) == null
        || table.match(catchAllDomain) == null || table.match(headerRoute) == null) {
      throw new IllegalStateException("benchmark table does not match its requests");
    }
  }

  private static Route route(Route.PathMatch path, List<Route.HeaderMatch> headers) {
    Route.RouteAction action = new Route.RouteAction(List.of(new Route.WeightedCluster("c", 1)), Optional.empty(),
        Optional.empty(), Optional.empty(), false, Duration.ofSeconds(15), Optional.empty(), RetryPolicy.NONE);
    return new Route("", new Route.Match(path, true, headers, List.of()), action, HeaderMutations.NONE,
        HeaderMutations.NONE, Map.of());
  }

  @Benchmark
  public RouteEntry exactDomainLastPrefixRoute() {
    return table.match(exactDomainLastRoute);
  }

  @Benchmark
  public RouteEntry catchAllDomain() {
    return table.match(catchAllDomain);
  }

  @Benchmark
  public RouteEntry regexRoute() {
    return table.match(regexRoute);
  }

  @Benchmark
  public RouteEntry headerConditionedRoute() {
    return table.match(headerRoute);
  }

  record Req(String authority, String path, String query, Map<String, String> headers) implements RequestView {
    @Override
    public String header(String name) {
      return headers.get(name);
    }
  }
}
