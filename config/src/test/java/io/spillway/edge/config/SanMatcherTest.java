package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.Route.StringMatch;
import io.spillway.edge.config.SanMatcher.Type;
import io.spillway.testkit.TestCa;
import io.spillway.testkit.TestPem;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SAN matching on real certificates: the test server certificate (DNS backend.test, *.wild.test,
 * IP 127.0.0.1, URI spiffe://test/backend) and certificates issued at test time.
 */
class SanMatcherTest {

  @TempDir
  Path dir;

  static X509Certificate read(Path pem) throws Exception {
    try (InputStream in = Files.newInputStream(pem)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  private static boolean matches(X509Certificate cert, Type type, StringMatch match) throws Exception {
    return SanMatcher.anyMatches(cert, List.of(new SanMatcher(type, match)));
  }

  private static boolean matches(Type type, StringMatch match) throws Exception {
    return matches(read(TestPem.certificate("server")), type, match);
  }

  @Test
  void matchesEachSanTypeOnlyAgainstItsOwnNames() throws Exception {
    assertThat(matches(Type.DNS, new StringMatch.Exact("backend.test", false))).isTrue();
    assertThat(matches(Type.DNS, new StringMatch.Suffix(".test", false))).isTrue();
    assertThat(matches(Type.DNS, new StringMatch.Prefix("BACKEND", false))).isFalse();
    assertThat(matches(Type.DNS, new StringMatch.Prefix("BACKEND", true))).isTrue();
    assertThat(matches(Type.DNS, new StringMatch.Regex(Pattern.compile("back[a-z]+\\.test")))).isTrue();
    assertThat(matches(Type.DNS, new StringMatch.Regex(Pattern.compile("back")))).as("a full match").isFalse();
    assertThat(matches(Type.IP_ADDRESS, new StringMatch.Exact("127.0.0.1", false))).isTrue();
    assertThat(matches(Type.DNS, new StringMatch.Exact("127.0.0.1", false))).as("an IP SAN is not DNS").isFalse();
    assertThat(matches(Type.URI, new StringMatch.Prefix("spiffe://test/", false))).isTrue();
    assertThat(matches(Type.URI, new StringMatch.Exact("backend.test", false))).isFalse();
    assertThat(matches(Type.EMAIL, new StringMatch.Contains("@", false))).isFalse();
    assertThat(matches(Type.ANY, new StringMatch.Exact("spiffe://test/backend", false))).isTrue();
    assertThat(matches(Type.ANY, new StringMatch.Exact("127.0.0.1", false))).isTrue();
  }

  @Test
  void aDnsExactMatchIsEnvoysDnsNameMatch() throws Exception {
    assertThat(matches(Type.DNS, new StringMatch.Exact("BACKEND.test", false))).as("DNS names ignore case").isTrue();
    assertThat(matches(Type.DNS, new StringMatch.Exact("a.wild.test", false))).isTrue();
    assertThat(matches(Type.DNS, new StringMatch.Exact("A.WILD.test", false))).isTrue();
    assertThat(matches(Type.DNS, new StringMatch.Exact("a.b.wild.test", false))).isFalse();
    assertThat(matches(Type.DNS, new StringMatch.Exact("wild.test", false))).isFalse();
    assertThat(matches(Type.ANY, new StringMatch.Exact("a.wild.test", false))).as("the legacy form too").isTrue();
    assertThat(matches(Type.DNS, new StringMatch.Suffix("a.wild.test", false)))
        .as("only exact matchers expand wildcards").isFalse();
    assertThat(matches(Type.URI, new StringMatch.Exact("SPIFFE://test/backend", false)))
        .as("URIs keep their case").isFalse();
    // Envoy's own cases (DefaultCertValidatorTest.TestDnsNameMatching).
    assertThat(SanMatcher.dnsNameMatch("a.LYFT.com", "*.lyft.COM")).isTrue();
    assertThat(SanMatcher.dnsNameMatch("alyft.com", "*.lyft.com")).isFalse();
    assertThat(SanMatcher.dnsNameMatch("alyft.com", "*lyft.com")).isFalse();
    assertThat(SanMatcher.dnsNameMatch("", "*lyft.com")).isFalse();
    assertThat(SanMatcher.dnsNameMatch("lyft.com", "")).isFalse();
  }

  @Test
  void anyMatcherMatchingAnySanAcceptsTheCertificate() throws Exception {
    TestCa ca = TestCa.create(dir, "ca");
    X509Certificate cert = read(ca.issue("frontend", "DNS:proxy-postgres-frontend.example.com",
        "email:ops@example.com", "IP:::1").certificate());
    List<SanMatcher> matchers = List.of(
        new SanMatcher(Type.DNS, new StringMatch.Exact("other.example.com", false)),
        new SanMatcher(Type.EMAIL, new StringMatch.Suffix("@example.com", false)));

    assertThat(SanMatcher.anyMatches(cert, matchers)).isTrue();
    assertThat(SanMatcher.anyMatches(cert, matchers.subList(0, 1))).isFalse();
    assertThat(matches(cert, Type.IP_ADDRESS, new StringMatch.Exact("::1", false))).as("RFC 5952 form").isTrue();
    assertThat(matches(cert, Type.DNS, new StringMatch.Exact("proxy-postgres-frontend.example.com", false))).isTrue();
    assertThat(SanMatcher.anyMatches(read(ca.issue("nosans").certificate()), matchers))
        .as("a certificate without SANs matches nothing").isFalse();
  }
}
