package io.spillway.edge.config;

import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.IOException;
import java.security.GeneralSecurityException;

/**
 * Builds the client {@link SslContext} of an {@link UpstreamTlsConfig}, once per cluster, off the
 * hot path: the TLS versions and the ALPN list; without a trusted CA a trust manager that accepts
 * any certificate (Envoy's behaviour without a validation context); with one, chain verification
 * and no host name check (Envoy checks the name only through SAN matchers), then the SAN
 * matchers ({@link PeerTrustManager}, shared with the listeners); the client certificate for mTLS.
 */
public final class UpstreamTlsContexts {
  private UpstreamTlsContexts() {}

  /**
   * @param onVerifyError called when a server certificate chain is refused by the trusted CA (a stat)
   * @param onSanMismatch called when a server certificate is refused for its SANs (a stat)
   */
  public static SslContext client(UpstreamTlsConfig config, Runnable onVerifyError, Runnable onSanMismatch) {
    try {
      SslContextBuilder b = SslContextBuilder.forClient()
          .protocols(config.protocolVersions())
          .endpointIdentificationAlgorithm(null) // Envoy checks SANs only when told to, never the host name
          .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
              ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
              ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, config.alpnProtocols()));
      if (config.trustedCa().isEmpty()) {
        b.trustManager(InsecureTrustManagerFactory.INSTANCE);
      } else {
        b.trustManager(PeerTrustManager.forServers(config.trustedCa().get(), config.subjectAltNames(),
            new PeerTrustManager.Failures(onVerifyError, onSanMismatch, () -> {})));
      }
      if (config.clientCertificate().isPresent()) {
        UpstreamTlsConfig.ClientCertificate client = config.clientCertificate().get();
        b.keyManager(client.certificateChain().open(), client.privateKey().open());
      }
      return b.build();
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      // The translator built one already; this is not expected. The message names no key material.
      throw new IllegalStateException("cannot build the upstream TLS context: " + e.getClass().getSimpleName(), e);
    }
  }
}
