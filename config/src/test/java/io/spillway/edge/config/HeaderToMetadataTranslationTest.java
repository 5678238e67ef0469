package io.spillway.edge.config;

import static io.spillway.edge.config.BootstrapYaml.HCM;
import static io.spillway.edge.config.BootstrapYaml.ROUTE;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.HeaderToMetadataConfig.GroupPart;
import io.spillway.edge.config.HeaderToMetadataConfig.KeyValue;
import io.spillway.edge.config.HeaderToMetadataConfig.LiteralPart;
import io.spillway.edge.config.HeaderToMetadataConfig.Rule;
import io.spillway.edge.config.HeaderToMetadataConfig.Source;
import io.spillway.edge.config.HeaderToMetadataConfig.ValueType;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.header_to_metadata's Config: every field into its record, the default
 * namespace, the per-route Config, and every refusal with its field path (Envoy's Rule checks,
 * proto validation, ours for pseudo-headers and RE2-only syntax).
 */
class HeaderToMetadataTranslationTest {

  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.header_to_metadata.v3.Config";
  private static final String CONFIG = HCM + ".http_filters[0].typed_config";
  private static final String ROUTER = """
      - name: envoy.filters.http.router
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
      """;

  /** The filter with these Config fields (column 0), then the router. */
  private static BootstrapYaml withConfig(String fields) {
    return BootstrapYaml.minimal().httpFilters("""
        - name: envoy.filters.http.header_to_metadata
          typed_config:
            "@type": %s
        %s
        """.formatted(TYPE, fields.indent(4).stripTrailing()) + ROUTER);
  }

  private static HeaderToMetadataConfig config(String fields) throws ConfigException {
    return withConfig(fields).translate().listeners().get(0).hcm().httpFilters().get(0)
        .settings(HeaderToMetadataConfig.class);
  }

  @Test
  void everyFieldIsTranslated() throws ConfigException {
    HeaderToMetadataConfig c = config("""
        request_rules:
        - header: X-Version
          on_header_present: {metadata_namespace: envoy.lb, key: version, type: STRING}
          on_header_missing: {key: default, value: "true", type: STRING}
          remove: true
        - cookie: session
          on_header_present:
            key: session
            type: PROTOBUF_VALUE
            encode: BASE64
            regex_value_rewrite: {pattern: {regex: "^s-(.*)$"}, substitution: "id=\\\\1\\\\\\\\"}
        response_rules:
        - header: x-weight
          on_header_present: {key: weight, type: NUMBER}
        """);
    assertThat(c.requestRules()).containsExactly(
        new Rule(Source.HEADER, "x-version",
            Optional.of(new KeyValue("envoy.lb", "version", "", Optional.empty(), ValueType.STRING, false)),
            Optional.of(new KeyValue(HeaderToMetadataConfig.DEFAULT_NAMESPACE, "default", "true", Optional.empty(),
                ValueType.STRING, false)), true),
        c.requestRules().get(1));
    Rule cookie = c.requestRules().get(1);
    assertThat(cookie.source()).isEqualTo(Source.COOKIE);
    assertThat(cookie.name()).isEqualTo("session");
    KeyValue session = cookie.onPresent().orElseThrow();
    assertThat(session.type()).isEqualTo(ValueType.PROTOBUF_VALUE);
    assertThat(session.base64()).isTrue();
    assertThat(session.rewrite().orElseThrow().pattern().pattern()).isEqualTo("^s-(.*)$");
    assertThat(session.rewrite().orElseThrow().substitution())
        .containsExactly(new LiteralPart("id="), new GroupPart(1), new LiteralPart("\\"));
    assertThat(c.responseRules()).containsExactly(new Rule(Source.HEADER, "x-weight",
        Optional.of(new KeyValue(HeaderToMetadataConfig.DEFAULT_NAMESPACE, "weight", "", Optional.empty(),
            ValueType.NUMBER, false)), Optional.empty(), false));
  }

  @Test
  void aConfigWithoutRulesIsAcceptedForTheFilterAndPseudoHeadersMayBeRead() throws ConfigException {
    assertThat(config("request_rules: []").requestRules()).isEmpty();
    assertThat(config("""
        request_rules: [{header: ":path", on_header_present: {key: p}}]
        response_rules: [{header: ":status", on_header_present: {key: s, type: NUMBER}}]
        """).requestRules().get(0).name()).isEqualTo(":path");
  }

  @Test
  void onHeaderMissingsRegexRewriteIsIgnoredAsInEnvoy() throws ConfigException {
    assertThat(config("""
        request_rules:
        - header: x-a
          on_header_missing: {key: k, value: v, regex_value_rewrite: {pattern: {regex: "a"}, substitution: b}}
        """).requestRules().get(0).onMissing().orElseThrow().rewrite()).isEmpty();
  }

