package io.spillway.central.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

class PasswordHasherTest {

  // A low cost keeps the unit test fast; the format and logic are the same as at 600,000.
  private final PasswordHasher hasher = new PasswordHasher(new Secrets(new SecureRandom()), 1000);

  @Test
  void verifiesTheRightPasswordOnly() {
    String hash = hasher.hash("correct horse battery staple");
    assertThat(hash).startsWith("pbkdf2-sha256$1000$").doesNotContain("correct");
    assertThat(hasher.verify("correct horse battery staple", hash)).isTrue();
    assertThat(hasher.verify("correct horse battery stapler", hash)).isFalse();
  }

  @Test
  void saltsEveryHash() {
    assertThat(hasher.hash("same password")).isNotEqualTo(hasher.hash("same password"));
  }

  @Test
  void missingOrMalformedHashNeverVerifies() {
    assertThat(hasher.verify("anything", null)).isFalse();
    assertThat(hasher.verify("anything", "plain")).isFalse();
    assertThat(hasher.verify("anything", "pbkdf2-sha256$x$a$b")).isFalse();
  }

  @Test
  void defaultCostFollowsOwaspForPbkdf2Sha256() {
    assertThat(PasswordHasher.DEFAULT_ITERATIONS).isGreaterThanOrEqualTo(600_000);
  }
}
