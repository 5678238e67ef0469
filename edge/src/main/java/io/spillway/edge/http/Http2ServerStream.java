package io.spillway.edge.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.AsciiString;
import io.spillway.edge.http.filter.DownstreamTls;
import io.spillway.edge.http.message.ExtendedConnect;
import io.spillway.edge.http.message.Http2Fields;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.http2.Http2Streams;
import io.spillway.edge.upstream.ConnectionShare;
import io.spillway.edge.upstream.Worker;
import java.net.InetSocketAddress;
import java.util.function.Supplier;

/**
 * One downstream HTTP/2 stream: its HEADERS and DATA frames, as {@link Http2ServerStreams} hands
 * them over, go straight into one {@link HttpStream}, and its response is written with the
 * connection's encoder — no HTTP/1 message and no channel in between. Requests follow RFC 9113
 * §8.3.1 (the pseudo-header fields; {@code :authority}, else {@code host}) and §8.2.3 (cookie
 * crumbs joined for the filter chain) and §8.5 (a CONNECT: its DATA frames are the tunnel's bytes);
 * responses lose connection-specific fields (§8.2.2).
 *
 * <p>Flow control (§5.2): request body bytes are returned to the peer's window as they are
 * handed on, except while the stream's reading is paused by back-pressure; those are returned
 * when reading resumes, so a paused stream gets no WINDOW_UPDATE. An aborted response is
 * RST_STREAM(INTERNAL_ERROR), a response that ends before the request is followed by
 * RST_STREAM(NO_ERROR) (§8.1).
 */
final class Http2ServerStream implements Downstream, StreamDeadlines.Timed {
  private static final AsciiString STATUS_CONTINUE = HttpResponseStatus.CONTINUE.codeAsText();

  private final Http2ServerStreams connection;
  private final Http2Stream stream;
  private HttpStream request;
  /** The write of the frame that ends the response, once one was made. */
  private ChannelFuture responseEnd;
  /** The request is an extended CONNECT (RFC 8441), carried as an upgrade to its {@code :protocol}. */
  private boolean extendedConnect;
  private boolean reset;
  private final Http2Streams.Credit credit = new Http2Streams.Credit();
  /** Response body bytes written and not yet taken by the socket (only when high-memory resets need it). */
  private long queuedResponseBytes;
  private long deadline;

  Http2ServerStream(Http2ServerStreams connection, Http2Stream stream) {
    this.connection = connection;
    this.stream = stream;
  }

  // --- frames in -----------------------------------------------------------------------------

  void onHeaders(Http2Headers h, boolean endStream) {
    if (request != null) {
      request.onRequestTrailers(Http2Fields.fromFrame(h));
      return;
    }
    HttpConnectionManager hcm = connection.hcm();
    OverloadHooks overload = hcm.overload();
    var state = overload.manager().state();
    if (overload.http2GoAwayAndClose().shouldShed(state, worker().random())) {
      // http2_server_go_away_and_close_on_dispatch wins over the plain GOAWAY point.
      connection.closeConnection();
      return;
    }
    if (overload.http2GoAway().shouldShed(state, worker().random())) {
      disableKeepAlive(); // GOAWAY; this stream is still served
    }
    request = new HttpStream(hcm, this);
    CharSequence authority = h.authority() != null ? h.authority() : h.get(HttpHeaderNames.HOST);
    CharSequence path = h.path();
    String method = h.method() == null ? "" : h.method().toString();
    String scheme = h.scheme() == null ? (hcm.tls() ? "https" : "http") : h.scheme().toString();
    HttpHeaders fields = Http2Fields.fromFrame(h);
    fields.remove(HttpHeaderNames.HOST);
    CharSequence protocol = h.get(Http2Headers.PseudoHeaderName.PROTOCOL.value());
    if (method.equals("CONNECT") && protocol != null) {
      // RFC 8441 (checked by Http2ServerStreams): an upgrade to :protocol; DATA frames are the tunnel.
      extendedConnect = true;
      ExtendedConnect.toUpgrade(protocol.toString(), fields, worker().random());
      method = ExtendedConnect.METHOD;
    } else if (method.equals("CONNECT")) {
      // RFC 9113 §8.5 (checked by Http2ServerStreams): :authority and no path; DATA frames are the tunnel.
      request.onRequestHeaders(new RequestHeaders(method, scheme, authority.toString(), "", fields), endStream);
      return;
    }
    if (path == null || path.isEmpty() || path.charAt(0) != '/') {
      hcm.stats().downstreamRqNonRelativePath.inc();
      request.onInvalidRequest(new RequestHeaders(method, scheme, "", "/", fields), endStream,
          "invalid request target");
      return;
    }
    request.onRequestHeaders(new RequestHeaders(method, scheme, authority == null ? "" : authority.toString(),
        path.toString(), fields), endStream);
  }

