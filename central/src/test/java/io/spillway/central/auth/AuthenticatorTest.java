package io.spillway.central.auth;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AuthenticatorTest {

  @Test
  void readsBearerTokens() {
    assertThat(Authenticator.bearerToken("Bearer spw_abc")).contains("spw_abc");
    assertThat(Authenticator.bearerToken("bearer  spw_abc ")).contains("spw_abc");
    assertThat(Authenticator.bearerToken("Basic dXNlcjpwYXNz")).isEmpty();
    assertThat(Authenticator.bearerToken("Bearer ")).isEmpty();
    assertThat(Authenticator.bearerToken("Bearer " + "x".repeat(300))).isEmpty();
  }
}
