package io.spillway.edge.xds;

import static io.spillway.edge.xds.XdsFixtures.CDS;
import static io.spillway.edge.xds.XdsFixtures.sotw;
import static io.spillway.edge.xds.XdsFixtures.staticCluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.spillway.edge.config.BootstrapLoader;
import io.spillway.edge.config.ConfigException;
import io.spillway.edge.config.DynamicResourcesTranslator;
import io.spillway.edge.config.XdsClientConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** TLS to the xDS server, configured through {@code google_grpc.channel_credentials.ssl_credentials}. */
class AdsClientTlsIT extends AdsClientIT {

  private Path[] selfSigned() throws Exception {
    Path cert = dir.resolve("cert.pem");
    Path key = dir.resolve("key.pem");
    Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-days", "2",
        "-keyout", key.toString(), "-out", cert.toString())
        .redirectErrorStream(true).redirectOutput(dir.resolve("openssl.log").toFile()).start();
    assertThat(openssl.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(openssl.exitValue()).as(Files.readString(dir.resolve("openssl.log"))).isZero();
    return new Path[] {cert, key};
  }

  private XdsClientConfig translate(String sslCredentials, int port) throws ConfigException {
    Bootstrap bootstrap = BootstrapLoader.parse("""
        node: {id: edge-1}
        dynamic_resources:
          ads_config:
            api_type: GRPC
            grpc_services:
            - google_grpc:
                target_uri: "127.0.0.1:%d"
                channel_credentials: {ssl_credentials: %s}
          cds_config: {ads: {}}
          lds_config: {ads: {}}
        """.formatted(port, sslCredentials), BootstrapLoader.Format.YAML);
    return DynamicResourcesTranslator.translate(bootstrap, Map.of(), Optional.empty()).orElseThrow();
  }

  @Test
  void talksToATlsServerWhoseCertificateItTrusts() throws Exception {
    Path[] pem = selfSigned();
    server = ScriptedAdsServer.startTls(pem[0], pem[1]);
    XdsClientConfig config = translate("{root_certs: {filename: \"" + pem[0] + "\"}}", server.port())
        .withBackoff(Duration.ofMillis(20), Duration.ofMillis(200));
    assertThat(config.servers().get(0).tls()).isPresent();
    assertThat(config.servers().get(0).tls().get().toString()).doesNotContain("PRIVATE");
    client = XdsFixtures.client(config, sink, stats);
    client.start();

    server.awaitSotw(0, r -> r.getTypeUrl().equals(CDS));
    server.send(sotw(CDS, "c1", "n1", staticCluster("local", 9)));

    assertThat(sink.await(XdsResourceType.CLUSTER, a -> true).names()).isEqualTo(List.of("local"));
  }

  @Test
  void rejectsMaterialThatCannotBeRead() {
    assertThatThrownBy(() -> translate("{root_certs: {filename: \"" + dir.resolve("missing.pem") + "\"}}", 1))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("dynamic_resources.ads_config.grpc_services[0].google_grpc.channel_credentials"
            + ".ssl_credentials.root_certs.filename: cannot read ");
    assertThatThrownBy(() -> translate("{root_certs: {inline_string: \"not a certificate\"}}", 1))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("dynamic_resources.ads_config.grpc_services[0].google_grpc.channel_credentials"
            + ".ssl_credentials.root_certs: holds no");
    assertThatThrownBy(() -> translate("{cert_chain: {inline_string: \"x\"}}", 1))
        .isInstanceOf(ConfigException.class)
        .hasMessageEndingWith("ssl_credentials: cert_chain and private_key go together");
  }
}
