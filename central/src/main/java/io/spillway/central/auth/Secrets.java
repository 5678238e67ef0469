package io.spillway.central.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Makes and hashes high-entropy secrets: API tokens, edge credentials, session ids and CSRF
 * tokens. Each is 32 random bytes (256 bits) from an injected {@link SecureRandom}, so a single
 * SHA-256 is the right hash for them: nobody can guess or brute-force 2^256 inputs, so a slow KDF
 * would only cost CPU on every request. Passwords, which people choose, use
 * {@link PasswordHasher} instead.
 */
public final class Secrets {

  private static final int BYTES = 32;

  private final SecureRandom random;

  /** Uses the given random source. */
  public Secrets(SecureRandom random) {
    this.random = Objects.requireNonNull(random, "random");
  }

  /** A new secret with a readable prefix, e.g. {@code spw_…}; URL-safe base64 without padding. */
  public String generate(String prefix) {
    byte[] bytes = new byte[BYTES];
    random.nextBytes(bytes);
    return prefix + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** Random bytes, for salts. */
  byte[] bytes(int count) {
    byte[] bytes = new byte[count];
    random.nextBytes(bytes);
    return bytes;
  }

  /** The stored form of a secret: lower-case hex SHA-256 of its UTF-8 bytes. */
  public static String hash(String secret) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(digest.digest(secret.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  /** Compares two strings in time independent of where they differ. */
  public static boolean constantTimeEquals(String a, String b) {
    if (a == null || b == null) {
      return false;
    }
    return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }
}
