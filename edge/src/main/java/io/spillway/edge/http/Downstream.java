package io.spillway.edge.http;

import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.spillway.edge.upstream.Worker;

/**
 * The downstream side of one request as {@link ActiveRequest} sees it: an HTTP/1.1 connection
 * serving its current request, or one HTTP/2 stream.
 */
interface Downstream {

  Worker worker();

  boolean isHttp2();

  /** The peer's IP address, for x-forwarded-for. */
  String remoteAddress();

  /** Sends the response head; with {@code endStream} (a {@code FullHttpResponse}) the response is complete. */
  void sendHeaders(HttpResponse response, boolean endStream);

  /** Sends a body part; a {@code LastHttpContent} completes the response. */
  void sendData(HttpContent content);

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
   * Calls {@link ActiveRequest#onTimer()} at or after {@code deadlineNanos} (System.nanoTime).
   * An already armed earlier callback satisfies the request: the request re-arms when it fires.
   */
  void armTimer(long deadlineNanos);

  /** The request finished (successfully or not); the connection may read the next one. */
  void requestFinished(ActiveRequest request, boolean requestBodyComplete);
}
