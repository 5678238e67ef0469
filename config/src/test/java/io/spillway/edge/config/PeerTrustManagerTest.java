package io.spillway.edge.config;

import static io.spillway.edge.config.SanMatcherTest.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spillway.edge.config.Route.StringMatch;
import io.spillway.edge.config.SanMatcher.Type;
import io.spillway.testkit.TestCa;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A listener's client-certificate checks on certificates issued at test time: chain, SANs, hashes, and what is counted. */
class PeerTrustManagerTest {

  @TempDir
  Path dir;

  private TestCa ca;
  private PemData caPem;
  private X509Certificate matching;
  private X509Certificate otherName;
  private X509Certificate foreign;
  private final List<String> counted = new ArrayList<>();
  private final PeerTrustManager.Failures failures = new PeerTrustManager.Failures(
      () -> counted.add("fail_verify_error"), () -> counted.add("fail_verify_san"),
      () -> counted.add("fail_verify_cert_hash"));

  @BeforeEach
  void issue() throws Exception {
    ca = TestCa.create(dir, "ca");
    caPem = new PemData("ca.pem", Files.readAllBytes(ca.certificate()));
    matching = read(ca.issue("frontend", "DNS:proxy-postgres-frontend.example.com").certificate());
    otherName = read(ca.issue("intruder", "DNS:intruder.example.com").certificate());
    foreign = read(TestCa.create(Files.createDirectory(dir.resolve("other")), "other-ca")
        .issue("frontend", "DNS:proxy-postgres-frontend.example.com").certificate());
  }

  private PeerTrustManager clients(List<SanMatcher> sans, List<String> hashes, List<String> spkis) throws Exception {
    return PeerTrustManager.forClients(new CertificateValidation(Optional.of(caPem), sans, hashes, spkis), failures);
  }

  private static final List<SanMatcher> FRONTEND = List.of(
      new SanMatcher(Type.DNS, new StringMatch.Exact("proxy-postgres-frontend.example.com", false)));

  @Test
  void acceptsAClientOfTheCaWhoseSanMatches() throws Exception {
    clients(FRONTEND, List.of(), List.of()).checkClientTrusted(new X509Certificate[] {matching}, "EC");

    assertThat(counted).isEmpty();
  }

  @Test
  void refusesAClientOfTheCaWhoseSansMatchNothing() throws Exception {
    PeerTrustManager tm = clients(FRONTEND, List.of(), List.of());

    assertThatThrownBy(() -> tm.checkClientTrusted(new X509Certificate[] {otherName}, "EC"))
        .isInstanceOf(CertificateException.class)
        .hasMessage("no subject alternative name of the client certificate matches");
    assertThat(counted).containsExactly("fail_verify_san");
  }

  @Test
  void refusesAChainOfAnotherCaBeforeLookingAtItsSans() throws Exception {
    PeerTrustManager tm = clients(FRONTEND, List.of(), List.of());

    assertThatThrownBy(() -> tm.checkClientTrusted(new X509Certificate[] {foreign}, "EC"))
        .isInstanceOf(CertificateException.class);
    assertThat(counted).containsExactly("fail_verify_error");
  }

  @Test
  void acceptsACertificateWhoseHashOrSpkiIsListed() throws Exception {
    String hash = PeerTrustManager.sha256(matching.getEncoded());
    String spki = PeerTrustManager.sha256(matching.getPublicKey().getEncoded());

    clients(List.of(), List.of(hash), List.of()).checkClientTrusted(new X509Certificate[] {matching}, "EC");
    clients(List.of(), List.of(), List.of(spki)).checkClientTrusted(new X509Certificate[] {matching}, "EC");
    clients(List.of(), List.of("00".repeat(32)), List.of(spki))
        .checkClientTrusted(new X509Certificate[] {matching}, "EC");
    assertThat(counted).isEmpty();

    PeerTrustManager tm = clients(FRONTEND, List.of(hash), List.of(spki));
    assertThatThrownBy(() -> tm.checkClientTrusted(new X509Certificate[] {otherName}, "EC"))
        .as("the SANs are checked first").isInstanceOf(CertificateException.class);
    PeerTrustManager hashOnly = clients(List.of(), List.of(hash), List.of(spki));
    assertThatThrownBy(() -> hashOnly.checkClientTrusted(new X509Certificate[] {otherName}, "EC"))
        .isInstanceOf(CertificateException.class);
    assertThat(counted).containsExactly("fail_verify_san", "fail_verify_cert_hash");
  }

  @Test
  void withoutATrustedCaOnlyTheHashIsChecked() throws Exception {
    String hash = PeerTrustManager.sha256(foreign.getEncoded());
    PeerTrustManager tm = PeerTrustManager.forClients(
        new CertificateValidation(Optional.empty(), List.of(), List.of(hash), List.of()), failures);

    tm.checkClientTrusted(new X509Certificate[] {foreign}, "EC");
    assertThatThrownBy(() -> tm.checkClientTrusted(new X509Certificate[] {matching}, "EC"))
        .isInstanceOf(CertificateException.class);
    assertThat(counted).containsExactly("fail_verify_cert_hash");
    assertThat(tm.getAcceptedIssuers()).isEmpty();
  }

  @Test
  void aListenersTrustManagerChecksNoServer() throws Exception {
    PeerTrustManager tm = clients(FRONTEND, List.of(), List.of());

    assertThatThrownBy(() -> tm.checkServerTrusted(new X509Certificate[] {matching}, "EC"))
        .isInstanceOf(CertificateException.class);
  }
}
