package io.spillway.central.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spillway.central.ratelimit.RateLimitConfig.Limit;
import io.spillway.central.ratelimit.RateLimitConfig.Unit;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RateLimitConfigTest {

  @TempDir
  Path dir;

  private static final String API = """
      domain: api
      descriptors:
        - key: api_key
          rate_limit: {unit: minute, requests_per_unit: 100}
        - key: api_key
          value: partner
          rate_limit: {unit: second, requests_per_unit: 1000}
        - key: api_key
          value: internal
          rate_limit: {unlimited: true}
        - key: route
          value: checkout
          descriptors:
            - key: remote_address
              rate_limit: {unit: hour, requests_per_unit: 10}
              shadow_mode: true
            - key: remote_address
              value: 10.0.0.1
              rate_limit: {unit: day, requests_per_unit: 0}
        - key: tier
          rate_limit: {unit: second, requests_per_unit: 5}
          descriptors:
            - key: user
              rate_limit: {unit: second, requests_per_unit: 1}
      """;

  private RateLimitConfig api() throws IOException {
    return load(API);
  }

  private RateLimitConfig load(String text) throws IOException {
    Path file = dir.resolve("limits-" + System.nanoTime() + ".yaml");
    Files.writeString(file, text);
    return RateLimitConfig.load(List.of(file));
  }

  private static List<Map.Entry<String, String>> entries(String... keyValues) {
    List<Map.Entry<String, String>> list = new ArrayList<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      list.add(Map.entry(keyValues[i], keyValues[i + 1]));
    }
    return list;
  }

  @Test
  void keyAndValueWinsOverKeyAlone() throws IOException {
    RateLimitConfig config = api();
    assertThat(config.domains()).containsExactly("api");
    assertThat(config.find("api", entries("api_key", "someone"))).isEqualTo(new Limit(Unit.MINUTE, 100, false, false));
    assertThat(config.find("api", entries("api_key", "partner"))).isEqualTo(new Limit(Unit.SECOND, 1000, false, false));
    assertThat(config.find("api", entries("api_key", "internal"))).isEqualTo(new Limit(null, 0, true, false));
  }

  @Test
  void nestedDescriptorsNeedEveryEntry() throws IOException {
    RateLimitConfig config = api();
    assertThat(config.find("api", entries("route", "checkout", "remote_address", "10.0.0.9")))
        .isEqualTo(new Limit(Unit.HOUR, 10, false, true));
    assertThat(config.find("api", entries("route", "checkout", "remote_address", "10.0.0.1")))
        .isEqualTo(new Limit(Unit.DAY, 0, false, false));
    // the route node has no limit of its own; another route has no node at all
    assertThat(config.find("api", entries("route", "checkout"))).isNull();
    assertThat(config.find("api", entries("route", "home", "remote_address", "10.0.0.9"))).isNull();
  }

  @Test
  void aLimitAppliesOnlyWhenTheLastEntryReachesIt() throws IOException {
    RateLimitConfig config = api();
    assertThat(config.find("api", entries("tier", "gold"))).isEqualTo(new Limit(Unit.SECOND, 5, false, false));
    assertThat(config.find("api", entries("tier", "gold", "user", "u1"))).isEqualTo(new Limit(Unit.SECOND, 1, false, false));
    // more entries than the tree is deep: no limit (Lyft's "request depth does not match config depth")
    assertThat(config.find("api", entries("api_key", "partner", "user", "u1"))).isNull();
    assertThat(config.find("api", entries("tier", "gold", "user", "u1", "extra", "x"))).isNull();
  }

  @Test
  void unknownDomainsAndKeysHaveNoLimit() throws IOException {
    RateLimitConfig config = api();
    assertThat(config.find("other", entries("api_key", "partner"))).isNull();
    assertThat(config.find("api", entries("unknown", "x"))).isNull();
    assertThat(config.find("api", List.of())).isNull();
  }

  @Test
  void aKeyWithUnderscoresDoesNotCollideWithAKeyAndValue() throws IOException {
    RateLimitConfig config = load("""
        domain: d
        descriptors:
          - key: a_b
            rate_limit: {unit: second, requests_per_unit: 1}
          - key: a
            value: b
            rate_limit: {unit: second, requests_per_unit: 2}
        """);
    assertThat(config.find("d", entries("a_b", "x")).requestsPerUnit()).isEqualTo(1);
    assertThat(config.find("d", entries("a", "b")).requestsPerUnit()).isEqualTo(2);
  }

  @Test
  void severalFilesAreSeveralDomains() throws IOException {
    Path one = Files.writeString(dir.resolve("one.yaml"), "domain: one\ndescriptors: [{key: k, rate_limit: {unit: second, requests_per_unit: 1}}]\n");
    Path two = Files.writeString(dir.resolve("two.yaml"), "domain: two\n");
    RateLimitConfig config = RateLimitConfig.load(List.of(one, two));
    assertThat(config.domains()).containsExactlyInAnyOrder("one", "two");
    assertThat(config.find("two", entries("k", "v"))).isNull();
    Path again = Files.writeString(dir.resolve("again.yaml"), "domain: one\n");
    assertThatThrownBy(() -> RateLimitConfig.load(List.of(one, again)))
        .hasMessage("rate limit config " + again + ": domain: 'one' is already configured by " + one);
  }

  @Test
  void aMissingFileIsNamed() {
    Path missing = dir.resolve("missing.yaml");
    assertThatThrownBy(() -> RateLimitConfig.load(List.of(missing)))
        .hasMessageStartingWith("rate limit config " + missing + ": cannot be read");
  }

  @ParameterizedTest(name = "{1}")
  @CsvSource(delimiter = '|', textBlock = """
      'descriptors: []'                                                                  | domain: is required, a non-empty string
      'domain: ""'                                                                       | domain: is required, a non-empty string
      'domain: [a]'                                                                      | domain: is required, a non-empty string
      '- a'                                                                              | must be a mapping with 'domain' and 'descriptors'
      'domain: d\nextra: 1'                                                              | extra: is not a field here (known: descriptors, domain)
      'domain: d\ndescriptors: {key: k}'                                                 | descriptors: must be a list of descriptors
      'domain: d\ndescriptors: [k]'                                                      | descriptors[0]: must be a mapping with 'key'
      'domain: d\ndescriptors: [{value: v}]'                                             | descriptors[0].key: is required, a non-empty string
      'domain: d\ndescriptors: [{key: ""}]'                                              | descriptors[0].key: is required, a non-empty string
      'domain: d\ndescriptors: [{key: k, values: v}]'                                    | descriptors[0].values: is not a field here (known: descriptors, detailed_metric, key, rate_limit, shadow_mode, value)
      'domain: d\ndescriptors: [{key: k, value: "v*"}]'                                  | descriptors[0].value: 'v*': wildcard values are not supported; list each value
      'domain: d\ndescriptors: [{key: k, detailed_metric: true}]'                        | descriptors[0].detailed_metric: is not supported (per-value metrics); remove it or set it false
      'domain: d\ndescriptors: [{key: k, shadow_mode: yes please}]'                      | descriptors[0].shadow_mode: must be true or false
      'domain: d\ndescriptors: [{key: k, shadow_mode: true}]'                            | descriptors[0].shadow_mode: needs a rate_limit on the same descriptor
      'domain: d\ndescriptors: [{key: k, rate_limit: 5}]'                                | descriptors[0].rate_limit: must be a mapping with 'unit' and 'requests_per_unit', or 'unlimited: true'
      'domain: d\ndescriptors: [{key: k, rate_limit: {requests_per_unit: 5}}]'           | descriptors[0].rate_limit.unit: is required: second, minute, hour or day
      'domain: d\ndescriptors: [{key: k, rate_limit: {unit: week, requests_per_unit: 5}}]' | descriptors[0].rate_limit.unit: 'week' is not supported: second, minute, hour or day
      'domain: d\ndescriptors: [{key: k, rate_limit: {unit: second}}]'                   | descriptors[0].rate_limit.requests_per_unit: is required, an integer from 0 to 4294967295
      'domain: d\ndescriptors: [{key: k, rate_limit: {unit: second, requests_per_unit: -1}}]' | descriptors[0].rate_limit.requests_per_unit: is required, an integer from 0 to 4294967295
      'domain: d\ndescriptors: [{key: k, rate_limit: {unit: second, requests_per_unit: 4294967296}}]' | descriptors[0].rate_limit.requests_per_unit: is required, an integer from 0 to 4294967295
      'domain: d\ndescriptors: [{key: k, rate_limit: {unit: second, requests_per_unit: 1.5}}]' | descriptors[0].rate_limit.requests_per_unit: is required, an integer from 0 to 4294967295
      'domain: d\ndescriptors: [{key: k, rate_limit: {unit: second, requests_per_unit: "5"}}]' | descriptors[0].rate_limit.requests_per_unit: is required, an integer from 0 to 4294967295
      'domain: d\ndescriptors: [{key: k, rate_limit: {unlimited: true, unit: second}}]'  | descriptors[0].rate_limit: unlimited: true takes neither 'unit' nor 'requests_per_unit'
      'domain: d\ndescriptors: [{key: k, rate_limit: {unit: second, requests_per_unit: 1, name: n}}]' | descriptors[0].rate_limit.name: is not supported by this rate limit service
      'domain: d\ndescriptors: [{key: k, rate_limit: {unit: second, requests_per_unit: 1, replaces: [{name: n}]}}]' | descriptors[0].rate_limit.replaces: is not supported by this rate limit service
      'domain: d\ndescriptors: [{key: k, quota_mode: true}]'                             | descriptors[0].quota_mode: is not supported by this rate limit service
      'domain: d\ndescriptors: [{key: k}, {key: k}]'                                     | descriptors[1]: duplicates the descriptor key 'k' at this level
      'domain: d\ndescriptors: [{key: k, value: v}, {key: k, value: v}]'                 | descriptors[1]: duplicates the descriptor key 'k' value 'v' at this level
      'domain: d\ndescriptors: [{key: k, descriptors: [{key: a, rate_limit: {unit: hour}}]}]' | descriptors[0].descriptors[0].rate_limit.requests_per_unit: is required, an integer from 0 to 4294967295
      'domain: d\ndomain: e'                                                             | not valid YAML: Duplicate field 'domain'
      """)
  void refusesWithTheFileAndTheFieldPath(String yaml, String message) throws IOException {
    Path file = Files.writeString(dir.resolve("bad.yaml"), yaml.replace("\\n", "\n"));
    assertThatThrownBy(() -> RateLimitConfig.load(List.of(file))).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rate limit config " + file + ": " + message);
  }

  @Test
  void refusesTooDeepATree() throws IOException {
    StringBuilder yaml = new StringBuilder("domain: d\ndescriptors: ");
    for (int i = 0; i < 17; i++) {
      yaml.append("[{key: k").append(i).append(", descriptors: ");
    }
    yaml.append("[]").append("}]".repeat(17)).append('\n');
    Path file = Files.writeString(dir.resolve("deep.yaml"), yaml.toString());
    assertThatThrownBy(() -> RateLimitConfig.load(List.of(file))).hasMessageContaining("nests deeper than 16 levels");
  }

  @Test
  void anEmptyDomainHasNoLimits() throws IOException {
    RateLimitConfig config = load("domain: quiet\ndescriptors:\n");
    assertThat(config.domains()).containsExactly("quiet");
    assertThat(config.find("quiet", entries("k", "v"))).isNull();
  }
}
