package io.spillway.edge.config;

import static io.spillway.edge.config.BootstrapYaml.HCM;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.AccessLogConfig.Command;
import io.spillway.edge.config.AccessLogConfig.Operator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** access_log entries: loggers, formats and filters, and every rejection with its path. */
class AccessLogTranslationTest {

  private static final String LOG = HCM + ".access_log[0]";
  private static final String TYPED = LOG + ".typed_config";

  static BootstrapYaml withLog(String typedConfig, String filter) {
    return BootstrapYaml.minimal().hcm("access_log:\n- name: log\n" + (filter == null ? "" : "  filter: " + filter + "\n")
        + "  typed_config:\n" + typedConfig.indent(4));
  }

  static BootstrapYaml file(String extra) {
    return withLog("\"@type\": type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog\n"
        + "path: /tmp/access.log\n" + extra, null);
  }

  static AccessLogConfig translated(BootstrapYaml yaml) throws ConfigException {
    return yaml.translate().listeners().get(0).hcm().accessLogs().get(0);
  }

  @Test
  void fileLoggerWithoutFormatUsesEnvoysDefault() throws ConfigException {
    AccessLogConfig log = translated(file(""));
    assertThat(log.sink()).isEqualTo(AccessLogConfig.Sink.FILE);
    assertThat(log.path()).isEqualTo("/tmp/access.log");
    assertThat(log.format()).isEqualTo(AccessLogConfig.textFormat(AccessLogConfig.DEFAULT_FORMAT, false));
  }

  @Test
  void textFormatsParseOnce() throws ConfigException {
    AccessLogConfig log = translated(file("log_format:\n  text_format_source:\n    inline_string: "
        + "\"%REQ(X-ENVOY-ORIGINAL-PATH?:PATH):10% %START_TIME(%s.%3f)%\\n\"\n  omit_empty_values: true\n"));
    var text = (AccessLogConfig.TextFormat) log.format();
    assertThat(text.omitEmptyValues()).isTrue();
    assertThat(text.tokens().get(0)).isEqualTo(new Command(Operator.REQ, "x-envoy-original-path", ":path", 10,
        List.of()));
    assertThat(((Command) text.tokens().get(2)).timeFormat()).extracting(AccessLogConfig.TimePart::field)
        .containsExactly('s', (char) 0, 'f');
    assertThat(text.tokens().get(3)).isEqualTo(new AccessLogConfig.Literal("\n"));
    // The legacy format field and log_format.text_format mean the same.
    assertThat(translated(file("format: \"%PROTOCOL%\"\n")).format())
        .isEqualTo(AccessLogConfig.textFormat("%PROTOCOL%", false));
    assertThat(translated(file("log_format: {text_format: \"%PROTOCOL%\"}\n")).format())
        .isEqualTo(AccessLogConfig.textFormat("%PROTOCOL%", false));
  }

  @Test
  void jsonFormatsKeepTypesExceptTheLegacyJsonFormat() throws ConfigException {
    var typed = (AccessLogConfig.JsonFormat) translated(file(
        "log_format:\n  json_format: {code: \"%RESPONSE_CODE%\", n: 3, inner: {p: \"%PROTOCOL%\"}}\n")).format();
    assertThat(typed.typed()).isTrue();
    assertThat(typed.fields()).extracting(AccessLogConfig.JsonField::key).containsExactly("code", "n", "inner");
    assertThat(typed.fields().get(1).value()).isEqualTo(new AccessLogConfig.LiteralValue("3"));
    assertThat(((AccessLogConfig.JsonFormat) translated(file("json_format: {code: \"%RESPONSE_CODE%\"}\n")).format())
        .typed()).isFalse();
    assertThat(((AccessLogConfig.JsonFormat) translated(file("typed_json_format: {code: \"%RESPONSE_CODE%\"}\n"))
        .format()).typed()).isTrue();
  }

  @Test
  void stdoutStderrListenerAndAdminLogs() throws ConfigException {
    String stdout = "- name: out\n  typed_config: {\"@type\": type.googleapis.com/envoy.extensions.access_loggers.stream.v3.StdoutAccessLog}\n";
    EdgeConfig config = BootstrapYaml.minimal()
        .listener("access_log:\n" + stdout)
        .top("admin:\n  access_log_path: /tmp/admin.log\n  address: {socket_address: {address: 127.0.0.1, port_value: 9901}}\n")
        .translate();
    assertThat(config.listeners().get(0).accessLogs()).singleElement()
        .extracting(AccessLogConfig::sink).isEqualTo(AccessLogConfig.Sink.STDOUT);
    assertThat(config.admin().orElseThrow().accessLogs()).singleElement().satisfies(l -> {
      assertThat(l.sink()).isEqualTo(AccessLogConfig.Sink.FILE);
      assertThat(l.path()).isEqualTo("/tmp/admin.log");
    });
    AccessLogConfig stderr = translated(withLog("\"@type\": type.googleapis.com/envoy.extensions.access_loggers.stream.v3.StderrAccessLog\n"
        + "log_format: {json_format: {a: \"%PROTOCOL%\"}}\n", null));
    assertThat(stderr.sink()).isEqualTo(AccessLogConfig.Sink.STDERR);
    assertThat(stderr.format()).isInstanceOf(AccessLogConfig.JsonFormat.class);
  }

