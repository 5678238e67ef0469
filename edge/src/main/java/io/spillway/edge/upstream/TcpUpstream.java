package io.spillway.edge.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;

/**
 * A CONNECT the edge terminates (a route's {@code connect_config}; Envoy's TCP upstream): one TCP
 * connection to the host, opened for one request and closed with it, never pooled. It is made on
 * the caller's worker loop within the cluster's {@code max_connections} and the overload manager's
 * new-connection shed point (else OVERFLOW, 503 UO), with the cluster's connect timeout and TLS
 * {@code transport_socket}; a failure is a connect failure (503 UF) counted as for any pool.
 *
 * <p>Once connected it is the call's {@link UpstreamStream}: the request head is not sent — as in
 * Envoy it answers {@code 200} itself (the CONNECT's success, RFC 9110 §9.3.6) — and from then on
 * the request body is written to the socket as it is and what the socket reads is the response
 * body. The request's end half-closes the connection (FIN); the host's FIN ends the response, and
 * the connection closes after what was written; the connection closing otherwise (a reset) is a
 * reset of the response. Half-closure is on, so each direction ends on its own.
 */
final class TcpUpstream extends ChannelInboundHandlerAdapter implements UpstreamStream, HostPool.Pending {
  private final Cluster cluster;
  private final Host host;
  private final StreamCallbacks callbacks;
  private Channel channel;
  private UpstreamResponseListener listener;
  private boolean connected;
  /** The call gave the stream up (cancelled while connecting, or reset): nothing more is delivered. */
  private boolean abandoned;
  private boolean responseEnded;

  private TcpUpstream(Cluster cluster, Host host, StreamCallbacks callbacks) {
    this.cluster = cluster;
    this.host = host;
    this.callbacks = callbacks;
  }

  /**
   * Opens a connection to {@code host} for {@code callbacks}, which hear {@code onStreamReady} once
   * it is connected (and its TLS handshake done) or {@code onStreamFailure}.
   */
  static HostPool.Pending open(Cluster cluster, Host host, Worker worker, StreamCallbacks callbacks) {
    if (!cluster.allowNewConnection(worker)) {
      cluster.stats().upstreamCxOverflow.inc();
      callbacks.onStreamFailure(StreamCallbacks.PoolFailure.OVERFLOW, "new connection shed by the overload manager");
      return HostPool.Pending.NONE;
    }
    if (!cluster.limits().tryAcquireConnection()) {
      cluster.stats().upstreamCxOverflow.inc();
      callbacks.onStreamFailure(StreamCallbacks.PoolFailure.OVERFLOW, "max connections");
      return HostPool.Pending.NONE;
    }
    TcpUpstream tunnel = new TcpUpstream(cluster, host, callbacks);
    tunnel.connect(worker);
    return tunnel;
  }

  private void connect(Worker worker) {
    long started = System.nanoTime();
    ChannelFuture connect = HostPool.bootstrap(cluster, host, worker)
        .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
        .handler(new ChannelInitializer<>() {
          @Override
          protected void initChannel(Channel ch) {
            SslHandler tls = cluster.newRawConnectionTls(ch.alloc(), host);
            if (tls != null) {
              ch.pipeline().addLast("tls", tls);
            }
            ch.pipeline().addLast("tunnel", TcpUpstream.this);
          }
        }).connect();
    channel = connect.channel();
    connect.addListener(done -> {
      if (!done.isSuccess()) {
        failed(done.cause());
        return;
      }
      SslHandler tls = channel.pipeline().get(SslHandler.class);
      if (tls == null) {
        ready(started);
      } else {
        tls.handshakeFuture().addListener(handshake -> {
          if (handshake.isSuccess()) {
            ready(started);
          } else {
            channel.close();
            failed(handshake.cause());
          }
        });
      }
    });
  }

