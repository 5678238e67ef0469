package io.spillway.edge.upstream;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.NetUtil;
import io.spillway.edge.config.UpstreamTlsConfig;
import io.spillway.edge.config.UpstreamTlsContexts;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * A cluster's TLS towards its hosts (Envoy's {@code UpstreamTlsContext}): the client {@link
 * SslContext} ({@link UpstreamTlsContexts}), built once when the cluster is created (off the hot
 * path), and one {@link
 * SslHandler} per connection, first in the upstream pipeline. Counts, as Envoy, {@code
 * cluster.<name>.ssl.handshake}, {@code ssl.fail_verify_error} (chain refused by the trusted CA),
 * {@code ssl.fail_verify_san} (no SAN matched) and {@code ssl.connection_error} (every other TLS
 * failure: Envoy leaves certificate verification failures out of it).
 *
 * <p>As in Envoy: without a trusted CA the server's certificate is not verified at all; with one
 * the chain is verified but not the host name (only the SAN matchers, when configured); the SNI
 * sent is {@code sni} (or the host's DNS name with {@code auto_host_sni}), none when empty.
 */
final class UpstreamTls {
  private final SslContext context;
  private final String sni;
  private final boolean autoHostSni;
  private final long handshakeTimeoutMillis;
  final Counter handshake;
  final Counter connectionError;
  final Counter failVerifyError;
  final Counter failVerifySan;

  /**
   * @param connectTimeout the cluster's connect timeout, also the longest the handshake may take
   * @param scope {@code cluster.<name>.ssl}
   */
  UpstreamTls(UpstreamTlsConfig config, Duration connectTimeout, Scope scope) {
    this.sni = config.sni();
    this.autoHostSni = config.autoHostSni();
    this.handshakeTimeoutMillis = Math.max(1, connectTimeout.toMillis());
    this.handshake = scope.counter("handshake");
    this.connectionError = scope.counter("connection_error");
    this.failVerifyError = scope.counter("fail_verify_error");
    this.failVerifySan = scope.counter("fail_verify_san");
    this.context = UpstreamTlsContexts.client(config, failVerifyError::inc, failVerifySan::inc);
  }

  /** The handler for a new connection to {@code host}. */
  SslHandler newHandler(ByteBufAllocator allocator, Host host) {
    String name = sni;
    if (autoHostSni && host.hostname() != null && !host.hostname().isEmpty()
        && !NetUtil.isValidIpV4Address(host.hostname()) && !NetUtil.isValidIpV6Address(host.hostname())) {
      name = host.hostname();
    }
    SslHandler handler = name.isEmpty()
        ? context.newHandler(allocator)
        : context.newHandler(allocator, name, host.address().getPort());
    SSLEngine engine = handler.engine();
    SSLParameters params = engine.getSSLParameters();
    // Exactly the configured name (the JDK would leave out names without a dot) or none at all.
    params.setServerNames(name.isEmpty() ? List.of() : List.of(new SNIHostName(name)));
    engine.setSSLParameters(params);
    handler.setHandshakeTimeoutMillis(handshakeTimeoutMillis);
    return handler;
  }

  /**
   * Counts TLS errors after the handshake as {@code ssl.connection_error} (in TLS 1.3 a server
   * refuses a missing or bad client certificate only once the client finished its handshake);
   * sits right after the {@link SslHandler}. Errors during the handshake stop here: the handshake
   * future carries them to the pool, the SslHandler closes the channel, and no protocol handler
   * is in the pipeline yet (they would otherwise reach its tail and be logged per connection).
   */
  @io.netty.channel.ChannelHandler.Sharable
  final class ErrorCounter extends io.netty.channel.ChannelInboundHandlerAdapter {
    @Override
    public void exceptionCaught(io.netty.channel.ChannelHandlerContext ctx, Throwable cause) {
      SslHandler tls = ctx.pipeline().get(SslHandler.class);
      if (tls == null || !tls.handshakeFuture().isSuccess()) {
        return;
      }
      if (causedBySsl(cause)) {
        connectionError.inc();
      }
      ctx.fireExceptionCaught(cause);
    }

    private static boolean causedBySsl(Throwable cause) {
      for (Throwable t = cause; t != null; t = t.getCause()) {
        if (t instanceof javax.net.ssl.SSLException) {
          return true;
        }
      }
      return false;
    }
  }

  /** Counts a failed handshake: a verification failure was counted by the trust manager already. */
  void handshakeFailed(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof java.security.cert.CertificateException) {
        return;
      }
    }
    connectionError.inc();
  }

  /** The one {@link ErrorCounter} of this cluster. */
  final ErrorCounter errorCounter = new ErrorCounter();
}