  @Test
  void aRouteHasItsOwnConfig() throws ConfigException {
    BootstrapYaml yaml = BootstrapYaml.minimal().httpFilters("""
        - name: envoy.filters.http.header_to_metadata
          typed_config: {"@type": %s}
        """.formatted(TYPE) + ROUTER).routes("""
        - match: {prefix: "/"}
          route: {cluster: backend}
          typed_per_filter_config:
            envoy.filters.http.header_to_metadata:
              "@type": %s
              response_rules: [{header: x-r, on_header_present: {key: r}}]
        """.formatted(TYPE));
    Route route = yaml.translate().listeners().get(0).hcm().routeConfig().virtualHosts().get(0).routes().get(0);
    HeaderToMetadataConfig own = (HeaderToMetadataConfig) route.filterConfigs().get(
        "envoy.filters.http.header_to_metadata");
    assertThat(own.responseRules()).extracting(Rule::name).containsExactly("x-r");
  }

  @Test
  void aPerRouteConfigWithoutRulesIsRefused() {
    BootstrapYaml.minimal().routes("""
        - match: {prefix: "/"}
          route: {cluster: backend}
          typed_per_filter_config:
            envoy.filters.http.header_to_metadata: {"@type": %s}
        """.formatted(TYPE)).rejects(ROUTE + ".typed_per_filter_config[\"envoy.filters.http.header_to_metadata\"]: "
        + "a per-route header_to_metadata Config needs request_rules or response_rules");
  }

  @Test
  void aRuleNeedsAHeaderOrACookieButNotBoth() {
    withConfig("request_rules: [{on_header_present: {key: k}}]")
        .rejects(CONFIG + ".request_rules[0]: one of header or cookie is required");
    withConfig("response_rules: [{header: a, cookie: b, on_header_present: {key: k}}]")
        .rejects(CONFIG + ".response_rules[0].cookie: header and cookie may not both be set");
  }

  @Test
  void aRuleNeedsOnHeaderPresentOrOnHeaderMissing() {
    withConfig("request_rules: [{header: x-a, remove: true}]")
        .rejects(CONFIG + ".request_rules[0]: the rule has neither on_header_present nor on_header_missing");
  }

  @Test
  void valueAndRegexValueRewriteMayNotBothBeSet() {
    withConfig("""
        request_rules:
        - header: x-a
          on_header_present: {key: k, value: v, regex_value_rewrite: {pattern: {regex: a}, substitution: b}}
        """).rejects(CONFIG + ".request_rules[0].on_header_present.regex_value_rewrite: "
        + "value and regex_value_rewrite may not both be set");
  }

  @Test
  void aCookieIsNeverRemoved() {
    withConfig("request_rules: [{cookie: c, on_header_present: {key: k}, remove: true}]")
        .rejects(CONFIG + ".request_rules[0].remove: remove is not supported for a cookie (Envoy refuses it)");
  }

  @Test
  void onHeaderMissingNeedsAValue() {
    withConfig("request_rules: [{header: x-a, on_header_missing: {key: k}}]")
        .rejects(CONFIG + ".request_rules[0].on_header_missing.value: "
            + "on_header_missing needs a value (there is no header to read)");
  }

  @Test
  void aKeyIsRequired() {
    withConfig("request_rules: [{header: x-a, on_header_present: {metadata_namespace: ns}}]")
        .rejects(CONFIG + ".request_rules[0].on_header_present.key: key is required");
  }

  @Test
  void unknownTypeAndEncodeNumbersAreRefused() {
    withConfig("request_rules: [{header: x-a, on_header_present: {key: k, type: 7}}]")
        .rejects(CONFIG + ".request_rules[0].on_header_present.type: 7 is not one of STRING, NUMBER, PROTOBUF_VALUE");
    withConfig("request_rules: [{header: x-a, on_header_present: {key: k, encode: 3}}]")
        .rejects(CONFIG + ".request_rules[0].on_header_present.encode: 3 is not one of NONE, BASE64");
  }

  @Test
  void headerAndCookieNamesMustBeTokens() {
    withConfig("request_rules: [{header: \"x a\", on_header_present: {key: k}}]")
        .rejects(CONFIG + ".request_rules[0].header: \"x a\" is not a valid header name");
    withConfig("request_rules: [{cookie: \"a;b\", on_header_present: {key: k}}]")
        .rejects(CONFIG + ".request_rules[0].cookie: \"a;b\" is not a valid header name");
    withConfig("request_rules: [{cookie: \":c\", on_header_present: {key: k}}]")
        .rejects(CONFIG + ".request_rules[0].cookie: \":c\" is not a valid cookie name");
  }

