package io.spillway.edge.filters.headertometadata;

import io.spillway.edge.config.HeaderToMetadataConfig;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.router.RouteEntry;

/**
 * The header-to-metadata filter of one connection manager (Envoy's
 * {@code envoy.filters.http.header_to_metadata}): its compiled rules, shared by every stream; each
 * stream gets a {@link HeaderToMetadataFilter}. A route's or virtual host's
 * {@code typed_per_filter_config} under the filter's name holds rules of its own, which replace
 * these for the route (Envoy's most specific per-route config). The filter keeps no stats: the
 * {@code stat_prefix} that turns Envoy's on is not in the API version the edge reads.
 */
public final class HeaderToMetadataFactory implements HttpFilterFactory {
  private final String name;
  private final MetadataRules rules;

  /**
   * @param name the chain entry's name, which routes' {@code typed_per_filter_config} refer to
   * @param config the filter's rules
   */
  public HeaderToMetadataFactory(String name, HeaderToMetadataConfig config) {
    this.name = name;
    this.rules = MetadataRules.compile(config);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void createFilters(FilterChainBuilder chain) {
    chain.addStreamFilter(new HeaderToMetadataFilter(this));
  }

  /** The rules for a request on {@code route} (null when none matched): the route's own, else the filter's. */
  MetadataRules rulesFor(RouteEntry route) {
    return route != null && route.filterConfig(name) instanceof MetadataRules own ? own : rules;
  }
}
