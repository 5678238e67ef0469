package io.spillway.edge.server;

import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.spillway.edge.config.ListenerConfig;
import java.io.File;
import java.util.List;
import javax.net.ssl.SSLException;

/** Builds a listener's server TLS context (PEM chain and key, ALPN) at start-up, off the hot path. */
final class TlsContexts {
  private TlsContexts() {}

  static SslContext server(ListenerConfig.TlsContext tls) throws SSLException {
    SslContextBuilder b = SslContextBuilder.forServer(new File(tls.certificateChainPath()), new File(tls.privateKeyPath()));
    List<String> alpn = tls.alpnProtocols();
    if (!alpn.isEmpty()) {
      b.applicationProtocolConfig(new ApplicationProtocolConfig(
          ApplicationProtocolConfig.Protocol.ALPN,
          ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
          ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
          alpn));
    }
    return b.build();
  }
}
