package io.spillway.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A certificate authority made at test time in a directory (a JUnit {@code @TempDir}) with the
 * {@code openssl} command, issuing EC P-256 leaf certificates with the SANs a test asks for (for
 * client and server use), their keys PKCS#8 PEM. For tests that need several certificates of one
 * CA, which {@link TestPem}'s self-signed ones are not.
 */
public final class TestCa {
  private final Path dir;
  private final Path certificate;
  private final Path key;

  private TestCa(Path dir, Path certificate, Path key) {
    this.dir = dir;
    this.certificate = certificate;
    this.key = key;
  }

  /** A new CA ({@code CN=<name>}) in {@code dir}. */
  public static TestCa create(Path dir, String name) {
    Path cert = dir.resolve(name + ".pem");
    Path key = dir.resolve(name + "-key.pem");
    openssl(dir, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
        "-keyout", key.toString(), "-out", cert.toString(), "-days", "36500", "-subj", "/CN=" + name);
    return new TestCa(dir, cert, key);
  }

  /** The CA certificate (PEM), for {@code trusted_ca}. */
  public Path certificate() {
    return certificate;
  }

  /** A certificate and its key. */
  public record Issued(Path certificate, Path key) {}

  /**
   * A leaf certificate ({@code CN=<name>}) signed by this CA.
   *
   * @param sans openssl's subjectAltName entries, e.g. {@code "DNS:a.example.com"}, {@code
   *     "URI:spiffe://test/a"}, {@code "IP:127.0.0.1"}, {@code "email:a@example.com"}; none: no
   *     SAN extension
   */
  public Issued issue(String name, String... sans) {
    Path cert = dir.resolve(name + ".pem");
    Path leafKey = dir.resolve(name + "-key.pem");
    Path csr = dir.resolve(name + ".csr");
    Path ext = dir.resolve(name + ".ext");
    List<String> lines = new ArrayList<>(List.of("basicConstraints=CA:FALSE",
        "extendedKeyUsage=serverAuth,clientAuth"));
    if (sans.length > 0) {
      lines.add("subjectAltName=" + String.join(",", sans));
    }
    try {
      Files.write(ext, lines, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    openssl(dir, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
        leafKey.toString(), "-out", csr.toString(), "-subj", "/CN=" + name);
    openssl(dir, "x509", "-req", "-in", csr.toString(), "-CA", certificate.toString(), "-CAkey", key.toString(),
        "-CAcreateserial", "-out", cert.toString(), "-days", "36500", "-extfile", ext.toString());
    return new Issued(cert, leafKey);
  }

  private static void openssl(Path dir, String... args) {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.waitFor() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
