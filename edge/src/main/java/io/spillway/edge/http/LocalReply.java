package io.spillway.edge.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.message.Http2Fields;
import io.spillway.edge.http.message.ResponseHeaders;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * A response the edge makes itself (Envoy's local reply): {@code text/plain} with the text as the
 * body, none for HEAD (RFC 9110 §9.3.2), and {@code Connection: close} on HTTP/1 when the request
 * broke the protocol's limits ({@link ResponseFlag#DPE}), as in Envoy.
 *
 * @param headers the response head
 * @param body the body, or {@code null} for none
 */
record LocalReply(ResponseHeaders headers, ByteBuf body) {

  /**
   * @param modifyHeaders changes the filter or the connection manager makes to the head, or {@code null}
   */
  static LocalReply of(int code, String text, ResponseFlag flag, boolean http2, boolean head,
      Consumer<HttpHeaders> modifyHeaders) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    HttpHeaders h = Http2Fields.newFields();
    if (bytes.length > 0) {
      h.set(HttpHeaderNames.CONTENT_TYPE, "text/plain");
    }
    h.setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
    if (flag == ResponseFlag.DPE && !http2) {
      h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    if (modifyHeaders != null) {
      modifyHeaders.accept(h);
    }
    boolean withBody = bytes.length > 0 && !head;
    return new LocalReply(new ResponseHeaders(code, h), withBody ? Unpooled.wrappedBuffer(bytes) : null);
  }
}
