package io.spillway.edge.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
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

/**
 * One upstream HTTP/2 stream, the only handler of its stream channel: writes the request as
 * HEADERS, DATA and trailing HEADERS frames (pseudo-header fields from the request's method,
 * scheme, authority and path, RFC 9113 §8.3.1; names lower-cased and connection-specific fields
 * dropped, §8.2.2) and reads the response's frames straight into the neutral model. The stream
 * channel closes by itself once both directions have ended; a reset sends RST_STREAM(CANCEL).
 */
final class Http2StreamHandler extends ChannelInboundHandlerAdapter implements UpstreamStream {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Http2StreamHandler.class);

  /** Upstream connections are cleartext: the :scheme the peer sees. */
  private static final AsciiString UPSTREAM_SCHEME = AsciiString.cached("http");

  private final Host host;
  private final Cluster cluster;
  private ChannelHandlerContext ctx;
  private UpstreamResponseListener listener;
  private boolean responseDone;
  private boolean headersSeen;
  private boolean reset;

  Http2StreamHandler(Host host, Cluster cluster) {
    this.host = host;
    this.cluster = cluster;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Host host() {
    return host;
  }

  @Override
  public void bind(UpstreamResponseListener listener) {
    this.listener = listener;
  }

  @Override
  public void writeHeaders(RequestHeaders request, boolean bodyFollows, boolean endStream) {
    if (reset) {
      return;
    }
    HttpHeaders fields = request.headers();
    fields.remove(HttpHeaderNames.HOST);
    fields.remove(HttpHeaderNames.TRANSFER_ENCODING);
    Http2Headers out = Http2Fields.toFrame(fields, 4);
    out.method(request.method()).scheme(UPSTREAM_SCHEME).authority(request.authority()).path(request.pathAndQuery());
    if (endStream) {
      ctx.writeAndFlush(new DefaultHttp2HeadersFrame(out, true), ctx.voidPromise());
    } else {
      ctx.write(new DefaultHttp2HeadersFrame(out, false), ctx.voidPromise());
    }
  }

  @Override
  public void writeData(ByteBuf data, boolean endStream) {
    if (reset) {
      data.release();
      return;
    }
    if (endStream) {
      ctx.writeAndFlush(new DefaultHttp2DataFrame(data, true), ctx.voidPromise());
    } else {
      ctx.write(new DefaultHttp2DataFrame(data, false), ctx.voidPromise());
    }
  }

  @Override
  public void writeTrailers(HttpHeaders trailers) {
    if (reset) {
      return;
    }
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
  public void reset() {
    if (!reset) {
      reset = true;
      listener = null;
      if (ctx.channel().isActive() && !responseDone) {
        ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL)).addListener(f -> ctx.close());
      } else {
        ctx.close();
      }
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    UpstreamResponseListener l = listener;
    if (l == null) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof Http2HeadersFrame frame) {
      Http2Headers h = frame.headers();
      if (!headersSeen) {
        CharSequence status = h.status();
        int code = status == null ? 0 : AsciiString.of(status).parseInt();
        if (code >= 100 && code < 200) {
          return; // informational heads are not relayed
        }
        headersSeen = true;
        if (frame.isEndStream()) {
          responseDone = true;
          listener = null;
        }
        l.onResponseHeaders(new ResponseHeaders(code, Http2Fields.fromFrame(h)), frame.isEndStream());
        return;
      }
      responseDone = true;
      listener = null;
      l.onResponseTrailers(Http2Fields.fromFrame(h));
      return;
    }
    if (msg instanceof Http2DataFrame data) {
      if (data.isEndStream()) {
        responseDone = true;
        listener = null;
      }
      l.onResponseData(data.content(), data.isEndStream());
      return;
    }
    ReferenceCountUtil.release(msg);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    UpstreamResponseListener l = listener;
    if (l != null) {
      l.onReadComplete();
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof Http2ResetFrame rst) {
      UpstreamResponseListener l = listener;
      listener = null;
      if (l != null && !responseDone) {
        cluster.stats().upstreamRqRxReset.inc();
        l.onReset("remote reset " + Http2Error.valueOf(rst.errorCode()));
      }
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    UpstreamResponseListener l = listener;
    if (l != null) {
      l.onWritabilityChanged(ctx.channel().isWritable());
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    UpstreamResponseListener l = listener;
    listener = null;
    if (l != null && !responseDone) {
      l.onReset("connection termination");
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("upstream HTTP/2 stream error on {}: {}", ctx.channel(), cause.toString());
    ctx.close();
  }
}
