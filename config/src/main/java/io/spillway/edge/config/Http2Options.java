package io.spillway.edge.config;

import java.util.OptionalInt;

/**
 * Envoy's {@code Http2ProtocolOptions}, the supported part, for one side of the edge: the HTTP/2
 * connection manager (downstream) or a cluster (upstream). Limits are counted per connection.
 *
 * @param hpackTableSize SETTINGS_HEADER_TABLE_SIZE: the HPACK dynamic table the peer's encoder may
 *     use towards us, 0 to 2^32-1 (default 4096; 0 disables header compression)
 * @param maxConcurrentStreams SETTINGS_MAX_CONCURRENT_STREAMS advertised to the peer; upstream also
 *     the most streams the edge opens on one connection (below the server's own setting)
 * @param initialStreamWindowSize SETTINGS_INITIAL_WINDOW_SIZE, 65535 to 2^31-1; empty: sized from
 *     the per-connection buffer limit
 * @param initialConnectionWindowSize the connection-level receive window, 65535 to 2^31-1; empty:
 *     twice the stream window less 65535 (Netty's)
 * @param maxOutboundFrames frames written and not yet sent on the socket before the connection is
 *     closed as an outbound flood (default 10000)
 * @param maxOutboundControlFrames the same for PING, SETTINGS and RST_STREAM frames (default 1000)
 * @param maxConsecutiveInboundFramesWithEmptyPayload DATA, HEADERS or CONTINUATION frames in a row
 *     with an empty payload and no END_STREAM (default 1)
 * @param maxInboundPriorityFramesPerStream PRIORITY frames allowed per opened stream, counted as
 *     {@code max * (1 + opened streams)} over the connection's life (default 100)
 * @param maxInboundWindowUpdateFramesPerDataFrameSent WINDOW_UPDATE frames allowed per DATA frame
 *     sent: {@code 5 + 2 * (opened streams + max * DATA frames sent)} (default 10)
 * @param streamErrorOnInvalidHttpMessage a malformed message (RFC 9113 §8.1.1: content-length
 *     mismatch, invalid header fields) resets only its stream; false (Envoy's default) closes the
 *     whole connection with GOAWAY(PROTOCOL_ERROR)
 * @param allowConnect downstream only: SETTINGS_ENABLE_CONNECT_PROTOCOL is advertised and an
 *     extended CONNECT (RFC 8441: {@code :protocol}, e.g. WebSocket over HTTP/2) is taken as an
 *     upgrade to that protocol (default false: such a request is malformed)
 */
public record Http2Options(
    long hpackTableSize,
    int maxConcurrentStreams,
    OptionalInt initialStreamWindowSize,
    OptionalInt initialConnectionWindowSize,
    int maxOutboundFrames,
    int maxOutboundControlFrames,
    int maxConsecutiveInboundFramesWithEmptyPayload,
    int maxInboundPriorityFramesPerStream,
    int maxInboundWindowUpdateFramesPerDataFrameSent,
    boolean streamErrorOnInvalidHttpMessage,
    boolean allowConnect) {

  /** HTTP/2's own HPACK table size (RFC 7541 §4.2 / RFC 9113 §6.5.2). */
  public static final long DEFAULT_HPACK_TABLE_SIZE = 4096;
  /** The smallest window RFC 9113 allows a peer to start with, and Envoy's minimum. */
  public static final int MIN_WINDOW_SIZE = 65_535;

  /**
   * Downstream: Envoy's defaults except {@code max_concurrent_streams}, which is 100 instead of
   * Envoy's 2^31-1. Each stream holds a stream channel, a request and an upstream try, so an
   * unbounded number lets one client hold unbounded memory; 100 is RFC 9113 §6.5.2's recommended
   * minimum and what Envoy's own edge best practices configure.
   */
  public static final Http2Options DOWNSTREAM_DEFAULTS = new Http2Options(DEFAULT_HPACK_TABLE_SIZE, 100,
      OptionalInt.empty(), OptionalInt.empty(), 10_000, 1_000, 1, 100, 10, false, false);

  /** Upstream: Envoy's defaults; the server's SETTINGS_MAX_CONCURRENT_STREAMS and the circuit breakers bound it. */
  public static final Http2Options UPSTREAM_DEFAULTS = new Http2Options(DEFAULT_HPACK_TABLE_SIZE, Integer.MAX_VALUE,
      OptionalInt.empty(), OptionalInt.empty(), 10_000, 1_000, 1, 100, 10, false, false);

  public Http2Options {
    if (hpackTableSize < 0 || hpackTableSize > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException("hpackTableSize out of range: " + hpackTableSize);
    }
    if (maxConcurrentStreams < 1 || maxOutboundFrames < 1 || maxOutboundControlFrames < 1
        || maxInboundWindowUpdateFramesPerDataFrameSent < 1) {
      throw new IllegalArgumentException("limits must be at least 1");
    }
    if (maxConsecutiveInboundFramesWithEmptyPayload < 0 || maxInboundPriorityFramesPerStream < 0) {
      throw new IllegalArgumentException("limits must not be negative");
    }
    initialStreamWindowSize.ifPresent(Http2Options::requireWindow);
    initialConnectionWindowSize.ifPresent(Http2Options::requireWindow);
  }

  private static void requireWindow(int size) {
    if (size < MIN_WINDOW_SIZE) {
      throw new IllegalArgumentException("window below " + MIN_WINDOW_SIZE + ": " + size);
    }
  }
}
