package io.spillway.edge.http2;

import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Stream;

/**
 * What the edge's HTTP/2 codec does beyond Netty's connection handler: count stream errors, turn a malformed
 * message into a connection error unless {@code stream_error_on_invalid_http_message} is set, and
 * keep the connection window at {@code initial_connection_window_size}.
 *
 * <p>A malformed message (RFC 9113 §8.1.1, a PROTOCOL_ERROR stream error: content-length
 * mismatch, invalid header fields) is counted in {@code rx_messaging_error}; by default it becomes
 * GOAWAY with PROTOCOL_ERROR and the last stream id, then close, as Envoy's default does. A header
 * list over the limit keeps Netty's answer (431, or RST_STREAM) and is counted in
 * {@code header_overflow}.
 *
 * <p>Connection window: Netty opens the connection window to twice the stream window less 65535;
 * with {@code initial_connection_window_size} the window is kept at that size instead from the
 * first read on (window updates can only grow the window already granted, RFC 9113 §6.9).
 */
final class CodecErrors {
  private final boolean streamErrorOnInvalidHttpMessage;
  private final int connectionWindow;
  private final Http2CodecStats stats;
  private boolean connectionWindowSet;

  /** @param connectionWindow the connection window to keep, or 0 for Netty's */
  CodecErrors(boolean streamErrorOnInvalidHttpMessage, int connectionWindow, Http2CodecStats stats) {
    this.streamErrorOnInvalidHttpMessage = streamErrorOnInvalidHttpMessage;
    this.connectionWindow = connectionWindow;
    this.stats = stats;
  }

  /** Before the first bytes are decoded: Netty has sent its connection WINDOW_UPDATE by now. */
  void beforeDecode(Http2Connection connection) throws Http2Exception {
    if (connectionWindowSet) {
      return;
    }
    connectionWindowSet = true;
    if (connectionWindow > 0) {
      Http2Stream connectionStream = connection.connectionStream();
      var flow = connection.local().flowController();
      flow.incrementWindowSize(connectionStream, connectionWindow - flow.initialWindowSize(connectionStream));
    }
  }

  /**
   * Counts an inbound stream error and says what the codec should handle instead: a connection
   * error for a malformed message (unless configured otherwise), else the stream error itself
   * ({@code null} when {@code cause} is not an inbound stream error).
   */
  Http2Exception.StreamException inboundStreamError(boolean outbound, Throwable cause) {
    if (outbound || !(Http2CodecUtil.getEmbeddedHttp2Exception(cause) instanceof Http2Exception.StreamException e)) {
      return null;
    }
    if (e instanceof Http2Exception.HeaderListSizeException) {
      stats.headerOverflow.inc();
    } else if (e.error() == Http2Error.PROTOCOL_ERROR) {
      stats.rxMessagingError.inc();
    }
    return e;
  }

  /** The connection error a malformed message becomes, or {@code null} when it stays a stream error. */
  Http2Exception asConnectionError(Http2Exception.StreamException e, Throwable cause) {
    if (streamErrorOnInvalidHttpMessage || e instanceof Http2Exception.HeaderListSizeException
        || e.error() != Http2Error.PROTOCOL_ERROR) {
      return null;
    }
    // The stream was read whole: the GOAWAY can name the last stream created (not a hard shutdown).
    return new Http2Exception(Http2Error.PROTOCOL_ERROR, "malformed message on stream " + e.streamId() + ": "
        + e.getMessage(), cause, Http2Exception.ShutdownHint.NO_SHUTDOWN);
  }
}
