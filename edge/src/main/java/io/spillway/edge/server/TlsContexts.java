package io.spillway.edge.server;

import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.spillway.edge.config.HttpConnectionManagerConfig.CodecType;
import io.spillway.edge.config.ListenerConfig;
import io.spillway.edge.config.PeerTrustManager;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * Builds a filter chain's server TLS context (PEM chain and key read with the configuration, ALPN,
 * client certificate validation, TLS versions and cipher suites) at start-up, off the hot path.
 */
final class TlsContexts {
  private TlsContexts() {}

  /**
   * The ALPN list offered is the configured one restricted to what the connection manager's codec
   * speaks: an HTTP1-only listener never offers h2, an HTTP2-only one never offers http/1.1.
   *
   * @param failures where refused client certificates are counted ({@code listener.<address>.ssl.fail_verify_*})
   */
  static SslContext server(ListenerConfig.TlsContext tls, CodecType codec, PeerTrustManager.Failures failures)
      throws SSLException {
    SslContextBuilder b = SslContextBuilder.forServer(tls.certificateChain().open(), tls.privateKey().open());
    List<String> alpn = tls.alpnProtocols().stream()
        .filter(p -> switch (codec) {
          case AUTO -> true;
          case HTTP1 -> !p.equals(ApplicationProtocolNames.HTTP_2);
          case HTTP2 -> p.equals(ApplicationProtocolNames.HTTP_2);
        })
        .toList();
    if (!alpn.isEmpty()) {
      b.applicationProtocolConfig(new ApplicationProtocolConfig(
          ApplicationProtocolConfig.Protocol.ALPN,
          ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
          ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
          alpn));
    }
    // require_client_certificate (or SAN matchers, or hashes): the handshake fails without a
    // certificate the validation context accepts; trusted CAs alone ask for one and verify it
    // when sent (Envoy).
    if (tls.validation().verifies()) {
      try {
        b.trustManager(PeerTrustManager.forClients(tls.validation(), failures));
      } catch (java.io.IOException | java.security.GeneralSecurityException e) {
        throw new IllegalArgumentException("unusable trusted_ca: " + e.getMessage(), e);
      }
      b.clientAuth(tls.clientCertificateRequired() ? io.netty.handler.ssl.ClientAuth.REQUIRE
          : io.netty.handler.ssl.ClientAuth.OPTIONAL);
    }
    b.protocols(tls.protocols());
    if (!tls.cipherSuites().isEmpty()) {
      b.ciphers(tls.cipherSuites());
    }
    return b.build();
  }
}
