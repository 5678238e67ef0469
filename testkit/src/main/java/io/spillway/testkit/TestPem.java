package io.spillway.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The self-signed test certificates under {@code src/main/resources/tls} (EC P-256, valid for
 * 100 years): {@code server} (CN backend.test; SANs DNS backend.test, DNS *.wild.test, IP
 * 127.0.0.1, URI spiffe://test/backend), {@code other} (CN other.test; DNS other.test, IP
 * 127.0.0.1) and {@code client} (CN edge-client). Each is its own CA.
 *
 * <p>Configuration takes them as file names: when the testkit is a jar (a reactor build past
 * {@code package}), each call copies the file into a new temporary directory, deleted at exit.
 */
public final class TestPem {
  private TestPem() {}

  /** The certificate file, e.g. {@code certificate("server")}. */
  public static Path certificate(String name) {
    return file("/tls/" + name + ".pem");
  }

  /** The private key file of a certificate. */
  public static Path key(String name) {
    return file("/tls/" + name + "-key.pem");
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

  /** Each resource's file, made once per JVM: tests compare the paths that configurations name. */
  private static final java.util.Map<String, Path> FILES = new java.util.concurrent.ConcurrentHashMap<>();

  private static Path file(String resource) {
    return FILES.computeIfAbsent(resource, TestPem::extract);
  }

  private static Path extract(String resource) {
    URL url = TestPem.class.getResource(resource);
    if (url == null) {
      throw new IllegalArgumentException("no test certificate " + resource);
    }
    try {
      if (url.getProtocol().equals("file")) {
        return Path.of(url.toURI());
      }
      Path dir = Files.createTempDirectory("spillway-test-pem");
      Path file = dir.resolve(resource.substring(resource.lastIndexOf('/') + 1));
      try (InputStream in = url.openStream()) {
        Files.copy(in, file);
      }
      dir.toFile().deleteOnExit(); // registered first, so deleted after the file
      file.toFile().deleteOnExit();
      return file;
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
