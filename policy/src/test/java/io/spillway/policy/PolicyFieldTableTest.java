package io.spillway.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * Checks the field table against SPEC §3.2/§3.3 transcribed by hand, so a typo in the table is
 * caught here rather than copied into validation and both schemas.
 */
class PolicyFieldTableTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(nullValues = "-", textBlock = """
      # path,                           type,    default, min,  max,    env,                               advanced
      inbound.mode,                     enum,    shadow,  -,    -,      HTTP_ADMISSION_MODE,               false
      inbound.maxInFlight,              integer, 256,     1,    100000, HTTP_ADMISSION_MAX_IN_FLIGHT,      false
      inbound.continuationShare,        number,  0.85,    0.01, 1,      HTTP_ADMISSION_CONTINUATION_SHARE, false
      inbound.startShare,               number,  0.65,    0.01, 1,      HTTP_ADMISSION_START_SHARE,        false
      inbound.retryAfterSeconds,        integer, 1,       1,    60,     HTTP_ADMISSION_RETRY_AFTER,        false
      inbound.adaptive.minLimit,        integer, 16,      1,    100000, -,                                 false
      inbound.adaptive.maxLimit,        integer, 1024,    1,    100000, -,                                 false
      inbound.adaptive.tolerance,       number,  1.5,     1,    5,      -,                                 true
      inbound.adaptive.smoothing,       number,  0.2,     0.01, 1,      -,                                 true
      inbound.adaptive.lagTargetMillis, integer, 50,      5,    10000,  -,                                 true
      outbound.mode,                    enum,    shadow,  -,    -,      HTTP_CLIENT_GUARD_MODE,            false
      outbound.maxConcurrent,           integer, 128,     1,    100000, HTTP_CLIENT_GUARD_MAX_CONCURRENT,  false
      outbound.maxQueue,                integer, 256,     1,    100000, HTTP_CLIENT_GUARD_MAX_QUEUE,       false
      outbound.queueTimeoutMillis,      integer, 1000,    1,    600000, HTTP_CLIENT_GUARD_QUEUE_TIMEOUT,   false
      outbound.requestTimeoutMillis,    integer, 10000,   1,    600000, HTTP_CLIENT_GUARD_REQUEST_TIMEOUT, false
      outbound.breaker.enabled,         boolean, false,   -,    -,      -,                                 false
      outbound.breaker.failureRatio,    number,  0.5,     0.01, 1,      -,                                 false
      outbound.breaker.minCalls,        integer, 20,      1,    10000,  -,                                 false
      outbound.breaker.windowSeconds,   integer, 10,      1,    300,    -,                                 false
      outbound.breaker.openSeconds,     integer, 5,       1,    600,    -,                                 false
      outbound.breaker.probeCalls,      integer, 3,       1,    100,    -,                                 false
      outbound.retryBudget.ratio,       number,  0.1,     0,    1,      -,                                 false
      outbound.retryBudget.minPerSecond, integer, 5,      0,    1000,   -,                                 false
      """)
  void tableMatchesTheSpec(String path, String type, String defaultValue, String min, String max, String env,
      boolean advanced) {
    PolicyField field = PolicyField.byPath(path).orElseThrow();
    assertThat(field.type().schemaName()).isEqualTo(type);
    assertThat(ValueText.format(field.defaultValue())).isEqualTo(defaultValue);
    assertThat(field.min() == null ? null : ValueText.format(field.min())).isEqualTo(min);
    assertThat(field.max() == null ? null : ValueText.format(field.max())).isEqualTo(max);
    assertThat(field.envVariable()).isEqualTo(env);
    assertThat(field.advanced()).isEqualTo(advanced);
    assertThat(field.defaultValue()).isInstanceOf(field.javaType());
    if (field.min() != null) {
      assertThat(field.min()).isInstanceOf(field.javaType());
      assertThat(field.max()).isInstanceOf(field.javaType());
      assertThat(field.accepts(field.defaultValue())).as("default within range").isTrue();
    }
  }

  @Test
  void everyFieldIsInTheHandWrittenTable() {
    assertThat(PolicyField.values()).hasSize(23);
    assertThat(Arrays.stream(PolicyField.values()).map(PolicyField::path)).doesNotHaveDuplicates();
  }

  @Test
  void messagesReadAsWrittenByHand() {
    assertThat(PolicyField.INBOUND_START_SHARE.rangeMessage()).isEqualTo("inbound.startShare must be between 0.01 and 1");
    assertThat(PolicyField.INBOUND_MAX_IN_FLIGHT.rangeMessage()).isEqualTo("inbound.maxInFlight must be between 1 and 100000");
    assertThat(PolicyField.ADAPTIVE_TOLERANCE.rangeMessage()).isEqualTo("inbound.adaptive.tolerance must be between 1 and 5");
    assertThat(PolicyField.RETRY_BUDGET_RATIO.rangeMessage()).isEqualTo("outbound.retryBudget.ratio must be between 0 and 1");
    assertThat(PolicyField.OUTBOUND_QUEUE_TIMEOUT_MILLIS.rangeMessage())
        .isEqualTo("outbound.queueTimeoutMillis must be between 1 and 600000");
    assertThat(PolicyField.ADAPTIVE_MAX_LIMIT.typeMessage()).isEqualTo("inbound.adaptive.maxLimit must be an integer");
    assertThat(PolicyField.INBOUND_CONTINUATION_SHARE.typeMessage()).isEqualTo("inbound.continuationShare must be a number");
    assertThat(PolicyField.INBOUND_MODE.typeMessage()).isEqualTo("inbound.mode must be one of off, shadow, enforce");
    assertThat(PolicyField.BREAKER_ENABLED.typeMessage()).isEqualTo("outbound.breaker.enabled must be true or false");
    assertThat(PolicyField.BREAKER_ENABLED.rangeMessage()).isNull();
  }

  @Test
  void pathParts() {
    PolicyField field = PolicyField.ADAPTIVE_LAG_TARGET_MILLIS;
    assertThat(field.segments()).containsExactly("inbound", "adaptive", "lagTargetMillis");
    assertThat(field.key()).isEqualTo("lagTargetMillis");
    assertThat(field.parentPath()).isEqualTo("inbound.adaptive");
    assertThat(field.section()).isEqualTo("inbound");
    assertThat(PolicyField.RETRY_BUDGET_RATIO.section()).isEqualTo("outbound");
  }

  @Test
  void envVariablesAreExactlyTheTenOfTheSpec() {
    assertThat(PolicyField.withEnvVariable().stream().map(PolicyField::envVariable)).containsExactly(
        "HTTP_ADMISSION_MODE", "HTTP_ADMISSION_MAX_IN_FLIGHT", "HTTP_ADMISSION_CONTINUATION_SHARE",
        "HTTP_ADMISSION_START_SHARE", "HTTP_ADMISSION_RETRY_AFTER", "HTTP_CLIENT_GUARD_MODE",
        "HTTP_CLIENT_GUARD_MAX_CONCURRENT", "HTTP_CLIENT_GUARD_MAX_QUEUE", "HTTP_CLIENT_GUARD_QUEUE_TIMEOUT",
        "HTTP_CLIENT_GUARD_REQUEST_TIMEOUT");
  }

  @Test
  void crossFieldRulesReadAsWrittenByHand() {
    assertThat(CrossFieldRule.START_SHARE_WITHIN_CONTINUATION_SHARE.message(0.9, 0.85))
        .isEqualTo("inbound.startShare (0.9) must not exceed inbound.continuationShare (0.85)");
    assertThat(CrossFieldRule.MIN_LIMIT_WITHIN_MAX_LIMIT.message(2000, 1536))
        .isEqualTo("inbound.adaptive.minLimit (2000) must not exceed inbound.adaptive.maxLimit (1536)");
    assertThat(CrossFieldRule.START_SHARE_WITHIN_CONTINUATION_SHARE.id()).isEqualTo("startShareWithinContinuationShare");
    assertThat(List.of(CrossFieldRule.values())).hasSize(2);
  }
}
