package io.spillway.edge.http.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.TestPem;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The client certificate's names as the RBAC filter reads them: URI and DNS SANs, the RFC 2253 subject. */
class DownstreamTlsTest {

  private static X509Certificate certificate(String name) throws Exception {
    try (InputStream in = Files.newInputStream(TestPem.certificate(name))) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  @Test
  void readsTheSansByKindAndTheSubject() throws Exception {
    DownstreamTls server = DownstreamTls.of(certificate("server"));
    assertThat(server.uriSans()).containsExactly("spiffe://test/backend");
    assertThat(server.dnsSans()).containsExactly("backend.test", "*.wild.test");
    assertThat(server.subject()).isEqualTo("CN=backend.test");
  }

  @Test
  void aCertificateWithoutUriSansHasItsDnsSanAndSubject() throws Exception {
    DownstreamTls client = DownstreamTls.of(certificate("client"));
    assertThat(client.uriSans()).isEmpty();
    assertThat(client.dnsSans()).containsExactly("edge-client");
    assertThat(client.subject()).isEqualTo("CN=edge-client");
    assertThat(new DownstreamTls(List.of(), List.of(), "").subject()).isEmpty();
  }
}
