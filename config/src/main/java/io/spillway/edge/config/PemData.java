package io.spillway.edge.config;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Certificate or key material (PEM) read from an Envoy {@code DataSource} when the configuration
 * was loaded. Equal when the bytes are; {@link #toString()} tells where the bytes came from and
 * never shows them (a private key must not reach a log).
 */
public final class PemData {
  private final String origin;
  private final byte[] bytes;

  /**
   * @param origin where the bytes came from, for messages: {@code "filename /etc/x.pem"},
   *     {@code "inline_string"}, {@code "environment_variable KEY"}; never the bytes themselves
   */
  public PemData(String origin, byte[] bytes) {
    this.origin = java.util.Objects.requireNonNull(origin, "origin");
    this.bytes = bytes.clone();
  }

  /** The bytes, as a fresh stream. */
  public InputStream open() {
    return new ByteArrayInputStream(bytes);
  }

  /** Where the bytes came from (no content). */
  public String origin() {
    return origin;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PemData other && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return origin + " (" + bytes.length + " bytes)";
  }
}
