package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The connection manager's {@code local_reply_config}: Envoy's documented examples, every
 * supported field, and each refusal with its path.
 */
class LocalReplyTranslationTest {

  private static final String LRC = BootstrapYaml.HCM + ".local_reply_config";

  private static LocalReplyConfig translate(String yaml) throws ConfigException {
    return BootstrapYaml.minimal().hcm("local_reply_config:\n" + yaml.stripIndent().indent(2))
        .translate().listeners().get(0).hcm().localReply();
  }

  private static String refusal(String yaml) {
    try {
      translate(yaml);
    } catch (ConfigException e) {
      return e.getMessage();
    }
    throw new AssertionError("accepted: " + yaml);
  }

  @Test
  void withoutItNothingIsRewritten() throws Exception {
    assertThat(BootstrapYaml.minimal().translate().listeners().get(0).hcm().localReply())
        .isEqualTo(LocalReplyConfig.NONE);
  }

  @Test
  void envoysDocumentedMapperExampleIsAccepted() throws Exception {
    LocalReplyConfig c = translate("""
        mappers:
        - filter:
            status_code_filter:
              comparison:
                op: EQ
                value:
                  default_value: 400
                  runtime_key: key_b
          headers_to_add:
            - header:
                key: "foo"
                value: "bar"
              append_action: OVERWRITE_IF_EXISTS_OR_ADD
          status_code: 401
          body:
            inline_string: "not allowed"
        """);
    assertThat(c.mappers()).hasSize(1);
    LocalReplyConfig.Mapper m = c.mappers().get(0);
    assertThat(m.filter()).isEqualTo(new AccessLogConfig.StatusCodeFilter(AccessLogConfig.Op.EQ, 400, "key_b"));
    assertThat(m.statusCode()).isEqualTo(OptionalInt.of(401));
    assertThat(m.body()).contains("not allowed");
    assertThat(m.headersToAdd().add()).containsExactly(new HeaderMutations.HeaderValue("foo", "bar", false));
    assertThat(m.bodyFormatOverride()).isEmpty();
    assertThat(c.bodyFormat()).isEmpty();
  }

  @Test
  void envoysDocumentedJsonFormatExampleGetsApplicationJson() throws Exception {
    LocalReplyConfig c = translate("""
        mappers:
        - filter:
            status_code_filter:
              comparison: {op: EQ, value: {default_value: 400, runtime_key: key_b}}
          status_code: 401
          body_format_override:
            json_format:
              level: TRACE
              user_agent: "%REQ(USER-AGENT)%"
              response_body: "%LOCAL_REPLY_BODY%"
        body_format:
          json_format:
            status: "%RESPONSE_CODE%"
            message: "%LOCAL_REPLY_BODY%"
        """);
    LocalReplyConfig.BodyFormat def = c.bodyFormat().orElseThrow();
    assertThat(def.contentType()).isEqualTo("application/json");
    assertThat(def.format()).isInstanceOf(AccessLogConfig.JsonFormat.class);
    assertThat(((AccessLogConfig.JsonFormat) def.format()).typed()).isTrue();
    assertThat(c.mappers().get(0).bodyFormatOverride().orElseThrow().contentType()).isEqualTo("application/json");
  }

  @Test
  void textFormatsAreTextPlainUnlessContentTypeSaysOtherwise(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("body.txt");
    Files.writeString(file, "from a file");
    LocalReplyConfig c = translate("""
        mappers:
        - filter: {response_flag_filter: {flags: [UH, UF]}}
          body: {filename: "%s"}
          body_format_override:
            text_format_source: {inline_string: "<h1>%%LOCAL_REPLY_BODY%%</h1>"}
            content_type: "text/html; charset=UTF-8"
        - filter: {header_filter: {header: {name: x-debug, present_match: true}}}
          body: {inline_string: ""}
        body_format:
          text_format: "%%RESPONSE_CODE%% %%LOCAL_REPLY_BODY%%"
          omit_empty_values: true
        """.formatted(file));
    assertThat(c.mappers().get(0).body()).contains("from a file");
    assertThat(c.mappers().get(0).bodyFormatOverride().orElseThrow().contentType())
        .isEqualTo("text/html; charset=UTF-8");
    assertThat(c.mappers().get(1).body()).contains(""); // an empty body is allowed, as in Envoy
    LocalReplyConfig.BodyFormat def = c.bodyFormat().orElseThrow();
    assertThat(def.contentType()).isEqualTo("text/plain");
    assertThat(def.format().omitEmptyValues()).isTrue();
  }

