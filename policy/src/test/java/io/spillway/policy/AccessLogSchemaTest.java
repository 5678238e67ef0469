package io.spillway.policy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The description an editor validates the accessLog section with gives exactly the messages
 * AccessLogJson gives: every template, filled in, is the message central logs for an input that
 * breaks that rule, and the operators it lists are the ones the format check accepts.
 */
class AccessLogSchemaTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final JsonNode DESCRIBED = AccessLogSchema.describe();

  private static String filled(String template, String... pairs) {
    String text = template;
    for (int i = 0; i < pairs.length; i += 2) {
      text = text.replace(pairs[i], pairs[i + 1]);
    }
    return text;
  }

  /** The first problem central finds in this section. */
  private static String problemOf(String section) throws Exception {
    AccessLogJson.Result result = AccessLogJson.parse(JSON.readTree(section));
    assertThat(result.problems()).as(section).isNotEmpty();
    return result.problems().get(0).message();
  }

  private static JsonNode field(String key) {
    return StreamSupport.stream(DESCRIBED.path("fields").spliterator(), false)
        .filter(node -> node.path("key").asText().equals(key)).findFirst().orElseThrow();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "unterminated     | 4  |         | 'a b %'",
      "unterminated     | 0  |         | '%%'",
      "unterminated     | 0  | REQ     | '%REQ(:PATH)'",
      "unclosedArgument | 2  | REQ     | 'x %REQ(:PATH%'",
      "noMaxLength      | 0  | REQ     | '%REQ(X):%'",
      "noMaxLength      | 0  | REQ     | '%REQ(X):1234567890%'",
      "unknownOperator  | 15 | FOO     | '%RESPONSE_CODE%%FOO%'",
      "length           |    |         | ''"})
  void everyFormatTemplateFilledInIsCentralsMessage(String problem, String position, String name, String format)
      throws Exception {
    String template = DESCRIBED.path("formatProblems").path(problem).asText();
    String expected = filled(template, "{path}", "accessLog.format", "{position}", position == null ? "" : position,
        "{name}", name == null ? "" : name);
    assertThat(expected).isEqualTo(problemOf("{\"format\": " + JSON.writeValueAsString(format) + "}"));
    // The same rule inside a JSON format, at the key's path.
    assertThat(filled(template, "{path}", "accessLog.json.line", "{position}", position == null ? "" : position,
        "{name}", name == null ? "" : name))
        .isEqualTo(problemOf("{\"json\": {\"line\": " + JSON.writeValueAsString(format) + "}}"));
  }

  @Test
  void everyFormatProblemHasATemplate() {
    List<String> names = new ArrayList<>();
    DESCRIBED.path("formatProblems").fieldNames().forEachRemaining(names::add);
    assertThat(names).containsExactly("length", "unclosedArgument", "noMaxLength", "unterminated", "unknownOperator");
    assertThat(AccessLogFormat.FormatProblem.values()).hasSize(names.size());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "absolute   | /var/log/a.log",
      "absolute   | C:log",
      "dotSegment | logs/../a.log",
      "dotSegment | .",
      "segments   | logs//a.log",
      "segments   | a b.log",
      "length     | ''"})
  void everyPathTemplateIsCentralsMessage(String problem, String path) throws Exception {
    assertThat(DESCRIBED.path("pathProblems").path(problem).asText())
        .isEqualTo(problemOf("{\"destination\": {\"file\": " + JSON.writeValueAsString(path) + "}}"));
  }

  @Test
  void anOverlongPathHasTheLengthMessage() throws Exception {
    assertThat(DESCRIBED.path("pathProblems").path("length").asText())
        .isEqualTo(problemOf("{\"destination\": {\"file\": \"" + "a".repeat(AccessLogFormat.MAX_PATH_LENGTH + 1) + "\"}}"));
    assertThat(DESCRIBED.path("pathProblems").size()).isEqualTo(AccessLogFormat.PathProblem.values().length);
    java.util.regex.Pattern segment = java.util.regex.Pattern.compile(DESCRIBED.path("pathSegmentPattern").asText());
    assertThat(segment.matcher("access-1_a.log").matches()).isTrue();
    assertThat(segment.matcher("a b").matches()).isFalse();
  }

  @Test
  void theOtherTemplatesAreCentralsMessages() throws Exception {
    JsonNode messages = DESCRIBED.path("messages");
    assertThat(messages.path("formatAndJson").asText()).isEqualTo(problemOf("{\"format\": \"x\", \"json\": {\"a\": \"y\"}}"));
    assertThat(messages.path("jsonKeyLength").asText()).isEqualTo(problemOf("{\"json\": {\"\": \"y\"}}"));
    assertThat(filled(messages.path("jsonValueType").asText(), "{key}", "code"))
        .isEqualTo(problemOf("{\"json\": {\"code\": 200}}"));
    assertThat(filled(messages.path("unknownFlag").asText(), "{i}", "1", "{flag}", "XX"))
        .isEqualTo(problemOf("{\"filters\": {\"responseFlags\": [\"UH\", \"XX\"]}}"));
    assertThat(messages.path("fileType").asText()).isEqualTo(problemOf("{\"destination\": {\"file\": 7}}"));
    assertThat(field("filters.statusCode.value").path("messages").path("required").asText())
        .isEqualTo(problemOf("{\"filters\": {\"statusCode\": {\"op\": \"=\"}}}"));
    assertThat(field("filters.duration.millis").path("messages").path("required").asText())
        .isEqualTo(problemOf("{\"filters\": {\"duration\": {}}}"));
    assertThat(field("destination").path("messages").path("required").asText())
        .isEqualTo(problemOf("{\"destination\": {}}"));
    assertThat(field("filters.duration.millis").path("messages").path("range").asText())
        .isEqualTo(problemOf("{\"filters\": {\"duration\": {\"millis\": -1}}}"));
    assertThat(field("json").path("messages").path("range").asText()).isEqualTo(problemOf("{\"json\": {}}"));
  }

  @Test
  void theOperatorsAreTheFormatChecksAndEachOfThemPasses() throws Exception {
    Set<String> listed = new java.util.TreeSet<>();
    DESCRIBED.path("operators").forEach(node -> listed.add(node.asText()));
    assertThat(listed).isEqualTo(new java.util.TreeSet<>(AccessLogFormat.OPERATORS));
    for (String operator : listed) {
      assertThat(AccessLogFormat.problem("%" + operator + "%")).as(operator).isNull();
    }
    assertThat(DESCRIBED.path("maxFormatLength").asInt()).isEqualTo(AccessLogFormat.MAX_LENGTH);
    assertThat(DESCRIBED.path("maxJsonKeyLength").asInt()).isEqualTo(AccessLogFormat.MAX_JSON_KEY_LENGTH);
  }

  @Test
  void aDigitOtherThanAsciiIsNoMaximumLength() {
    // The console reads 0-9 only; so does the check, so both refuse the same strings.
    assertThat(AccessLogFormat.problem("%REQ(X):\u0663%")).isEqualTo(
        filled(AccessLogFormat.FormatProblem.NO_MAX_LENGTH.template(), "{position}", "0", "{name}", "REQ"));
    assertThat(EnumSet.allOf(AccessLogFormat.FormatProblem.class)).hasSize(5);
  }

  @Test
  void theTextIsTheDescription() throws Exception {
    assertThat(JSON.readTree(AccessLogSchema.describeAsString())).isEqualTo(DESCRIBED);
  }
}
