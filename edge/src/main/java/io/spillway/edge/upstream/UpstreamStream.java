package io.spillway.edge.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.message.RequestHeaders;

/**
 * One request/response exchange with an upstream host: an HTTP/1.1 connection lent for one
 * request, or an HTTP/2 stream. Used only from the owning worker's loop. Each side writes the
 * protocol-neutral request in its own protocol (HTTP/1.1 messages, or HEADERS and DATA frames)
 * and hands the response back in the same model.
 *
 * <p>The caller writes the head, then body parts, then trailers; end of stream marks the last
 * write. When both the request and the response have ended, the stream returns itself to its
 * pool; {@link #reset()} abandons it at any time.
 */
public interface UpstreamStream {

  Host host();

  /** Where response events go; must be called before the first write. */
  void bind(UpstreamResponseListener listener);

  /** Writes the request head; with {@code endStream} the request has no body. */
  void writeHeaders(RequestHeaders headers, boolean bodyFollows, boolean endStream);

  /** Writes a body part (the callee owns it); {@code endStream} ends the request. */
  void writeData(ByteBuf data, boolean endStream);

  /** Writes the trailers, which end the request. */
  void writeTrailers(HttpHeaders trailers);

  /** Flushes what was written. */
  void flush();

  /** False while the connection's outbound buffer is above its high-water mark. */
  boolean isWritable();

  /** Stops (true) or resumes (false) reading the response: back-pressure from the downstream. */
  void pauseReading(boolean paused);

  /** Abandons the exchange: HTTP/1 closes the connection, HTTP/2 resets the stream. Idempotent. */
  void reset();
}
