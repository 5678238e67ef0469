package io.spillway.edge.http2;

import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Gauge;
import io.spillway.edge.stats.Scope;

/**
 * Envoy's HTTP/2 codec stats: {@code http2.*} for downstream connections (shared by every
 * connection manager, as in Envoy), {@code cluster.<name>.http2.*} for a cluster's upstream ones.
 * Created once per scope, never per connection.
 */
public final class Http2CodecStats {
  /** Connections closed because more than {@code max_outbound_frames} frames waited for the socket. */
  public final Counter outboundFlood;
  /** The same for PING, SETTINGS and RST_STREAM frames and {@code max_outbound_control_frames}. */
  public final Counter outboundControlFlood;
  /** Connections closed for too many consecutive DATA/HEADERS/CONTINUATION frames without payload. */
  public final Counter inboundEmptyFramesFlood;
  /** Connections closed for too many PRIORITY frames. */
  public final Counter inboundPriorityFramesFlood;
  /** Connections closed for too many WINDOW_UPDATE frames. */
  public final Counter inboundWindowUpdateFramesFlood;
  /** Connections closed for too many CONTINUATION frames in one header block (ours). */
  public final Counter inboundContinuationFramesFlood;
  /** RST_STREAM frames received. */
  public final Counter rxReset;
  /** RST_STREAM frames sent. */
  public final Counter txReset;
  /** Malformed messages received (RFC 9113 §8.1.1), whether they reset the stream or closed the connection. */
  public final Counter rxMessagingError;
  /** Header lists over the limit ({@code SETTINGS_MAX_HEADER_LIST_SIZE}) received. */
  public final Counter headerOverflow;
  /** Request header fields removed for an underscore in the name (DROP_HEADER). */
  public final Counter droppedHeadersWithUnderscores;
  /** Request streams reset for a header name with an underscore (REJECT_REQUEST). */
  public final Counter requestsRejectedWithUnderscoresInHeaders;
  /** Open streams. */
  public final Gauge streamsActive;

  public Http2CodecStats(Scope scope) {
    outboundFlood = scope.counter("outbound_flood");
    outboundControlFlood = scope.counter("outbound_control_flood");
    inboundEmptyFramesFlood = scope.counter("inbound_empty_frames_flood");
    inboundPriorityFramesFlood = scope.counter("inbound_priority_frames_flood");
    inboundWindowUpdateFramesFlood = scope.counter("inbound_window_update_frames_flood");
    inboundContinuationFramesFlood = scope.counter("inbound_continuation_frames_flood");
    rxReset = scope.counter("rx_reset");
    txReset = scope.counter("tx_reset");
    rxMessagingError = scope.counter("rx_messaging_error");
    headerOverflow = scope.counter("header_overflow");
    droppedHeadersWithUnderscores = scope.counter("dropped_headers_with_underscores");
    requestsRejectedWithUnderscoresInHeaders = scope.counter("requests_rejected_with_underscores_in_headers");
    streamsActive = scope.gauge("streams_active");
  }
}