  @Test
  void filtersTranslate() throws ConfigException {
    AccessLogConfig log = translated(withLog(
        "\"@type\": type.googleapis.com/envoy.extensions.access_loggers.stream.v3.StdoutAccessLog\n",
        "{and_filter: {filters: ["
            + "{status_code_filter: {comparison: {op: GE, value: {default_value: 500, runtime_key: k}}}},"
            + "{or_filter: {filters: [{duration_filter: {comparison: {op: LE, value: {default_value: 10, runtime_key: d}}}},"
            + "{header_filter: {header: {name: x-debug, present_match: true}}},"
            + "{response_flag_filter: {flags: [UH, UF]}},"
            + "{grpc_status_filter: {statuses: [NOT_FOUND], exclude: true}},"
            + "{runtime_filter: {runtime_key: r, percent_sampled: {numerator: 5, denominator: TEN_THOUSAND}}},"
            + "{not_health_check_filter: {}}, {traceable_filter: {}}]}}]}}"));
    var and = (AccessLogConfig.AndFilter) log.filter().orElseThrow();
    assertThat(and.filters().get(0)).isEqualTo(new AccessLogConfig.StatusCodeFilter(AccessLogConfig.Op.GE, 500, "k"));
    var or = (AccessLogConfig.OrFilter) and.filters().get(1);
    assertThat(or.filters()).hasSize(7);
    assertThat(or.filters().get(4)).isEqualTo(new AccessLogConfig.RuntimeFilter("r", 5, 10_000, false));
    assertThat(or.filters().get(3)).isEqualTo(new AccessLogConfig.GrpcStatusFilter(java.util.Set.of(5), true));
  }

  @Test
  void rejectsBadFormatsWithTheFieldAndOperator() {
    String src = TYPED + ".log_format.text_format_source";
    file("log_format: {text_format_source: {inline_string: \"%NOPE%\"}}\n")
        .rejects(src + ": unknown or unsupported command operator %NOPE%");
    file("log_format: {text_format_source: {inline_string: \"%UPSTREAM_TRANSPORT_FAILURE_REASON%\"}}\n")
        .rejects(src + ": unknown or unsupported command operator %UPSTREAM_TRANSPORT_FAILURE_REASON%");
    file("log_format: {text_format_source: {inline_string: \"%REQ%\"}}\n")
        .rejects(src + ": command operator %REQ% needs a header name: %REQ(X)%");
    file("log_format: {text_format_source: {inline_string: \"%REQ(a?b?c)%\"}}\n")
        .rejects(src + ": command operator %REQ(a?b?c)%: more than one alternative header");
    file("log_format: {text_format_source: {inline_string: \"%PROTOCOL(x)%\"}}\n")
        .rejects(src + ": command operator %PROTOCOL% takes no argument");
    file("log_format: {text_format_source: {inline_string: \"100% done\"}}\n")
        .rejects(src + ": no valid command operator at position 3 (write %NAME%, %NAME(ARG)% or %NAME(ARG):N%)");
    file("log_format: {text_format_source: {inline_string: \"%REQ(x\"}}\n")
        .rejects(src + ": unterminated command operator at position 0: no ')' after %REQ(");
    file("log_format: {text_format_source: {inline_string: \"%START_TIME(%Q)%\"}}\n")
        .rejects(src + ": START_TIME format \"%Q\": %Q is not supported");
    file("log_format: {text_format_source: {inline_string: \"%START_TIME(%0f)%\"}}\n")
        .rejects(src + ": START_TIME format \"%0f\": %0f is not supported (only %1f to %9f)");
    file("log_format: {json_format: {a: [\"%PROTOCOL%\"]}}\n")
        .rejects(TYPED + ".log_format.json_format[\"a\"]: only strings, numbers, booleans and nested objects are "
            + "supported in a JSON format");
    file("log_format: {json_format: {a: {b: \"%X%\"}}}\n")
        .rejects(TYPED + ".log_format.json_format[\"a\"][\"b\"]: unknown or unsupported command operator %X%");
    file("log_format: {text_format_source: {inline_string: x}, json_format_options: {sort_properties: true}}\n")
        .rejects(TYPED + ".log_format.json_format_options: json_format_options is not supported");
    file("log_format: {text_format_source: {inline_string: x}, formatters: [{name: f, typed_config: "
        + "{\"@type\": type.googleapis.com/google.protobuf.Struct}}]}\n")
        .rejects(TYPED + ".log_format.formatters: formatters is not supported");
  }

  @Test
  void rejectsBadLoggersAndFilters() {
    withLog("\"@type\": type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog\n", null)
        .rejects(TYPED + ".path: path is required");
    String stdout = "\"@type\": type.googleapis.com/envoy.extensions.access_loggers.stream.v3.StdoutAccessLog\n";
    withLog(stdout, "{metadata_filter: {}}").rejects(LOG + ".filter.metadata_filter: metadata_filter is not supported");
    withLog(stdout, "{log_type_filter: {types: [DownstreamEnd]}}")
        .rejects(LOG + ".filter.log_type_filter: log_type_filter is not supported");
    withLog(stdout, "{response_flag_filter: {flags: [XX]}}")
        .rejects(LOG + ".filter.response_flag_filter.flags[0]: unknown response flag \"XX\"");
    withLog(stdout, "{and_filter: {filters: [{traceable_filter: {}}]}}")
        .rejects(LOG + ".filter.and_filter.filters: at least two filters are required");
    withLog(stdout, "{or_filter: {filters: [{traceable_filter: {}}, {status_code_filter: {comparison: {op: GE}}}]}}")
        .rejects(LOG + ".filter.or_filter.filters[1].status_code_filter.comparison.value: value is required");
    withLog(stdout, "{runtime_filter: {percent_sampled: {numerator: 1}}}")
        .rejects(LOG + ".filter.runtime_filter.runtime_key: runtime_key is required");
    withLog(stdout, "{}").rejects(LOG + ".filter: a filter kind is required");
  }
}
