package io.spillway.edge.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.AsciiString;
import io.spillway.edge.http.filter.DownstreamTls;
import io.spillway.edge.http2.EdgeHttp2ConnectionHandler;
import io.spillway.edge.http2.Http2Streams;
import io.spillway.edge.upstream.ConnectionShare;
import io.spillway.edge.upstream.Worker;
import java.util.function.Supplier;

/**
 * The streams of one downstream HTTP/2 connection: the codec's frame listener, which gives each
 * stream's frames to its {@link Http2ServerStream} (kept by {@link Http2Streams}, whose one flush
 * per event-loop turn lets responses arriving from several upstream connections in one turn leave
 * in one write), and what the streams share. Event loop only.
 */
final class Http2ServerStreams extends Http2FrameAdapter {
  private final HttpConnectionManager hcm;
  private final Worker worker;
  private final String remoteAddress;
  private final StreamDeadlines deadlines;
  private final ConnectionShare share = new ConnectionShare();
  private final boolean tracksResponseBytes;
  private Http2Streams<Http2ServerStream> streams;
  /** The connection's TLS facts, read on the first stream that asks. */
  private DownstreamTls tls;
  private boolean tlsRead;
  private final Supplier<DownstreamTls> tlsReader = this::readTls;

  /**
   * @param tracksResponseBytes whether streams count their queued response bytes (for the
   *     overload manager's reset_high_memory_stream action)
   */
  Http2ServerStreams(HttpConnectionManager hcm, Worker worker, String remoteAddress, StreamDeadlines deadlines,
      boolean tracksResponseBytes) {
    this.hcm = hcm;
    this.worker = worker;
    this.remoteAddress = remoteAddress;
    this.deadlines = deadlines;
    this.tracksResponseBytes = tracksResponseBytes;
  }

  /** Connects to the codec once it is in the pipeline ({@code ctx} is the codec's context). */
  void attach(EdgeHttp2ConnectionHandler codec, ChannelHandlerContext ctx) {
    streams = new Http2Streams<>(codec, ctx, Http2ServerStream::onWritabilityChanged, Http2ServerStream::onClosed);
  }

  /** The connection's TLS facts (null when it is not TLS), read on the first call, once. */
  Supplier<DownstreamTls> tls() {
    return tlsReader;
  }

  private DownstreamTls readTls() {
    if (!tlsRead) {
      tls = DownstreamTls.of(streams.ctx().pipeline());
      // A request is only decoded after the handshake finished: what is read now holds for the connection.
      tlsRead = true;
    }
    return tls;
  }

  // --- frames from the codec -----------------------------------------------------------------

  @Override
  public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding,
      boolean endStream) throws Http2Exception {
    Http2ServerStream s = streams.get(streamId);
    if (s == null) {
      checkConnect(streamId, headers);
      Http2Stream stream = streams.connection().stream(streamId);
      if (stream == null) {
        return;
      }
      s = new Http2ServerStream(this, stream);
      streams.put(stream, s);
    }
    s.onHeaders(headers, endStream);
  }

  /**
   * RFC 9113 §8.5: a CONNECT has {@code :authority} and neither {@code :scheme} nor {@code :path}.
   * An extended CONNECT (RFC 8441 §4: {@code :protocol}, with {@code :scheme}, {@code :path} and
   * {@code :authority}) is well-formed only when the connection manager's
   * {@code http2_protocol_options.allow_connect} had SETTINGS_ENABLE_CONNECT_PROTOCOL sent;
   * {@code :protocol} on any other method is malformed. A malformed request is a stream error
   * PROTOCOL_ERROR, which the codec handles as every malformed message
   * ({@code stream_error_on_invalid_http_message}).
   */
  private void checkConnect(int streamId, Http2Headers headers) throws Http2Exception {
    boolean connect = headers.method() != null && AsciiString.contentEquals(headers.method(), "CONNECT");
    boolean extended = headers.contains(Http2Headers.PseudoHeaderName.PROTOCOL.value());
    String problem;
    if (!connect) {
      problem = extended ? ":protocol in a request other than CONNECT" : null;
    } else if (extended) {
      problem = !hcm.config().http2().allowConnect() ? "extended CONNECT (:protocol) is not enabled"
          : headers.scheme() == null || headers.path() == null || headers.path().length() == 0
              || headers.authority() == null || headers.authority().length() == 0
              ? "extended CONNECT without :scheme, :path or :authority" : null;
    } else {
      problem = headers.scheme() != null || headers.path() != null ? "CONNECT with :scheme or :path"
          : headers.authority() == null || headers.authority().length() == 0 ? "CONNECT without :authority" : null;
    }
    if (problem != null) {
      throw Http2Exception.streamError(streamId, Http2Error.PROTOCOL_ERROR, "malformed request: %s", problem);
    }
  }

  @Override
  public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
      short weight, boolean exclusive, int padding, boolean endStream) throws Http2Exception {
    onHeadersRead(ctx, streamId, headers, padding, endStream);
  }

  @Override
  public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
    Http2ServerStream s = streams.get(streamId);
    return s == null ? data.readableBytes() + padding : s.onData(data, padding, endOfStream);
  }

  @Override
  public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
    Http2ServerStream s = streams.get(streamId);
    if (s != null) {
      s.onPeerReset();
    }
  }

  // --- what the connection handler asks of every stream --------------------------------------

  /** The overload manager's reset_high_memory_stream: each open stream checks what it holds. */
  void onResetHighMemory(DownstreamEvents.ResetHighMemory r) {
    streams.forEachActive(s -> s.onResetHighMemory(r));
  }

  /** reduce_timeouts changed: each open stream re-arms its timers. */
  void rescaleTimers() {
    streams.forEachActive(Http2ServerStream::rescaleTimers);
  }

  // --- what the streams share ----------------------------------------------------------------

  HttpConnectionManager hcm() {
    return hcm;
  }

  Worker worker() {
    return worker;
  }

  String remoteAddress() {
    return remoteAddress;
  }

  StreamDeadlines deadlines() {
    return deadlines;
  }

  /** What the connection's streams hold of the clusters' request budgets. */
  ConnectionShare share() {
    return share;
  }

  boolean tracksResponseBytes() {
    return tracksResponseBytes;
  }

  /** The streams' way to the codec. */
  Http2Streams<Http2ServerStream> streams() {
    return streams;
  }

  /** GOAWAY, then close once the streams are done (overload's disable_http_keepalive). */
  void drain() {
    streams.ctx().pipeline().fireUserEventTriggered(DownstreamEvents.Drain.INSTANCE);
  }

  void closeConnection() {
    streams.ctx().channel().close();
  }
}
