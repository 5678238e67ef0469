package io.spillway.edge.filters.rbac;

import io.spillway.edge.config.RbacConfig;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;

/**
 * The RBAC filter of one connection manager ({@code envoy.filters.http.rbac}): its compiled rules
 * and Envoy's counters, {@code http.<stat_prefix>.rbac.<rules_stat_prefix>allowed} and
 * {@code denied}, {@code http.<stat_prefix>.rbac.<shadow_rules_stat_prefix>shadow_allowed} and
 * {@code shadow_denied} (the prefixes are joined as written, as Envoy joins them). A route's own
 * rules count in the filter's counters, as in Envoy.
 */
public final class RbacFactory implements HttpFilterFactory {
  private final String name;
  private final RbacConfig config;
  final Counter allowed;
  final Counter denied;
  final Counter shadowAllowed;
  final Counter shadowDenied;

  /**
   * @param name the chain entry's name, which routes' {@code typed_per_filter_config} refer to
   * @param config the filter's rules
   * @param httpScope the connection manager's {@code http.<stat_prefix>.} scope
   */
  public RbacFactory(String name, RbacConfig config, Scope httpScope) {
    this.name = name;
    this.config = config;
    Scope rbac = httpScope.scope("rbac");
    this.allowed = rbac.counter(config.rulesStatPrefix() + "allowed");
    this.denied = rbac.counter(config.rulesStatPrefix() + "denied");
    this.shadowAllowed = rbac.counter(config.shadowRulesStatPrefix() + "shadow_allowed");
    this.shadowDenied = rbac.counter(config.shadowRulesStatPrefix() + "shadow_denied");
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void createFilters(FilterChainBuilder chain) {
    chain.addDecoderFilter(new RbacFilter(this));
  }

  /** The rules for a request: its route's or virtual host's own {@code RBACPerRoute}, else the filter's. */
  RbacConfig configFor(RouteEntry route) {
    if (route != null && route.filterConfig(name) instanceof RbacConfig own) {
      return own;
    }
    return config;
  }
}
