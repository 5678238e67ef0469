package io.spillway.policy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AccessLogJsonTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static JsonNode tree(String json) throws Exception {
    return JSON.readTree(json);
  }

  private static AccessLogJson.Result parse(String json) throws Exception {
    return AccessLogJson.parse(tree(json));
  }

  /** The one problem of {@code json}, as "path | message". */
  private static String problem(String json) throws Exception {
    AccessLogJson.Result result = parse(json);
    assertThat(result.problems()).as(json).hasSize(1);
    Problem p = result.problems().get(0);
    return p.field() + " | " + p.message();
  }

  @Test
  void aFullSectionReadsBackAsWritten() throws Exception {
    String json = "{\"format\":\"%REQ(:METHOD)% %RESPONSE_CODE% %START_TIME(%s.%3f)%\\n\","
        + "\"filters\":{\"statusCode\":{\"op\":\">=\",\"value\":500},\"duration\":{\"op\":\"<=\",\"millis\":250},"
        + "\"notHealthCheck\":true,\"responseFlags\":[\"UH\",\"UF\"]},\"destination\":{\"file\":\"edge/access.log\"}}";
    AccessLogJson.Result result = parse(json);
    assertThat(result.problems()).isEmpty();
    AccessLogPolicy p = result.policy();
    assertThat(p.format()).isEqualTo("%REQ(:METHOD)% %RESPONSE_CODE% %START_TIME(%s.%3f)%\n");
    assertThat(p.filters()).isEqualTo(new AccessLogPolicy.Filters(new AccessLogPolicy.Comparison(">=", 500),
        new AccessLogPolicy.Comparison("<=", 250), true, List.of("UH", "UF")));
    assertThat(p.effectiveDestination()).isEqualTo(AccessLogPolicy.Destination.file("edge/access.log"));
    assertThat(AccessLogJson.toTree(p)).isEqualTo(tree(json));
  }

  @Test
  void anEmptySectionIsTheDefaultFormatOnStdoutForEveryRequest() throws Exception {
    AccessLogJson.Result result = parse("{\"unknown\": 1, \"filters\": {\"later\": true}}");
    assertThat(result.valid()).isTrue();
    assertThat(result.policy().format()).isNull();
    assertThat(result.policy().json()).isNull();
    assertThat(result.policy().filters().isEmpty()).isTrue();
    assertThat(result.policy().effectiveDestination()).isEqualTo(AccessLogPolicy.Destination.STDOUT);
    assertThat(AccessLogJson.write(result.policy())).isEqualTo("{\"filters\":{}}");
  }

  @Test
  void aJsonFormatKeepsItsKeysInOrder() throws Exception {
    String json = "{\"json\":{\"z\":\"%RESPONSE_CODE%\",\"a\":\"%REQ(:PATH)%\",\"m\":\"text %DURATION% ms\"},"
        + "\"destination\":\"stderr\"}";
    AccessLogJson.Result result = parse(json);
    assertThat(result.problems()).isEmpty();
    assertThat(result.policy().json().keySet()).containsExactly("z", "a", "m");
    assertThat(AccessLogJson.write(result.policy())).isEqualTo(json);
    assertThat(result.policy().effectiveDestination()).isEqualTo(AccessLogPolicy.Destination.STDERR);
  }

  @Test
  void theProtoFormReadsBackToTheSameSection() throws Exception {
    for (String json : List.of(
        "{\"format\":\"%RESPONSE_CODE%\",\"filters\":{\"statusCode\":{\"value\":400},\"responseFlags\":[]},"
            + "\"destination\":{\"file\":\"a.log\"}}",
        "{\"json\":{\"code\":\"%RESPONSE_CODE%\",\"path\":\"%REQ(:PATH)%\"},\"filters\":{\"duration\":{\"op\":\"=\","
            + "\"millis\":0},\"notHealthCheck\":false},\"destination\":\"stdout\"}",
        "{}")) {
      AccessLogPolicy policy = parse(json).policy();
      AccessLogJson.Result back = AccessLogProto.parse(AccessLogProto.toProto(policy));
      assertThat(back.problems()).isEmpty();
      assertThat(back.policy()).as(json).isEqualTo(policy);
      assertThat(AccessLogJson.toTree(back.policy())).isEqualTo(tree(json));
    }
  }

  @Test
  void aReceivedMessageIsCheckedWithTheSameMessages() {
    io.spillway.policy.v1.AccessLog message = io.spillway.policy.v1.AccessLog.newBuilder()
        .setDestinationFile("../etc/passwd").build();
    assertThat(AccessLogProto.parse(message).firstProblem().orElseThrow().message())
        .isEqualTo("accessLog.destination.file must not contain '.' or '..' segments");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
      "[]                                          | accessLog | accessLog must be an object",
      "{\"format\": 5}                             | accessLog.format | accessLog.format must be a string",
      "{\"format\": \"\"}                          | accessLog.format | accessLog.format must be 1 to 4096 characters",
      "{\"format\": \"%RESPONSE_CODE\"}            | accessLog.format | accessLog.format has an unterminated command operator at position 0 (write %NAME%, %NAME(ARG)% or %NAME(ARG):N%; every % opens a command operator)",
      "{\"format\": \"100% done\"}                 | accessLog.format | accessLog.format has an unterminated command operator at position 3 (write %NAME%, %NAME(ARG)% or %NAME(ARG):N%; every % opens a command operator)",
      "{\"format\": \"%REQ(:PATH %\"}              | accessLog.format | accessLog.format has an unterminated command operator at position 0: no ')' after %REQ(",
      "{\"format\": \"%REQ(:PATH):x%\"}            | accessLog.format | accessLog.format has a command operator %REQ% at position 0 whose ':' is not followed by a maximum length",
      "{\"format\": \"a %NOPE% b\"}                | accessLog.format | accessLog.format names an unknown or unsupported command operator %NOPE% at position 2",
      "{\"json\": \"x\"}                           | accessLog.json | accessLog.json must be an object whose values are format strings",
      "{\"json\": {}}                              | accessLog.json | accessLog.json must hold 1 to 64 keys",
      "{\"json\": {\"a\": 1}}                      | accessLog.json | accessLog.json.a must be a format string",
      "{\"json\": {\"a\": \"%X%\"}}                | accessLog.json | accessLog.json.a names an unknown or unsupported command operator %X% at position 0",
      "{\"json\": {\"\": \"%DURATION%\"}}          | accessLog.json | accessLog.json keys must be 1 to 128 characters",
      "{\"format\": \"%DURATION%\", \"json\": {\"d\": \"%DURATION%\"}} | accessLog.json | accessLog.json cannot be set together with accessLog.format; set one of them",
      "{\"filters\": []}                           | accessLog.filters | accessLog.filters must be an object",
      "{\"filters\": {\"statusCode\": 500}}        | accessLog.filters.statusCode | accessLog.filters.statusCode must be an object with op and value",
      "{\"filters\": {\"statusCode\": {\"op\": \">\", \"value\": 500}}} | accessLog.filters.statusCode.op | accessLog.filters.statusCode.op must be one of >=, <=, =",
      "{\"filters\": {\"statusCode\": {\"op\": \">=\"}}} | accessLog.filters.statusCode.value | accessLog.filters.statusCode.value is required",
      "{\"filters\": {\"statusCode\": {\"value\": 99}}} | accessLog.filters.statusCode.value | accessLog.filters.statusCode.value must be between 100 and 599",
      "{\"filters\": {\"statusCode\": {\"value\": 500.5}}} | accessLog.filters.statusCode.value | accessLog.filters.statusCode.value must be an integer",
      "{\"filters\": {\"duration\": {\"op\": 1, \"millis\": 5}}} | accessLog.filters.duration.op | accessLog.filters.duration.op must be one of >=, <=, =",
      "{\"filters\": {\"duration\": {\"value\": 5}}} | accessLog.filters.duration.millis | accessLog.filters.duration.millis is required",
      "{\"filters\": {\"duration\": {\"millis\": 86400001}}} | accessLog.filters.duration.millis | accessLog.filters.duration.millis must be between 0 and 86400000",
      "{\"filters\": {\"duration\": {\"millis\": 1e12}}} | accessLog.filters.duration.millis | accessLog.filters.duration.millis must be between 0 and 86400000",
      "{\"filters\": {\"duration\": \"slow\"}}     | accessLog.filters.duration | accessLog.filters.duration must be an object with op and millis",
      "{\"filters\": {\"notHealthCheck\": \"yes\"}} | accessLog.filters.notHealthCheck | accessLog.filters.notHealthCheck must be true or false",
      "{\"filters\": {\"responseFlags\": \"UH\"}}  | accessLog.filters.responseFlags | accessLog.filters.responseFlags must be a list of response flags",
      "{\"filters\": {\"responseFlags\": [\"UH\", \"XX\"]}} | accessLog.filters.responseFlags | accessLog.filters.responseFlags[1] \"XX\" is not a response flag the edge sets (one of UH, UF, UO, UT, UR, URX, NR, NC, DC, LR, SI, DPE, OM, UAEX, AR, GR, RL, RLSE, DI, FI, DT)",
      "{\"destination\": \"syslog\"}               | accessLog.destination | accessLog.destination must be stdout, stderr or {\"file\": \"<relative path>\"}",
      "{\"destination\": 1}                        | accessLog.destination | accessLog.destination must be stdout, stderr or {\"file\": \"<relative path>\"}",
      "{\"destination\": {}}                       | accessLog.destination | accessLog.destination.file is required",
      "{\"destination\": {\"file\": 3}}            | accessLog.destination | accessLog.destination.file must be a string",
      "{\"destination\": {\"file\": \"\"}}         | accessLog.destination | accessLog.destination.file must be 1 to 255 characters",
      "{\"destination\": {\"file\": \"/var/log/a\"}} | accessLog.destination | accessLog.destination.file must be relative to the edge's access log directory, not absolute",
      "{\"destination\": {\"file\": \"C:x.log\"}}  | accessLog.destination | accessLog.destination.file must be relative to the edge's access log directory, not absolute",
      "{\"destination\": {\"file\": \"a/../../b\"}} | accessLog.destination | accessLog.destination.file must not contain '.' or '..' segments",
      "{\"destination\": {\"file\": \"./a\"}}      | accessLog.destination | accessLog.destination.file must not contain '.' or '..' segments",
      "{\"destination\": {\"file\": \"a//b\"}}     | accessLog.destination | accessLog.destination.file must be segments of letters, digits, '.', '_' or '-' joined by '/'",
      "{\"destination\": {\"file\": \"a b.log\"}}  | accessLog.destination | accessLog.destination.file must be segments of letters, digits, '.', '_' or '-' joined by '/'",
  })
  void everyRuleHasItsMessage(String json, String path, String message) throws Exception {
    assertThat(problem(json)).isEqualTo(path + " | " + message);
  }

  @Test
  void limitsOfLengthAndCount() throws Exception {
    assertThat(parse("{\"format\": \"" + "a".repeat(4096) + "\"}").valid()).isTrue();
    assertThat(problem("{\"format\": \"" + "a".repeat(4097) + "\"}"))
        .isEqualTo("accessLog.format | accessLog.format must be 1 to 4096 characters");
    StringBuilder keys = new StringBuilder("{\"json\": {");
    for (int i = 0; i < 65; i++) {
      keys.append(i == 0 ? "" : ",").append("\"k").append(i).append("\": \"%DURATION%\"");
    }
    assertThat(problem(keys + "}}")).isEqualTo("accessLog.json | accessLog.json must hold 1 to 64 keys");
    assertThat(parse("{\"destination\": {\"file\": \"" + "a".repeat(255) + "\"}}").valid()).isTrue();
    assertThat(problem("{\"destination\": {\"file\": \"" + "a".repeat(256) + "\"}}"))
        .isEqualTo("accessLog.destination | accessLog.destination.file must be 1 to 255 characters");
  }

  @Test
  void problemsComeInTableOrder() throws Exception {
    AccessLogJson.Result result = parse("{\"destination\": \"x\", \"filters\": {\"notHealthCheck\": 1, "
        + "\"statusCode\": {\"value\": 1}}, \"format\": \"%\"}");
    assertThat(result.problems()).extracting(Problem::field).containsExactly("accessLog.format",
        "accessLog.filters.statusCode.value", "accessLog.filters.notHealthCheck", "accessLog.destination");
  }

  @Test
  void nullIsTheSameAsAbsent() throws Exception {
    AccessLogJson.Result result = parse("{\"format\": null, \"json\": null, \"filters\": {\"statusCode\": null}, "
        + "\"destination\": null}");
    assertThat(result.valid()).isTrue();
    assertThat(result.policy()).isEqualTo(new AccessLogPolicy(null, null,
        new AccessLogPolicy.Filters(null, null, null, null), null));
  }

  @Test
  void theSchemaDescribesEveryFieldOfTheTable() {
    var described = AccessLogSchema.describe();
    assertThat(described.get("fields")).hasSize(AccessLogField.values().length);
    assertThat(described.get("fields").get(3).get("path").asText()).isEqualTo("accessLog.filters.statusCode.value");
    assertThat(described.get("fields").get(3).get("messages").get("range").asText())
        .isEqualTo("accessLog.filters.statusCode.value must be between 100 and 599");
    var schema = AccessLogSchema.jsonSchema();
    assertThat(schema.path("properties").path("filters").path("properties").path("statusCode").path("properties")
        .path("value").path("maximum").asInt()).isEqualTo(599);
    assertThat(schema.path("properties").path("filters").path("properties").path("responseFlags").path("items")
        .path("enum")).hasSize(AccessLogFormat.RESPONSE_FLAGS.size());
  }
}
