package io.spillway.edge.http;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.DownstreamTls;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.upstream.ConnectionShare;
import io.spillway.edge.upstream.Worker;
import java.util.function.Supplier;

/**
 * The downstream side of one stream as {@link HttpStream} sees it: an HTTP/1.1 connection serving
 * its current request, or one HTTP/2 stream. Each side writes the response in its own protocol:
 * framing (chunked or not, RFC 9112 §6) is the HTTP/1.1 side's business, frames the HTTP/2 side's.
 */
interface Downstream {

  Worker worker();

  boolean isHttp2();

  /** What the downstream connection holds of the clusters' request budgets (one per connection). */
  ConnectionShare connectionShare();

  /** The peer's IP address, for x-forwarded-for. */
  String remoteAddress();

  /** The peer's address and port (access log), or null when the connection does not say. */
  default java.net.InetSocketAddress remoteSocketAddress() {
    return null;
  }

  /** The local address and port the peer connected to (access log), or null when the connection does not say. */
  default java.net.InetSocketAddress localSocketAddress() {
    return null;
  }

  /**
   * The connection's TLS facts (the client certificate's names, null when it is not TLS), read
   * on the first call and kept by the connection: one supplier per connection.
   */
  default Supplier<DownstreamTls> tls() {
    return StreamInfo.NO_TLS;
  }

  /** Sends the response head; with {@code endStream} the response is complete. */
  void sendHeaders(ResponseHeaders response, boolean endStream);

  /** Sends {@code 100 Continue} (RFC 9110 §10.1.1). */
  void send100Continue();

  /** Sends a body part; with {@code endStream} the response is complete. The callee owns it. */
  void sendData(ByteBuf data, boolean endStream);

  /** Sends the trailers, which complete the response. */
  void sendTrailers(HttpHeaders trailers);

  /** Flushes parts written without end of stream. */
  void flush();

  boolean isWritable();

  /** Stops or resumes reading the request body (back-pressure towards the client). */
  void pauseReading(boolean paused);

  /**
   * Ends the connection after this response: HTTP/1 answers with {@code Connection: close}, HTTP/2
   * sends GOAWAY and closes once its streams finish (overload's disable_http_keepalive).
   */
  void disableKeepAlive();

  /** Aborts the response mid-way: HTTP/1 closes the connection, HTTP/2 resets the stream. */
  void resetStream();

  /**
   * The TCP connection of a terminated CONNECT was reset or closed abnormally: HTTP/2 resets the
   * stream with CONNECT_ERROR (RFC 9113 §8.5); HTTP/1 closes the connection.
   */
  default void resetConnectTunnel() {
    resetStream();
  }

  /**
   * Calls {@link HttpStream#onTimer()} at or after {@code deadlineNanos} (System.nanoTime).
   * An already armed earlier callback satisfies the stream: it re-arms when it fires.
   */
  void armTimer(long deadlineNanos);

  /** The stream finished (successfully or not); the connection may read the next one. */
  void requestFinished(HttpStream stream, boolean requestBodyComplete);
}