  /** A DATA frame (the codec still owns {@code data}); returns the bytes to give back to the peer's window now. */
  int onData(ByteBuf data, int padding, boolean endStream) {
    int flowControlled = data.readableBytes() + padding;
    if (request == null) {
      return flowControlled;
    }
    request.onRequestData(data.retain(), endStream);
    return credit.received(flowControlled, endStream);
  }

  void onPeerReset() {
    reset = true;
    if (request != null) {
      request.onDownstreamReset();
    }
  }

  void onClosed() {
    connection.deadlines().disarm(this);
    if (request != null && !request.isFinished()) {
      request.onDownstreamReset();
    }
  }

  void onWritabilityChanged(boolean writable) {
    if (request != null) {
      request.onDownstreamWritability(writable);
    }
  }

  void onResetHighMemory(DownstreamEvents.ResetHighMemory r) {
    int slot = worker().index();
    if (request != null && !reset && r.budget()[slot] > 0
        && request.heldRequestBytes() + queuedResponseBytes >= r.thresholdBytes()) {
      r.budget()[slot]--;
      r.resets().inc();
      request.resetForMemory();
    }
  }

  void rescaleTimers() {
    if (request != null) {
      request.rescaleTimers();
    }
  }

  // --- Downstream ----------------------------------------------------------------------------

  @Override
  public Worker worker() {
    return connection.worker();
  }

  @Override
  public boolean isHttp2() {
    return true;
  }

  @Override
  public ConnectionShare connectionShare() {
    return connection.share();
  }

  @Override
  public String remoteAddress() {
    return connection.remoteAddress();
  }

  /** Whether the stream can take no more frames: reset, or closed both ways. */
  private boolean closed() {
    return reset || stream.state() == Http2Stream.State.CLOSED;
  }

  @Override
  public InetSocketAddress remoteSocketAddress() {
    return connection.streams().ctx().channel().remoteAddress() instanceof InetSocketAddress a ? a : null;
  }

  @Override
  public InetSocketAddress localSocketAddress() {
    return connection.streams().ctx().channel().localAddress() instanceof InetSocketAddress a ? a : null;
  }

  @Override
  public Supplier<DownstreamTls> tls() {
    return connection.tls();
  }

  @Override
  public void sendHeaders(ResponseHeaders response, boolean endStream) {
    if (closed()) {
      return;
    }
    int status = extendedConnect ? ExtendedConnect.toConnectResponse(response.status(), response.headers())
        : response.status();
    Http2Headers out = Http2Fields.toFrame(response.headers(), 1);
    out.status(AsciiString.of(Integer.toString(status)));
    connection.streams().writeHeaders(stream, out, endStream, endStream ? responseEnd() : null);
  }

  @Override
  public void send100Continue() {
    if (closed()) {
      return;
    }
    Http2Headers out = new DefaultHttp2Headers(false, 1);
    out.status(STATUS_CONTINUE);
    connection.streams().writeHeaders(stream, out, false);
    connection.streams().flushSoon();
  }

