package io.spillway.edge.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** A self-signed certificate for 127.0.0.1 made with openssl, and what the tests need around it. */
record TestTls(Path certificate, Path key) {

  /** Writes cert.pem and key.pem into {@code dir}. */
  static TestTls selfSigned(Path dir) {
    TestTls tls = new TestTls(dir.resolve("cert.pem"), dir.resolve("key.pem"));
    CommandLineTool openssl = CommandLineTool.require("openssl", "openssl");
    CommandLineTool.Result generated = openssl.run(Duration.ofSeconds(60), "req", "-x509", "-newkey", "rsa:2048",
        "-nodes", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-days", "2",
        "-keyout", tls.key().toString(), "-out", tls.certificate().toString());
    assertThat(generated.exitCode()).as(generated.toString()).isZero();
    return tls;
  }

  /** The filter chain's {@code transport_socket} value (YAML at indent 0), offering h2 and http/1.1. */
  String transportSocket() {
    return """
        name: envoy.transport_sockets.tls
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext
          common_tls_context:
            alpn_protocols: ["h2", "http/1.1"]
            tls_certificates:
            - certificate_chain: { filename: "%s" }
              private_key: { filename: "%s" }
        """.formatted(certificate, key);
  }

  /** A client context that trusts exactly this certificate. */
  SSLContext trustingClient() throws Exception {
    KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(certificate)) {
      X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
      trust.setCertificateEntry("edge", cert);
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    return context;
  }
}
