package io.spillway.edge.filters.router;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.spillway.edge.http.filter.RequestHeaders;

/**
 * The request head as the upstream stream takes it: the pool's codec speaks HTTP/1.1 messages
 * (its HTTP/2 side converts them to frames). No header is copied: the head shares the request's
 * header map, with {@code host} set from the authority and the framing header the body needs
 * (RFC 9112 §6: chunked when the length is not declared).
 */
final class UpstreamMessages {
  private UpstreamMessages() {}

  /** A request with no body and no trailers. */
  static HttpRequest fullRequest(RequestHeaders request) {
    HttpHeaders headers = prepare(request, false);
    return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(request.method()),
        request.pathAndQuery(), Unpooled.EMPTY_BUFFER, headers, EmptyHttpHeaders.INSTANCE);
  }

  /** The head of a request whose body (or trailers, or end) follows. */
  static HttpRequest requestHead(RequestHeaders request, boolean emptyBody) {
    HttpHeaders headers = prepare(request, !emptyBody);
    return new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(request.method()), request.pathAndQuery(),
        headers);
  }

  private static HttpHeaders prepare(RequestHeaders request, boolean body) {
    HttpHeaders headers = request.headers();
    headers.set(HttpHeaderNames.HOST, request.authority());
    if (!headers.contains(HttpHeaderNames.CONTENT_LENGTH)) {
      if (body) {
        headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
      } else {
        headers.remove(HttpHeaderNames.TRANSFER_ENCODING);
      }
    }
    return headers;
  }
}
