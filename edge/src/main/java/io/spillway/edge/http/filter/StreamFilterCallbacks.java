package io.spillway.edge.http.filter;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.upstream.ConnectionShare;
import io.spillway.edge.upstream.Worker;
import java.util.function.Consumer;

/** What the stream offers every filter, in either direction. Only used on the stream's worker loop. */
public interface StreamFilterCallbacks {

  /** The worker the stream lives on: its loop, random source and allocator. */
  Worker worker();

  /**
   * What the request's downstream connection holds of the clusters' request budgets (one per
   * connection, shared by an HTTP/2 connection's streams): an upstream call made for the request
   * takes its slots within the connection's share.
   */
  ConnectionShare connectionShare();

  /** The route the request matched, or null when none did. Resolved once, before the first filter runs. */
  RouteEntry route();

  /** The request's head, after the connection manager's own changes (x-forwarded-*, x-request-id). */
  RequestHeaders requestHeaders();

  StreamInfo streamInfo();

  /** The request's tracing span; {@link ActiveSpan#NONE} when the connection manager does not trace. */
  default ActiveSpan activeSpan() {
    return ActiveSpan.NONE;
  }

  /**
   * Answers the request from here: before the response started, a small {@code text/plain} reply
   * that the encoder filters see like any response; after it, the stream is reset. Decoding stops:
   * no later decoder filter sees this request again.
   *
   * @param modifyHeaders changes the reply's headers before the encoder filters run, or null
   */
  void sendLocalReply(int status, String body, ResponseFlag flag, Consumer<HttpHeaders> modifyHeaders);

  default void sendLocalReply(int status, String body, ResponseFlag flag) {
    sendLocalReply(status, body, flag, null);
  }

  /**
   * Answers the request with a response the filter built (status, headers, body or null), under
   * the same rules as the text reply above: the body is the reply's text, which the connection
   * manager's {@code local_reply_config} may rewrite, and a gRPC call gets it as a trailers-only
   * gRPC answer.
   */
  void sendLocalReply(ResponseHeaders headers, ByteBuf body, ResponseFlag flag);

  /**
   * Answers the request with a response the filter made that is no local reply in Envoy's sense (a
   * decoder filter's own {@code encodeHeaders}, as the CORS filter answers a preflight): the same
   * rules as {@link #sendLocalReply(ResponseHeaders, ByteBuf, ResponseFlag)}, but it goes out as
   * built, whatever {@code local_reply_config} says and whatever the request.
   */
  default void sendResponse(ResponseHeaders headers, ByteBuf body, ResponseFlag flag) {
    sendLocalReply(headers, body, flag);
  }

  /** Aborts the stream at once (HTTP/1: the connection closes; HTTP/2: RST_STREAM), with a flag. */
  void resetStream(ResponseFlag flag);

  /** True once response headers went to the encoder chain (a local reply is then a reset). */
  boolean responseStarted();
}
