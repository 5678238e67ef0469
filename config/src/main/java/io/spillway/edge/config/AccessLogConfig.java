package io.spillway.edge.config;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One {@code access_log} entry (of a connection manager, a listener or the admin listener),
 * translated and checked: where lines go, their format already parsed into tokens, and the filter
 * that decides which requests are logged. The access log package compiles it once into the
 * formatter and filter the workers run.
 *
 * @param sink where lines go
 * @param path the file of {@link Sink#FILE}; empty for stdout and stderr
 * @param format the line format, Envoy's default text format when the entry sets none
 * @param filter which requests or connections are logged; empty = all
 */
public record AccessLogConfig(Sink sink, String path, LogFormat format, Optional<Filter> filter) {

  /** The logger extensions: {@code envoy.access_loggers.file}, {@code .stdout}, {@code .stderr}. */
  public enum Sink { FILE, STDOUT, STDERR }

  /**
   * Envoy's default text format (used when an entry gives none), with the trailing newline.
   */
  public static final String DEFAULT_FORMAT = "[%START_TIME%] \"%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% "
      + "%PROTOCOL%\" %RESPONSE_CODE% %RESPONSE_FLAGS% %BYTES_RECEIVED% %BYTES_SENT% %DURATION% "
      + "%RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% \"%REQ(X-FORWARDED-FOR)%\" \"%REQ(USER-AGENT)%\" "
      + "\"%REQ(X-REQUEST-ID)%\" \"%REQ(:AUTHORITY)%\" \"%UPSTREAM_HOST%\"\n";

  /**
   * Parses an Envoy format string as a {@code text_format_source} would be (for tools and tests
   * that build formats without a bootstrap).
   *
   * @throws ConfigException naming the operator or position that is wrong
   */
  public static TextFormat textFormat(String format, boolean omitEmptyValues) throws ConfigException {
    return new TextFormat(AccessLogFormatParser.parse(format, FieldPath.ROOT.field("format")), omitEmptyValues);
  }

  /** A line format: text with command operators, or a JSON object whose values are formats. */
  public sealed interface LogFormat {
    /** Whether absent values are left out (JSON) or printed empty instead of "-" (text). */
    boolean omitEmptyValues();
  }

  /** A text format: literals and command operators in order. */
  public record TextFormat(List<FormatToken> tokens, boolean omitEmptyValues) implements LogFormat {
    public TextFormat {
      tokens = List.copyOf(tokens);
    }
  }

  /**
   * A JSON format: one object per line.
   *
   * @param typed a value that is a single command operator keeps its type (numbers stay numbers),
   *     as Envoy's {@code log_format.json_format} and legacy {@code typed_json_format} do; the
   *     legacy {@code json_format} renders every value as a string
   */
  public record JsonFormat(List<JsonField> fields, boolean typed, boolean omitEmptyValues) implements LogFormat {
    public JsonFormat {
      fields = List.copyOf(fields);
    }
  }

  /** One member of a JSON format object. */
  public record JsonField(String key, JsonValue value) {}

  /** A JSON format value. */
  public sealed interface JsonValue {}

  /** A string value: a format string. */
  public record FormattedValue(List<FormatToken> tokens) implements JsonValue {
    public FormattedValue {
      tokens = List.copyOf(tokens);
    }
  }

  /** A nested object. */
  public record NestedValue(List<JsonField> fields) implements JsonValue {
    public NestedValue {
      fields = List.copyOf(fields);
    }
  }

  /** A number, boolean or null written as it was configured ({@code json} is its JSON text). */
  public record LiteralValue(String json) implements JsonValue {}

  /** A piece of a format string. */
  public sealed interface FormatToken {}

  /** Text copied as it is. */
  public record Literal(String text) implements FormatToken {}

  /**
   * A command operator.
   *
   * @param operator which one
   * @param argument its argument: the header name of REQ/RESP/TRAILER (lower case), the key of
   *     FILTER_STATE, the variable of ENVIRONMENT; empty when it takes none
   * @param alternative REQ/RESP/TRAILER's header after {@code ?}, lower case; empty when none
   * @param maxLength the {@code :N} truncation, or -1
   * @param timeFormat START_TIME's compiled format
   * @param metadataPath DYNAMIC_METADATA's keys after the namespace (its {@code argument}); empty
   *     for the whole namespace and for every other operator
   */
  public record Command(Operator operator, String argument, String alternative, int maxLength,
      List<TimePart> timeFormat, List<String> metadataPath) implements FormatToken {
    public Command {
      timeFormat = List.copyOf(timeFormat);
      metadataPath = List.copyOf(metadataPath);
    }

    /** A command without a metadata path. */
    public Command(Operator operator, String argument, String alternative, int maxLength, List<TimePart> timeFormat) {
      this(operator, argument, alternative, maxLength, timeFormat, List.of());
    }
  }

  /**
   * One piece of a START_TIME format (strftime with Envoy's extensions): a literal, or a field.
   *
   * @param field the strftime conversion character, or 0 for a literal; 'f' is a fraction of a
   *     second with {@code digits} digits, 'S' with {@code digits} > 0 is Envoy's {@code %E<n>S}
   *     (seconds with a fraction)
   * @param digits the fraction's digits for 'f' and 'S'
   * @param literal the text of a literal
   */
  public record TimePart(char field, int digits, String literal) {}

  /** Argument kinds of the operators. */
  public enum Argument { NONE, HEADER, KEY, OPTIONAL_TIME_FORMAT, METADATA_PATH }

  /**
   * The command operators Spillway fills, under Envoy's names. An operator Envoy has and the edge
   * cannot fill is not here, so it is rejected at load like an unknown one.
   */
  public enum Operator {
    START_TIME(Argument.OPTIONAL_TIME_FORMAT),
    REQ(Argument.HEADER),
    RESP(Argument.HEADER),
    TRAILER(Argument.HEADER),
    REQ_WITHOUT_QUERY(Argument.HEADER),
    RESPONSE_CODE(Argument.NONE),
    RESPONSE_CODE_DETAILS(Argument.NONE),
    RESPONSE_FLAGS(Argument.NONE),
    RESPONSE_FLAGS_LONG(Argument.NONE),
    BYTES_RECEIVED(Argument.NONE),
    BYTES_SENT(Argument.NONE),
    DURATION(Argument.NONE),
    REQUEST_DURATION(Argument.NONE),
    RESPONSE_DURATION(Argument.NONE),
    RESPONSE_TX_DURATION(Argument.NONE),
    UPSTREAM_HOST(Argument.NONE),
    UPSTREAM_REMOTE_ADDRESS(Argument.NONE),
    UPSTREAM_CLUSTER(Argument.NONE),
    DOWNSTREAM_REMOTE_ADDRESS(Argument.NONE),
    DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT(Argument.NONE),
    DOWNSTREAM_REMOTE_PORT(Argument.NONE),
    DOWNSTREAM_DIRECT_REMOTE_ADDRESS(Argument.NONE),
    DOWNSTREAM_DIRECT_REMOTE_ADDRESS_WITHOUT_PORT(Argument.NONE),
    DOWNSTREAM_LOCAL_ADDRESS(Argument.NONE),
    DOWNSTREAM_LOCAL_ADDRESS_WITHOUT_PORT(Argument.NONE),
    DOWNSTREAM_LOCAL_PORT(Argument.NONE),
    PROTOCOL(Argument.NONE),
    ROUTE_NAME(Argument.NONE),
    GRPC_STATUS(Argument.NONE),
    HOSTNAME(Argument.NONE),
    UNIQUE_ID(Argument.NONE),
    /** The text of the local reply being formatted ({@code local_reply_config}); empty everywhere else. */
    LOCAL_REPLY_BODY(Argument.NONE),
    FILTER_STATE(Argument.KEY),
    /**
     * {@code DYNAMIC_METADATA(NAMESPACE:KEY*)}: a value of the stream's dynamic metadata, or with
     * no key the whole namespace as a JSON object.
     */
    DYNAMIC_METADATA(Argument.METADATA_PATH),
    ENVIRONMENT(Argument.KEY);

    private final Argument argument;

    Operator(Argument argument) {
      this.argument = argument;
    }

    public Argument argument() {
      return argument;
    }
  }

  /** An access log filter ({@code envoy.config.accesslog.v3.AccessLogFilter}), supported kinds. */
  public sealed interface Filter {}

  /** A comparison's operator. */
  public enum Op { EQ, GE, LE }

  /**
   * {@code status_code_filter}: the response code compared with {@code value}, or with the runtime's
   * value of {@code runtimeKey} when it has a whole number there.
   */
  public record StatusCodeFilter(Op op, long value, String runtimeKey) implements Filter {
    public StatusCodeFilter(Op op, long value) {
      this(op, value, "");
    }
  }

  /**
   * {@code duration_filter}: the stream's duration in milliseconds compared with {@code value}, or
   * with the runtime's value of {@code runtimeKey} when it has a whole number there.
   */
  public record DurationFilter(Op op, long valueMillis, String runtimeKey) implements Filter {
    public DurationFilter(Op op, long valueMillis) {
      this(op, valueMillis, "");
    }
  }

  /** {@code not_health_check_filter}. */
  public record NotHealthCheckFilter() implements Filter {}

  /** {@code traceable_filter}. */
  public record TraceableFilter() implements Filter {}

  /**
   * {@code runtime_filter}: samples {@code percent_sampled}, or the runtime's value of
   * {@code runtimeKey} when it has one (a whole number is a percentage).
   *
   * @param numerator out of {@code denominator}
   * @param denominator 100, 10 000 or 1 000 000
   * @param independentRandomness sample at random even when the request has an x-request-id
   */
  public record RuntimeFilter(String runtimeKey, long numerator, long denominator, boolean independentRandomness)
      implements Filter {
    public RuntimeFilter(long numerator, long denominator, boolean independentRandomness) {
      this("", numerator, denominator, independentRandomness);
    }
  }

  /** {@code and_filter}. */
  public record AndFilter(List<Filter> filters) implements Filter {
    public AndFilter {
      filters = List.copyOf(filters);
    }
  }

  /** {@code or_filter}. */
  public record OrFilter(List<Filter> filters) implements Filter {
    public OrFilter {
      filters = List.copyOf(filters);
    }
  }

  /** {@code header_filter}: the request header matcher. */
  public record HeaderFilter(Route.HeaderMatch header) implements Filter {}

  /** {@code response_flag_filter}: any of {@code flags} (Envoy's short names); empty = any flag at all. */
  public record ResponseFlagFilter(Set<String> flags) implements Filter {
    public ResponseFlagFilter {
      flags = Set.copyOf(flags);
    }
  }

  /** {@code grpc_status_filter}: the gRPC status is one of {@code statuses} (not one, with {@code exclude}). */
  public record GrpcStatusFilter(Set<Integer> statuses, boolean exclude) implements Filter {
    public GrpcStatusFilter {
      statuses = Set.copyOf(statuses);
    }
  }
}
