package io.spillway.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.util.JsonFormat;
import io.envoyproxy.envoy.config.core.v3.DataSource;
import io.envoyproxy.envoy.config.core.v3.TransportSocket;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CommonTlsContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.GenericSecret;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.TlsCertificate;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.TlsSessionTicketKeys;
import org.junit.jupiter.api.Test;

class SecretRedactorTest {
  private final SecretRedactor redactor = new SecretRedactor(JsonFormat.TypeRegistry.newBuilder()
      .add(DownstreamTlsContext.getDescriptor()).build());

  @Test
  void redactsEveryInlineFormOfASensitiveDataSource() {
    TlsCertificate cert = TlsCertificate.newBuilder()
        .setCertificateChain(DataSource.newBuilder().setInlineString("public chain"))
        .setPrivateKey(DataSource.newBuilder().setInlineBytes(ByteString.copyFromUtf8("key bytes")))
        .setPassword(DataSource.newBuilder().setEnvironmentVariable("KEY_PASSWORD"))
        .build();

    TlsCertificate redacted = redactor.redact(cert);

    assertThat(redacted.getCertificateChain().getInlineString()).isEqualTo("public chain");
    assertThat(redacted.getPrivateKey().getInlineBytes().toStringUtf8()).isEqualTo("[redacted]");
    assertThat(redacted.getPassword().getEnvironmentVariable()).isEqualTo("[redacted]");
  }

  @Test
  void redactsSessionTicketKeysAndGenericSecrets() {
    TlsSessionTicketKeys keys = TlsSessionTicketKeys.newBuilder()
        .addKeys(DataSource.newBuilder().setInlineBytes(ByteString.copyFromUtf8("ticket key")))
        .build();
    GenericSecret secret = GenericSecret.newBuilder()
        .setSecret(DataSource.newBuilder().setInlineString("hmac"))
        .build();

    assertThat(redactor.redact(keys).getKeys(0).getInlineBytes().toStringUtf8()).isEqualTo("[redacted]");
    assertThat(redactor.redact(secret).getSecret().getInlineString()).isEqualTo("[redacted]");
  }

  @Test
  void redactsAJwtProvidersLocalJwksWhichMayHoldHmacSecrets() {
    var provider = io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.JwtProvider.newBuilder()
        .setIssuer("https://issuer.example")
        .setLocalJwks(DataSource.newBuilder().setInlineString("{\"keys\":[{\"kty\":\"oct\",\"k\":\"c2VjcmV0\"}]}"))
        .build();
    var redacted = redactor.redact(provider);
    assertThat(redacted.getLocalJwks().getInlineString()).isEqualTo("[redacted]");
    assertThat(redacted.getIssuer()).isEqualTo("https://issuer.example");
  }

  @Test
  void looksInsideAnyAndKeepsItsTypeUrl() throws Exception {
    DownstreamTlsContext tls = DownstreamTlsContext.newBuilder()
        .setCommonTlsContext(CommonTlsContext.newBuilder()
            .addTlsCertificates(TlsCertificate.newBuilder()
                .setPrivateKey(DataSource.newBuilder().setInlineString("secret key"))))
        .build();
    TransportSocket socket = TransportSocket.newBuilder().setName("envoy.transport_sockets.tls")
        .setTypedConfig(Any.pack(tls)).build();

    TransportSocket redacted = redactor.redact(socket);

    assertThat(redacted.getTypedConfig().getTypeUrl()).isEqualTo(socket.getTypedConfig().getTypeUrl());
    DownstreamTlsContext inner = redacted.getTypedConfig().unpack(DownstreamTlsContext.class);
    assertThat(inner.getCommonTlsContext().getTlsCertificates(0).getPrivateKey().getInlineString())
        .isEqualTo("[redacted]");
  }

  @Test
  void leavesMessagesWithoutSecretsEqual() {
    TlsCertificate cert = TlsCertificate.newBuilder()
        .setCertificateChain(DataSource.newBuilder().setFilename("/etc/cert.pem"))
        .setPrivateKey(DataSource.newBuilder().setFilename("/etc/key.pem"))
        .build();

    assertThat(redactor.redact(cert)).isEqualTo(cert);
  }
}
