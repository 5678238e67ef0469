package io.spillway.edge.upstream;

import io.netty.handler.codec.http.HttpObject;

/**
 * One request/response exchange with an upstream host: an HTTP/1.1 connection lent for one
 * request, or an HTTP/2 stream. Used only from the owning worker's loop.
 *
 * <p>The caller writes the request ({@code HttpRequest}, then {@code HttpContent}s ending with a
 * {@code LastHttpContent}) and receives the response through the bound listener. When both the
 * request and the response have ended, the stream returns itself to its pool; {@link #reset()}
 * abandons it at any time.
 */
public interface UpstreamStream {

  Host host();

  /** Where response events go; must be called before the first write. */
  void bind(UpstreamResponseListener listener);

  /** Writes a request part. A {@code LastHttpContent} ends the request. */
  void write(HttpObject part, boolean flush);

  /** Flushes what {@link #write} queued without flushing. */
  void flush();

  /** False while the connection's outbound buffer is above its high-water mark. */
  boolean isWritable();

  /** Stops (true) or resumes (false) reading the response: back-pressure from the downstream. */
  void pauseReading(boolean paused);

  /** Abandons the exchange: HTTP/1 closes the connection, HTTP/2 resets the stream. Idempotent. */
  void reset();
}
