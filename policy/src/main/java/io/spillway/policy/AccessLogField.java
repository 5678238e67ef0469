package io.spillway.policy;

import java.util.List;

/**
 * The one table of the fields of the {@code accessLog} section (SPEC §6): path, kind, inclusive
 * range, default, console label and hint. {@link AccessLogJson} reads and checks along it, its
 * messages come from it and {@link AccessLogSchema} generates the schemas from it, as
 * {@link RateLimitField} does for the rate limits. The order of the constants is the order problems
 * are reported in and fields are shown in.
 *
 * <p>The edge compiles the section into one more access log beside the bootstrap's: the format by
 * its formatter, the filters into Envoy's {@code status_code_filter}, {@code duration_filter},
 * {@code not_health_check_filter} and {@code response_flag_filter} under an {@code and_filter}, the
 * destination into its stdout, stderr or file logger.
 */
public enum AccessLogField implements TypedField {
  FORMAT("format", Kind.FORMAT, 1, AccessLogFormat.MAX_LENGTH, null,
      "Format", "An Envoy format string such as \"%REQ(:METHOD)% %RESPONSE_CODE% %DURATION%\"; a newline is added "
          + "when it has none. Absent (and no json): Envoy's default format."),
  JSON("json", Kind.FORMAT_MAP, 1, AccessLogFormat.MAX_JSON_KEYS, null,
      "JSON format", "One JSON object per line: each key's value is a format string; a value that is a single "
          + "command operator keeps its type. Instead of format, never with it."),
  STATUS_CODE_OP("filters.statusCode.op", Kind.OP, null, null, ">=",
      "Status code comparison", "How the response code is compared with the value: >=, <= or =."),
  STATUS_CODE_VALUE("filters.statusCode.value", Kind.INTEGER, 100, 599, null,
      "Status code", "Log only requests whose response code compares so with this (Envoy's status_code_filter)."),
  DURATION_OP("filters.duration.op", Kind.OP, null, null, ">=",
      "Duration comparison", "How the request's duration is compared with the milliseconds: >=, <= or =."),
  DURATION_MILLIS("filters.duration.millis", Kind.INTEGER, 0, 86_400_000, null,
      "Duration (ms)", "Log only requests whose duration compares so with this (Envoy's duration_filter)."),
  NOT_HEALTH_CHECK("filters.notHealthCheck", Kind.BOOLEAN, null, null, false,
      "Skip health checks", "true: requests answered as health checks are not logged (Envoy's not_health_check_filter)."),
  RESPONSE_FLAGS("filters.responseFlags", Kind.FLAG_LIST, 0, AccessLogFormat.RESPONSE_FLAGS.size(), null,
      "Response flags", "Log only requests with one of these response flags (Envoy's short names such as UH, UF, "
          + "UO, NR, RL); an empty list: any flag at all."),
  DESTINATION("destination", Kind.DESTINATION, null, AccessLogFormat.MAX_PATH_LENGTH, "stdout",
      "Destination", "stdout, stderr or {\"file\": \"<path>\"}: a relative path under the edge's --access-log-dir, "
          + "without '..'.");

  /** How a field's value is written. */
  public enum Kind {
    /** An Envoy format string. */
    FORMAT("format", "string"),
    /** An object of keys to format strings. */
    FORMAT_MAP("formatMap", "object"),
    /** A comparison: {@code >=}, {@code <=} or {@code =}. */
    OP("op", "string"),
    /** A whole number. */
    INTEGER("integer", "integer"),
    /** true or false. */
    BOOLEAN("boolean", "boolean"),
    /** A list of response flags. */
    FLAG_LIST("stringList", "array"),
    /** stdout, stderr or an object with a file path. */
    DESTINATION("destination", "[string, object]");

    private final String schemaName;
    private final String jsonSchemaType;

    Kind(String schemaName, String jsonSchemaType) {
      this.schemaName = schemaName;
      this.jsonSchemaType = jsonSchemaType;
    }

    /** The name in {@link AccessLogSchema#describe()}. */
    public String schemaName() {
      return schemaName;
    }

    /** The JSON Schema type. */
    public String jsonSchemaType() {
      return jsonSchemaType;
    }
  }

  /** The comparisons, as written. */
  public static final List<String> OPS = List.of(">=", "<=", "=");

  private final String key;
  private final Kind kind;
  private final Number min;
  private final Number max;
  private final Object defaultValue;
  private final String label;
  private final String hint;

