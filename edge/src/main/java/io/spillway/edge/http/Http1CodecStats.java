package io.spillway.edge.http;

import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;

/**
 * Envoy's HTTP/1 codec stats, {@code http1.*}, for downstream connections (shared by every
 * connection manager, as in Envoy). Created once per scope, never per connection.
 */
public final class Http1CodecStats {
  /** Request header fields removed for an underscore in the name (DROP_HEADER). */
  public final Counter droppedHeadersWithUnderscores;
  /** Requests refused for a header name with an underscore (REJECT_REQUEST). */
  public final Counter requestsRejectedWithUnderscoresInHeaders;

  public Http1CodecStats(Scope scope) {
    droppedHeadersWithUnderscores = scope.counter("dropped_headers_with_underscores");
    requestsRejectedWithUnderscoresInHeaders = scope.counter("requests_rejected_with_underscores_in_headers");
  }
}
