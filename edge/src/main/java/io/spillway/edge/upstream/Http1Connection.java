package io.spillway.edge.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.http.message.UpgradeHeaders;

/**
 * One pooled HTTP/1.1 upstream connection; the last handler of its pipeline (after
 * {@code HttpClientCodec}). Lent to one exchange at a time; returns itself to the pool once the
 * request has been written whole and the response has arrived whole, unless either side asked to
 * close (RFC 9112 §9.6) or the exchange was reset.
 *
 * <p>An exchange whose request asks to upgrade (RFC 9110 §7.8) is this connection's last: a 101
 * answer removes the codec and the bytes both ways become the request and response bodies (the
 * request's end half-closes the connection, the upstream's close ends the response); any other
 * answer ends as a normal response and the connection closes after it. A CONNECT (RFC 9110
 * §9.3.6) forwarded as it is goes the same way: its head alone, in authority form, and a 200
 * answer opens the tunnel (the codec passes a CONNECT's 200 on without a body).
 */
final class Http1Connection extends ChannelInboundHandlerAdapter implements UpstreamStream {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Http1Connection.class);

  private final Http1Pool pool;
  private ChannelHandlerContext ctx;
  private UpstreamResponseListener listener;
  private boolean lent;
  private boolean requestDone;
  private boolean responseDone;
  private boolean keepAlive = true;
  private boolean closed;
  private boolean skipInformational;
  private int requestsServed;
  /** The exchange's request asks to switch protocols: the connection is never reused. */
  private boolean upgradeRequested;
  /** The exchange's request is a CONNECT: a 200 (not a 101) switches the connection to a tunnel. */
  private boolean connectRequested;
  /** A 101 arrived; its (empty) end is awaited before the codec leaves. */
  private boolean switching;
  /** The codec is gone: bytes both ways are the exchange's bodies. */
  private boolean tunnel;
  private boolean readPaused;
  long parkedAtNanos;
  /** The pool this connection was closed for (its budget goes there), or null. */
  ConnectionBudget.Seat closedFor;

  Http1Connection(Http1Pool pool) {
    this.pool = pool;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  boolean isUsable() {
    return !closed && ctx != null && ctx.channel().isActive() && keepAlive;
  }

  void lend() {
    lent = true;
    requestsServed++;
    requestDone = false;
    responseDone = false;
    upgradeRequested = false;
    connectRequested = false;
    switching = false;
    tunnel = false;
    listener = null;
    if (readPaused) {
      readPaused = false;
      ctx.channel().config().setAutoRead(true);
    }
  }

  void close() {
    if (ctx != null) {
      ctx.close();
    }
  }

  @Override
  public Host host() {
    return pool.host();
  }

  @Override
  public void bind(UpstreamResponseListener listener) {
    this.listener = listener;
  }

  /**
   * The head as an HTTP/1.1 request over the same header map (no copy): {@code host} from the
   * authority, and chunked framing when a body follows without a declared length (RFC 9112 §6.1).
   */
  @Override
  public void writeHeaders(RequestHeaders request, boolean bodyFollows, boolean endStream) {
    HttpHeaders headers = request.headers();
    headers.set(HttpHeaderNames.HOST, request.authority());
    boolean connect = request.method().equals("CONNECT");
    if (!endStream && (connect || UpgradeHeaders.requested(headers) != null)) {
      // The head alone, unframed: what follows is the new protocol, once the upstream agrees.
      upgradeRequested = true;
      connectRequested = connect;
      keepAlive = false;
      headers.remove(HttpHeaderNames.TRANSFER_ENCODING);
      headers.remove(HttpHeaderNames.CONTENT_LENGTH);
      ctx.writeAndFlush(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(request.method()),
          connect ? request.authority() : request.pathAndQuery(), Unpooled.EMPTY_BUFFER, headers,
          EmptyHttpHeaders.INSTANCE), ctx.voidPromise());
      return;
    }
    if (!headers.contains(HttpHeaderNames.CONTENT_LENGTH)) {
      if (bodyFollows) {
        headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
      } else {
        headers.remove(HttpHeaderNames.TRANSFER_ENCODING);
      }
    }
    if (headers.containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true)) {
      keepAlive = false;
    }
    HttpMethod method = HttpMethod.valueOf(request.method());
    if (endStream) {
      requestDone = true;
      ctx.writeAndFlush(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, request.pathAndQuery(),
          Unpooled.EMPTY_BUFFER, headers, EmptyHttpHeaders.INSTANCE), ctx.voidPromise());
      if (responseDone) {
        finish();
      }
    } else {
      ctx.write(new DefaultHttpRequest(HttpVersion.HTTP_1_1, method, request.pathAndQuery(), headers),
          ctx.voidPromise());
    }
  }

  @Override
  public void writeData(ByteBuf data, boolean endStream) {
    if (upgradeRequested) {
      writeTunnelData(data, endStream);
      return;
    }
    if (endStream) {
      writeLast(new DefaultLastHttpContent(data, EmptyHttpHeaders.INSTANCE));
    } else {
      ctx.write(new DefaultHttpContent(data), ctx.voidPromise());
    }
  }

  /**
   * Client bytes of an upgraded exchange, as they are; the request's end half-closes the
   * connection (a FIN the upstream reads as the client's end). Before the 101 nothing can come:
   * the downstream reads nothing until it has switched.
   */
  private void writeTunnelData(ByteBuf data, boolean endStream) {
    if (!tunnel && !switching) {
      data.release();
      reset();
      return;
    }
    if (!endStream) {
      ctx.write(data, ctx.voidPromise());
      return;
    }
    requestDone = true;
    ctx.writeAndFlush(data).addListener(f -> {
      if (ctx.channel() instanceof DuplexChannel duplex) {
        duplex.shutdownOutput();
      } else {
        ctx.close();
      }
    });
  }

  @Override
  public void writeTrailers(HttpHeaders trailers) {
    DefaultLastHttpContent last = new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER);
    last.trailingHeaders().set(trailers);
    writeLast(last);
  }

  private void writeLast(LastHttpContent last) {
    requestDone = true;
    ctx.writeAndFlush(last, ctx.voidPromise());
    if (responseDone) {
      finish();
    }
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
    if (readPaused != paused) {
      readPaused = paused;
      ctx.channel().config().setAutoRead(!paused);
    }
  }

  @Override
  public void reset() {
    if (lent) {
      lent = false;
      listener = null;
      keepAlive = false;
      ctx.close();
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    UpstreamResponseListener l = lent ? listener : null;
    if (tunnel && l != null) {
      if (msg instanceof ByteBuf bytes) {
        l.onResponseData(bytes, false);
      } else {
        ReferenceCountUtil.release(msg);
      }
      return;
    }
    if (l == null) {
      // A response nobody asked for: the connection is out of sync, drop it.
      ReferenceCountUtil.release(msg);
      keepAlive = false;
      ctx.close();
      return;
    }
    if (msg instanceof HttpResponse response) {
      if (response.status().codeClass() == io.netty.handler.codec.http.HttpStatusClass.INFORMATIONAL
          && response.status().code() != HttpResponseStatus.SWITCHING_PROTOCOLS.code()) {
        // 100 Continue and friends are consumed here; their empty LastHttpContent follows.
        skipInformational = true;
        ReferenceCountUtil.release(msg);
        return;
      }
      if (!isKeepAlive(response)) {
        keepAlive = false;
      }
      int switchingStatus = connectRequested ? HttpResponseStatus.OK.code()
          : HttpResponseStatus.SWITCHING_PROTOCOLS.code();
      if ((response.status().code() == switchingStatus
          || connectRequested && response.status().code() == HttpResponseStatus.SWITCHING_PROTOCOLS.code())
          && !response.decoderResult().isFailure()) {
        ReferenceCountUtil.release(msg);
        if (!upgradeRequested || response.status().code() != switchingStatus) {
          // RFC 9110 §15.2.2: a server switches only to what the request asked for.
          keepAlive = false;
          lent = false;
          listener = null;
          ctx.close();
          l.onReset("protocol error: 101 Switching Protocols to a request that did not ask to upgrade");
          return;
        }
        switching = true;
        // Requests from here on are written as they are (the codec's own upgrade step).
        ctx.pipeline().get(HttpClientCodec.class).prepareUpgradeFrom(ctx);
        l.onResponseHeaders(new ResponseHeaders(response.status().code(), response.headers()), false);
        return;
      }
      if (response.decoderResult().isFailure()) {
        keepAlive = false;
        ReferenceCountUtil.release(msg);
        lent = false;
        listener = null;
        ctx.close();
        l.onReset("protocol error: " + response.decoderResult().cause().getMessage());
        return;
      }
      l.onResponseHeaders(new ResponseHeaders(response.status().code(), response.headers()), false);
      return;
    }
    if (msg instanceof HttpContent content) {
      if (switching) {
        if (content instanceof LastHttpContent) {
          content.release();
          openTunnel();
        } else {
          l.onResponseData(content.content(), false); // a body before the switch (WebSocket draft 76)
        }
        return;
      }
      if (skipInformational) {
        if (content instanceof LastHttpContent) {
          skipInformational = false;
        }
        content.release();
        return;
      }
      boolean last = content instanceof LastHttpContent;
      if (last) {
        responseDone = true;
      }
      if (last && !((LastHttpContent) content).trailingHeaders().isEmpty()) {
        HttpHeaders trailers = ((LastHttpContent) content).trailingHeaders();
        if (content.content().isReadable()) {
          l.onResponseData(content.content(), false);
        } else {
          content.release();
        }
        l.onResponseTrailers(trailers);
      } else {
        l.onResponseData(content.content(), last);
      }
      if (last) {
        if (upgradeRequested) {
          // Refused upgrade: the connection's bytes after this response cannot be trusted as HTTP.
          closeAfterExchange();
        } else if (requestDone) {
          finish();
        } else {
          // The response ended before the request did: as Envoy resets such an upstream request, the
          // connection closes now (it cannot be reused, and the rest of the body has nowhere to go).
          keepAlive = false;
          closeAfterExchange();
        }
      }
    }
  }

  /** The 101's end: the codec leaves, and whatever it still holds arrives next as tunnel bytes. */
  private void openTunnel() {
    switching = false;
    tunnel = true;
    ctx.pipeline().remove(HttpClientCodec.class);
  }

  /** The exchange is over and so is the connection (it had an upgrade request on it). */
  private void closeAfterExchange() {
    lent = false;
    listener = null;
    ctx.close();
  }

  private static boolean isKeepAlive(HttpResponse response) {
    String connection = response.headers().get(HttpHeaderNames.CONNECTION);
    if (connection != null && connection.equalsIgnoreCase(HttpHeaderValues.CLOSE.toString())) {
      return false;
    }
    return response.protocolVersion() != HttpVersion.HTTP_1_0
        || (connection != null && connection.equalsIgnoreCase(HttpHeaderValues.KEEP_ALIVE.toString()));
  }

  private void finish() {
    if (!lent) {
      return;
    }
    int max = pool.cluster().config().maxRequestsPerConnection();
    if (max > 0 && requestsServed >= max) {
      keepAlive = false; // max_requests_per_connection: the pool closes it instead of parking it
    }
    lent = false;
    listener = null;
    pool.release(this);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    UpstreamResponseListener l = lent ? listener : null;
    if (l != null) {
      l.onReadComplete();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    UpstreamResponseListener l = lent ? listener : null;
    if (l != null) {
      l.onWritabilityChanged(ctx.channel().isWritable());
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    closed = true;
    UpstreamResponseListener l = lent ? listener : null;
    lent = false;
    listener = null;
    pool.closed(this);
    if (l != null && !responseDone) {
      if (tunnel) {
        // The upstream ended the tunnel: the response's end (Envoy then ends the downstream too).
        responseDone = true;
        l.onResponseData(Unpooled.EMPTY_BUFFER, true);
      } else {
        l.onReset("connection termination");
      }
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("upstream HTTP/1 connection error on {}: {}", ctx.channel(), cause.toString());
    keepAlive = false;
    ctx.close();
  }
}
