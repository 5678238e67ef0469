package io.spillway.edge.xds;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How a server's {@code control_plane.identifier} says it serves the overload policy. */
class PolicyAdvertisementTest {

  private static final String POLICY = XdsResourceType.OVERLOAD_POLICY.typeUrl();

  @Test
  void theTypeUrlAsOneWordOfTheIdentifierAdvertisesThePolicy() {
    assertThat(AdsClient.advertisesPolicy(POLICY)).isTrue();
    assertThat(AdsClient.advertisesPolicy("spillway-central " + POLICY)).isTrue();
    assertThat(AdsClient.advertisesPolicy("acme-xds/2.1; serves " + POLICY + ", more")).isTrue();
  }

  @Test
  void anythingElseDoesNot() {
    assertThat(AdsClient.advertisesPolicy("")).isFalse();
    assertThat(AdsClient.advertisesPolicy("java-control-plane")).isFalse();
    assertThat(AdsClient.advertisesPolicy("x" + POLICY)).isFalse();
    assertThat(AdsClient.advertisesPolicy(POLICY + "2")).isFalse();
    assertThat(AdsClient.advertisesPolicy("spillway.policy.v1.OverloadPolicy")).isFalse();
  }
}
