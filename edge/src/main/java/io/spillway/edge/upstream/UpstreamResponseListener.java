package io.spillway.edge.upstream;

import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;

/** Response events of an {@link UpstreamStream}, delivered on the worker's loop. */
public interface UpstreamResponseListener {

  /** The response head (1xx informational heads are not delivered). */
  void onResponseHeaders(HttpResponse response);

  /** A body part; a {@code LastHttpContent} (possibly with trailers) ends the response. The callee owns it. */
  void onResponseData(HttpContent content);

  /** The stream ended before the response did: connection closed or stream reset by the peer. */
  void onReset(String reason);

  /** The end of one read burst from the upstream: the moment to flush what was relayed. */
  void onReadComplete();

  /** The upstream connection's writability changed (request back-pressure). */
  void onWritabilityChanged(boolean writable);
}
