package io.spillway.edge.upstream;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.util.ReferenceCountUtil;

/**
 * One upstream HTTP/2 stream, last in the stream channel's pipeline (after
 * {@code Http2StreamFrameToHttpObjectCodec}). The stream channel closes by itself once both
 * directions have ended; a reset sends RST_STREAM(CANCEL).
 */
final class Http2StreamHandler extends ChannelInboundHandlerAdapter implements UpstreamStream {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Http2StreamHandler.class);

  private final Host host;
  private final Cluster cluster;
  private ChannelHandlerContext ctx;
  private UpstreamResponseListener listener;
  private boolean responseDone;
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
  public void write(HttpObject part, boolean flush) {
    if (reset) {
      ReferenceCountUtil.release(part);
      return;
    }
    if (flush) {
      ctx.writeAndFlush(part, ctx.voidPromise());
    } else {
      ctx.write(part, ctx.voidPromise());
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
    if (msg instanceof HttpResponse response) {
      if (response.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
        ReferenceCountUtil.release(msg);
        return;
      }
      if (msg instanceof LastHttpContent) {
        responseDone = true; // HEADERS with END_STREAM: the listener sees a FullHttpResponse
        listener = null;
      }
      l.onResponseHeaders(response);
      return;
    }
    if (msg instanceof HttpContent content) {
      if (content instanceof LastHttpContent) {
        responseDone = true;
        listener = null;
      }
      l.onResponseData(content);
    }
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
