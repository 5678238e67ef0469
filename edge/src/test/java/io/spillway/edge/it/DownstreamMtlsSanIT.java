package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.TestCa;
import io.spillway.testkit.TestPem;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client certificate SAN matching on a TLS listener (Envoy's mTLS double proxy shape:
 * {@code require_client_certificate}, {@code trusted_ca} and {@code match_typed_subject_alt_names}),
 * through a real edge to a real origin on 127.0.0.1, with client certificates issued by one CA at
 * test time: a matching SAN reaches the origin, another SAN of the same CA fails the handshake,
 * is counted in {@code ssl.fail_verify_san}, and nothing reaches the origin; the legacy
 * {@code match_subject_alt_names} likewise.
 */
class DownstreamMtlsSanIT {

  private static final String LISTENER = "listener.127.0.0.1_0"; // stats name the configured address

  @TempDir
  Path dir;

  private TestCa ca;
  private TestCa.Issued frontend;
  private TestCa.Issued intruder;
  private OriginServer upstream;
  private EdgeHarness edge;

  @BeforeEach
  void start() {
    ca = TestCa.create(dir, "ca");
    frontend = ca.issue("frontend", "DNS:proxy-postgres-frontend.example.com");
    intruder = ca.issue("intruder", "DNS:intruder.example.com", "URI:spiffe://example.com/intruder");
    upstream = OriginServer.start("upstream");
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    upstream.close();
  }

  private void startEdge(String requireClient, String matchers) throws Exception {
    String tls = """
        transport_socket:
          name: envoy.transport_sockets.tls
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext
            %s
            common_tls_context:
              tls_certificates:
              - certificate_chain: {filename: "%s"}
                private_key: {filename: "%s"}
              validation_context:
                trusted_ca: {filename: "%s"}
        %s
        """.formatted(requireClient, TestPem.certificate("server"), TestPem.key("server"), ca.certificate(),
        EdgeHarness.indent(matchers.stripIndent().strip(), 8));
    String yaml = EdgeHarness.bootstrap("", """
        - match: { prefix: "/" }
          route: { cluster: upstream, timeout: 10s }
        """, cluster("upstream", "", upstream.port())).replace("    filter_chains:\n    - filters:",
        "    filter_chains:\n    - " + EdgeHarness.indent(tls, 6).stripLeading() + "\n      filters:");
    edge = EdgeHarness.start(yaml);
  }

  private static SSLContext client(TestCa.Issued certificate) throws Exception {
    SslContextBuilder b = SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
        .trustManager(TestPem.certificate("server").toFile());
    if (certificate != null) {
      b.keyManager(certificate.certificate().toFile(), certificate.key().toFile());
    }
    return ((JdkSslContext) b.build()).context();
  }

  private HttpResponse<String> get(TestCa.Issued certificate, HttpClient.Version version) throws Exception {
    HttpClient client = HttpClient.newBuilder().sslContext(client(certificate)).version(version)
        .connectTimeout(Duration.ofSeconds(5)).build();
    try {
      return client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + edge.port() + "/who"))
          .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    } finally {
      client.close();
    }
  }

  @Test
  void aClientWhoseDnsSanMatchesIsServedAndAnotherOfTheSameCaFailsTheHandshake() throws Exception {
    startEdge("require_client_certificate: true", """
        match_typed_subject_alt_names:
        - san_type: DNS
          matcher: {exact: proxy-postgres-frontend.example.com}
        """);

    HttpResponse<String> ok = get(frontend, HttpClient.Version.HTTP_1_1);
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(upstream.requestCount()).isEqualTo(1);

    assertThatThrownBy(() -> get(intruder, HttpClient.Version.HTTP_1_1)).isInstanceOf(IOException.class);
    // The JDK client may retry a failed handshake once: each attempt is refused and counted.
    long refused = edge.awaitStat(LISTENER + ".ssl.fail_verify_san", 1);
    assertThat(refused).isPositive();
    assertThat(edge.awaitStat(LISTENER + ".ssl.handshake_error", refused)).isEqualTo(refused);
    assertThat(edge.stat(LISTENER + ".ssl.fail_verify_error")).isZero();
    assertThat(upstream.requestCount()).as("nothing reached the origin").isEqualTo(1);

    HttpResponse<String> h2 = get(frontend, HttpClient.Version.HTTP_2);
    assertThat(h2.statusCode()).isEqualTo(200);
    assertThat(upstream.requestCount()).isEqualTo(2);
  }

  @Test
  void theLegacyMatcherTriesEverySanTypeAndMakesACertificateRequired() throws Exception {
    startEdge("", """
        match_subject_alt_names:
        - suffix: -frontend.example.com
        """);

    assertThat(get(frontend, HttpClient.Version.HTTP_1_1).statusCode()).isEqualTo(200);
    assertThatThrownBy(() -> get(intruder, HttpClient.Version.HTTP_1_1)).isInstanceOf(IOException.class);
    long refused = edge.awaitStat(LISTENER + ".ssl.fail_verify_san", 1);
    assertThat(refused).isPositive();
    assertThat(edge.awaitStat(LISTENER + ".ssl.handshake_error", refused)).isEqualTo(refused);
    assertThatThrownBy(() -> get(null, HttpClient.Version.HTTP_1_1))
        .as("Envoy requires a client certificate once SANs are matched").isInstanceOf(IOException.class);
    assertThat(edge.awaitStat(LISTENER + ".ssl.handshake_error", refused + 1)).isGreaterThan(refused);
    assertThat(edge.stat(LISTENER + ".ssl.fail_verify_san")).as("no certificate is no SAN mismatch")
        .isEqualTo(refused);
    assertThat(upstream.requestCount()).isEqualTo(1);
  }

  @Test
  void aUriSanMatcherAcceptsTheCertificateCarryingIt() throws Exception {
    startEdge("require_client_certificate: true", """
        match_typed_subject_alt_names:
        - san_type: DNS
          matcher: {exact: proxy-postgres-frontend.example.com}
        - san_type: URI
          matcher: {prefix: "spiffe://example.com/"}
        """);

    assertThat(get(intruder, HttpClient.Version.HTTP_1_1).statusCode()).as("any matcher may match").isEqualTo(200);
    assertThat(get(frontend, HttpClient.Version.HTTP_1_1).statusCode()).isEqualTo(200);
    assertThat(upstream.requestCount()).isEqualTo(2);
    assertThat(edge.stat(LISTENER + ".ssl.fail_verify_san")).isZero();
  }
}
