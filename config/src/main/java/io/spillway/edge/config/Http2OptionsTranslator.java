package io.spillway.edge.config;

import io.envoyproxy.envoy.config.core.v3.Http2ProtocolOptions;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * {@code Http2ProtocolOptions} → {@link Http2Options}, for the connection manager and for clusters
 * (typed {@code explicit_http_config.http2_protocol_options} or the deprecated cluster field).
 * Ranges are Envoy's; {@code allow_connect} (extended CONNECT, RFC 8441: WebSocket over HTTP/2) is
 * taken downstream and rejected on a cluster; {@code allow_metadata}, {@code max_metadata_size},
 * {@code custom_settings_parameters} and {@code connection_keepalive} are rejected, and
 * {@code use_oghttp2_codec} (a choice between Envoy's two codec implementations) is accepted and
 * has no effect: the edge has one HTTP/2 codec, Netty's.
 */
final class Http2OptionsTranslator {

  private static final SupportedFields HTTP2_OPTIONS = SupportedFields.of(Http2ProtocolOptions.getDescriptor(),
      "hpack_table_size", "max_concurrent_streams", "initial_stream_window_size", "initial_connection_window_size",
      "max_outbound_frames", "max_outbound_control_frames", "max_consecutive_inbound_frames_with_empty_payload",
      "max_inbound_priority_frames_per_stream", "max_inbound_window_update_frames_per_data_frame_sent",
      "stream_error_on_invalid_http_messaging", "override_stream_error_on_invalid_http_message",
      "use_oghttp2_codec", "allow_connect");

  private Http2OptionsTranslator() {}

  /** A connection manager's options. */
  static Http2Options downstream(Http2ProtocolOptions o, FieldPath path, Optional<Boolean> hcmStreamError)
      throws ConfigException {
    return translate(o, path, Http2Options.DOWNSTREAM_DEFAULTS, hcmStreamError, true);
  }

  /** A cluster's options. */
  static Http2Options upstream(Http2ProtocolOptions o, FieldPath path) throws ConfigException {
    return translate(o, path, Http2Options.UPSTREAM_DEFAULTS, Optional.empty(), false);
  }

  /**
   * @param defaults the side's defaults
   * @param hcmStreamError the connection manager's {@code stream_error_on_invalid_http_message}
   *     when set: it wins over the deprecated {@code stream_error_on_invalid_http_messaging} and
   *     loses to {@code override_stream_error_on_invalid_http_message}, as in Envoy
   */
  @SuppressWarnings("deprecation") // stream_error_on_invalid_http_messaging: deprecated, still accepted by Envoy
  private static Http2Options translate(Http2ProtocolOptions o, FieldPath path, Http2Options defaults,
      Optional<Boolean> hcmStreamError, boolean downstream) throws ConfigException {
    if (o.getAllowConnect() && !downstream) {
      throw new ConfigException(path.field("allow_connect"), "allow_connect is not supported on a cluster:"
          + " the edge does not send upgrades (WebSocket or other) to HTTP/2 upstreams");
    }
    HTTP2_OPTIONS.check(o, path);
    long hpack = o.hasHpackTableSize()
        ? Integer.toUnsignedLong(o.getHpackTableSize().getValue()) : defaults.hpackTableSize();
    int streams = ProtoValues.uint32(o.hasMaxConcurrentStreams(), o.getMaxConcurrentStreams(),
        path.field("max_concurrent_streams"), 1, defaults.maxConcurrentStreams());
    OptionalInt streamWindow = o.hasInitialStreamWindowSize()
        ? OptionalInt.of(ProtoValues.uint32(o.getInitialStreamWindowSize().getValue(),
            path.field("initial_stream_window_size"), Http2Options.MIN_WINDOW_SIZE))
        : defaults.initialStreamWindowSize();
    OptionalInt connectionWindow = o.hasInitialConnectionWindowSize()
        ? OptionalInt.of(ProtoValues.uint32(o.getInitialConnectionWindowSize().getValue(),
            path.field("initial_connection_window_size"), Http2Options.MIN_WINDOW_SIZE))
        : defaults.initialConnectionWindowSize();
    int outbound = ProtoValues.uint32(o.hasMaxOutboundFrames(), o.getMaxOutboundFrames(),
        path.field("max_outbound_frames"), 1, defaults.maxOutboundFrames());
    int outboundControl = ProtoValues.uint32(o.hasMaxOutboundControlFrames(), o.getMaxOutboundControlFrames(),
        path.field("max_outbound_control_frames"), 1, defaults.maxOutboundControlFrames());
    // No upper bound in Envoy: a limit beyond 2^31-1 frames is no limit.
    int empty = ProtoValues.uint32Clamped(o.hasMaxConsecutiveInboundFramesWithEmptyPayload(),
        o.getMaxConsecutiveInboundFramesWithEmptyPayload(), defaults.maxConsecutiveInboundFramesWithEmptyPayload());
    int priority = ProtoValues.uint32Clamped(o.hasMaxInboundPriorityFramesPerStream(),
        o.getMaxInboundPriorityFramesPerStream(), defaults.maxInboundPriorityFramesPerStream());
    int windowUpdates = ProtoValues.uint32(o.hasMaxInboundWindowUpdateFramesPerDataFrameSent(),
        o.getMaxInboundWindowUpdateFramesPerDataFrameSent(),
        path.field("max_inbound_window_update_frames_per_data_frame_sent"), 1,
        defaults.maxInboundWindowUpdateFramesPerDataFrameSent());
    boolean streamError = o.hasOverrideStreamErrorOnInvalidHttpMessage()
        ? o.getOverrideStreamErrorOnInvalidHttpMessage().getValue()
        : hcmStreamError.orElse(o.getStreamErrorOnInvalidHttpMessaging() || defaults.streamErrorOnInvalidHttpMessage());
    return new Http2Options(hpack, streams, streamWindow, connectionWindow, outbound, outboundControl, empty,
        priority, windowUpdates, streamError, o.getAllowConnect());
  }
}
