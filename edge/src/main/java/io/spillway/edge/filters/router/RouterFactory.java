package io.spillway.edge.filters.router;

import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.FilterContext;
import io.spillway.edge.http.filter.HttpFilterFactory;

/** The router entry of a chain: the shared services and stats every request's {@link RouterFilter} uses. */
public final class RouterFactory implements HttpFilterFactory {
  private final String name;
  private final FilterContext context;
  private final RouterStats stats;

  public RouterFactory(String name, FilterContext context) {
    this.name = name;
    this.context = context;
    this.stats = RouterStats.of(context.httpScope());
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void createFilters(FilterChainBuilder chain) {
    chain.addDecoderFilter(new RouterFilter(this));
  }

  FilterContext context() {
    return context;
  }

  RouterStats stats() {
    return stats;
  }
}
