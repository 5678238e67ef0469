package io.spillway.edge.config;

import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.NetUtil;
import io.spillway.edge.config.UpstreamTlsConfig.SanMatcher;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Builds the client {@link SslContext} of an {@link UpstreamTlsConfig}, once per cluster, off the
 * hot path: the TLS versions and the ALPN list; without a trusted CA a trust manager that accepts
 * any certificate (Envoy's behaviour without a validation context); with one, chain verification
 * and no host name check (Envoy checks the name only through SAN matchers), then the SAN
 * matchers; the client certificate for mTLS.
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
        X509ExtendedTrustManager ca = trustManager(config.trustedCa().get().open());
        b.trustManager(new VerifyingTrustManager(ca, config.subjectAltNames(), onVerifyError, onSanMismatch));
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

  private static boolean matches(Route.StringMatch match, String value) {
    return switch (match) {
      case Route.StringMatch.Exact e -> e.ignoreCase() ? value.equalsIgnoreCase(e.value()) : value.equals(e.value());
      case Route.StringMatch.Prefix p -> value.regionMatches(p.ignoreCase(), 0, p.value(), 0, p.value().length());
      case Route.StringMatch.Suffix s -> value.length() >= s.value().length()
          && value.regionMatches(s.ignoreCase(), value.length() - s.value().length(), s.value(), 0, s.value().length());
      case Route.StringMatch.Contains c -> c.ignoreCase()
          ? value.toLowerCase(java.util.Locale.ROOT).contains(c.value().toLowerCase(java.util.Locale.ROOT))
          : value.contains(c.value());
      case Route.StringMatch.Regex r -> r.pattern().matcher(value).matches();
      case Route.StringMatch.Present p -> p.present();
    };
  }

  private static X509ExtendedTrustManager trustManager(InputStream pem) throws IOException, GeneralSecurityException {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    int i = 0;
    for (java.security.cert.Certificate cert : CertificateFactory.getInstance("X.509").generateCertificates(pem)) {
      store.setCertificateEntry("ca-" + i++, cert);
    }
    TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    for (TrustManager tm : factory.getTrustManagers()) {
      if (tm instanceof X509ExtendedTrustManager x509) {
        return x509;
      }
    }
    throw new GeneralSecurityException("no X.509 trust manager");
  }

  /** Whether a SAN of {@code cert} satisfies one of {@code matchers}. */
  public static boolean sanMatches(X509Certificate cert, List<SanMatcher> matchers) throws CertificateParsingException {
    Collection<List<?>> sans = cert.getSubjectAlternativeNames();
    if (sans == null) {
      return false;
    }
    for (List<?> san : sans) {
      if (san.size() < 2 || !(san.get(0) instanceof Integer kind) || !(san.get(1) instanceof String value)) {
        continue;
      }
      UpstreamTlsConfig.SanType type = switch (kind) {
        case 1 -> UpstreamTlsConfig.SanType.EMAIL;
        case 2 -> UpstreamTlsConfig.SanType.DNS;
        case 6 -> UpstreamTlsConfig.SanType.URI;
        case 7 -> UpstreamTlsConfig.SanType.IP_ADDRESS;
        default -> null;
      };
      if (type == null) {
        continue;
      }
      if (type == UpstreamTlsConfig.SanType.IP_ADDRESS) {
        value = canonicalIp(value);
      }
      for (SanMatcher m : matchers) {
        if ((m.type() == type || m.type() == UpstreamTlsConfig.SanType.ANY) && matches(m, type, value)) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean matches(SanMatcher m, UpstreamTlsConfig.SanType type, String san) {
    if (matches(m.match(), san)) {
      return true;
    }
    // Envoy's DNS matching: an exact name is covered by a wildcard SAN for its parent (one label).
    if (type == UpstreamTlsConfig.SanType.DNS && san.startsWith("*.")
        && m.match() instanceof Route.StringMatch.Exact exact) {
      int dot = exact.value().indexOf('.');
      return dot > 0 && exact.value().substring(dot).equalsIgnoreCase(san.substring(1));
    }
    return false;
  }

  /** IPv6 SANs in their RFC 5952 form ({@code ::1}), as Envoy prints them. */
  private static String canonicalIp(String ip) {
    byte[] bytes = NetUtil.createByteArrayFromIpAddressString(ip);
    return bytes == null || bytes.length == 4 ? ip : NetUtil.bytesToIpAddress(bytes);
  }

  /**
   * Verifies the chain with the CA trust manager, then (when there are matchers) the leaf's SANs;
   * reports each kind of refusal.
   */
  private static final class VerifyingTrustManager extends X509ExtendedTrustManager {
    private final X509ExtendedTrustManager ca;
    private final List<SanMatcher> matchers;
    private final Runnable failVerifyError;
    private final Runnable failVerifySan;

    VerifyingTrustManager(X509ExtendedTrustManager ca, List<SanMatcher> matchers, Runnable failVerifyError,
        Runnable failVerifySan) {
      this.ca = ca;
      this.matchers = matchers;
      this.failVerifyError = failVerifyError;
      this.failVerifySan = failVerifySan;
    }

    /** The CA's verdict, one of the three forms. */
    private interface Check {
      void run() throws CertificateException;
    }

    private void verify(Check check, X509Certificate[] chain) throws CertificateException {
      try {
        check.run();
      } catch (CertificateException e) {
        failVerifyError.run();
        throw e;
      }
      checkSans(chain);
    }

    private void checkSans(X509Certificate[] chain) throws CertificateException {
      if (matchers.isEmpty()) {
        return;
      }
      if (chain.length == 0 || !sanMatches(chain[0], matchers)) {
        failVerifySan.run();
        throw new CertificateException("no subject alternative name of the server certificate matches");
      }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      verify(() -> ca.checkServerTrusted(chain, authType, engine), chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      verify(() -> ca.checkServerTrusted(chain, authType, socket), chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      verify(() -> ca.checkServerTrusted(chain, authType), chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      throw new CertificateException("a client context checks no client");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      throw new CertificateException("a client context checks no client");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      throw new CertificateException("a client context checks no client");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return ca.getAcceptedIssuers();
    }
  }
}
