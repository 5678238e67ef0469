package io.spillway.edge.filters.csrf;

import io.spillway.edge.config.CsrfConfig;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;
import java.util.function.Supplier;

/**
 * One {@code envoy.filters.http.csrf} entry of a connection manager (Envoy's
 * {@code CsrfFilterConfig}): its policy, its stats under Envoy's names
 * ({@code http.<stat_prefix>.csrf.missing_source_origin}, {@code request_invalid},
 * {@code request_valid}) and one {@link CsrfFilter} per stream. A route's or virtual host's
 * {@code typed_per_filter_config} policy under the entry's name replaces the filter's for that route.
 */
public final class CsrfFactory implements HttpFilterFactory {
  private final String name;
  private final CsrfConfig policy;
  private final Supplier<RuntimeSnapshot> runtime;
  final Counter missingSourceOrigin;
  final Counter requestInvalid;
  final Counter requestValid;

  /**
   * @param name the chain entry's name, which routes' {@code typed_per_filter_config} refer to
   * @param policy the filter's own policy
   * @param httpScope the connection manager's {@code http.<stat_prefix>.} scope
   * @param runtime the runtime, whose keys may override the policies' fractions
   */
  public CsrfFactory(String name, CsrfConfig policy, Scope httpScope, Supplier<RuntimeSnapshot> runtime) {
    this.name = name;
    this.policy = policy;
    this.runtime = runtime;
    Scope csrf = httpScope.scope("csrf");
    this.missingSourceOrigin = csrf.counter("missing_source_origin");
    this.requestInvalid = csrf.counter("request_invalid");
    this.requestValid = csrf.counter("request_valid");
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void createFilters(FilterChainBuilder chain) {
    chain.addDecoderFilter(new CsrfFilter(this));
  }

  RuntimeSnapshot runtime() {
    return runtime.get();
  }

  /** The route's own policy when it has one, else the filter's. */
  CsrfConfig policyFor(RouteEntry route) {
    return route != null && route.filterConfig(name) instanceof CsrfConfig own ? own : policy;
  }
}
