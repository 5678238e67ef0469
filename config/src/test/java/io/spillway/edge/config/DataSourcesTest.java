package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.envoyproxy.envoy.config.core.v3.DataSource;
import io.spillway.testkit.TestPem;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DataSourcesTest {
  private static final FieldPath PATH = new FieldPath("tls.private_key");
  private final DataSources sources = new DataSources(Map.of("EDGE_KEY", "pem text", "EMPTY", ""));

  private static PemData bytes(String text) {
    return new PemData("any", text.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void readsEveryKindOfSource() throws ConfigException {
    assertThat(sources.read(DataSource.newBuilder().setInlineString("pem text").build(), PATH))
        .isEqualTo(bytes("pem text")).hasToString("inline_string (8 bytes)");
    assertThat(sources.read(DataSource.newBuilder().setInlineBytes(ByteString.copyFromUtf8("pem text")).build(), PATH))
        .isEqualTo(bytes("pem text")).hasToString("inline_bytes (8 bytes)");
    assertThat(sources.read(DataSource.newBuilder().setEnvironmentVariable("EDGE_KEY").build(), PATH))
        .isEqualTo(bytes("pem text")).hasToString("environment_variable EDGE_KEY (8 bytes)");
    String file = TestPem.certificate("client").toString();
    assertThat(sources.read(DataSource.newBuilder().setFilename(file).build(), PATH))
        .isEqualTo(bytes(TestPem.text(TestPem.certificate("client"))))
        .hasToString("filename " + file + " (619 bytes)");
  }

  @Test
  void namesTheFieldOfWhatCannotBeRead() {
    assertThatThrownBy(() -> sources.read(DataSource.newBuilder().setEnvironmentVariable("MISSING").build(), PATH))
        .hasMessage("tls.private_key.environment_variable: environment variable MISSING is not set or empty");
    assertThatThrownBy(() -> sources.read(DataSource.newBuilder().setEnvironmentVariable("EMPTY").build(), PATH))
        .hasMessage("tls.private_key.environment_variable: environment variable EMPTY is not set or empty");
    assertThatThrownBy(() -> sources.read(DataSource.newBuilder().setFilename("/nonexistent").build(), PATH))
        .hasMessage("tls.private_key.filename: cannot read /nonexistent: no such file");
    assertThatThrownBy(() -> sources.read(DataSource.newBuilder().setInlineString("").build(), PATH))
        .hasMessage("tls.private_key.inline_string: must not be empty");
    assertThatThrownBy(() -> sources.read(DataSource.getDefaultInstance(), PATH))
        .hasMessage("tls.private_key: one of filename, inline_string, inline_bytes or environment_variable is"
            + " required");
    assertThatThrownBy(() -> sources.read(false, DataSource.getDefaultInstance(), PATH))
        .hasMessage("tls.private_key: private_key is required");
  }
}
