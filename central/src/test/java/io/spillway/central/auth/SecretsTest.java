package io.spillway.central.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SecretsTest {

  @Test
  void hashIsHexSha256() {
    // FIPS 180-2 test vector for "abc"
    assertThat(Secrets.hash("abc")).isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  }

  @Test
  void generatedSecretsCarry256BitsAndDiffer() {
    Secrets secrets = new Secrets(new SecureRandom());
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 100; i++) {
      String token = secrets.generate("spw_");
      assertThat(token).startsWith("spw_").hasSize(4 + 43);
      assertThat(seen.add(token)).isTrue();
    }
  }

  @Test
  void constantTimeEqualsComparesWholeValues() {
    assertThat(Secrets.constantTimeEquals("abc", "abc")).isTrue();
    assertThat(Secrets.constantTimeEquals("abc", "abd")).isFalse();
    assertThat(Secrets.constantTimeEquals("abc", null)).isFalse();
  }
}
