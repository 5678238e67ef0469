package io.spillway.edge.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The self-signed test certificates under {@code src/test/resources/tls} (EC P-256, valid for
 * 100 years): {@code server} (CN backend.test; SANs DNS backend.test, DNS *.wild.test, IP
 * 127.0.0.1, URI spiffe://test/backend), {@code other} (CN other.test; DNS other.test, IP
 * 127.0.0.1) and {@code client} (CN edge-client). Each is its own CA.
 */
public final class TestPem {
  private TestPem() {}

  /** The certificate file, e.g. {@code certificate("server")}. */
  public static Path certificate(String name) {
    return resource("/tls/" + name + ".pem");
  }

  /** The private key file of a certificate. */
  public static Path key(String name) {
    return resource("/tls/" + name + "-key.pem");
  }

  /** A file's content, for inline_string. */
  public static String text(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The content as a YAML double-quoted string (newlines escaped). */
  public static String yamlString(Path file) {
    return "\"" + text(file).replace("\n", "\\n") + "\"";
  }

  private static Path resource(String name) {
    try {
      return Path.of(TestPem.class.getResource(name).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