  @Test
  void headerValuesMayUseCommandOperators() throws Exception {
    LocalReplyConfig c = translate("""
        mappers:
        - filter: {status_code_filter: {comparison: {op: GE, value: {default_value: 500}}}}
          headers_to_add:
          - header: {key: x-original-code, value: "%RESPONSE_CODE%"}
          - header: {key: x-flags, value: "%RESPONSE_FLAGS% 100%%"}
            keep_empty_value: true
        """);
    var adds = c.mappers().get(0).headersToAdd().add();
    assertThat(adds).hasSize(2);
    assertThat(adds.get(0).format()).isNotNull();
    assertThat(adds.get(0).append()).isTrue();
    assertThat(adds.get(1).keepEmptyValue()).isTrue();
  }

  @Test
  void everyMapperNeedsAFilter() {
    assertThat(refusal("""
        mappers:
        - status_code: 500
        """)).isEqualTo(LRC + ".mappers[0].filter: filter is required");
    assertThat(refusal("""
        mappers:
        - filter: {}
        """)).isEqualTo(LRC + ".mappers[0].filter: a filter kind is required");
  }

  @Test
  void statusCodeMustBeAFinalStatusBelow600() {
    String mapper = """
        mappers:
        - filter: {not_health_check_filter: {}}
        - filter: {not_health_check_filter: {}}
          status_code: %d
        """;
    assertThat(refusal(mapper.formatted(199))).isEqualTo(LRC + ".mappers[1].status_code: must be in [200, 600), not 199");
    assertThat(refusal(mapper.formatted(600))).isEqualTo(LRC + ".mappers[1].status_code: must be in [200, 600), not 600");
  }

  @Test
  void whatTheEdgeCannotDoIsRefusedWithItsPath() {
    assertThat(refusal("""
        mappers:
        - filter: {extension_filter: {name: x}}
        """)).isEqualTo(LRC + ".mappers[0].filter.extension_filter: extension_filter is not supported");
    assertThat(refusal("""
        mappers:
        - filter: {not_health_check_filter: {}}
          body: {environment_variable: BODY}
        """)).isEqualTo(LRC + ".mappers[0].body.environment_variable: environment_variable is not supported");
    assertThat(refusal("""
        body_format:
          text_format: "%LOCAL_REPLY_BODY%"
          json_format_options: {sort_properties: true}
        """)).isEqualTo(LRC + ".body_format.json_format_options: json_format_options is not supported");
    assertThat(refusal("""
        body_format:
          text_format: "%LOCAL_REPLY_BODY%"
          formatters:
          - name: envoy.formatter.req_without_query
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.formatter.req_without_query.v3.ReqWithoutQuery
        """)).startsWith(LRC + ".body_format.formatters"); // refused by the loader or the translator, with its path
    assertThat(refusal("""
        body_format:
          text_format: "%UPSTREAM_TRANSPORT_FAILURE_REASON%"
        """)).isEqualTo(LRC + ".body_format.text_format: unknown or unsupported command operator "
            + "%UPSTREAM_TRANSPORT_FAILURE_REASON%");
    assertThat(refusal("""
        body_format: {}
        """)).isEqualTo(LRC + ".body_format: one of text_format_source, json_format or text_format is required");
  }

  @Test
  void headersToAddFollowEnvoysHeaderRules() {
    assertThat(refusal("""
        mappers:
        - filter: {not_health_check_filter: {}}
          headers_to_add:
          - header: {key: ":status", value: "200"}
        """)).isEqualTo(LRC + ".mappers[0].headers_to_add[0].header.key: \":status\" may not be modified "
            + "(pseudo-headers are protected)");
    assertThat(refusal("""
        mappers:
        - filter: {not_health_check_filter: {}}
          headers_to_add:
          - header: {key: x, value: "%NOPE%"}
        """)).isEqualTo(LRC + ".mappers[0].headers_to_add[0].header.value: unknown or unsupported command "
            + "operator %NOPE%");
    StringBuilder many = new StringBuilder("mappers:\n- filter: {not_health_check_filter: {}}\n  headers_to_add:\n");
    for (int i = 0; i <= LocalReplyTranslator.MAX_HEADERS_TO_ADD; i++) {
      many.append("  - header: {key: x-").append(i).append(", value: v}\n");
    }
    assertThat(refusal(many.toString())).isEqualTo(LRC + ".mappers[0].headers_to_add: at most 1000 headers, not 1001");
  }

  @Test
  void anEmptyConfigIsAcceptedAndChangesNothing() throws Exception {
    assertThat(translate("{}\n")).isEqualTo(new LocalReplyConfig(java.util.List.of(), Optional.empty()));
  }
}
