package io.spillway.central.auth;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Hashes console passwords with PBKDF2-HMAC-SHA256 from the JDK (no native code, no extra
 * dependency), 600,000 iterations by default as OWASP's password storage guidance recommends for
 * this PRF, a 16-byte random salt and a 32-byte key. The stored form names the algorithm and
 * iteration count ({@code pbkdf2-sha256$600000$salt$key}) so the cost can be raised later without
 * breaking old hashes.
 */
public final class PasswordHasher {

  /** The default cost. */
  public static final int DEFAULT_ITERATIONS = 600_000;

  private static final String ALGORITHM = "PBKDF2WithHmacSHA256";
  private static final String PREFIX = "pbkdf2-sha256";

  private final Secrets secrets;
  private final int iterations;
  private final String dummyHash;

  /**
   * A hasher.
   *
   * @param secrets the salt source
   * @param iterations the cost of new hashes
   */
  public PasswordHasher(Secrets secrets, int iterations) {
    this.secrets = Objects.requireNonNull(secrets, "secrets");
    if (iterations < 1) {
      throw new IllegalArgumentException("iterations must be positive");
    }
    this.iterations = iterations;
    this.dummyHash = hash("not a password of anyone");
  }

  /** The stored form of a password. */
  public String hash(String password) {
    byte[] salt = secrets.bytes(16);
    byte[] key = derive(password, salt, iterations);
    Base64.Encoder base64 = Base64.getEncoder().withoutPadding();
    return PREFIX + "$" + iterations + "$" + base64.encodeToString(salt) + "$" + base64.encodeToString(key);
  }

  /**
   * Whether a password matches a stored hash. With a null hash (unknown operator, or one without a
   * password) a dummy hash is still computed, so timing does not tell which operators exist.
   */
  public boolean verify(String password, String stored) {
    String against = stored != null ? stored : dummyHash;
    String[] parts = against.split("\\$");
    if (parts.length != 4 || !PREFIX.equals(parts[0])) {
      return false;
    }
    int cost;
    try {
      cost = Integer.parseInt(parts[1]);
    } catch (NumberFormatException e) {
      return false;
    }
    Base64.Decoder base64 = Base64.getDecoder();
    byte[] expected = base64.decode(parts[3]);
    byte[] actual = derive(password, base64.decode(parts[2]), cost);
    return MessageDigest.isEqual(expected, actual) && stored != null;
  }

  private static byte[] derive(String password, byte[] salt, int iterations) {
    PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, 256);
    try {
      return SecretKeyFactory.getInstance(ALGORITHM).generateSecret(spec).getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(ALGORITHM + " is part of every JDK", e);
    } finally {
      spec.clearPassword();
    }
  }
}
