package io.spillway.edge.http;

import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpRequestDecoder;

/**
 * Netty's request decoder, made strict about message framing (RFC 9112 §6.1): a request with both
 * {@code Transfer-Encoding} and {@code Content-Length} is rejected instead of having its
 * Content-Length dropped, because a proxy that forwards such a request is a smuggling vector.
 */
final class Http1RequestDecoder extends HttpRequestDecoder {

  Http1RequestDecoder(HttpDecoderConfig config) {
    super(config);
  }

  @Override
  protected void handleTransferEncodingChunkedWithContentLength(HttpMessage message) {
    throw new IllegalArgumentException("both Transfer-Encoding and Content-Length are present");
  }
}
