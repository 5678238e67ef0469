package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.Route.StringMatch;
import io.spillway.edge.config.UpstreamTlsConfig.SanMatcher;
import io.spillway.edge.config.UpstreamTlsConfig.SanType;
import io.spillway.testkit.TestPem;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** SAN matching against the test server certificate (DNS backend.test, *.wild.test, IP 127.0.0.1, URI). */
class UpstreamTlsContextsTest {

  private static X509Certificate server() throws Exception {
    try (InputStream in = Files.newInputStream(TestPem.certificate("server"))) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  private static boolean matches(SanType type, StringMatch match) throws Exception {
    return UpstreamTlsContexts.sanMatches(server(), List.of(new SanMatcher(type, match)));
  }

  @Test
  void matchesEachSanTypeOnlyAgainstItsOwnNames() throws Exception {
    assertThat(matches(SanType.DNS, new StringMatch.Exact("backend.test", false))).isTrue();
    assertThat(matches(SanType.DNS, new StringMatch.Exact("BACKEND.test", false))).isFalse();
    assertThat(matches(SanType.DNS, new StringMatch.Exact("BACKEND.test", true))).isTrue();
    assertThat(matches(SanType.DNS, new StringMatch.Suffix(".test", false))).isTrue();
    assertThat(matches(SanType.IP_ADDRESS, new StringMatch.Exact("127.0.0.1", false))).isTrue();
    assertThat(matches(SanType.DNS, new StringMatch.Exact("127.0.0.1", false))).as("an IP SAN is not DNS").isFalse();
    assertThat(matches(SanType.URI, new StringMatch.Prefix("spiffe://test/", false))).isTrue();
    assertThat(matches(SanType.URI, new StringMatch.Exact("backend.test", false))).isFalse();
    assertThat(matches(SanType.EMAIL, new StringMatch.Contains("@", false))).isFalse();
    assertThat(matches(SanType.ANY, new StringMatch.Exact("spiffe://test/backend", false))).isTrue();
  }

  @Test
  void anExactDnsNameIsCoveredByAWildcardSanOfOneLabel() throws Exception {
    assertThat(matches(SanType.DNS, new StringMatch.Exact("a.wild.test", false))).isTrue();
    assertThat(matches(SanType.DNS, new StringMatch.Exact("a.b.wild.test", false))).isFalse();
    assertThat(matches(SanType.DNS, new StringMatch.Exact("wild.test", false))).isFalse();
  }
}