  private void failed(Throwable cause) {
    cluster.limits().releaseConnection();
    HostPool.countConnectFailure(cluster, host, cause);
    if (!abandoned) {
      abandoned = true;
      callbacks.onStreamFailure(HostPool.failureOf(cause), String.valueOf(cause.getMessage()));
    }
  }

  private void ready(long started) {
    connected = true;
    cluster.stats().upstreamCxTotal.inc();
    cluster.stats().upstreamCxActive.inc();
    cluster.stats().upstreamCxConnectMs.record((System.nanoTime() - started) / 1_000_000);
    host.cxTotal.add(1);
    host.cxActive.incrementAndGet();
    if (abandoned) {
      channel.close();
      return;
    }
    callbacks.onStreamReady(this);
  }

  /** The call no longer wants the connection it is waiting for. */
  @Override
  public void cancel() {
    abandoned = true;
    if (connected) {
      channel.close();
    }
  }

  // ---- UpstreamStream ------------------------------------------------------------------------

  @Override
  public Host host() {
    return host;
  }

  @Override
  public void bind(UpstreamResponseListener listener) {
    this.listener = listener;
  }

  /** The CONNECT's head stays here: the answer is a 200 of the edge's own, as Envoy's TCP upstream gives. */
  @Override
  public void writeHeaders(RequestHeaders headers, boolean bodyFollows, boolean endStream) {
    UpstreamResponseListener l = listener;
    if (l != null) {
      l.onResponseHeaders(new ResponseHeaders(200, new DefaultHttpHeaders()), false);
      l.onReadComplete(); // nothing was read to flush it with: flush the 200 now
    }
    if (endStream) {
      writeData(Unpooled.EMPTY_BUFFER, true);
    }
  }

  @Override
  public void writeData(ByteBuf data, boolean endStream) {
    if (abandoned || !channel.isActive()) {
      data.release();
      return;
    }
    cluster.stats().upstreamCxTxBytesTotal.add(data.readableBytes());
    if (!endStream) {
      channel.write(data, channel.voidPromise());
      return;
    }
    channel.writeAndFlush(data).addListener(f -> {
      if (channel instanceof DuplexChannel duplex && !duplex.isOutputShutdown()) {
        duplex.shutdownOutput();
      }
    });
  }

  /** Trailers have no place in a tunnel: they end its request side. */
  @Override
  public void writeTrailers(HttpHeaders trailers) {
    writeData(Unpooled.EMPTY_BUFFER, true);
  }

  @Override
  public void flush() {
    channel.flush();
  }

  @Override
  public boolean isWritable() {
    return channel.isWritable();
  }

  @Override
  public void pauseReading(boolean paused) {
    channel.config().setAutoRead(!paused);
  }

  @Override
  public void reset() {
    abandoned = true;
    listener = null;
    channel.close();
  }

  // ---- the connection ------------------------------------------------------------------------

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    UpstreamResponseListener l = listener;
    if (!(msg instanceof ByteBuf bytes) || l == null || responseEnded) {
      ReferenceCountUtil.release(msg);
      return;
    }
    cluster.stats().upstreamCxRxBytesTotal.add(bytes.readableBytes());
    l.onResponseData(bytes, false);
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
    if (evt instanceof ChannelInputShutdownEvent) {
      // The host's FIN: the tunnel's response ends, and with it the tunnel (after what was written).
      UpstreamResponseListener l = listener;
      responseEnded = true;
      listener = null;
      if (l != null) {
        l.onResponseData(Unpooled.EMPTY_BUFFER, true);
      }
      ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    UpstreamResponseListener l = listener;
    if (l != null) {
      l.onWritabilityChanged(ctx.channel().isWritable());
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (connected) {
      cluster.limits().releaseConnection();
      cluster.stats().upstreamCxActive.dec();
      cluster.stats().upstreamCxDestroy.inc();
      host.cxActive.decrementAndGet();
    }
    UpstreamResponseListener l = listener;
    listener = null;
    if (l != null && !responseEnded) {
      l.onReset("connection termination");
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
