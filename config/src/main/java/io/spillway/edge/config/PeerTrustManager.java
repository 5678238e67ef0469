package io.spillway.edge.config;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Verifies a peer's certificate as Envoy's default certificate validator does, for one side: a
 * cluster's (it checks servers) or a listener's (it checks clients). In order, each refusal
 * reported to {@link Failures} (the {@code ssl.} stats) and failing the handshake: the chain
 * against the trusted CAs ({@code fail_verify_error}; skipped without CAs), the leaf's SANs
 * against the matchers ({@code fail_verify_san}; skipped without matchers), then the leaf's
 * SHA-256 against {@code verify_certificate_hash} or its SPKI's against {@code
 * verify_certificate_spki} ({@code fail_verify_cert_hash}; skipped when both are empty). Built
 * once per context, off the hot path; a handshake only reads it.
 */
public final class PeerTrustManager extends X509ExtendedTrustManager {

  /**
   * Where the refusals are counted.
   *
   * @param verifyError the chain does not lead to a trusted CA
   * @param sanMismatch no SAN matched
   * @param hashMismatch neither hash list holds the certificate's
   */
  public record Failures(Runnable verifyError, Runnable sanMismatch, Runnable hashMismatch) {}

  /** Which peer this trust manager checks. */
  private enum Peer { SERVER, CLIENT }

  private final Peer peer;
  private final X509ExtendedTrustManager ca;
  private final List<SanMatcher> matchers;
  private final List<String> certificateSha256;
  private final List<String> spkiSha256;
  private final Failures failures;

  private PeerTrustManager(Peer peer, X509ExtendedTrustManager ca, List<SanMatcher> matchers,
      List<String> certificateSha256, List<String> spkiSha256, Failures failures) {
    this.peer = peer;
    this.ca = ca;
    this.matchers = List.copyOf(matchers);
    this.certificateSha256 = List.copyOf(certificateSha256);
    this.spkiSha256 = List.copyOf(spkiSha256);
    this.failures = failures;
  }

  /** A cluster's: the server's chain against {@code trustedCa}, then its SANs. */
  public static PeerTrustManager forServers(PemData trustedCa, List<SanMatcher> matchers, Failures failures)
      throws IOException, GeneralSecurityException {
    return new PeerTrustManager(Peer.SERVER, caTrustManager(trustedCa), matchers, List.of(), List.of(), failures);
  }

  /** A listener's: a client certificate as {@code validation} says. */
  public static PeerTrustManager forClients(CertificateValidation validation, Failures failures)
      throws IOException, GeneralSecurityException {
    X509ExtendedTrustManager ca = validation.trustedCa().isEmpty() ? null : caTrustManager(validation.trustedCa().get());
    return new PeerTrustManager(Peer.CLIENT, ca, validation.subjectAltNames(), validation.certificateSha256(),
        validation.spkiSha256(), failures);
  }

  /** The JDK's PKIX trust manager over the CA certificates of {@code pem}. */
  private static X509ExtendedTrustManager caTrustManager(PemData pem) throws IOException, GeneralSecurityException {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    int i = 0;
    try (InputStream in = pem.open()) {
      for (java.security.cert.Certificate cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        store.setCertificateEntry("ca-" + i++, cert);
      }
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

  /** The CA's verdict, one of the three forms. */
  private interface Check {
    void run() throws CertificateException;
  }

  private void verify(Peer side, Check check, X509Certificate[] chain) throws CertificateException {
    if (side != peer) {
      throw new CertificateException("this trust manager checks " + peer.name().toLowerCase(java.util.Locale.ROOT)
          + " certificates only");
    }
    if (chain == null || chain.length == 0) {
      throw new CertificateException("no certificate");
    }
    if (ca != null) {
      try {
        check.run();
      } catch (CertificateException e) {
        failures.verifyError().run();
        throw e;
      }
    }
    X509Certificate leaf = chain[0];
    if (!matchers.isEmpty() && !SanMatcher.anyMatches(leaf, matchers)) {
      failures.sanMismatch().run();
      throw new CertificateException("no subject alternative name of the " + peer.name().toLowerCase(java.util.Locale.ROOT)
          + " certificate matches");
    }
    if ((!certificateSha256.isEmpty() || !spkiSha256.isEmpty()) && !hashMatches(leaf)) {
      failures.hashMismatch().run();
      throw new CertificateException("the certificate's hash matches neither verify_certificate_hash nor"
          + " verify_certificate_spki");
    }
  }

  private boolean hashMatches(X509Certificate leaf) throws CertificateException {
    return certificateSha256.contains(sha256(leaf.getEncoded()))
        || spkiSha256.contains(sha256(leaf.getPublicKey().getEncoded()));
  }

  /** Lower-case hex SHA-256, the form {@link CertificateValidation} holds. */
  static String sha256(byte[] der) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(der));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    verify(Peer.SERVER, () -> ca.checkServerTrusted(chain, authType, engine), chain);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    verify(Peer.SERVER, () -> ca.checkServerTrusted(chain, authType, socket), chain);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    verify(Peer.SERVER, () -> ca.checkServerTrusted(chain, authType), chain);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    verify(Peer.CLIENT, () -> ca.checkClientTrusted(chain, authType, engine), chain);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    verify(Peer.CLIENT, () -> ca.checkClientTrusted(chain, authType, socket), chain);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    verify(Peer.CLIENT, () -> ca.checkClientTrusted(chain, authType), chain);
  }

  /** The CAs named in a server's certificate request; none without CAs (any issuer is accepted). */
  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return ca == null ? new X509Certificate[0] : ca.getAcceptedIssuers();
  }
}
