package io.spillway.central.xds;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Reading the edge credential from the {@code authorization} metadata value. */
class EdgeAuthInterceptorTest {

  @Test
  void bearerCredentialIsRead() {
    assertThat(EdgeAuthInterceptor.bearer("Bearer spe_abc")).isEqualTo("spe_abc");
    assertThat(EdgeAuthInterceptor.bearer("bearer  spe_abc ")).isEqualTo("spe_abc");
  }

  @Test
  void anythingElseIsNoCredential() {
    assertThat(EdgeAuthInterceptor.bearer(null)).isNull();
    assertThat(EdgeAuthInterceptor.bearer("")).isNull();
    assertThat(EdgeAuthInterceptor.bearer("Bearer ")).isNull();
    assertThat(EdgeAuthInterceptor.bearer("Bearer    ")).isNull();
    assertThat(EdgeAuthInterceptor.bearer("Basic dXNlcjpwYXNz")).isNull();
    assertThat(EdgeAuthInterceptor.bearer("spe_abc")).isNull();
  }

  @Test
  void typesAreInMakeBeforeBreakOrder() {
    assertThat(XdsType.ORDERED).containsExactly(XdsType.CLUSTER, XdsType.ENDPOINT, XdsType.LISTENER, XdsType.ROUTE);
    assertThat(XdsType.ofUrl("type.googleapis.com/spillway.policy.v1.OverloadPolicy")).isEqualTo(XdsType.OVERLOAD_POLICY);
    assertThat(XdsType.ofUrl("type.googleapis.com/unknown")).isNull();
  }
}
