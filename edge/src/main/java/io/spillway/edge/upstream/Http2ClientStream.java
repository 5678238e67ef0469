package io.spillway.edge.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.AsciiString;
import io.spillway.edge.http.message.Http2Fields;
import io.spillway.edge.http2.Http2Streams;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;

/**
 * One upstream HTTP/2 stream, a plain object of its connection ({@link Http2ClientConnection}):
 * writes the request as HEADERS, DATA and trailing HEADERS frames through the connection's
 * encoder (pseudo-header fields from the request's method, scheme, authority and path, RFC 9113
 * §8.3.1; names lower-cased and connection-specific fields dropped, §8.2.2) and reads the
 * response's frames straight into the neutral model. Its stream id is taken when the request head
 * is written (ids must rise in the order streams start, §5.1.1). Response bytes go back to the
 * server's window as they are handed on, except while reading is paused (§5.2). A reset sends
 * RST_STREAM(CANCEL).
 */
final class Http2ClientStream implements UpstreamStream {

  /** Upstream connections are cleartext: the :scheme the peer sees. */
  private static final AsciiString UPSTREAM_SCHEME = AsciiString.cached("http");

  private final Http2ClientConnection connection;
  private final Host host;
  private final Cluster cluster;
  private Http2Stream stream;
  private UpstreamResponseListener listener;
  private boolean responseDone;
  private boolean headersSeen;
  private boolean reset;
  private final Http2Streams.Credit credit = new Http2Streams.Credit();
  /** Frames arrived since the connection's last read completed (it is told then). */
  boolean readThisTurn;
  /** Counted in the connection's reserved streams: handed out, not started, not given back. */
  private boolean reservation = true;

  Http2ClientStream(Http2ClientConnection connection, Host host, Cluster cluster) {
    this.connection = connection;
    this.host = host;
    this.cluster = cluster;
  }

  @Override
  public Host host() {
    return host;
  }

  @Override
  public void bind(UpstreamResponseListener listener) {
    this.listener = listener;
  }

  @Override
  public void writeHeaders(RequestHeaders request, boolean bodyFollows, boolean endStream) {
    if (reset || stream != null) {
      return;
    }
    HttpHeaders fields = request.headers();
    fields.remove(HttpHeaderNames.HOST);
    fields.remove(HttpHeaderNames.TRANSFER_ENCODING);
    Http2Headers out = Http2Fields.toFrame(fields, 4);
    out.method(request.method()).authority(request.authority());
    if (!request.method().equals("CONNECT")) { // RFC 9113 §8.5: a CONNECT has neither :scheme nor :path
      out.scheme(UPSTREAM_SCHEME).path(request.pathAndQuery());
    }
    reservation = false;
    stream = connection.start(this, out, endStream);
    if (stream == null) {
      connection.streams().ctx().executor().execute(() -> failed("stream could not be opened"));
    }
  }

  @Override
  public void writeData(ByteBuf data, boolean endStream) {
    if (reset || stream == null) {
      data.release();
      return;
    }
    connection.streams().writeData(stream, data, endStream, null);
  }

  @Override
  public void writeTrailers(HttpHeaders trailers) {
    if (reset || stream == null) {
      return;
    }
    connection.streams().writeTrailers(stream, trailers, null);
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
  public void reset() {
    if (reset) {
      return;
    }
    reset = true;
    listener = null;
    connection.released(this);
    if (stream != null && !responseDone && stream.state() != Http2Stream.State.CLOSED) {
      connection.streams().reset(stream, Http2Error.CANCEL);
    }
  }

  // --- frames in -----------------------------------------------------------------------------

  void onHeaders(Http2Headers h, boolean endStream) {
    UpstreamResponseListener l = listener;
    if (l == null) {
      return;
    }
    readThisTurn = true;
    if (!headersSeen) {
      CharSequence status = h.status();
      int code = status == null ? 0 : AsciiString.of(status).parseInt();
      if (code >= 100 && code < 200) {
        return; // informational heads are not relayed
      }
      headersSeen = true;
      if (endStream) {
        done();
      }
      l.onResponseHeaders(new ResponseHeaders(code, Http2Fields.fromFrame(h)), endStream);
      return;
    }
    done();
    l.onResponseTrailers(Http2Fields.fromFrame(h));
  }

  /** A DATA frame (the codec still owns {@code data}); returns the bytes to give back to the server's window now. */
  int onData(ByteBuf data, int padding, boolean endStream) {
    int flowControlled = data.readableBytes() + padding;
    UpstreamResponseListener l = listener;
    if (l == null) {
      return flowControlled;
    }
    readThisTurn = true;
    if (endStream) {
      done();
    }
    l.onResponseData(data.retain(), endStream);
    return credit.received(flowControlled, endStream);
  }

  void onPeerReset(long errorCode) {
    UpstreamResponseListener l = listener;
    listener = null;
    if (l != null && !responseDone) {
      cluster.stats().upstreamRqRxReset.inc();
      l.onReset("remote reset " + Http2Error.valueOf(errorCode));
    }
  }

  /** The stream closed (both ways ended, a reset, or the connection went away). */
  void onClosed() {
    failed("connection termination");
  }

  void onReadComplete() {
    readThisTurn = false;
    UpstreamResponseListener l = listener;
    if (l != null) {
      l.onReadComplete();
    }
  }

  void onWritabilityChanged(boolean writable) {
    UpstreamResponseListener l = listener;
    if (l != null) {
      l.onWritabilityChanged(writable);
    }
  }

  /** Gives up the reservation; true the first time. */
  boolean takeReservation() {
    boolean had = reservation;
    reservation = false;
    return had;
  }

  private void done() {
    responseDone = true;
    listener = null;
  }

  private void failed(String reason) {
    UpstreamResponseListener l = listener;
    listener = null;
    if (l != null && !responseDone) {
      l.onReset(reason);
    }
  }
}
