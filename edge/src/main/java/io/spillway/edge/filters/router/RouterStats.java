package io.spillway.edge.filters.router;

import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;

/** The router's counters under its connection manager's {@code http.<stat_prefix>.} scope, Envoy's names. */
record RouterStats(
    Counter noRoute,
    Counter noCluster,
    Counter rqDirectResponse,
    Counter rqRedirect,
    Counter rqTotal,
    Counter rqResetAfterDownstreamResponseStarted) {

  static RouterStats of(Scope http) {
    return new RouterStats(http.counter("no_route"), http.counter("no_cluster"), http.counter("rq_direct_response"),
        http.counter("rq_redirect"), http.counter("rq_total"), http.counter("rq_reset_after_downstream_response_started"));
  }
}
