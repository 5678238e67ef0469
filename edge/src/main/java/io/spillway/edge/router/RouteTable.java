package io.spillway.edge.router;

import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.RetryPolicy;
import io.spillway.edge.config.Route;
import io.spillway.edge.config.RouteConfig;
import io.spillway.edge.config.RouteFilterConfig;
import io.spillway.edge.runtime.RuntimeSnapshot;
import java.util.ArrayList;
import java.util.List;

/**
 * A compiled route configuration. Built once on the control side; {@link #match} runs on the
 * event loops and only reads.
 */
public final class RouteTable {

  private final String name;
  private final DomainIndex<CompiledVirtualHost> domains;

  private RouteTable(String name, DomainIndex<CompiledVirtualHost> domains) {
    this.name = name;
    this.domains = domains;
  }

  public String name() {
    return name;
  }

  /** Compiles a validated route configuration whose routes configure no filter. */
  public static RouteTable compile(RouteConfig config) {
    return compile(config, RouteFilterCompiler.NONE);
  }

  /** Compiles a validated route configuration, each route's filter configuration through {@code filters}. */
  public static RouteTable compile(RouteConfig config, RouteFilterCompiler filters) {
    return compile(config, filters, () -> RuntimeSnapshot.EMPTY);
  }

  /**
   * {@link #compile(RouteConfig, RouteFilterCompiler)}, with the runtime whose keys may override
   * routes' {@code runtime_fraction}.
   */
  public static RouteTable compile(RouteConfig config, RouteFilterCompiler filters,
      java.util.function.Supplier<RuntimeSnapshot> runtime) {
    // A virtual host's typed_per_filter_config is one object its routes share (as in Envoy: one
    // bucket for the host), a route's own is its alone: compiled once per config object.
    java.util.Map<RouteFilterConfig, Object> compiledOnce = new java.util.IdentityHashMap<>();
    RouteFilterCompiler once = (name, filterConfig) ->
        compiledOnce.computeIfAbsent(filterConfig, c -> filters.compile(name, c));
    DomainIndex.Builder<CompiledVirtualHost> index = DomainIndex.builder();
    for (RouteConfig.VirtualHost vh : config.virtualHosts()) {
      List<CompiledRoute> routes = new ArrayList<>(vh.routes().size());
      for (Route route : vh.routes()) {
        routes.add(new CompiledRoute(RouteMatcher.of(route.match(), runtime), entry(config, vh, route, once)));
      }
      CompiledVirtualHost compiled = new CompiledVirtualHost(List.copyOf(routes));
      for (String domain : vh.domains()) {
        index.add(domain, compiled);
      }
    }
    return new RouteTable(config.name(), index.build());
  }

  /** The first route of the matching virtual host whose match holds, or null (no route: 404). */
  public RouteEntry match(RequestView request) {
    CompiledVirtualHost vh = domains.find(request.authority());
    if (vh == null) {
      return null;
    }
    List<CompiledRoute> routes = vh.routes;
    for (int i = 0; i < routes.size(); i++) {
      CompiledRoute r = routes.get(i);
      if (r.matcher.matches(request)) {
        return r.entry;
      }
    }
    return null;
  }

  private static RouteEntry entry(RouteConfig config, RouteConfig.VirtualHost vh, Route route,
      RouteFilterCompiler filters) {
    List<HeaderMutations> request = nonEmpty(route.requestHeaders(), vh.requestHeaders(), config.requestHeaders());
    List<HeaderMutations> response = nonEmpty(route.responseHeaders(), vh.responseHeaders(), config.responseHeaders());
    RetryPolicy retry = vh.retryPolicy();
    int[] cumulative = new int[0];
    if (route.action() instanceof Route.RouteAction action) {
      if (action.retryPolicy() != RetryPolicy.NONE) {
        retry = action.retryPolicy(); // a route's own policy replaces the virtual host's, even with 0 retries
      }
      if (action.clusters().size() > 1) {
        cumulative = new int[action.clusters().size()];
        int sum = 0;
        for (int i = 0; i < cumulative.length; i++) {
          sum += action.clusters().get(i).weight();
          cumulative[i] = sum;
        }
      }
    }
    java.util.Map<String, Object> compiled = new java.util.HashMap<>();
    route.filterConfigs().forEach((name, filterConfig) -> compiled.put(name, filters.compile(name, filterConfig)));
    return new RouteEntry(route, vh.name(), request, response, retry, cumulative, compiled);
  }

  private static List<HeaderMutations> nonEmpty(HeaderMutations... all) {
    List<HeaderMutations> out = new ArrayList<>(all.length);
    for (HeaderMutations m : all) {
      if (m != null && !m.isEmpty()) {
        out.add(m);
      }
    }
    return List.copyOf(out);
  }

  private record CompiledVirtualHost(List<CompiledRoute> routes) {}

  private record CompiledRoute(RouteMatcher matcher, RouteEntry entry) {}
}
