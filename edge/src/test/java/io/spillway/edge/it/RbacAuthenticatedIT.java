package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.TestPem;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RBAC's {@code authenticated} principal on a TLS listener that asks for (but does not require) a
 * client certificate, over HTTP/1.1 and HTTP/2 (ALPN): a client whose certificate names the
 * principal reaches the origin, one without a certificate gets 403 and never does.
 */
class RbacAuthenticatedIT {

  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC";

  private OriginServer upstream;
  private EdgeHarness edge;

  @BeforeEach
  void start() throws Exception {
    upstream = OriginServer.start("upstream");
    String tls = """
        transport_socket:
          name: envoy.transport_sockets.tls
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext
            require_client_certificate: false
            common_tls_context:
              alpn_protocols: [h2, http/1.1]
              tls_certificates:
              - certificate_chain: {filename: "%s"}
                private_key: {filename: "%s"}
              validation_context:
                trusted_ca: {filename: "%s"}
        """.formatted(TestPem.certificate("server"), TestPem.key("server"), TestPem.certificate("client"));
    String yaml = EdgeHarness.bootstrap("", """
        - match: { prefix: "/" }
          route: { cluster: upstream, timeout: 10s }
        """, cluster("upstream", "", upstream.port())).replace("    filter_chains:\n    - filters:",
        "    filter_chains:\n    - " + EdgeHarness.indent(tls, 6).stripLeading() + "\n      filters:");
    edge = EdgeHarness.start(EdgeHarness.withHttpFilterBeforeRouter(yaml, """
        - name: envoy.filters.http.rbac
          typed_config:
            "@type": %s
            rules:
              action: ALLOW
              policies:
                clients:
                  permissions: [ { any: true } ]
                  principals:
                  - authenticated: { principal_name: { exact: edge-client } }
        """.formatted(TYPE)));
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    upstream.close();
  }

  private static SSLContext client(boolean withCertificate) throws Exception {
    SslContextBuilder b = SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
        .trustManager(TestPem.certificate("server").toFile());
    if (withCertificate) {
      b.keyManager(TestPem.certificate("client").toFile(), TestPem.key("client").toFile());
    }
    return ((JdkSslContext) b.build()).context();
  }

  private HttpResponse<String> get(boolean withCertificate, HttpClient.Version version) throws Exception {
    HttpClient client = HttpClient.newBuilder().sslContext(client(withCertificate)).version(version)
        .connectTimeout(Duration.ofSeconds(5)).build();
    try {
      return client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + edge.port() + "/who"))
          .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    } finally {
      client.close();
    }
  }

  @Test
  void theClientCertificatesNameIsThePrincipalOverHttp1AndHttp2() throws Exception {
    HttpResponse<String> h1 = get(true, HttpClient.Version.HTTP_1_1);
    assertThat(h1.statusCode()).isEqualTo(200);
    assertThat(h1.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
    HttpResponse<String> h2 = get(true, HttpClient.Version.HTTP_2);
    assertThat(h2.statusCode()).isEqualTo(200);
    assertThat(h2.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(upstream.requestCount()).isEqualTo(2);

    HttpResponse<String> anonymous = get(false, HttpClient.Version.HTTP_1_1);
    assertThat(anonymous.statusCode()).isEqualTo(403);
    assertThat(anonymous.body()).isEqualTo("RBAC: access denied");
    HttpResponse<String> anonymousH2 = get(false, HttpClient.Version.HTTP_2);
    assertThat(anonymousH2.statusCode()).isEqualTo(403);
    assertThat(upstream.requestCount()).isEqualTo(2);
    assertThat(edge.awaitStat("http.ingress.rbac.denied", 2)).isEqualTo(2);
    assertThat(edge.stat("http.ingress.rbac.allowed")).isEqualTo(2);
  }
}
