package io.spillway.policy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class PolicyJsonTest {

  /** A valid policy that sets every field to something other than its default. */
  static OverloadPolicy everyFieldSet() {
    Map<PolicyField, Object> values = new EnumMap<>(PolicyField.class);
    for (PolicyField field : PolicyField.values()) {
      values.put(field, switch (field.type()) {
        case ENUM -> Mode.ENFORCE;
        case BOOLEAN -> true;
        case INTEGER -> field.max();
        case NUMBER -> field.max();
        case STRING, STRING_LIST -> throw new AssertionError("no such overload field: " + field);
      });
    }
    return OverloadPolicy.of(values);
  }

  @Test
  void writesOnlyWhatIsSetWithLowerCaseModes() {
    OverloadPolicy policy = new OverloadPolicy(
        new Inbound(Mode.ENFORCE, null, null, null, null, new Adaptive(null, 1536, null, null, null)),
        new Outbound(Mode.SHADOW, null, null, null, null, null, null));
    assertThat(PolicyJson.write(policy))
        .isEqualTo("{\"inbound\":{\"mode\":\"enforce\",\"adaptive\":{\"maxLimit\":1536}},\"outbound\":{\"mode\":\"shadow\"}}");
    assertThat(PolicyJson.write(OverloadPolicy.EMPTY)).isEqualTo("{}");
  }

  @Test
  void roundTripsEveryField() {
    OverloadPolicy policy = everyFieldSet();
    ParseResult back = PolicyJson.parse(PolicyJson.write(policy));
    assertThat(back.problems()).isEmpty();
    assertThat(back.policy()).isEqualTo(policy);
    assertThat(PolicyJson.parse(PolicyJson.toTree(policy)).policy()).isEqualTo(policy);
  }

  @Test
  void roundTripsEmptySections() {
    OverloadPolicy policy = new OverloadPolicy(new Inbound(null, null, null, null, null, Adaptive.EMPTY),
        new Outbound(null, 64, null, null, null, Breaker.EMPTY, null));
    String json = PolicyJson.write(policy);
    assertThat(json).isEqualTo("{\"inbound\":{\"adaptive\":{}},\"outbound\":{\"maxConcurrent\":64,\"breaker\":{}}}");
    assertThat(PolicyJson.parse(json).policy()).isEqualTo(policy);
  }

  @Test
  void writtenJsonHasExactlyTheTablePaths() {
    List<String> leaves = new ArrayList<>();
    collectLeaves("", PolicyJson.toTree(everyFieldSet()), leaves);
    assertThat(leaves).containsExactlyElementsOf(Arrays.stream(PolicyField.values()).map(PolicyField::path).toList());
  }

  @Test
  void plainJacksonWritesAndReadsTheSameJson() throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    OverloadPolicy policy = everyFieldSet();
    assertThat(mapper.writeValueAsString(policy)).isEqualTo(PolicyJson.write(policy));
    assertThat(mapper.readValue(PolicyJson.write(policy), OverloadPolicy.class)).isEqualTo(policy);
    assertThat(mapper.readValue("{\"inbound\":{\"mode\":\"off\",\"x\":1},\"y\":2}", OverloadPolicy.class))
        .isEqualTo(new OverloadPolicy(new Inbound(Mode.OFF, null, null, null, null, null), null));
  }

  @Test
  void unknownFieldsAreIgnoredAtEveryLevel() {
    ParseResult result = PolicyJson.parse("""
        {"version": 3, "accessLog": {"x": 1},
         "inbound": {"mode": "enforce", "burst": [1, 2], "adaptive": {"maxLimit": 1536, "gain": "high"}},
         "outbound": {"shadowRatio": 0.5, "breaker": {"enabled": true, "halfOpen": {}},
                      "retryBudget": {"ratio": 0.2, "cap": null}}}
        """);
    assertThat(result.problems()).isEmpty();
    assertThat(result.policy()).isEqualTo(new OverloadPolicy(
        new Inbound(Mode.ENFORCE, null, null, null, null, new Adaptive(null, 1536, null, null, null)),
        new Outbound(null, null, null, null, null, new Breaker(true, null, null, null, null, null),
            new RetryBudget(0.2, null))));
    assertThat(PolicyJson.write(result.policy())).doesNotContain("version", "burst", "gain", "halfOpen", "cap");
  }

  @Test
  void nullIsTheSameAsAbsent() {
    ParseResult result = PolicyJson.parse("{\"inbound\": {\"mode\": null, \"maxInFlight\": 300, \"adaptive\": null}, \"outbound\": null}");
    assertThat(result.problems()).isEmpty();
    assertThat(result.policy()).isEqualTo(new OverloadPolicy(new Inbound(null, 300, null, null, null, null), null));
  }

  static Stream<Arguments> wrongTypes() {
    List<Arguments> cases = new ArrayList<>();
    for (PolicyField field : PolicyField.values()) {
      List<String> wrong = switch (field.type()) {
        case ENUM -> List.of("1", "true", "\"ENFORCE\"", "\"on\"", "{}", "[]");
        case BOOLEAN -> List.of("\"true\"", "1", "{}");
        case INTEGER -> List.of("\"10\"", "1.5", "true", "[]");
        case NUMBER -> List.of("\"0.5\"", "false", "{}");
        case STRING, STRING_LIST -> throw new AssertionError("no such overload field: " + field);
      };
      wrong.forEach(json -> cases.add(Arguments.of(field, json)));
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} = {1}")
  @MethodSource("wrongTypes")
  void aWrongJsonTypeIsAProblemNamingThePath(PolicyField field, String json) {
    ParseResult result = PolicyJson.parse(JsonFixtures.withValue(field.path(), json));
    assertThat(result.problems()).containsExactly(new Problem(field.path(), field.typeMessage()));
    assertThat(field.read(result.policy())).isNull();
  }

  @Test
  void wrongTypeMessagesReadAsWrittenByHand() {
    assertThat(PolicyJson.parse("{\"inbound\": {\"adaptive\": {\"maxLimit\": \"lots\"}}}").problems())
        .containsExactly(new Problem("inbound.adaptive.maxLimit", "inbound.adaptive.maxLimit must be an integer"));
    assertThat(PolicyJson.parse("{\"outbound\": {\"mode\": \"strict\"}}").problems())
        .containsExactly(new Problem("outbound.mode", "outbound.mode must be one of off, shadow, enforce"));
  }

  @Test
  void aWrongTypeDoesNotAlsoBreakItsCrossFieldRule() {
    assertThat(PolicyJson.parse("{\"inbound\": {\"continuationShare\": \"high\", \"startShare\": 0.9}}").problems())
        .containsExactly(new Problem("inbound.continuationShare", "inbound.continuationShare must be a number"));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(delimiter = '|', textBlock = """
      {"inbound": 5}                           | inbound          | inbound must be an object
      {"inbound": "enforce"}                   | inbound          | inbound must be an object
      {"inbound": {"adaptive": [1]}}           | inbound.adaptive | inbound.adaptive must be an object
      {"outbound": {"breaker": true}}          | outbound.breaker | outbound.breaker must be an object
      [1, 2]                                   | ''               | the overload policy must be a JSON object
      null                                     | ''               | the overload policy must be a JSON object
      "enforce"                                | ''               | the overload policy must be a JSON object
      ''                                       | ''               | the overload policy must be a JSON object
      """)
  void aSectionThatIsNotAnObjectIsOneProblem(String json, String field, String message) {
    assertThat(PolicyJson.parse(json).problems()).containsExactly(new Problem(field, message));
  }

  @Test
  void aSectionThatIsNotAnObjectKeepsTheOtherSections() {
    ParseResult result = PolicyJson.parse("{\"inbound\": {\"mode\": \"off\", \"adaptive\": 7}, \"outbound\": {\"maxQueue\": 0}}");
    assertThat(result.problems()).containsExactly(
        new Problem("inbound.adaptive", "inbound.adaptive must be an object"),
        new Problem("outbound.maxQueue", "outbound.maxQueue must be between 1 and 100000"));
    assertThat(result.policy().inbound().mode()).isEqualTo(Mode.OFF);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      {"inbound": {"maxInFlight": 1,}}  | the overload policy is not valid JSON (line 1, column 31)
      {"inbound": {"maxInFlight": 1}} x | the overload policy is not valid JSON (line 1, column 33)
      {"inbound"                        | the overload policy is not valid JSON (line 1, column 11)
      """)
  void textThatIsNotJsonIsOneProblemWithoutJacksonInternals(String json, String message) {
    ParseResult result = PolicyJson.parse(json);
    assertThat(result.problems()).containsExactly(new Problem("", message));
    assertThat(result.policy()).isEqualTo(OverloadPolicy.EMPTY);
  }

  @Test
  void anIntegerMayBeWrittenWithAZeroFraction() {
    ParseResult result = PolicyJson.parse("{\"inbound\": {\"maxInFlight\": 300.0, \"retryAfterSeconds\": 2E0}}");
    assertThat(result.problems()).isEmpty();
    assertThat(result.policy().inbound().maxInFlight()).isEqualTo(300);
    assertThat(result.policy().inbound().retryAfterSeconds()).isEqualTo(2);
  }

  @Test
  void aNumberFieldAcceptsAnInteger() {
    ParseResult result = PolicyJson.parse("{\"inbound\": {\"continuationShare\": 1, \"adaptive\": {\"tolerance\": 2}}}");
    assertThat(result.problems()).isEmpty();
    assertThat(result.policy().inbound().continuationShare()).isEqualTo(1.0);
    assertThat(result.policy().inbound().adaptive().tolerance()).isEqualTo(2.0);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      99999999999999999999999      | inbound.maxInFlight must be between 1 and 100000
      -99999999999999999999999     | inbound.maxInFlight must be between 1 and 100000
      1e400                        | inbound.maxInFlight must be between 1 and 100000
      2147483648                   | inbound.maxInFlight must be between 1 and 100000
      100000.5                     | inbound.maxInFlight must be an integer
      """)
  void hugeIntegersAreOutOfRangeNotOverflowed(String json, String message) {
    assertThat(PolicyJson.parse("{\"inbound\": {\"maxInFlight\": " + json + "}}").problems())
        .containsExactly(new Problem("inbound.maxInFlight", message));
  }

  @Test
  void hugeNumbersAreOutOfRange() {
    assertThat(PolicyJson.parse("{\"inbound\": {\"startShare\": 1e400}}").problems())
        .containsExactly(new Problem("inbound.startShare", "inbound.startShare must be between 0.01 and 1"));
  }

  @Test
  void aTreeFromAnotherMapperWithDoublesReadsTheSame() {
    JsonNode tree = JsonFixtures.parse("{\"inbound\": {\"startShare\": 0.5, \"maxInFlight\": 512.0}}");
    ParseResult result = PolicyJson.parse(tree);
    assertThat(result.problems()).isEmpty();
    assertThat(result.policy().inbound().startShare()).isEqualTo(0.5);
    assertThat(result.policy().inbound().maxInFlight()).isEqualTo(512);
  }

  @Test
  void parsingChecksCrossFieldRulesAgainstTheGivenBaseline() {
    String json = "{\"inbound\": {\"startShare\": 0.9}}";
    assertThat(PolicyJson.parse(json).firstProblem()).map(Problem::message)
        .contains("inbound.startShare (0.9) must not exceed inbound.continuationShare (0.85)");
    DeploymentDefaults wide = DeploymentDefaults.fromEnvironment(Map.of("HTTP_ADMISSION_CONTINUATION_SHARE", "0.9"));
    assertThat(PolicyJson.parse(json, wide).valid()).isTrue();
  }

  private static void collectLeaves(String at, JsonNode node, List<String> out) {
    if (!node.isObject()) {
      out.add(at);
      return;
    }
    for (Map.Entry<String, JsonNode> entry : node.properties()) {
      collectLeaves(at.isEmpty() ? entry.getKey() : at + "." + entry.getKey(), entry.getValue(), out);
    }
  }
}