  @Override
  public void sendData(ByteBuf data, boolean endStream) {
    if (closed()) {
      data.release();
      return;
    }
    ChannelPromise written = endStream ? responseEnd() : null;
    if (connection.tracksResponseBytes()) {
      int bytes = data.readableBytes();
      queuedResponseBytes += bytes;
      written = written == null ? connection.streams().ctx().newPromise() : written;
      written.addListener(new Written(bytes));
    }
    connection.streams().writeData(stream, data, endStream, written);
  }

  /**
   * The promise of the frame that ends the response while the request is still open: the NO_ERROR
   * reset that then follows waits for it. Null when the client already ended its request (no reset
   * follows, and the common case allocates nothing).
   */
  private ChannelPromise responseEnd() {
    if (!stream.state().remoteSideOpen()) {
      return null;
    }
    ChannelPromise p = connection.streams().ctx().newPromise();
    responseEnd = p;
    return p;
  }

  /**
   * Writes the trailers, which end the stream. No trailers left (a filter moved them into the body,
   * as gRPC-Web does) end it with an empty DATA frame instead of an empty HEADERS frame, as Envoy's
   * codec does: some browsers mishandle a trailer block without fields.
   */
  @Override
  public void sendTrailers(HttpHeaders trailers) {
    if (closed()) {
      return;
    }
    if (trailers.isEmpty()) {
      connection.streams().writeData(stream, io.netty.buffer.Unpooled.EMPTY_BUFFER, true, responseEnd());
      return;
    }
    connection.streams().writeTrailers(stream, trailers, responseEnd());
  }

  @Override
  public void flush() {
    connection.streams().flushSoon();
  }

  @Override
  public boolean isWritable() {
    return connection.streams().isWritable(stream);
  }

  @Override
  public void pauseReading(boolean paused) {
    credit.pause(paused, connection.streams(), stream);
  }

  @Override
  public void disableKeepAlive() {
    connection.drain();
  }

  @Override
  public void resetStream() {
    reset(Http2Error.INTERNAL_ERROR);
  }

  @Override
  public void resetConnectTunnel() {
    reset(Http2Error.CONNECT_ERROR);
  }

  private void reset(Http2Error error) {
    if (!reset) {
      reset = true;
      connection.hcm().stats().downstreamRqTxReset.inc();
      connection.streams().reset(stream, error);
    }
  }

  @Override
  public void armTimer(long deadlineNanos) {
    connection.deadlines().arm(this, deadlineNanos);
  }

  @Override
  public long deadline() {
    return deadline;
  }

  @Override
  public void setDeadline(long deadlineNanos) {
    deadline = deadlineNanos;
  }

  @Override
  public void onDeadline() {
    if (request != null) {
      request.onTimer();
    }
  }

  @Override
  public void requestFinished(HttpStream r, boolean requestBodyComplete) {
    connection.deadlines().disarm(this);
    if (!requestBodyComplete && !reset) {
      // RFC 9113 §8.1: the response is complete, the rest of the request is not wanted. The reset
      // waits for the response's last frame, which may still wait for window: a reset now would
      // drop it.
      reset = true;
      ChannelFuture end = responseEnd;
      if (end == null || end.isDone()) {
        connection.streams().reset(stream, Http2Error.NO_ERROR);
      } else {
        end.addListener(f -> {
          if (f.isSuccess() && stream.state() != Http2Stream.State.CLOSED) {
            connection.streams().reset(stream, Http2Error.NO_ERROR);
          }
        });
      }
    }
  }

  /** Takes written response bytes off {@link #queuedResponseBytes} once the socket has them. */
  private final class Written implements ChannelFutureListener {
    private final int bytes;

    Written(int bytes) {
      this.bytes = bytes;
    }

    @Override
    public void operationComplete(ChannelFuture future) {
      queuedResponseBytes -= bytes;
    }
  }
}
