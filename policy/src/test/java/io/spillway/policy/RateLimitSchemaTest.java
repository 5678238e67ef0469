package io.spillway.policy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The description an editor validates the rateLimits section with gives exactly the messages
 * RateLimitJson gives, and its patterns accept exactly what the reader accepts.
 */
class RateLimitSchemaTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static JsonNode field(String key) {
    return StreamSupport.stream(RateLimitSchema.describe().path("fields").spliterator(), false)
        .filter(node -> node.path("key").asText().equals(key)).findFirst().orElseThrow();
  }

  /** A template of the description with its placeholders filled in. */
  private static String filled(String template, String... pairs) {
    String text = template;
    for (int i = 0; i < pairs.length; i += 2) {
      text = text.replace(pairs[i], pairs[i + 1]);
    }
    return text;
  }

  /** The first problem central finds in a section of one valid limit and a second one with {@code second} (JSON members). */
  private static String problemOfTheSecondLimit(String second) throws Exception {
    String ok = "{\"name\":\"ok\",\"key\":\"clientAddress\",\"rate\":1,\"burst\":1}";
    RateLimitJson.Result result = RateLimitJson.parse(JSON.readTree("{\"limits\":[" + ok + ",{" + second + "}]}"));
    assertThat(result.problems()).as(second).isNotEmpty();
    return result.problems().get(0).message();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "rate      | range    | \"name\":\"b\",\"key\":\"route\",\"rate\":0,\"burst\":1",
      "burst     | range    | \"name\":\"b\",\"key\":\"route\",\"rate\":1,\"burst\":1000001",
      "burst     | type     | \"name\":\"b\",\"key\":\"route\",\"rate\":1,\"burst\":2.5",
      "name      | required | \"key\":\"route\",\"rate\":1,\"burst\":1",
      "name      | pattern  | \"name\":\"a b\",\"key\":\"route\",\"rate\":1,\"burst\":1",
      "key       | pattern  | \"name\":\"b\",\"key\":\"header:\",\"rate\":1,\"burst\":1",
      "mode      | type     | \"name\":\"b\",\"key\":\"route\",\"rate\":1,\"burst\":1,\"mode\":\"on\"",
      "retryAfterSeconds | range | \"name\":\"b\",\"key\":\"route\",\"rate\":1,\"burst\":1,\"retryAfterSeconds\":3601"})
  void eachMessageIsCentrals(String key, String kind, String second) throws Exception {
    assertThat(filled(field(key).path("messages").path(kind).asText(), "{i}", "1"))
        .isEqualTo(problemOfTheSecondLimit(second));
  }

  @Test
  void theExemptEntriesAndRepeatedNamesHaveCentralsMessages() throws Exception {
    JsonNode exempt = field("exempt").path("messages");
    assertThat(filled(exempt.path("entryLength").asText(), "{i}", "1", "{j}", "1"))
        .isEqualTo(problemOfTheSecondLimit("\"name\":\"b\",\"key\":\"route\",\"rate\":1,\"burst\":1,\"exempt\":[\"a\",\"\"]"));
    assertThat(filled(exempt.path("entryAddress").asText(), "{i}", "1", "{j}", "0"))
        .isEqualTo(problemOfTheSecondLimit("\"name\":\"b\",\"key\":\"clientAddress\",\"rate\":1,\"burst\":1,\"exempt\":[\"10.0.0.0/33\"]"));
    assertThat(filled(exempt.path("entryTier").asText(), "{i}", "1", "{j}", "1"))
        .isEqualTo(problemOfTheSecondLimit("\"name\":\"b\",\"key\":\"tier\",\"rate\":1,\"burst\":1,\"exempt\":[\"start\",\"gold\"]"));
    assertThat(field("exempt").path("entries").path("tiers")).extracting(JsonNode::asText)
        .containsExactly("proxy", "start", "continuation", "exempt");
    assertThat(filled(exempt.path("range").asText(), "{i}", "1"))
        .isEqualTo(problemOfTheSecondLimit("\"name\":\"b\",\"key\":\"route\",\"rate\":1,\"burst\":1,\"exempt\":"
            + JSON.writeValueAsString(java.util.Collections.nCopies(101, "x"))));
    assertThat(filled(RateLimitSchema.describe().path("duplicateMessage").asText(), "{i}", "1", "{name}", "ok", "{first}", "0"))
        .isEqualTo(problemOfTheSecondLimit("\"name\":\"ok\",\"key\":\"route\",\"rate\":1,\"burst\":1"));
    assertThat(field("exempt").path("entries").path("maxLength").asInt()).isEqualTo(RateLimitField.MAX_EXEMPT_LENGTH);
    assertThat(field("exempt").path("entries").path("addressKey").asText()).isEqualTo("clientAddress");
  }

  @ParameterizedTest
  @ValueSource(strings = {"10.0.0.0/8", "192.0.2.7", "0.0.0.0/0", "255.255.255.255/32", "001.2.3.4", "10.0.0.0/032",
      "10.0.0.0/33", "256.0.0.1", "10.0.0", "10.0.0.0/", "10.0.0.0/8/8", "a.b.c.d", "", "::1", "2001:db8::/32",
      "2001:db8::/128", "2001:db8::/129", "fe80::1/0", "example.com", "1.2.3.4 ", "::/0128"})
  void theAddressPatternAcceptsWhatTheReaderAccepts(String entry) {
    boolean matches = Pattern.compile(RateLimitField.ADDRESS_PATTERN).matcher(entry).matches();
    assertThat(matches).as(entry).isEqualTo(IpPrefix.parse(entry) != null);
  }

  @Test
  void theAddressPatternLetsThroughOnlyIpv6ShapedTextTheReaderRefuses() {
    // The documented gap: the right characters with a colon that are no IPv6 literal, and an
    // IPv4-mapped IPv6 address (which Java reads as the IPv4 address, and the reader refuses).
    for (String entry : List.of("1:::2", "::1::", "1:2:3:4:5:6:7:8:9", "::ffff:10.0.0.1")) {
      assertThat(Pattern.compile(RateLimitField.ADDRESS_PATTERN).matcher(entry).matches()).as(entry).isTrue();
      assertThat(IpPrefix.parse(entry)).as(entry).isNull();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"clientAddress", "route", "header:x-api-key", "header:X_Tenant", "header:", "header: x",
      "Route", "clientaddress", "header:a:b", "cookie:x"})
  void theKeyPatternAcceptsWhatTheReaderAccepts(String key) {
    boolean matches = Pattern.compile(RateLimitField.KEY.pattern()).matcher(key).matches();
    assertThat(matches).as(key).isEqualTo(RateLimitKey.parse(key) != null);
    assertThat(field("key").path("pattern").asText()).isEqualTo(RateLimitField.KEY.pattern());
  }

  @Test
  void describeAsStringIsTheDescription() throws Exception {
    assertThat(JSON.readTree(RateLimitSchema.describeAsString())).isEqualTo(RateLimitSchema.describe());
    assertThat(RateLimitSchema.describe().path("maxLimits").asInt()).isEqualTo(RateLimitField.MAX_LIMITS);
  }
}
