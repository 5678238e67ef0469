package io.spillway.edge.filters.router;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Envoy's shadow authority: {@code -shadow} after the host, before a port. */
class ShadowAuthorityTest {

  @Test
  void insertsTheSuffixBeforeThePort() {
    assertThat(ShadowRequest.shadowAuthority("api.example")).isEqualTo("api.example-shadow");
    assertThat(ShadowRequest.shadowAuthority("api.example:8080")).isEqualTo("api.example-shadow:8080");
    assertThat(ShadowRequest.shadowAuthority("127.0.0.1:80")).isEqualTo("127.0.0.1-shadow:80");
  }
}
