package io.spillway.policy;

import static io.spillway.policy.PolicyField.ADAPTIVE_MAX_LIMIT;
import static io.spillway.policy.PolicyField.ADAPTIVE_MIN_LIMIT;
import static io.spillway.policy.PolicyField.INBOUND_CONTINUATION_SHARE;
import static io.spillway.policy.PolicyField.INBOUND_MAX_IN_FLIGHT;
import static io.spillway.policy.PolicyField.INBOUND_START_SHARE;
import static io.spillway.policy.PolicyField.OUTBOUND_MAX_QUEUE;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class PolicyValidatorTest {

  static Stream<PolicyField> numericFields() {
    return Arrays.stream(PolicyField.values()).filter(f -> f.type().isNumeric());
  }

  /** One step past a bound: 1 for integers, a small fraction for numbers. */
  private static Object beyond(PolicyField field, Number bound, int direction) {
    if (field.type() == FieldType.INTEGER) {
      return bound.intValue() + direction;
    }
    return bound.doubleValue() + direction * 1e-9;
  }

  /** The value at a bound, with the other field of any cross-field rule set so the rule holds. */
  private static OverloadPolicy atBound(PolicyField field, Number bound) {
    Map<PolicyField, Object> values = new EnumMap<>(PolicyField.class);
    values.put(field, bound);
    for (CrossFieldRule rule : CrossFieldRule.values()) {
      if (rule.lesser() == field) {
        values.put(rule.greater(), rule.greater().max());
      } else if (rule.greater() == field) {
        values.put(rule.lesser(), rule.lesser().min());
      }
    }
    return OverloadPolicy.of(values);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("numericFields")
  void boundsAreInclusive(PolicyField field) {
    assertThat(PolicyValidator.validate(atBound(field, field.min()))).isEmpty();
    assertThat(PolicyValidator.validate(atBound(field, field.max()))).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("numericFields")
  void justOutsideEitherBoundIsOneProblemWithTheRangeMessage(PolicyField field) {
    for (Object value : List.of(beyond(field, field.min(), -1), beyond(field, field.max(), +1))) {
      assertThat(PolicyValidator.validate(OverloadPolicy.of(Map.of(field, value))))
          .as("%s = %s", field.path(), value)
          .containsExactly(new Problem(field.path(), field.rangeMessage()));
    }
  }

  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource(delimiter = '|', textBlock = """
      inbound.startShare                | 0.009     | inbound.startShare must be between 0.01 and 1
      inbound.startShare                | 1.001     | inbound.startShare must be between 0.01 and 1
      inbound.maxInFlight               | 0         | inbound.maxInFlight must be between 1 and 100000
      inbound.maxInFlight               | 100001    | inbound.maxInFlight must be between 1 and 100000
      inbound.retryAfterSeconds         | 61        | inbound.retryAfterSeconds must be between 1 and 60
      inbound.adaptive.tolerance        | 0.99      | inbound.adaptive.tolerance must be between 1 and 5
      inbound.adaptive.lagTargetMillis  | 4         | inbound.adaptive.lagTargetMillis must be between 5 and 10000
      outbound.requestTimeoutMillis     | 600001    | outbound.requestTimeoutMillis must be between 1 and 600000
      outbound.breaker.minCalls         | 10001     | outbound.breaker.minCalls must be between 1 and 10000
      outbound.breaker.windowSeconds    | 301       | outbound.breaker.windowSeconds must be between 1 and 300
      outbound.breaker.openSeconds      | 601       | outbound.breaker.openSeconds must be between 1 and 600
      outbound.breaker.probeCalls       | 101       | outbound.breaker.probeCalls must be between 1 and 100
      outbound.retryBudget.ratio        | -0.01     | outbound.retryBudget.ratio must be between 0 and 1
      outbound.retryBudget.minPerSecond | 1001      | outbound.retryBudget.minPerSecond must be between 0 and 1000
      """)
  void handWrittenRangeProblems(String path, String json, String message) {
    ParseResult result = PolicyJson.parse(JsonFixtures.withValue(path, json));
    assertThat(result.problems()).containsExactly(new Problem(path, message));
  }

  @Test
  void notANumberIsOutOfRange() {
    assertThat(PolicyValidator.validate(OverloadPolicy.of(Map.of(INBOUND_START_SHARE, Double.NaN))))
        .containsExactly(new Problem("inbound.startShare", "inbound.startShare must be between 0.01 and 1"));
  }

  @Test
  void nothingSetAndNoPolicyAreValid() {
    assertThat(PolicyValidator.validate(OverloadPolicy.EMPTY)).isEmpty();
    assertThat(PolicyValidator.validate(null)).isEmpty();
    assertThat(PolicyValidator.validate(new OverloadPolicy(Inbound.EMPTY, Outbound.EMPTY))).isEmpty();
  }

  @Test
  void startShareAloneIsCheckedAgainstTheDefaultContinuationShare() {
    assertThat(PolicyValidator.validate(OverloadPolicy.of(Map.of(INBOUND_START_SHARE, 0.9)))).containsExactly(
        new Problem("inbound.startShare", "inbound.startShare (0.9) must not exceed inbound.continuationShare (0.85)"));
  }

  @Test
  void continuationShareAloneIsCheckedAgainstTheDefaultStartShareAndReportedWhereItWasSet() {
    assertThat(PolicyValidator.validate(OverloadPolicy.of(Map.of(INBOUND_CONTINUATION_SHARE, 0.5)))).containsExactly(
        new Problem("inbound.continuationShare",
            "inbound.startShare (0.65) must not exceed inbound.continuationShare (0.5)"));
  }

  @Test
  void equalSharesAndEqualLimitsAreValid() {
    assertThat(PolicyValidator.validate(OverloadPolicy.of(Map.of(INBOUND_START_SHARE, 0.85)))).isEmpty();
    assertThat(PolicyValidator.validate(OverloadPolicy.of(Map.of(INBOUND_START_SHARE, 0.5, INBOUND_CONTINUATION_SHARE, 0.5))))
        .isEmpty();
    assertThat(PolicyValidator.validate(OverloadPolicy.of(Map.of(ADAPTIVE_MIN_LIMIT, 1024)))).isEmpty();
  }

  @Test
  void bothSharesSetAreCheckedAgainstEachOther() {
    assertThat(PolicyValidator.validate(OverloadPolicy.of(Map.of(INBOUND_START_SHARE, 0.95, INBOUND_CONTINUATION_SHARE, 0.97))))
        .isEmpty();
    assertThat(PolicyValidator.validate(OverloadPolicy.of(Map.of(INBOUND_START_SHARE, 0.6, INBOUND_CONTINUATION_SHARE, 0.5))))
        .containsExactly(new Problem("inbound.startShare",
            "inbound.startShare (0.6) must not exceed inbound.continuationShare (0.5)"));
  }

  @Test
  void minLimitAloneIsCheckedAgainstTheDefaultMaxLimit() {
    assertThat(PolicyValidator.validate(OverloadPolicy.of(Map.of(ADAPTIVE_MIN_LIMIT, 2000)))).containsExactly(
        new Problem("inbound.adaptive.minLimit",
            "inbound.adaptive.minLimit (2000) must not exceed inbound.adaptive.maxLimit (1024)"));
  }

  @Test
  void maxLimitAloneIsCheckedAgainstTheDefaultMinLimit() {
    assertThat(PolicyValidator.validate(OverloadPolicy.of(Map.of(ADAPTIVE_MAX_LIMIT, 10)))).containsExactly(
        new Problem("inbound.adaptive.maxLimit",
            "inbound.adaptive.minLimit (16) must not exceed inbound.adaptive.maxLimit (10)"));
  }

  @Test
  void absentFieldsTakeTheDeploymentBaselineInCrossFieldRules() {
    DeploymentDefaults wide = DeploymentDefaults.fromEnvironment(Map.of("HTTP_ADMISSION_CONTINUATION_SHARE", "0.95"));
    OverloadPolicy startShare = OverloadPolicy.of(Map.of(INBOUND_START_SHARE, 0.9));
    assertThat(PolicyValidator.validate(startShare, wide)).isEmpty();

    DeploymentDefaults lowStart = DeploymentDefaults.fromEnvironment(Map.of("HTTP_ADMISSION_START_SHARE", "0.6"));
    OverloadPolicy continuationShare = OverloadPolicy.of(Map.of(INBOUND_CONTINUATION_SHARE, 0.62));
    assertThat(PolicyValidator.validate(continuationShare, lowStart)).isEmpty();
    assertThat(PolicyValidator.validate(continuationShare)).containsExactly(new Problem("inbound.continuationShare",
        "inbound.startShare (0.65) must not exceed inbound.continuationShare (0.62)"));
    assertThat(PolicyValidator.validate(OverloadPolicy.of(Map.of(INBOUND_CONTINUATION_SHARE, 0.55)), lowStart))
        .containsExactly(new Problem("inbound.continuationShare",
            "inbound.startShare (0.6) must not exceed inbound.continuationShare (0.55)"));
  }

  @Test
  void aFieldOutOfRangeDoesNotAlsoBreakItsCrossFieldRule() {
    assertThat(PolicyValidator.validate(OverloadPolicy.of(Map.of(ADAPTIVE_MIN_LIMIT, 200_000))))
        .containsExactly(new Problem("inbound.adaptive.minLimit", "inbound.adaptive.minLimit must be between 1 and 100000"));
  }

  @Test
  void startingLimitOutsideTheLearnedRangeIsNotAProblem() {
    assertThat(PolicyValidator.validate(OverloadPolicy.of(Map.of(INBOUND_MAX_IN_FLIGHT, 100_000)))).isEmpty();
    assertThat(PolicyValidator.validate(OverloadPolicy.of(Map.of(INBOUND_MAX_IN_FLIGHT, 1)))).isEmpty();
  }

  @Test
  void problemsComeInTableOrderThenCrossFieldRules() {
    OverloadPolicy policy = OverloadPolicy.of(Map.of(
        OUTBOUND_MAX_QUEUE, 0, INBOUND_START_SHARE, 0.9, INBOUND_MAX_IN_FLIGHT, 0, ADAPTIVE_MIN_LIMIT, 5000));
    assertThat(PolicyValidator.validate(policy)).extracting(Problem::field).containsExactly(
        "inbound.maxInFlight", "outbound.maxQueue", "inbound.startShare", "inbound.adaptive.minLimit");
  }
}
