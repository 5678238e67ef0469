package io.spillway.policy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class RateLimitJsonTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static JsonNode tree(String json) throws Exception {
    return JSON.readTree(json);
  }

  /** One limit that is valid, with {@code field} replaced by {@code value} (JSON text). */
  private static RateLimitJson.Result withField(String field, String value) throws Exception {
    String ok = "{\"name\":\"ok\",\"key\":\"clientAddress\",\"rate\":1,\"burst\":1}";
    String bad = "{\"name\":\"api\",\"key\":\"header:x-api-key\",\"rate\":5,\"burst\":5,\"" + field + "\":" + value + "}";
    return RateLimitJson.parse(tree("{\"limits\":[" + ok + "," + bad + "]}"));
  }

  @Test
  void aFullLimitReadsBackAsWritten() throws Exception {
    String json = "{\"limits\":[{\"name\":\"per-key\",\"key\":\"header:X-Api-Key\",\"rate\":5,\"burst\":5,"
        + "\"mode\":\"enforce\",\"retryAfterSeconds\":2,\"exempt\":[\"internal\"],\"maxKeys\":100}]}";
    RateLimitJson.Result result = RateLimitJson.parse(tree(json));
    assertThat(result.problems()).isEmpty();
    RateLimit limit = result.policy().limits().get(0);
    assertThat(limit).isEqualTo(new RateLimit("per-key", "header:X-Api-Key", 5.0, 5, Mode.ENFORCE, 2, List.of("internal"), 100));
    assertThat(limit.parsedKey()).isEqualTo(new RateLimitKey(RateLimitKey.Kind.HEADER, "x-api-key"));
    assertThat(RateLimitJson.toTree(result.policy())).isEqualTo(tree(json));
  }

  @Test
  void absentOptionalFieldsTakeTheirDefaultsAndStayAbsent() throws Exception {
    RateLimitJson.Result result = RateLimitJson.parse(tree(
        "{\"limits\":[{\"name\":\"a\",\"key\":\"route\",\"rate\":1,\"burst\":1,\"unknown\":true}],\"other\":1}"));
    assertThat(result.valid()).isTrue();
    RateLimit limit = result.policy().limits().get(0);
    assertThat(limit.effectiveMode()).isEqualTo(Mode.SHADOW);
    assertThat(limit.effectiveScope()).isEqualTo(RateLimitScope.EDGE);
    assertThat(limit.scope()).isNull();
    assertThat(limit.effectiveMaxKeys()).isEqualTo(10_000);
    assertThat(limit.effectiveExempt()).isEmpty();
    assertThat(limit.retryAfterSeconds()).isNull();
    assertThat(RateLimitJson.write(result.policy())).isEqualTo("{\"limits\":[{\"name\":\"a\",\"key\":\"route\",\"rate\":1,\"burst\":1}]}");
  }

  @Test
  void theTreeEqualsItselfReadBackFromText() throws Exception {
    RateLimitsPolicy policy = RateLimitJson.parse(tree("{\"limits\":[{\"name\":\"a\",\"key\":\"route\",\"rate\":5.0,\"burst\":1},"
        + "{\"name\":\"b\",\"key\":\"route\",\"rate\":0.5,\"burst\":1}]}")).policy();
    assertThat(RateLimitJson.toTree(policy)).isEqualTo(tree(RateLimitJson.write(policy)));
    assertThat(RateLimitJson.write(policy)).contains("\"rate\":5,").contains("\"rate\":0.5,");
  }

  @Test
  void anEmptySectionHasNoLimits() throws Exception {
    assertThat(RateLimitJson.parse(tree("{}")).policy().limits()).isEmpty();
    assertThat(RateLimitJson.parse(tree("{\"limits\":[]}")).valid()).isTrue();
  }

  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource(delimiter = '|', value = {
      "rate|0.001|",
      "rate|1000000|",
      "rate|0.0009|rateLimits.limits[1].rate must be between 0.001 and 1000000",
      "rate|0|rateLimits.limits[1].rate must be between 0.001 and 1000000",
      "rate|-1|rateLimits.limits[1].rate must be between 0.001 and 1000000",
      "rate|1000000.5|rateLimits.limits[1].rate must be between 0.001 and 1000000",
      "rate|\"5\"|rateLimits.limits[1].rate must be a number",
      "burst|1|",
      "burst|1000000|",
      "burst|0|rateLimits.limits[1].burst must be between 1 and 1000000",
      "burst|1000001|rateLimits.limits[1].burst must be between 1 and 1000000",
      "burst|2.5|rateLimits.limits[1].burst must be an integer",
      "burst|5.0|",
      "burst|99999999999|rateLimits.limits[1].burst must be between 1 and 1000000",
      "retryAfterSeconds|1|",
      "retryAfterSeconds|3600|",
      "retryAfterSeconds|0|rateLimits.limits[1].retryAfterSeconds must be between 1 and 3600",
      "retryAfterSeconds|3601|rateLimits.limits[1].retryAfterSeconds must be between 1 and 3600",
      "maxKeys|1|",
      "maxKeys|1000000|",
      "maxKeys|0|rateLimits.limits[1].maxKeys must be between 1 and 1000000",
      "maxKeys|1000001|rateLimits.limits[1].maxKeys must be between 1 and 1000000",
      "mode|\"off\"|",
      "mode|\"enforce\"|",
      "mode|\"ENFORCE\"|rateLimits.limits[1].mode must be one of off, shadow, enforce",
      "mode|1|rateLimits.limits[1].mode must be one of off, shadow, enforce",
      "scope|\"edge\"|",
      "scope|\"fleet\"|",
      "scope|\"Fleet\"|rateLimits.limits[1].scope must be one of edge, fleet",
      "scope|\"shadow\"|rateLimits.limits[1].scope must be one of edge, fleet",
      "scope|true|rateLimits.limits[1].scope must be one of edge, fleet",
      "name|\"a\"|",
      "name|\"abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij1234\"|",
      "name|\"abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij12345\"|rateLimits.limits[1].name must be 1 to 64 letters, digits, '.', '_' or '-'",
      "name|\"\"|rateLimits.limits[1].name must be 1 to 64 letters, digits, '.', '_' or '-'",
      "name|\"a b\"|rateLimits.limits[1].name must be 1 to 64 letters, digits, '.', '_' or '-'",
      "name|7|rateLimits.limits[1].name must be a string",
      "name|\"ok\"|rateLimits.limits[1].name \"ok\" is already the name of rateLimits.limits[0]; names must be unique",
      "key|\"route\"|",
      "key|\"clientAddress\"|",
      "key|\"tier\"|",
      "key|\"subject\"|",
      "key|\"Tier\"|rateLimits.limits[1].key must be clientAddress, route, tier, subject or header:<name> (a header name of token characters)",
      "key|\"header:x\"|",
      "key|\"header:\"|rateLimits.limits[1].key must be clientAddress, route, tier, subject or header:<name> (a header name of token characters)",
      "key|\"header:a b\"|rateLimits.limits[1].key must be clientAddress, route, tier, subject or header:<name> (a header name of token characters)",
      "key|\"client\"|rateLimits.limits[1].key must be clientAddress, route, tier, subject or header:<name> (a header name of token characters)",
      "exempt|[]|",
      "exempt|[\"\"]|rateLimits.limits[1].exempt[0] must be 1 to 256 characters",
      "exempt|\"x\"|rateLimits.limits[1].exempt must be a list of strings",
      "exempt|[1]|rateLimits.limits[1].exempt must be a list of strings",
  })
  void rangeEdgesAndMessages(String field, String value, String message) throws Exception {
    RateLimitJson.Result result = withField(field, value);
    if (message == null) {
      assertThat(result.problems()).isEmpty();
    } else {
      assertThat(result.problems()).extracting(Problem::message).containsExactly(message);
      assertThat(result.firstProblem().orElseThrow().field()).startsWith("rateLimits.limits[1]." + field);
    }
  }

  @Test
  void theExemptListHoldsAtMostAHundredEntries() throws Exception {
    String hundred = "[" + "\"k\",".repeat(99) + "\"k\"]";
    assertThat(withField("exempt", hundred).problems()).isEmpty();
    assertThat(withField("exempt", "[\"k\"," + hundred.substring(1)).problems()).extracting(Problem::message)
        .containsExactly("rateLimits.limits[1].exempt must hold at most 100 entries");
  }

  @Test
  void clientAddressExemptionsAreAddressesOrPrefixes() throws Exception {
    String ok = "{\"limits\":[{\"name\":\"ip\",\"key\":\"clientAddress\",\"rate\":1,\"burst\":1,"
        + "\"exempt\":[\"10.0.0.0/8\",\"192.0.2.7\",\"2001:db8::/32\",\"::1\"]}]}";
    assertThat(RateLimitJson.parse(tree(ok)).problems()).isEmpty();
    for (String bad : List.of("10.0.0.0/33", "300.0.0.1", "example.com", "10.0.0/8", "2001:db8::/129", "1234")) {
      String json = "{\"limits\":[{\"name\":\"ip\",\"key\":\"clientAddress\",\"rate\":1,\"burst\":1,\"exempt\":[\"" + bad + "\"]}]}";
      assertThat(RateLimitJson.parse(tree(json)).problems()).as(bad).extracting(Problem::message)
          .containsExactly("rateLimits.limits[0].exempt[0] must be an IP address or a CIDR prefix such as 10.0.0.0/8 for the clientAddress key");
    }
  }

  @Test
  void tierExemptionsAreTierNames() throws Exception {
    String ok = "{\"limits\":[{\"name\":\"t\",\"key\":\"tier\",\"rate\":1,\"burst\":1,\"exempt\":[\"exempt\",\"continuation\"]}]}";
    assertThat(RateLimitJson.parse(tree(ok)).problems()).isEmpty();
    String bad = "{\"limits\":[{\"name\":\"t\",\"key\":\"tier\",\"rate\":1,\"burst\":1,\"exempt\":[\"proxy\",\"gold\"]}]}";
    assertThat(RateLimitJson.parse(tree(bad)).problems()).extracting(Problem::message)
        .containsExactly("rateLimits.limits[0].exempt[1] must be one of proxy, start, continuation, exempt for the tier key");
  }

  @Test
  void requiredFieldsAreNamed() throws Exception {
    RateLimitJson.Result result = RateLimitJson.parse(tree("{\"limits\":[{\"rate\":null}]}"));
    assertThat(result.problems()).extracting(Problem::message).containsExactly(
        "rateLimits.limits[0].name is required", "rateLimits.limits[0].key is required",
        "rateLimits.limits[0].rate is required", "rateLimits.limits[0].burst is required");
  }

  @Test
  void theSectionAndTheListMustHaveTheirShapes() throws Exception {
    assertThat(RateLimitJson.parse(tree("[]")).problems()).extracting(Problem::message).containsExactly("rateLimits must be an object");
    assertThat(RateLimitJson.parse(tree("{\"limits\":{}}")).problems()).extracting(Problem::message)
        .containsExactly("rateLimits.limits must be a list of limits");
    assertThat(RateLimitJson.parse(tree("{\"limits\":[3]}")).problems()).extracting(Problem::message)
        .containsExactly("rateLimits.limits[0] must be an object");
    StringBuilder many = new StringBuilder("{\"limits\":[");
    for (int i = 0; i <= RateLimitField.MAX_LIMITS; i++) {
      many.append(i == 0 ? "" : ",").append("{\"name\":\"l").append(i).append("\",\"key\":\"route\",\"rate\":1,\"burst\":1}");
    }
    assertThat(RateLimitJson.parse(tree(many + "]}")).problems()).extracting(Problem::message)
        .containsExactly("rateLimits.limits must hold at most 64 limits");
  }

  @Test
  void theProtoCarriesEveryFieldAndIsCheckedByTheSameRules() throws Exception {
    RateLimitsPolicy policy = new RateLimitsPolicy(List.of(
        new RateLimit("a", "header:x-api-key", 5.0, 5, Mode.ENFORCE, 3, List.of("internal"), 50),
        new RateLimit("b", "clientAddress", 0.5, 2, null, null, null, null),
        new RateLimit("c", "route", 1.0, 1, null, null, null, null, RateLimitScope.FLEET)));
    assertThat(RateLimitProto.parse(RateLimitProto.toProto(policy))).isEqualTo(new RateLimitJson.Result(policy, List.of()));
    io.spillway.policy.v1.RateLimits unknownScope = io.spillway.policy.v1.RateLimits.newBuilder()
        .addLimits(io.spillway.policy.v1.RateLimit.newBuilder().setName("a").setKey("route").setRate(1).setBurst(1)
            .setScope("region"))
        .build();
    assertThat(RateLimitProto.parse(unknownScope).problems()).extracting(Problem::message)
        .containsExactly("rateLimits.limits[0].scope must be one of edge, fleet");
    io.spillway.policy.v1.RateLimits bad = io.spillway.policy.v1.RateLimits.newBuilder()
        .addLimits(io.spillway.policy.v1.RateLimit.newBuilder().setName("a").setKey("route").setRate(0).setBurst(1))
        .build();
    assertThat(RateLimitProto.parse(bad).problems()).extracting(Problem::message)
        .containsExactly("rateLimits.limits[0].rate must be between 0.001 and 1000000");
  }

  @Test
  void prefixesMatchTheirAddressesOnly() {
    IpPrefix ten = IpPrefix.parse("10.0.0.0/8");
    assertThat(ten.contains(IpPrefix.literal("10.255.1.2"))).isTrue();
    assertThat(ten.contains(IpPrefix.literal("11.0.0.1"))).isFalse();
    assertThat(ten.contains(IpPrefix.literal("::1"))).isFalse();
    assertThat(IpPrefix.parse("10.1.2.3/8")).isEqualTo(ten);
    assertThat(IpPrefix.parse("192.0.2.7").contains(IpPrefix.literal("192.0.2.7"))).isTrue();
    assertThat(IpPrefix.parse("192.0.2.7").contains(IpPrefix.literal("192.0.2.8"))).isFalse();
    assertThat(IpPrefix.parse("192.0.2.0/25").contains(IpPrefix.literal("192.0.2.127"))).isTrue();
    assertThat(IpPrefix.parse("192.0.2.0/25").contains(IpPrefix.literal("192.0.2.128"))).isFalse();
    assertThat(IpPrefix.parse("2001:db8::/32").contains(IpPrefix.literal("2001:db8:1::5"))).isTrue();
    assertThat(IpPrefix.parse("0.0.0.0/0").contains(IpPrefix.literal("203.0.113.9"))).isTrue();
  }

  @Test
  void theSchemaIsGeneratedFromTheTable() {
    var schema = RateLimitSchema.jsonSchema();
    var item = schema.path("properties").path("limits").path("items");
    assertThat(item.path("required").toString()).isEqualTo("[\"name\",\"key\",\"rate\",\"burst\"]");
    assertThat(item.path("properties").path("rate").path("minimum").doubleValue()).isEqualTo(0.001);
    assertThat(item.path("properties").path("mode").path("default").asText()).isEqualTo("shadow");
    var rate = RateLimitSchema.describe().path("fields").get(2);
    assertThat(rate.path("path").asText()).isEqualTo("rateLimits.limits[].rate");
    assertThat(rate.path("messages").path("range").asText()).isEqualTo("rateLimits.limits[{i}].rate must be between 0.001 and 1000000");
  }
}
