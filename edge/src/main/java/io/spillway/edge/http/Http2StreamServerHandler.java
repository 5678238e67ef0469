package io.spillway.edge.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.spillway.edge.http.message.Http2Fields;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.upstream.ConnectionShare;
import io.spillway.edge.upstream.Worker;

/**
 * The last handler of one downstream HTTP/2 stream (a child channel of the multiplexer): reads the
 * stream's HEADERS and DATA frames straight into one {@link HttpStream} and writes its response
 * as frames — no HTTP/1 message in between. Requests follow RFC 9113 §8.3.1 (the pseudo-header
 * fields; {@code :authority}, else {@code host}) and §8.2.3 (cookie crumbs joined for the filter
 * chain); responses lose connection-specific fields (§8.2.2). Back-pressure pauses the stream
 * channel's reads, which withholds WINDOW_UPDATEs (§5.2); an aborted response is
 * RST_STREAM(INTERNAL_ERROR), a response that ends before the request is followed by
 * RST_STREAM(NO_ERROR) (§8.1).
 */
final class Http2StreamServerHandler extends ChannelInboundHandlerAdapter
    implements Downstream, StreamDeadlines.Timed {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Http2StreamServerHandler.class);
  private static final AsciiString STATUS_CONTINUE = HttpResponseStatus.CONTINUE.codeAsText();

  private final HttpConnectionManager hcm;
  private final Worker worker;
  private final String remoteAddress;
  private ChannelHandlerContext ctx;
  private HttpStream request;
  private boolean reset;
  private final StreamDeadlines deadlines;
  private final ConnectionShare share;
  private long deadline;

  /**
   * @param deadlines the connection's one timer for its streams' deadlines
   * @param share what the connection's streams hold of the clusters' request budgets
   */
  Http2StreamServerHandler(HttpConnectionManager hcm, Worker worker, String remoteAddress, StreamDeadlines deadlines,
      ConnectionShare share) {
    this.hcm = hcm;
    this.worker = worker;
    this.remoteAddress = remoteAddress;
    this.deadlines = deadlines;
    this.share = share;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof Http2HeadersFrame frame) {
      if (request == null) {
        onRequestHeaders(frame);
      } else {
        request.onRequestTrailers(Http2Fields.fromFrame(frame.headers()));
      }
    } else if (msg instanceof Http2DataFrame data) {
      if (request == null) {
        data.release();
        return;
      }
      request.onRequestData(data.content(), data.isEndStream());
    } else {
      ReferenceCountUtil.release(msg);
    }
  }

  private void onRequestHeaders(Http2HeadersFrame frame) {
    OverloadHooks overload = hcm.overload();
    var state = overload.manager().state();
    if (overload.http2GoAwayAndClose().shouldShed(state, worker.random())) {
      // http2_server_go_away_and_close_on_dispatch wins over the plain GOAWAY point.
      ctx.channel().parent().close();
      return;
    }
    if (overload.http2GoAway().shouldShed(state, worker.random())) {
      disableKeepAlive(); // GOAWAY; this stream is still served
    }
    Http2Headers h = frame.headers();
    request = new HttpStream(hcm, this);
    CharSequence authority = h.authority() != null ? h.authority() : h.get(HttpHeaderNames.HOST);
    CharSequence path = h.path();
    String method = h.method() == null ? "" : h.method().toString();
    String scheme = h.scheme() == null ? (hcm.tls() ? "https" : "http") : h.scheme().toString();
    HttpHeaders fields = Http2Fields.fromFrame(h);
    fields.remove(HttpHeaderNames.HOST);
    if (path == null || path.isEmpty() || path.charAt(0) != '/') {
      hcm.stats().downstreamRqNonRelativePath.inc();
      request.onInvalidRequest(new RequestHeaders(method, scheme, "", "/", fields), frame.isEndStream(),
          "invalid request target");
      return;
    }
    request.onRequestHeaders(new RequestHeaders(method, scheme, authority == null ? "" : authority.toString(),
        path.toString(), fields), frame.isEndStream());
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof DownstreamEvents.ResetHighMemory r) {
      int slot = worker.index();
      if (request != null && !reset && r.budget()[slot] > 0
          && request.heldRequestBytes() + pendingResponseBytes() >= r.thresholdBytes()) {
        r.budget()[slot]--;
        r.resets().inc();
        request.resetForMemory();
      }
      return;
    }
    if (evt instanceof DownstreamEvents.RescaleTimers) {
      if (request != null) {
        request.rescaleTimers();
      }
      return;
    }
    if (evt instanceof Http2ResetFrame) {
      reset = true;
      if (request != null) {
        request.onDownstreamReset();
      }
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (request != null) {
      request.onDownstreamWritability(ctx.channel().isWritable());
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (request != null && !request.isFinished()) {
      request.onDownstreamReset();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("downstream HTTP/2 stream error on {}: {}", ctx.channel(), cause.toString());
    ctx.close();
  }

  @Override
  public Worker worker() {
    return worker;
  }

  @Override
  public boolean isHttp2() {
    return true;
  }

  @Override
  public ConnectionShare connectionShare() {
    return share;
  }

  @Override
  public String remoteAddress() {
    return remoteAddress;
  }

  @Override
  public java.net.InetSocketAddress remoteSocketAddress() {
    return ctx.channel().parent().remoteAddress() instanceof java.net.InetSocketAddress a ? a : null;
  }

  @Override
  public java.net.InetSocketAddress localSocketAddress() {
    return ctx.channel().parent().localAddress() instanceof java.net.InetSocketAddress a ? a : null;
  }

  @Override
  public void sendHeaders(ResponseHeaders response, boolean endStream) {
    Http2Headers out = Http2Fields.toFrame(response.headers(), 1);
    out.status(AsciiString.of(Integer.toString(response.status())));
    if (endStream) {
      ctx.writeAndFlush(new DefaultHttp2HeadersFrame(out, true), ctx.voidPromise());
    } else {
      ctx.write(new DefaultHttp2HeadersFrame(out, false), ctx.voidPromise());
    }
  }

  @Override
  public void send100Continue() {
    Http2Headers out = new DefaultHttp2Headers(false, 1);
    out.status(STATUS_CONTINUE);
    ctx.writeAndFlush(new DefaultHttp2HeadersFrame(out, false), ctx.voidPromise());
  }

  @Override
  public void sendData(ByteBuf data, boolean endStream) {
    if (endStream) {
      ctx.writeAndFlush(new DefaultHttp2DataFrame(data, true), ctx.voidPromise());
    } else {
      ctx.write(new DefaultHttp2DataFrame(data, false), ctx.voidPromise());
    }
  }

  @Override
  public void sendTrailers(HttpHeaders trailers) {
    ctx.writeAndFlush(new DefaultHttp2HeadersFrame(Http2Fields.toFrame(trailers, 0), true), ctx.voidPromise());
  }

  @Override
  public void flush() {
    ctx.flush();
  }

  @Override
  public boolean isWritable() {
    return ctx.channel().isWritable();
  }

  @Override
  public void pauseReading(boolean paused) {
    ctx.channel().config().setAutoRead(!paused);
  }

  @Override
  public void disableKeepAlive() {
    ctx.channel().parent().pipeline().fireUserEventTriggered(DownstreamEvents.Drain.INSTANCE);
  }

  /**
   * Response bytes written to this stream and not yet sent on the socket (held by the stream's
   * flow control), from the stream channel's writability accounting.
   */
  private long pendingResponseBytes() {
    io.netty.channel.Channel ch = ctx.channel();
    if (ch.isWritable()) {
      return Math.max(0, ch.config().getWriteBufferHighWaterMark() - ch.bytesBeforeUnwritable() + 1);
    }
    return ch.config().getWriteBufferLowWaterMark() + ch.bytesBeforeWritable() - 1;
  }

  @Override
  public void resetStream() {
    if (!reset) {
      reset = true;
      hcm.stats().downstreamRqTxReset.inc();
      ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.INTERNAL_ERROR));
    }
  }

  @Override
  public void armTimer(long deadlineNanos) {
    deadlines.arm(this, deadlineNanos);
  }

  @Override
  public long deadline() {
    return deadline;
  }

  @Override
  public void setDeadline(long deadlineNanos) {
    deadline = deadlineNanos;
  }

  @Override
  public void onDeadline() {
    if (request != null) {
      request.onTimer();
    }
  }

  @Override
  public void requestFinished(HttpStream r, boolean requestBodyComplete) {
    deadlines.disarm(this);
    if (!requestBodyComplete && !reset) {
      reset = true;
      ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.NO_ERROR));
    }
  }
}
