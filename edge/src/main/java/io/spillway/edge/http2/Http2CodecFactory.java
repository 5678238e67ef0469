package io.spillway.edge.http2;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2FrameListener;
import io.netty.handler.codec.http2.Http2Settings;
import io.spillway.edge.config.Http2Options;
import java.time.Duration;

/**
 * Builds the HTTP/2 codec of one side of the edge from its {@code http2_protocol_options}: one
 * factory per connection manager or cluster, one codec per connection: Netty's connection handler
 * ({@link EdgeHttp2ConnectionHandler}, frames to one listener per connection) with SETTINGS from
 * the options, preceded by {@link Http2ProtocolConstraints}:
 *
 * <pre>
 *   … → h2-constraints (Envoy's flood limits) → &lt;codec&gt; (frames, flow control, error codes) → …
 * </pre>
 *
 * <p>Netty's own empty-DATA limit and queued-control-frame limit are off: the constraints apply
 * Envoy's versions of both, with the configured values. Downstream, Netty's limit on received
 * RST_STREAM frames (200 per 30 s) is off too: premature resets are judged per connection by the
 * connection manager, as in Envoy. Netty's limit on RST_STREAM frames the server sends (200 per
 * 30 s) stays.
 */
public final class Http2CodecFactory {

  /** The largest stream window sized from a buffer limit when none is configured. */
  private static final int MAX_DERIVED_WINDOW = 16 * 1024 * 1024;
  /** nghttp2's default cap on CONTINUATION frames per header block, which Envoy inherits. */
  private static final int MIN_CONTINUATIONS = 8;

  private final boolean server;
  private final Http2Options options;
  private final Long maxHeaderListBytes;
  private final int streamWindow;
  private final long gracefulShutdownMillis;
  private final int maxContinuations;
  private final Http2CodecStats stats;

  private Http2CodecFactory(boolean server, Http2Options options, Long maxHeaderListBytes, int streamWindow,
      long gracefulShutdownMillis, Http2CodecStats stats) {
    this.server = server;
    this.options = options;
    this.maxHeaderListBytes = maxHeaderListBytes;
    this.streamWindow = streamWindow;
    this.gracefulShutdownMillis = gracefulShutdownMillis;
    long headerList = maxHeaderListBytes != null ? maxHeaderListBytes : Http2CodecUtil.DEFAULT_HEADER_LIST_SIZE;
    // Enough full-size frames for a header list at the limit, and never fewer than nghttp2 allows.
    this.maxContinuations = (int) Math.max(MIN_CONTINUATIONS,
        (headerList + Http2CodecUtil.DEFAULT_MAX_FRAME_SIZE - 1) / Http2CodecUtil.DEFAULT_MAX_FRAME_SIZE);
    this.stats = stats;
  }

  /**
   * Downstream connections of a connection manager.
   *
   * @param maxHeaderListBytes {@code max_request_headers_kb}, advertised as SETTINGS_MAX_HEADER_LIST_SIZE
   * @param bufferLimitBytes the listener's per-connection buffer limit: the stream window when
   *     {@code initial_stream_window_size} is unset (between 65535 and 16 MiB)
   * @param drainTimeout how long a connection that sent GOAWAY after an error may take to close
   */
  public static Http2CodecFactory downstream(Http2Options options, int maxHeaderListBytes, int bufferLimitBytes,
      Duration drainTimeout, Http2CodecStats stats) {
    int window = options.initialStreamWindowSize()
        .orElse(Math.max(Http2Options.MIN_WINDOW_SIZE, Math.min(bufferLimitBytes, MAX_DERIVED_WINDOW)));
    return new Http2CodecFactory(true, options, (long) maxHeaderListBytes, window,
        Math.max(1, drainTimeout.toMillis()), stats);
  }

