package io.spillway.policy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/** The PATCH body from the seed's "Настройка через API" section. */
class SeedExampleTest {

  private static final String PATCH_BODY = """
      {
        "overload": {
          "inbound": {
            "mode": "enforce",
            "adaptive": { "maxLimit": 1536 }
          },
          "outbound": { "mode": "shadow" }
        }
      }
      """;

  @Test
  void theOverloadSectionParsesValidatesAndResolves() {
    JsonNode overload = JsonFixtures.parse(PATCH_BODY).get("overload");
    ParseResult parsed = PolicyJson.parse(overload);
    assertThat(parsed.problems()).isEmpty();
    assertThat(parsed.policy()).isEqualTo(new OverloadPolicy(
        new Inbound(Mode.ENFORCE, null, null, null, null, new Adaptive(null, 1536, null, null, null)),
        new Outbound(Mode.SHADOW, null, null, null, null, null, null)));
    assertThat(PolicyValidator.validate(parsed.policy())).isEmpty();

    EffectivePolicy effective = EffectivePolicy.resolve(parsed.policy(), DeploymentDefaults.builtIn());
    assertThat(effective.inbound()).isEqualTo(new EffectivePolicy.Inbound(Mode.ENFORCE, 256, 0.85, 0.65, 1,
        new EffectivePolicy.Adaptive(16, 1536, 1.5, 0.2, 50)));
    assertThat(effective.inbound().startingLimit()).isEqualTo(256);
    assertThat(effective.outbound()).isEqualTo(new EffectivePolicy.Outbound(Mode.SHADOW, 128, 256, 1000, 10_000,
        new EffectivePolicy.Breaker(false, 0.5, 20, 10, 5, 3), new EffectivePolicy.RetryBudget(0.1, 5)));
    assertThat(effective.sources().entrySet())
        .filteredOn(e -> e.getValue() == Source.POLICY)
        .extracting(e -> e.getKey().path())
        .containsExactly("inbound.mode", "inbound.adaptive.maxLimit", "outbound.mode");
    assertThat(effective.sources().values()).containsOnly(Source.POLICY, Source.BUILT_IN);
  }

  @Test
  void itIsWrittenBackAsSent() {
    JsonNode overload = JsonFixtures.parse(PATCH_BODY).get("overload");
    assertThat(PolicyJson.toTree(PolicyJson.parse(overload).policy())).isEqualTo(overload);
  }
}
