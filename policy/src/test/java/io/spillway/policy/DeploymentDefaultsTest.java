package io.spillway.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class DeploymentDefaultsTest {

  static Stream<PolicyField> envFields() {
    return PolicyField.withEnvVariable().stream();
  }

  @Test
  void withoutVariablesEveryFieldFallsBackToItsBuiltInDefault() {
    DeploymentDefaults defaults = DeploymentDefaults.fromEnvironment(Map.of("PATH", "/usr/bin", "HTTP_PORT", "8080"));
    assertThat(defaults).isEqualTo(DeploymentDefaults.builtIn());
    for (PolicyField field : PolicyField.values()) {
      assertThat(defaults.fallback(field)).isEqualTo(new FieldValue(field, field.defaultValue(), Source.BUILT_IN));
    }
    assertThat(defaults.environmentVariables()).isEmpty();
  }

  @Test
  void readsEveryVariable() {
    Map<String, String> env = Map.of(
        "HTTP_ADMISSION_MODE", "enforce",
        "HTTP_ADMISSION_MAX_IN_FLIGHT", "512",
        "HTTP_ADMISSION_CONTINUATION_SHARE", "0.9",
        "HTTP_ADMISSION_START_SHARE", "0.7",
        "HTTP_ADMISSION_RETRY_AFTER", "3",
        "HTTP_CLIENT_GUARD_MODE", "off",
        "HTTP_CLIENT_GUARD_MAX_CONCURRENT", "64",
        "HTTP_CLIENT_GUARD_MAX_QUEUE", "32",
        "HTTP_CLIENT_GUARD_QUEUE_TIMEOUT", "250",
        "HTTP_CLIENT_GUARD_REQUEST_TIMEOUT", "3000");
    DeploymentDefaults defaults = DeploymentDefaults.fromEnvironment(env);
    assertThat(defaults.fallback(PolicyField.INBOUND_MODE).value()).isEqualTo(Mode.ENFORCE);
    assertThat(defaults.fallback(PolicyField.INBOUND_MAX_IN_FLIGHT).value()).isEqualTo(512);
    assertThat(defaults.fallback(PolicyField.INBOUND_CONTINUATION_SHARE).value()).isEqualTo(0.9);
    assertThat(defaults.fallback(PolicyField.INBOUND_START_SHARE).value()).isEqualTo(0.7);
    assertThat(defaults.fallback(PolicyField.INBOUND_RETRY_AFTER_SECONDS).value()).isEqualTo(3);
    assertThat(defaults.fallback(PolicyField.OUTBOUND_MODE).value()).isEqualTo(Mode.OFF);
    assertThat(defaults.fallback(PolicyField.OUTBOUND_MAX_CONCURRENT).value()).isEqualTo(64);
    assertThat(defaults.fallback(PolicyField.OUTBOUND_MAX_QUEUE).value()).isEqualTo(32);
    assertThat(defaults.fallback(PolicyField.OUTBOUND_QUEUE_TIMEOUT_MILLIS).value()).isEqualTo(250);
    assertThat(defaults.fallback(PolicyField.OUTBOUND_REQUEST_TIMEOUT_MILLIS).value()).isEqualTo(3000);
    for (PolicyField field : PolicyField.withEnvVariable()) {
      assertThat(defaults.fallback(field).source()).isEqualTo(Source.ENVIRONMENT);
    }
    assertThat(defaults.fallback(PolicyField.ADAPTIVE_MAX_LIMIT))
        .isEqualTo(new FieldValue(PolicyField.ADAPTIVE_MAX_LIMIT, 1024, Source.BUILT_IN));
    assertThat(defaults.environmentVariables()).isEqualTo(env);
    assertThat(DeploymentDefaults.fromEnvironment(defaults.environmentVariables())).isEqualTo(defaults);
  }

  @Test
  void valuesAreTrimmedModesIgnoreCaseAndBlankIsUnset() {
    DeploymentDefaults defaults = DeploymentDefaults.fromEnvironment(Map.of(
        "HTTP_ADMISSION_MODE", " ENFORCE ", "HTTP_CLIENT_GUARD_MODE", "Shadow", "HTTP_ADMISSION_MAX_IN_FLIGHT", "",
        "HTTP_CLIENT_GUARD_MAX_QUEUE", "  ", "HTTP_ADMISSION_RETRY_AFTER", "5.0"));
    assertThat(defaults.fallback(PolicyField.INBOUND_MODE).value()).isEqualTo(Mode.ENFORCE);
    assertThat(defaults.fallback(PolicyField.OUTBOUND_MODE)).isEqualTo(
        new FieldValue(PolicyField.OUTBOUND_MODE, Mode.SHADOW, Source.ENVIRONMENT));
    assertThat(defaults.fallback(PolicyField.INBOUND_MAX_IN_FLIGHT).source()).isEqualTo(Source.BUILT_IN);
    assertThat(defaults.fallback(PolicyField.OUTBOUND_MAX_QUEUE).source()).isEqualTo(Source.BUILT_IN);
    assertThat(defaults.fallback(PolicyField.INBOUND_RETRY_AFTER_SECONDS).value()).isEqualTo(5);
    assertThat(defaults.environmentVariables())
        .containsEntry("HTTP_ADMISSION_MODE", "enforce")
        .containsEntry("HTTP_ADMISSION_RETRY_AFTER", "5");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("envFields")
  void boundsAreAcceptedFromTheEnvironment(PolicyField field) {
    if (!field.type().isNumeric()) {
      return;
    }
    for (Number bound : new Number[] {field.min(), field.max()}) {
      Map<String, String> env = new HashMap<>();
      env.put(field.envVariable(), ValueText.format(bound));
      if (field == PolicyField.INBOUND_START_SHARE) {
        env.put("HTTP_ADMISSION_CONTINUATION_SHARE", "1");
      } else if (field == PolicyField.INBOUND_CONTINUATION_SHARE) {
        env.put("HTTP_ADMISSION_START_SHARE", "0.01");
      }
      assertThat(DeploymentDefaults.fromEnvironment(env).fallback(field).value()).isEqualTo(bound);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("envFields")
  void anUnparseableValueNamesTheVariableAndTheRule(PolicyField field) {
    assertThatThrownBy(() -> DeploymentDefaults.fromEnvironment(Map.of(field.envVariable(), "lots")))
        .isInstanceOf(InvalidDeploymentDefaultsException.class)
        .hasMessage("Invalid deployment defaults: " + field.envVariable() + "=\"lots\": " + field.typeMessage())
        .extracting(e -> ((InvalidDeploymentDefaultsException) e).variables())
        .isEqualTo(java.util.List.of(field.envVariable()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("envFields")
  void anOutOfRangeValueNamesTheVariableAndTheRange(PolicyField field) {
    if (!field.type().isNumeric()) {
      return;
    }
    String tooBig = field.type() == FieldType.INTEGER ? String.valueOf(field.max().intValue() + 1) : "1.01";
    assertThatThrownBy(() -> DeploymentDefaults.fromEnvironment(Map.of(field.envVariable(), tooBig)))
        .isInstanceOf(InvalidDeploymentDefaultsException.class)
        .hasMessage("Invalid deployment defaults: " + field.envVariable() + "=\"" + tooBig + "\": " + field.rangeMessage());
  }

  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource(delimiter = '|', textBlock = """
      HTTP_ADMISSION_MODE               | on     | HTTP_ADMISSION_MODE="on": inbound.mode must be one of off, shadow, enforce
      HTTP_ADMISSION_MAX_IN_FLIGHT      | 0      | HTTP_ADMISSION_MAX_IN_FLIGHT="0": inbound.maxInFlight must be between 1 and 100000
      HTTP_ADMISSION_MAX_IN_FLIGHT      | 12.5   | HTTP_ADMISSION_MAX_IN_FLIGHT="12.5": inbound.maxInFlight must be an integer
      HTTP_ADMISSION_START_SHARE        | 1.5    | HTTP_ADMISSION_START_SHARE="1.5": inbound.startShare must be between 0.01 and 1
      HTTP_ADMISSION_CONTINUATION_SHARE | NaN    | HTTP_ADMISSION_CONTINUATION_SHARE="NaN": inbound.continuationShare must be a number
      HTTP_ADMISSION_RETRY_AFTER        | 1s     | HTTP_ADMISSION_RETRY_AFTER="1s": inbound.retryAfterSeconds must be an integer
      HTTP_CLIENT_GUARD_QUEUE_TIMEOUT   | 600001 | HTTP_CLIENT_GUARD_QUEUE_TIMEOUT="600001": outbound.queueTimeoutMillis must be between 1 and 600000
      HTTP_CLIENT_GUARD_REQUEST_TIMEOUT | 0x10   | HTTP_CLIENT_GUARD_REQUEST_TIMEOUT="0x10": outbound.requestTimeoutMillis must be an integer
      """)
  void handWrittenEnvironmentMessages(String variable, String value, String message) {
    assertThatThrownBy(() -> DeploymentDefaults.fromEnvironment(Map.of(variable, value)))
        .isInstanceOf(InvalidDeploymentDefaultsException.class)
        .hasMessage("Invalid deployment defaults: " + message);
  }

  @Test
  void startShareAboveTheBuiltInContinuationShareIsRefused() {
    assertThatThrownBy(() -> DeploymentDefaults.fromEnvironment(Map.of("HTTP_ADMISSION_START_SHARE", "0.9")))
        .isInstanceOf(InvalidDeploymentDefaultsException.class)
        .hasMessage("Invalid deployment defaults: HTTP_ADMISSION_START_SHARE=\"0.9\": "
            + "inbound.startShare (0.9) must not exceed inbound.continuationShare (0.85) "
            + "(HTTP_ADMISSION_CONTINUATION_SHARE is not set, so inbound.continuationShare is its built-in default 0.85)");
  }

  @Test
  void twoSharesThatConflictAreBothNamed() {
    assertThatThrownBy(() -> DeploymentDefaults.fromEnvironment(
            Map.of("HTTP_ADMISSION_START_SHARE", "0.6", "HTTP_ADMISSION_CONTINUATION_SHARE", "0.5")))
        .isInstanceOf(InvalidDeploymentDefaultsException.class)
        .hasMessage("Invalid deployment defaults: HTTP_ADMISSION_START_SHARE=\"0.6\" and "
            + "HTTP_ADMISSION_CONTINUATION_SHARE=\"0.5\": inbound.startShare (0.6) must not exceed inbound.continuationShare (0.5)")
        .extracting(e -> ((InvalidDeploymentDefaultsException) e).variables())
        .isEqualTo(java.util.List.of("HTTP_ADMISSION_START_SHARE", "HTTP_ADMISSION_CONTINUATION_SHARE"));
  }

  @Test
  void everyInvalidVariableIsReported() {
    assertThatThrownBy(() -> DeploymentDefaults.fromEnvironment(
            Map.of("HTTP_ADMISSION_MODE", "loud", "HTTP_CLIENT_GUARD_MAX_QUEUE", "-1")))
        .isInstanceOf(InvalidDeploymentDefaultsException.class)
        .hasMessage("Invalid deployment defaults: HTTP_ADMISSION_MODE=\"loud\": inbound.mode must be one of off, shadow, enforce; "
            + "HTTP_CLIENT_GUARD_MAX_QUEUE=\"-1\": outbound.maxQueue must be between 1 and 100000");
  }

  @Test
  void aHighContinuationShareAloneIsFine() {
    assertThat(DeploymentDefaults.fromEnvironment(Map.of("HTTP_ADMISSION_CONTINUATION_SHARE", "1"))
        .fallback(PolicyField.INBOUND_CONTINUATION_SHARE).value()).isEqualTo(1.0);
  }
}
