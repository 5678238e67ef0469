package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.json.JsonMapper;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.policy.AccessLogFormat;
import io.spillway.policy.AccessLogJson;
import io.spillway.policy.AccessLogPolicy;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class PolicyAccessLogTranslatorTest {

  private static final Path DIR = Path.of("/var/spillway/logs");

  private static AccessLogPolicy policy(String json) throws Exception {
    AccessLogJson.Result result = AccessLogJson.parse(JsonMapper.builder().build().readTree(json));
    assertThat(result.problems()).isEmpty();
    return result.policy();
  }

  @Test
  void theFormatIsParsedByTheEdgesParserWithANewlineAdded() throws Exception {
    AccessLogConfig c = PolicyAccessLogTranslator.translate(policy("{\"format\": \"%RESPONSE_CODE% x\"}"), DIR);
    assertThat(c.format()).isEqualTo(AccessLogConfig.textFormat("%RESPONSE_CODE% x\n", false));
    assertThat(c.sink()).isEqualTo(AccessLogConfig.Sink.STDOUT);
    assertThat(c.filter()).isEmpty();
    AccessLogConfig withNewline = PolicyAccessLogTranslator.translate(policy("{\"format\": \"%DURATION%\\n\"}"), DIR);
    assertThat(withNewline.format()).isEqualTo(AccessLogConfig.textFormat("%DURATION%\n", false));
  }

  @Test
  void noFormatIsEnvoysDefault() throws Exception {
    AccessLogConfig c = PolicyAccessLogTranslator.translate(policy("{\"destination\": \"stderr\"}"), DIR);
    assertThat(c.format()).isEqualTo(AccessLogConfig.textFormat(AccessLogConfig.DEFAULT_FORMAT, false));
    assertThat(c.sink()).isEqualTo(AccessLogConfig.Sink.STDERR);
  }

  @Test
  void aJsonFormatIsTypedInOrder() throws Exception {
    AccessLogConfig c = PolicyAccessLogTranslator.translate(
        policy("{\"json\": {\"code\": \"%RESPONSE_CODE%\", \"path\": \"%REQ(:PATH)%\"}}"), DIR);
    AccessLogConfig.JsonFormat json = (AccessLogConfig.JsonFormat) c.format();
    assertThat(json.typed()).isTrue();
    assertThat(json.fields()).extracting(AccessLogConfig.JsonField::key).containsExactly("code", "path");
  }

  @Test
  void filtersBecomeEnvoysUnderAnAndFilter() throws Exception {
    AccessLogConfig c = PolicyAccessLogTranslator.translate(policy("{\"filters\": {\"statusCode\": {\"value\": 500}, "
        + "\"duration\": {\"op\": \"<=\", \"millis\": 20}, \"notHealthCheck\": true, \"responseFlags\": [\"UH\"]}}"), DIR);
    assertThat(c.filter()).contains(new AccessLogConfig.AndFilter(List.of(
        new AccessLogConfig.StatusCodeFilter(AccessLogConfig.Op.GE, 500),
        new AccessLogConfig.DurationFilter(AccessLogConfig.Op.LE, 20),
        new AccessLogConfig.NotHealthCheckFilter(),
        new AccessLogConfig.ResponseFlagFilter(Set.of("UH")))));
    AccessLogConfig one = PolicyAccessLogTranslator.translate(
        policy("{\"filters\": {\"statusCode\": {\"op\": \"=\", \"value\": 404}, \"notHealthCheck\": false}}"), DIR);
    assertThat(one.filter()).isEqualTo(Optional.of(new AccessLogConfig.StatusCodeFilter(AccessLogConfig.Op.EQ, 404)));
  }

  @Test
  void aFileIsResolvedUnderTheDirectory() throws Exception {
    AccessLogConfig c = PolicyAccessLogTranslator.translate(
        policy("{\"destination\": {\"file\": \"edge/access.log\"}}"), DIR);
    assertThat(c.sink()).isEqualTo(AccessLogConfig.Sink.FILE);
    assertThat(c.path()).isEqualTo("/var/spillway/logs/edge/access.log");
    AccessLogPolicy escaping = new AccessLogPolicy(null, null, null, AccessLogPolicy.Destination.file("../x.log"));
    assertThatThrownBy(() -> PolicyAccessLogTranslator.translate(escaping, DIR))
        .isInstanceOf(ConfigException.class)
        .hasMessage("accessLog.destination.file: ../x.log is not a file under the access log directory /var/spillway/logs");
  }

  @Test
  void whatOnlyTheEdgesParserKnowsIsRefusedWithTheSectionsPath() throws Exception {
    assertThatThrownBy(() -> PolicyAccessLogTranslator.translate(policy("{\"format\": \"%RESPONSE_CODE(x)%\"}"), DIR))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("accessLog.format: ");
    assertThatThrownBy(() -> PolicyAccessLogTranslator.translate(policy("{\"json\": {\"a\": \"%REQ%\"}}"), DIR))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("accessLog.json.a: ");
  }

  @Test
  void thePolicyModuleKnowsExactlyTheEdgesOperatorsAndFlags() {
    assertThat(AccessLogFormat.OPERATORS).isEqualTo(Arrays.stream(AccessLogConfig.Operator.values())
        .map(Enum::name).collect(Collectors.toSet()));
    assertThat(AccessLogFormat.RESPONSE_FLAGS).isEqualTo(Arrays.stream(ResponseFlag.values()).map(Enum::name).toList());
  }
}