  AccessLogField(String key, Kind kind, Number min, Number max, Object defaultValue, String label, String hint) {
    this.key = key;
    this.kind = kind;
    this.min = min;
    this.max = max;
    this.defaultValue = defaultValue;
    this.label = label;
    this.hint = hint;
  }

  /** The dotted key inside the section, e.g. {@code filters.statusCode.value}. */
  public String key() {
    return key;
  }

  /** The last part of the key: the JSON member's name. */
  public String member() {
    return key.substring(key.lastIndexOf('.') + 1);
  }

  /** How the value is written. */
  public Kind kind() {
    return kind;
  }

  /** The inclusive lower bound (of the value, the length or the entries), or null. */
  public Number min() {
    return min;
  }

  /** The inclusive upper bound (of the value, the length or the entries), or null. */
  public Number max() {
    return max;
  }

  /** What an absent field means, or null (no filter; the default format). */
  public Object defaultValue() {
    return defaultValue;
  }

  /** The console's label. */
  public String label() {
    return label;
  }

  /** One line telling an operator what the field does. */
  public String hint() {
    return hint;
  }

  /** The allowed values of a comparison; empty for other fields. */
  public List<String> allowedValues() {
    return kind == Kind.OP ? OPS : kind == Kind.FLAG_LIST ? AccessLogFormat.RESPONSE_FLAGS : List.of();
  }

  /** E.g. {@code accessLog.filters.statusCode.value}. */
  public String path() {
    return AccessLogPolicy.SECTION + "." + key;
  }

  @Override
  public FieldType type() {
    return switch (kind) {
      case INTEGER -> FieldType.INTEGER;
      case BOOLEAN -> FieldType.BOOLEAN;
      case FLAG_LIST -> FieldType.STRING_LIST;
      case FORMAT, OP, FORMAT_MAP, DESTINATION -> FieldType.STRING;
    };
  }

  /** E.g. "accessLog.filters.statusCode.value must be an integer". */
  @Override
  public String typeMessage() {
    return path() + switch (kind) {
      case FORMAT -> " must be a string";
      case FORMAT_MAP -> " must be an object whose values are format strings";
      case OP -> " must be one of " + String.join(", ", OPS);
      case INTEGER -> " must be an integer";
      case BOOLEAN -> " must be true or false";
      case FLAG_LIST -> " must be a list of response flags";
      case DESTINATION -> " must be stdout, stderr or {\"file\": \"<relative path>\"}";
    };
  }

  /**
   * The message of a required value left out: a comparison's value ({@code
   * accessLog.filters.statusCode.value is required}) or a file destination's path; null for the
   * other fields.
   */
  public String requiredMessage() {
    return switch (this) {
      case STATUS_CODE_VALUE, DURATION_MILLIS -> path() + " is required";
      case DESTINATION -> path() + ".file is required";
      default -> null;
    };
  }

  /** {@code accessLog.json keys must be 1 to 128 characters}. */
  static String jsonKeyLengthMessage() {
    return JSON.path() + " keys must be 1 to " + AccessLogFormat.MAX_JSON_KEY_LENGTH + " characters";
  }

  /** E.g. {@code accessLog.json.status must be a format string}. */
  static String jsonValueTypeMessage(String key) {
    return JSON.path() + "." + key + " must be a format string";
  }

  /** format and json both set. */
  static String formatAndJsonMessage() {
    return JSON.path() + " cannot be set together with " + FORMAT.path() + "; set one of them";
  }

  /** Entry {@code index} of the response flags, {@code flag}, is none the edge sets. */
  static String unknownFlagMessage(String index, String flag) {
    return RESPONSE_FLAGS.path() + "[" + index + "] \"" + flag + "\" is not a response flag the edge sets (one of "
        + String.join(", ", AccessLogFormat.RESPONSE_FLAGS) + ")";
  }

  /** A file destination's path is not a string. */
  static String fileTypeMessage() {
    return DESTINATION.path() + ".file must be a string";
  }

  /** E.g. "accessLog.filters.statusCode.value must be between 100 and 599"; null without a range. */
  @Override
  public String rangeMessage() {
    return switch (kind) {
      case INTEGER -> path() + " must be between " + ValueText.format(min) + " and " + ValueText.format(max);
      case FORMAT -> path() + " must be 1 to " + ValueText.format(max) + " characters";
      case FORMAT_MAP -> path() + " must hold 1 to " + ValueText.format(max) + " keys";
      case FLAG_LIST -> path() + " must hold at most " + ValueText.format(max) + " entries";
      case DESTINATION -> path() + ".file must be 1 to " + ValueText.format(max) + " characters";
      case OP, BOOLEAN -> null;
    };
  }
}
