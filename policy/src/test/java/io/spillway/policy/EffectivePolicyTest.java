package io.spillway.policy;

import static io.spillway.policy.PolicyField.ADAPTIVE_MAX_LIMIT;
import static io.spillway.policy.PolicyField.ADAPTIVE_MIN_LIMIT;
import static io.spillway.policy.PolicyField.INBOUND_CONTINUATION_SHARE;
import static io.spillway.policy.PolicyField.INBOUND_MAX_IN_FLIGHT;
import static io.spillway.policy.PolicyField.INBOUND_MODE;
import static io.spillway.policy.PolicyField.INBOUND_START_SHARE;
import static io.spillway.policy.PolicyField.OUTBOUND_MAX_CONCURRENT;
import static io.spillway.policy.PolicyField.OUTBOUND_MODE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EffectivePolicyTest {

  private static final DeploymentDefaults ENV = DeploymentDefaults.fromEnvironment(Map.of(
      "HTTP_ADMISSION_MAX_IN_FLIGHT", "512",
      "HTTP_ADMISSION_MODE", "off",
      "HTTP_CLIENT_GUARD_MAX_CONCURRENT", "64"));

  @Test
  void noPolicyIsTheBuiltInDefaults() {
    EffectivePolicy effective = EffectivePolicy.resolve(null, DeploymentDefaults.builtIn());
    assertThat(effective.inbound()).isEqualTo(new EffectivePolicy.Inbound(Mode.SHADOW, 256, 0.85, 0.65, 1,
        new EffectivePolicy.Adaptive(16, 1024, 1.5, 0.2, 50)));
    assertThat(effective.outbound()).isEqualTo(new EffectivePolicy.Outbound(Mode.SHADOW, 128, 256, 1000, 10_000,
        new EffectivePolicy.Breaker(false, 0.5, 20, 10, 5, 3), new EffectivePolicy.RetryBudget(0.1, 5)));
    assertThat(effective.sources()).hasSize(PolicyField.values().length).containsOnlyKeys(PolicyField.values());
    assertThat(effective.sources().values()).containsOnly(Source.BUILT_IN);
    assertThat(EffectivePolicy.resolve(OverloadPolicy.EMPTY, DeploymentDefaults.builtIn())).isEqualTo(effective);
  }

  @Test
  void policyBeatsEnvironmentBeatsBuiltIn() {
    OverloadPolicy policy = OverloadPolicy.of(Map.of(INBOUND_MAX_IN_FLIGHT, 300, OUTBOUND_MODE, Mode.ENFORCE));
    EffectivePolicy effective = EffectivePolicy.resolve(policy, ENV);
    assertThat(effective.inbound().maxInFlight()).isEqualTo(300);
    assertThat(effective.source(INBOUND_MAX_IN_FLIGHT)).isEqualTo(Source.POLICY);
    assertThat(effective.outbound().mode()).isEqualTo(Mode.ENFORCE);
    assertThat(effective.source(OUTBOUND_MODE)).isEqualTo(Source.POLICY);
    assertThat(effective.inbound().mode()).isEqualTo(Mode.OFF);
    assertThat(effective.source(INBOUND_MODE)).isEqualTo(Source.ENVIRONMENT);
    assertThat(effective.outbound().maxConcurrent()).isEqualTo(64);
    assertThat(effective.source(OUTBOUND_MAX_CONCURRENT)).isEqualTo(Source.ENVIRONMENT);
    assertThat(effective.inbound().continuationShare()).isEqualTo(0.85);
    assertThat(effective.source(INBOUND_CONTINUATION_SHARE)).isEqualTo(Source.BUILT_IN);
  }

  @Test
  void aSetFieldDoesNotPinTheOthers() {
    OverloadPolicy policy = OverloadPolicy.of(Map.of(INBOUND_START_SHARE, 0.5));
    EffectivePolicy effective = EffectivePolicy.resolve(policy, ENV);
    EffectivePolicy baseline = EffectivePolicy.resolve(null, ENV);
    assertThat(effective.inbound().startShare()).isEqualTo(0.5);
    assertThat(effective.inbound()).isEqualTo(new EffectivePolicy.Inbound(baseline.inbound().mode(),
        baseline.inbound().maxInFlight(), baseline.inbound().continuationShare(), 0.5,
        baseline.inbound().retryAfterSeconds(), baseline.inbound().adaptive()));
    assertThat(effective.outbound()).isEqualTo(baseline.outbound());
    assertThat(effective.sources().entrySet())
        .filteredOn(e -> e.getValue() == Source.POLICY)
        .extracting(Map.Entry::getKey)
        .containsExactly(INBOUND_START_SHARE);
  }

  @ParameterizedTest(name = "maxInFlight {0} in [{1}, {2}] starts at {3}")
  @CsvSource(textBlock = """
      5000, 16,  1024, 1024
      4,    16,  1024, 16
      300,  16,  1024, 300
      16,   16,  1024, 16
      1024, 16,  1024, 1024
      1,    100, 100,  100
      """)
  void theStartingLimitIsClampedIntoTheLearnedRange(int maxInFlight, int minLimit, int maxLimit, int starting) {
    OverloadPolicy policy = OverloadPolicy.of(Map.of(
        INBOUND_MAX_IN_FLIGHT, maxInFlight, ADAPTIVE_MIN_LIMIT, minLimit, ADAPTIVE_MAX_LIMIT, maxLimit));
    assertThat(PolicyValidator.validate(policy)).isEmpty();
    EffectivePolicy.Inbound inbound = EffectivePolicy.resolve(policy, DeploymentDefaults.builtIn()).inbound();
    assertThat(inbound.maxInFlight()).isEqualTo(maxInFlight);
    assertThat(inbound.startingLimit()).isEqualTo(starting);
  }

  @Test
  void theEnvironmentStartingLimitIsClampedToo() {
    DeploymentDefaults env = DeploymentDefaults.fromEnvironment(Map.of("HTTP_ADMISSION_MAX_IN_FLIGHT", "100000"));
    assertThat(EffectivePolicy.resolve(null, env).inbound().startingLimit()).isEqualTo(1024);
    OverloadPolicy wider = OverloadPolicy.of(Map.of(ADAPTIVE_MAX_LIMIT, 4096));
    assertThat(EffectivePolicy.resolve(wider, env).inbound().startingLimit()).isEqualTo(4096);
  }

  @Test
  void anInvalidPolicyIsNotResolved() {
    OverloadPolicy policy = OverloadPolicy.of(Map.of(INBOUND_START_SHARE, 0.9));
    assertThatThrownBy(() -> EffectivePolicy.resolve(policy, DeploymentDefaults.builtIn()))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessage("inbound.startShare (0.9) must not exceed inbound.continuationShare (0.85)");
    DeploymentDefaults wide = DeploymentDefaults.fromEnvironment(Map.of("HTTP_ADMISSION_CONTINUATION_SHARE", "0.95"));
    assertThat(EffectivePolicy.resolve(policy, wide).inbound().continuationShare()).isEqualTo(0.95);
  }

  @Test
  void sourcesAreImmutable() {
    EffectivePolicy effective = EffectivePolicy.resolve(null, DeploymentDefaults.builtIn());
    assertThatThrownBy(() -> effective.sources().put(INBOUND_MODE, Source.POLICY))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
