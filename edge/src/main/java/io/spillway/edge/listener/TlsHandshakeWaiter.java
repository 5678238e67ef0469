package io.spillway.edge.listener;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import java.util.function.Consumer;

/**
 * Sits behind the SslHandler of a TLS-terminating TCP proxy chain: once the handshake succeeds it
 * installs the chain's handler and removes itself; a failed handshake is counted
 * ({@code ssl.handshake_error}, or {@code downstream_cx_transport_socket_connect_timeout}) and
 * closes the connection. Decrypted bytes that arrive in the same read as the end of the handshake
 * pass on to the installed handler.
 */
final class TlsHandshakeWaiter extends ChannelInboundHandlerAdapter {
  private final Consumer<ChannelHandlerContext> onHandshake;
  private final ListenerStats stats;

  TlsHandshakeWaiter(Consumer<ChannelHandlerContext> onHandshake, ListenerStats stats) {
    this.onHandshake = onHandshake;
    this.stats = stats;
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof SslHandshakeCompletionEvent done) {
      if (done.isSuccess()) {
        onHandshake.accept(ctx);
        ctx.pipeline().remove(this);
      } else {
        if (done.cause() instanceof SslHandshakeTimeoutException) {
          stats.transportSocketConnectTimeout.inc();
        } else {
          stats.sslHandshakeError.inc();
        }
        ctx.close();
      }
      return;
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close(); // handshake errors arrive as the completion event; anything else ends the connection
  }
}
