package io.spillway.edge.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.util.ReferenceCountUtil;
import io.spillway.edge.config.HttpConnectionManagerConfig;
import java.nio.charset.StandardCharsets;

/**
 * Sits after the HTTP/1.1 decoder and {@link Http1RequestConformance} and stops every message that
 * failed there; nothing after a failure is forwarded, and the connection closes, since the byte
 * stream can no longer be trusted (RFC 9112 §11.2). Each refusal counts in
 * {@code downstream_cx_protocol_error} and its status class ({@code downstream_rq_4xx}/{@code _5xx}).
 * The status is the one an {@link Http1Refusal} carries (505 for an unsupported major version, 501
 * for a transfer coding other than chunked); otherwise a request line or header block over the
 * limit gets 431, as in Envoy (the request line counts against {@code max_request_headers_kb}), a
 * trailer section over it too, and anything else malformed 400 (bad syntax, invalid characters,
 * conflicting Content-Length, Content-Length with Transfer-Encoding, a bad chunk).
 *
 * <p>HTTP/1.0 requests get 426 Upgrade Required and the connection closes, as in Envoy, unless
 * {@code http_protocol_options.accept_http_10} is set; then one without a Host header takes
 * {@code default_host_for_http_10} when that is set.
 */
final class Http1RequestValidator extends ChannelInboundHandlerAdapter {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Http1RequestValidator.class);

  private final HcmStats stats;
  private final String serverName;
  private final HttpConnectionManagerConfig.Http1Options http1;
  private boolean failed;
  private boolean responding;

  Http1RequestValidator(HcmStats stats, String serverName, HttpConnectionManagerConfig.Http1Options http1) {
    this.stats = stats;
    this.serverName = serverName;
    this.http1 = http1;
  }

  /** Set by the connection handler: a response is under way, so an error can only close. */
  void responding(boolean value) {
    responding = value;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (failed) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof HttpObject http && http.decoderResult().isFailure()) {
      failed = true;
      HttpResponseStatus status = statusFor(http);
      Throwable cause = http.decoderResult().cause();
      ReferenceCountUtil.release(msg);
      stats.downstreamCxProtocolError.inc();
      ctx.channel().config().setAutoRead(false);
      // Tell the connection handler first: a request in flight is over.
      ctx.fireUserEventTriggered(ProtocolError.INSTANCE);
      if (log.isDebugEnabled()) {
        log.debug("refused an HTTP/1 request on {} with {}: {}", ctx.channel(), status.code(), cause.toString());
      }
      if (responding) {
        ctx.close();
      } else {
        respond(ctx, status, status.reasonPhrase());
      }
      return;
    }
    if (msg instanceof HttpRequest request && request.protocolVersion().equals(HttpVersion.HTTP_1_0)) {
      if (!http1.acceptHttp10()) {
        failed = true;
        ReferenceCountUtil.release(msg);
        stats.downstreamCxProtocolError.inc(); // a codec error in Envoy too
        ctx.channel().config().setAutoRead(false);
        ctx.fireUserEventTriggered(ProtocolError.INSTANCE);
        if (responding) {
          ctx.close();
        } else {
          respond(ctx, HttpResponseStatus.UPGRADE_REQUIRED, "Upgrade Required");
        }
        return;
      }
      if (!http1.defaultHostForHttp10().isEmpty() && !request.headers().contains(HttpHeaderNames.HOST)) {
        request.headers().set(HttpHeaderNames.HOST, http1.defaultHostForHttp10());
      }
    }
    ctx.fireChannelRead(msg);
  }

  /** The status that answers a message that failed in the decoder or the conformance check. */
  private static HttpResponseStatus statusFor(HttpObject failed) {
    Throwable cause = failed.decoderResult().cause();
    if (cause instanceof Http1Refusal refusal) {
      return refusal.status();
    }
    boolean tooLarge = failed instanceof HttpRequest
        ? cause instanceof TooLongFrameException // the request line or the header block
        : cause instanceof TooLongHttpHeaderException; // the trailer section (a chunk-size line is a bad chunk)
    return tooLarge ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE : HttpResponseStatus.BAD_REQUEST;
  }

  /** Answers with a short text body and closes. */
  private void respond(ChannelHandlerContext ctx, HttpResponseStatus status, String text) {
    byte[] body = text.getBytes(StandardCharsets.US_ASCII);
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
    response.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, "text/plain")
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
        .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE)
        .set(HttpHeaderNames.SERVER, serverName);
    stats.responseCode(status.code());
    ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
  }

  /** Event fired towards the connection handler when the byte stream broke. */
  enum ProtocolError { INSTANCE }
}
