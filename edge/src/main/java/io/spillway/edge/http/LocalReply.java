package io.spillway.edge.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.GrpcStatus;
import io.spillway.edge.http.message.Http2Fields;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;

/**
 * A response the edge makes itself (Envoy's local reply, {@code Http::Utility::prepareLocalReply}):
 * the head with the filter's or the connection manager's changes, then the connection manager's
 * {@code local_reply_config} ({@link LocalReplyRewriter}), then the form the request needs:
 *
 * <ul>
 *   <li>a gRPC call ({@code content-type: application/grpc…}) gets a trailers-only gRPC answer:
 *       {@code :status 200}, {@code content-type: application/grpc}, {@code grpc-status} mapped
 *       from the HTTP status unless the reply already carries one, and the text as
 *       {@code grpc-message} (percent-encoded); no body;
 *   <li>anything else gets the text as the body with its {@code content-length}; the body's
 *       {@code content-type} ({@code text/plain}, or the body format's) is set when the head has
 *       none, or when {@code local_reply_config} changed the text and did not set one itself; an
 *       empty body has no {@code content-type}. A HEAD request gets the head only (RFC 9110 §9.3.2).
 * </ul>
 *
 * <p>On HTTP/1 the reply carries {@code Connection: close} when the request broke the protocol's
 * limits ({@link ResponseFlag#DPE}), as in Envoy.
 *
 * @param headers the response head
 * @param body the body, or {@code null} for none
 */
record LocalReply(ResponseHeaders headers, ByteBuf body) {

  private static final String GRPC_STATUS = "grpc-status";
  private static final String GRPC_MESSAGE = "grpc-message";
  private static final String APPLICATION_JSON = "application/json";

  /**
   * The stream a reply is made for.
   *
   * @param rewriter the connection manager's {@code local_reply_config}
   * @param request the request head, or null
   * @param grpc whether the request, as it arrived, is a gRPC call
   * @param random the worker's random source (runtime filters)
   * @param nowNanos System.nanoTime now
   */
  record Target(LocalReplyRewriter rewriter, RequestHeaders request, StreamInfo info, boolean http2, boolean head,
      boolean grpc, RandomGenerator random, long nowNanos) {}

  /**
   * A reply with {@code text} as its body.
   *
   * @param modifyHeaders changes the filter or the connection manager makes to the head, or {@code null}
   */
  static LocalReply of(int code, String text, ResponseFlag flag, Consumer<HttpHeaders> modifyHeaders, Target target) {
    HttpHeaders h = Http2Fields.newFields();
    if (!text.isEmpty()) {
      h.set(HttpHeaderNames.CONTENT_TYPE, LocalReplyRewriter.TEXT_PLAIN);
    }
    if (flag == ResponseFlag.DPE && !target.http2()) {
      h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    if (modifyHeaders != null) {
      modifyHeaders.accept(h);
    }
    return finish(new ResponseHeaders(code, h), text, target);
  }

  /**
   * A reply whose head and body a filter built (ext_authz's denial, the rate limit service's
   * answer); the body (owned, or null) is its text. Without {@code local_reply_config}, for a
   * request that is no gRPC call, it goes out as it was built.
   */
  static LocalReply of(ResponseHeaders headers, ByteBuf body, Target target) {
    if (target.rewriter().isNone() && !target.grpc()) {
      return new LocalReply(headers, body);
    }
    String text = "";
    if (body != null) {
      text = body.toString(StandardCharsets.UTF_8);
      body.release();
    }
    return finish(headers, text, target);
  }

  private static LocalReply finish(ResponseHeaders head, String text, Target t) {
    HttpHeaders h = head.headers();
    String body = text;
    String contentType = LocalReplyRewriter.TEXT_PLAIN;
    boolean ownContentType = false;
    if (!t.rewriter().isNone()) {
      String before = h.get(HttpHeaderNames.CONTENT_TYPE);
      LocalReplyRewriter.Rewritten r = t.rewriter().rewrite(head, text, t.request(), t.info(), t.random(),
          t.nowNanos());
      body = r.body();
      contentType = r.contentType();
      ownContentType = !Objects.equals(before, h.get(HttpHeaderNames.CONTENT_TYPE));
    }
    if (t.grpc()) {
      int code = head.status();
      head.setStatus(200);
      h.set(HttpHeaderNames.CONTENT_TYPE, "application/grpc");
      if (!h.contains(GRPC_STATUS)) {
        h.set(GRPC_STATUS, Integer.toString(GrpcStatus.fromHttp(code)));
      }
      if (!body.isEmpty() && !t.head()) {
        // A JSON body format ends its object with a newline, which a header value cannot hold.
        if (contentType.equals(APPLICATION_JSON) && body.endsWith("\n")) {
          body = body.substring(0, body.length() - 1);
        }
        h.set(GRPC_MESSAGE, GrpcStatus.encodeMessage(body));
      }
      h.remove(HttpHeaderNames.CONTENT_LENGTH);
      return new LocalReply(head, null);
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    h.setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
    if (bytes.length == 0) {
      h.remove(HttpHeaderNames.CONTENT_TYPE);
    } else if (!h.contains(HttpHeaderNames.CONTENT_TYPE) || (!body.equals(text) && !ownContentType)) {
      h.set(HttpHeaderNames.CONTENT_TYPE, contentType);
    }
    return new LocalReply(head, bytes.length > 0 && !t.head() ? Unpooled.wrappedBuffer(bytes) : null);
  }
}