  @Test
  void pseudoHeadersMustExistAndAreNeverRemoved() {
    withConfig("request_rules: [{header: \":status\", on_header_present: {key: k}}]")
        .rejects(CONFIG + ".request_rules[0].header: \":status\" is not a pseudo-header of a request "
            + "(:authority, :path, :method, :scheme)");
    withConfig("response_rules: [{header: \":path\", on_header_present: {key: k}}]")
        .rejects(CONFIG + ".response_rules[0].header: \":path\" is not a pseudo-header of a response (:status)");
    withConfig("request_rules: [{header: \":path\", on_header_present: {key: k}, remove: true}]")
        .rejects(CONFIG + ".request_rules[0].remove: \":path\" may not be removed "
            + "(pseudo-headers and host are protected)");
    withConfig("request_rules: [{header: Host, on_header_present: {key: k}, remove: true}]")
        .rejects(CONFIG + ".request_rules[0].remove: \"Host\" may not be removed "
            + "(pseudo-headers and host are protected)");
    withConfig("response_rules: [{header: \":status\", on_header_present: {key: k}, remove: true}]")
        .rejects(CONFIG + ".response_rules[0].remove: \":status\" may not be removed (pseudo-headers are protected)");
  }

  @Test
  void aRewriteNeedsAValidRe2Pattern() {
    String rule = "request_rules: [{header: x-a, on_header_present: {key: k, regex_value_rewrite: %s}}]";
    String at = CONFIG + ".request_rules[0].on_header_present.regex_value_rewrite";
    withConfig(rule.formatted("{substitution: b}")).rejects(at + ".pattern: pattern is required");
    withConfig(rule.formatted("{pattern: {regex: \"(a\"}, substitution: b}"))
        .rejects(at + ".pattern.regex: invalid regular expression \"(a\": Unclosed group near index 2");
    withConfig(rule.formatted("{pattern: {regex: \"(a)\\\\1\"}, substitution: b}")).rejects(at
        + ".pattern.regex: \"(a)\\1\" uses a back-reference \\1, which RE2 (Envoy's regex engine) does not support");
    withConfig(rule.formatted("{pattern: {regex: \"a(?=b)\"}, substitution: b}")).rejects(at
        + ".pattern.regex: \"a(?=b)\" uses a look-around (?=, which RE2 (Envoy's regex engine) does not support");
    withConfig(rule.formatted("{pattern: {regex: \"(?<!x)a\"}, substitution: b}")).rejects(at
        + ".pattern.regex: \"(?<!x)a\" uses a look-around (?<!, which RE2 (Envoy's regex engine) does not support");
    withConfig(rule.formatted("{pattern: {regex: \"(?>ab)\"}, substitution: b}")).rejects(at
        + ".pattern.regex: \"(?>ab)\" uses a atomic group (?>, which RE2 (Envoy's regex engine) does not support");
    withConfig(rule.formatted("{pattern: {regex: \"a++\"}, substitution: b}")).rejects(at
        + ".pattern.regex: \"a++\" uses a possessive quantifier ++, which RE2 (Envoy's regex engine) does not support");
  }

  @Test
  void re2SyntaxThatOnlyLooksLikeTheRefusedConstructsIsAccepted() throws ConfigException {
    String rule = "request_rules: [{header: x-a, on_header_present: {key: k, regex_value_rewrite: "
        + "{pattern: {regex: '%s'}, substitution: x}}}]";
    for (String regex : List.of("[+]+", "\\++", "(?:a)+", "(?i)a", "(?<n>a)", "\\Q(?=\\E", "a{2}")) {
      assertThat(config(rule.formatted(regex)).requestRules()).hasSize(1);
    }
  }

  @Test
  void aSubstitutionNamesGroupsThePatternHas() {
    String rule = "request_rules: [{header: x-a, on_header_present: {key: k, regex_value_rewrite: "
        + "{pattern: {regex: \"(a)\"}, substitution: '%s'}}}]";
    String at = CONFIG + ".request_rules[0].on_header_present.regex_value_rewrite.substitution";
    withConfig(rule.formatted("\\2")).rejects(at + ": \"\\2\" refers to group \\2; the pattern has 1 group");
    withConfig(rule.formatted("\\n")).rejects(at + ": \"\\n\": \\n is not a group (\\0 to \\9) or \\\\");
    withConfig(rule.formatted("a\\")).rejects(at + ": \"a\\\" ends with a single backslash (write \\\\ for one)");
  }

  @Test
  void unknownFieldsAreRefused() {
    withConfig("stat_prefix: converter\nrequest_rules: [{header: x-a, on_header_present: {key: k}}]")
        .rejects(CONFIG + ".stat_prefix: unknown field (not in "
            + "envoy.extensions.filters.http.header_to_metadata.v3.Config)");
  }
}
