package io.spillway.edge.admission;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TierTest {

  @Test
  void readsRouteMetadata() {
    assertThat(Tier.fromMetadata("start")).isEqualTo(Tier.START);
    assertThat(Tier.fromMetadata("continuation")).isEqualTo(Tier.CONTINUATION);
    assertThat(Tier.fromMetadata("proxy")).isEqualTo(Tier.PROXY);
    assertThat(Tier.fromMetadata("exempt")).isEqualTo(Tier.EXEMPT);
  }

  @Test
  void unclassifiedIsProxy() {
    assertThat(Tier.fromMetadata(null)).isEqualTo(Tier.PROXY);
    assertThat(Tier.fromMetadata("")).isEqualTo(Tier.PROXY);
    assertThat(Tier.fromMetadata("START")).isEqualTo(Tier.PROXY);
    assertThat(Tier.fromMetadata("vip")).isEqualTo(Tier.PROXY);
  }

  @Test
  void namesMatchTheMetadataSpelling() {
    for (Tier tier : Tier.values()) {
      assertThat(Tier.fromMetadata(tier.metadataName())).isEqualTo(tier);
    }
    assertThat(Tier.METADATA_KEY).isEqualTo("spillway.admission.tier");
  }
}
