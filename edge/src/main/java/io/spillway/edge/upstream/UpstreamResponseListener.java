package io.spillway.edge.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.message.ResponseHeaders;

/** Response events of an {@link UpstreamStream}, delivered on the worker's loop. */
public interface UpstreamResponseListener {

  /** The response head (1xx informational heads are not delivered); {@code endStream} when it has no body. */
  void onResponseHeaders(ResponseHeaders headers, boolean endStream);

  /** A body part (the callee owns it); {@code endStream} ends the response. */
  void onResponseData(ByteBuf data, boolean endStream);

  /** The response's trailers, which end it. */
  void onResponseTrailers(HttpHeaders trailers);

  /** The stream ended before the response did: connection closed or stream reset by the peer. */
  void onReset(String reason);

  /** The end of one read burst from the upstream: the moment to flush what was relayed. */
  void onReadComplete();

  /** The upstream connection's writability changed (request back-pressure). */
  void onWritabilityChanged(boolean writable);
}