  /**
   * Upstream connections of a cluster.
   *
   * @param bufferLimitBytes the cluster's per-connection buffer limit: the stream window when
   *     {@code initial_stream_window_size} is unset (65535 when the limit is 0)
   */
  public static Http2CodecFactory upstream(Http2Options options, int bufferLimitBytes, Http2CodecStats stats) {
    int window = options.initialStreamWindowSize()
        .orElse(bufferLimitBytes > 0 ? Math.max(Http2Options.MIN_WINDOW_SIZE, bufferLimitBytes)
            : Http2Options.MIN_WINDOW_SIZE);
    return new Http2CodecFactory(false, options, null, window, -1, stats);
  }

  /**
   * Adds {@code codec} (from {@link #newCodec}) as {@code codecName} at the end of
   * {@code pipeline}, preceded by its constraints handler {@code h2-constraints}.
   */
  public void addTo(ChannelPipeline pipeline, String codecName, Http2ConnectionHandler codec) {
    pipeline.addLast("h2-constraints", new Http2ProtocolConstraints(codec, options, maxContinuations, stats));
    pipeline.addLast(codecName, codec);
  }

  /** A codec for one new connection; frames go to {@code listener}. */
  public EdgeHttp2ConnectionHandler newCodec(Http2FrameListener listener) {
    ConnectionBuilder builder = new ConnectionBuilder(errors());
    builder.frameListener(listener);
    builder.initialSettings(settings());
    return builder.build();
  }

  private CodecErrors errors() {
    return new CodecErrors(options.streamErrorOnInvalidHttpMessage(), options.initialConnectionWindowSize().orElse(0),
        stats);
  }

  private Http2Settings settings() {
    Http2Settings settings = Http2Settings.defaultSettings().initialWindowSize(streamWindow);
    if (options.hpackTableSize() != Http2Options.DEFAULT_HPACK_TABLE_SIZE) {
      settings.headerTableSize(options.hpackTableSize());
    }
    if (maxHeaderListBytes != null) {
      settings.maxHeaderListSize(maxHeaderListBytes);
    }
    if (server) {
      settings.maxConcurrentStreams(options.maxConcurrentStreams());
      if (options.allowConnect()) {
        settings.connectProtocolEnabled(true); // RFC 8441 §3: extended CONNECT is welcome
      }
    } else {
      settings.pushEnabled(false);
    }
    return settings;
  }

  /**
   * Netty's builder, building an {@link EdgeHttp2ConnectionHandler}. Netty's empty-DATA and
   * queued-control-frame limits are off, and downstream its received-RST_STREAM limit (see the
   * class comment).
   */
  private final class ConnectionBuilder
      extends AbstractHttp2ConnectionHandlerBuilder<EdgeHttp2ConnectionHandler, ConnectionBuilder> {
    private final CodecErrors errors;

    ConnectionBuilder(CodecErrors errors) {
      this.errors = errors;
      server(server);
      validateHeaders(true);
      encoderEnforceMaxQueuedControlFrames(0);
      decoderEnforceMaxConsecutiveEmptyDataFrames(0);
      if (server) {
        decoderEnforceMaxRstFramesPerWindow(0, 0);
      }
      if (gracefulShutdownMillis > 0) {
        gracefulShutdownTimeoutMillis(gracefulShutdownMillis);
      }
    }

    @Override
    protected EdgeHttp2ConnectionHandler build() {
      return super.build();
    }

    @Override
    protected EdgeHttp2ConnectionHandler build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder,
        Http2Settings initialSettings) {
      EdgeHttp2ConnectionHandler handler = new EdgeHttp2ConnectionHandler(decoder, encoder, initialSettings,
          decoupleCloseAndGoAway(), flushPreface(), errors);
      handler.gracefulShutdownTimeoutMillis(gracefulShutdownTimeoutMillis());
      return handler;
    }

    @Override
    protected ConnectionBuilder frameListener(Http2FrameListener listener) {
      return super.frameListener(listener);
    }

    @Override
    protected ConnectionBuilder initialSettings(Http2Settings settings) {
      return super.initialSettings(settings);
    }
  }
}
