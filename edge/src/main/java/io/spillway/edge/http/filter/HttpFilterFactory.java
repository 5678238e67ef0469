package io.spillway.edge.http.filter;

/**
 * One {@code http_filters} entry, parsed once (Envoy's filter factory callback): it holds the
 * filter's configuration and stats, is shared by every stream on every worker, and adds a cheap
 * per-request instance to each stream's chain.
 */
public interface HttpFilterFactory {

  /**
   * The entry's name: what a route's {@code typed_per_filter_config} refers to (the entry's
   * {@code name}, or Envoy's canonical name when it has none).
   */
  String name();

  /** Adds this entry's filter(s) for one stream. */
  void createFilters(FilterChainBuilder chain);

  /**
   * Completes when the filter is ready to serve (Envoy's init target: jwt_authn's
   * {@code async_fetch} without {@code fast_listener}); a listener built at start-up is bound only
   * then. Most filters are ready at once.
   */
  default java.util.concurrent.CompletionStage<Void> initialized() {
    return java.util.concurrent.CompletableFuture.completedFuture(null);
  }
}
