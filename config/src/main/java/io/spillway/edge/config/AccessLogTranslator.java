package io.spillway.edge.config;

import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.config.accesslog.v3.AccessLog;
import io.envoyproxy.envoy.config.accesslog.v3.AccessLogFilter;
import io.envoyproxy.envoy.config.accesslog.v3.ComparisonFilter;
import io.envoyproxy.envoy.config.accesslog.v3.GrpcStatusFilter;
import io.envoyproxy.envoy.config.accesslog.v3.RuntimeFilter;
import io.envoyproxy.envoy.config.core.v3.DataSource;
import io.envoyproxy.envoy.config.core.v3.SubstitutionFormatString;
import io.envoyproxy.envoy.extensions.access_loggers.file.v3.FileAccessLog;
import io.envoyproxy.envoy.extensions.access_loggers.stream.v3.StderrAccessLog;
import io.envoyproxy.envoy.extensions.access_loggers.stream.v3.StdoutAccessLog;
import io.envoyproxy.envoy.type.v3.FractionalPercent;
import io.spillway.edge.config.AccessLogConfig.Filter;
import io.spillway.edge.config.AccessLogConfig.JsonField;
import io.spillway.edge.config.AccessLogConfig.JsonValue;
import io.spillway.edge.config.AccessLogConfig.LogFormat;
import io.spillway.edge.config.AccessLogConfig.Op;
import io.spillway.edge.config.AccessLogConfig.Sink;
import io.spillway.edge.config.ExtensionRegistry.Category;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Access logs of the admin listener, listeners and connection managers ({@code access_log}):
 * the file, stdout and stderr loggers, their formats (parsed here, once) and their filters.
 * Anything that would change what is logged and is not supported is rejected with its path.
 */
final class AccessLogTranslator {

  private static final SupportedFields ACCESS_LOG = SupportedFields.of(AccessLog.getDescriptor(),
      "name", "filter", "typed_config");
  private static final SupportedFields FILE = SupportedFields.of(FileAccessLog.getDescriptor(),
      "path", "format", "json_format", "typed_json_format", "log_format");
  private static final SupportedFields STDOUT = SupportedFields.of(StdoutAccessLog.getDescriptor(), "log_format");
  private static final SupportedFields STDERR = SupportedFields.of(StderrAccessLog.getDescriptor(), "log_format");
  private static final SupportedFields FORMAT = SupportedFields.of(SubstitutionFormatString.getDescriptor(),
      "text_format", "json_format", "text_format_source", "omit_empty_values", "content_type");
  private static final SupportedFields DATA_SOURCE = SupportedFields.of(DataSource.getDescriptor(),
      "filename", "inline_string", "inline_bytes");
  private static final SupportedFields FILTER = SupportedFields.of(AccessLogFilter.getDescriptor(),
      "status_code_filter", "duration_filter", "not_health_check_filter", "traceable_filter", "runtime_filter",
      "and_filter", "or_filter", "header_filter", "response_flag_filter", "grpc_status_filter");
  private static final SupportedFields RUNTIME = SupportedFields.of(RuntimeFilter.getDescriptor(),
      "runtime_key", "percent_sampled", "use_independent_randomness");

  /** Envoy's short response flags (accepted by response_flag_filter) and the edge's own. */
  static final Set<String> RESPONSE_FLAGS = Set.of("LH", "UH", "UT", "LR", "UF", "UC", "UO", "NR", "DI", "FI",
      "RL", "UAEX", "RLSE", "DC", "URX", "SI", "IH", "DPE", "UMSDR", "RFCF", "NFCF", "DT", "UPE", "NC", "OM", "DF",
      "DO", "DR", "UDO", "UR", "AR", "GR");

  private AccessLogTranslator() {}

  /** Every entry of an {@code access_log} list, in order. */
  static List<AccessLogConfig> translate(List<AccessLog> logs, FieldPath path, ExtensionRegistry registry)
      throws ConfigException {
    List<AccessLogConfig> out = new ArrayList<>();
    for (int i = 0; i < logs.size(); i++) {
      out.add(translate(logs.get(i), path.index(i), registry));
    }
    return List.copyOf(out);
  }

  /** The admin listener's deprecated {@code access_log_path}: a file logger with the default format. */
  static AccessLogConfig adminPath(String path, FieldPath fieldPath) throws ConfigException {
    if (path.isBlank()) {
      throw new ConfigException(fieldPath, "must not be blank");
    }
    return new AccessLogConfig(Sink.FILE, path, defaultFormat(fieldPath), Optional.empty());
  }

  private static AccessLogConfig translate(AccessLog log, FieldPath path, ExtensionRegistry registry)
      throws ConfigException {
    ACCESS_LOG.check(log, path);
    if (!log.hasTypedConfig()) {
      throw new ConfigException(path.field("typed_config"), "typed_config is required");
    }
    FieldPath typed = path.field("typed_config");
    ExtensionRegistry.Extension ext = registry.resolve(log.getTypedConfig(), Category.ACCESS_LOGGER, typed);
    Optional<Filter> filter = log.hasFilter()
        ? Optional.of(filter(log.getFilter(), path.field("filter"))) : Optional.empty();
    String type = ext.typeName();
    if (type.equals(FileAccessLog.getDescriptor().getFullName())) {
      FileAccessLog file = registry.unpack(log.getTypedConfig(), FileAccessLog.class, Category.ACCESS_LOGGER, typed);
      FILE.check(file, typed);
      if (file.getPath().isBlank()) {
        throw new ConfigException(typed.field("path"), "path is required");
      }
      return new AccessLogConfig(Sink.FILE, file.getPath(), fileFormat(file, typed), filter);
    }
    if (type.equals(StdoutAccessLog.getDescriptor().getFullName())) {
      StdoutAccessLog out = registry.unpack(log.getTypedConfig(), StdoutAccessLog.class, Category.ACCESS_LOGGER, typed);
      STDOUT.check(out, typed);
      return new AccessLogConfig(Sink.STDOUT, "", out.hasLogFormat()
          ? format(out.getLogFormat(), typed.field("log_format")) : defaultFormat(typed), filter);
    }
    if (type.equals(StderrAccessLog.getDescriptor().getFullName())) {
      StderrAccessLog err = registry.unpack(log.getTypedConfig(), StderrAccessLog.class, Category.ACCESS_LOGGER, typed);
      STDERR.check(err, typed);
      return new AccessLogConfig(Sink.STDERR, "", err.hasLogFormat()
          ? format(err.getLogFormat(), typed.field("log_format")) : defaultFormat(typed), filter);
    }
    throw new ConfigException(typed, type + " (" + ext.name() + ") is not supported");
  }

  @SuppressWarnings("deprecation") // format, json_format, typed_json_format: deprecated, still accepted by Envoy
  private static LogFormat fileFormat(FileAccessLog file, FieldPath path) throws ConfigException {
    return switch (file.getAccessLogFormatCase()) {
      case FORMAT -> file.getFormat().isEmpty() ? defaultFormat(path)
          : new AccessLogConfig.TextFormat(AccessLogFormatParser.parse(file.getFormat(), path.field("format")), false);
      case JSON_FORMAT -> new AccessLogConfig.JsonFormat(
          json(file.getJsonFormat(), path.field("json_format")), false, false);
      case TYPED_JSON_FORMAT -> new AccessLogConfig.JsonFormat(
          json(file.getTypedJsonFormat(), path.field("typed_json_format")), true, false);
      case LOG_FORMAT -> format(file.getLogFormat(), path.field("log_format"));
      case ACCESSLOGFORMAT_NOT_SET -> defaultFormat(path);
    };
  }

  /** A {@code SubstitutionFormatString} (access logs' {@code log_format}, local replies' {@code body_format}). */
  @SuppressWarnings("deprecation") // text_format: deprecated for text_format_source, still accepted by Envoy
  static LogFormat format(SubstitutionFormatString f, FieldPath path) throws ConfigException {
    FORMAT.check(f, path);
    boolean omit = f.getOmitEmptyValues();
    return switch (f.getFormatCase()) {
      case TEXT_FORMAT -> new AccessLogConfig.TextFormat(
          AccessLogFormatParser.parse(f.getTextFormat(), path.field("text_format")), omit);
      case TEXT_FORMAT_SOURCE -> {
        FieldPath sourcePath = path.field("text_format_source");
        yield new AccessLogConfig.TextFormat(
            AccessLogFormatParser.parse(text(f.getTextFormatSource(), sourcePath), sourcePath), omit);
      }
      case JSON_FORMAT -> new AccessLogConfig.JsonFormat(json(f.getJsonFormat(), path.field("json_format")), true, omit);
      case FORMAT_NOT_SET -> throw new ConfigException(path, "one of text_format_source, json_format or text_format "
          + "is required");
    };
  }

  /** The text of a DataSource (filename, inline_string or inline_bytes), read now; empty is allowed. */
  static String text(DataSource source, FieldPath path) throws ConfigException {
    DATA_SOURCE.check(source, path);
    return switch (source.getSpecifierCase()) {
      case INLINE_STRING -> source.getInlineString();
      case INLINE_BYTES -> source.getInlineBytes().toStringUtf8();
      case FILENAME -> {
        try {
          yield Files.readString(Path.of(source.getFilename()), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
          throw new ConfigException(path.field("filename"), "cannot read " + source.getFilename() + ": "
              + FileProblems.describe(e), e);
        }
      }
      default -> throw new ConfigException(path, "one of inline_string, inline_bytes or filename is required");
    };
  }

  private static LogFormat defaultFormat(FieldPath path) throws ConfigException {
    return new AccessLogConfig.TextFormat(AccessLogFormatParser.parse(AccessLogConfig.DEFAULT_FORMAT, path), false);
  }

  private static List<JsonField> json(Struct struct, FieldPath path) throws ConfigException {
    if (struct.getFieldsCount() == 0) {
      throw new ConfigException(path, "a JSON format needs at least one field");
    }
    List<JsonField> fields = new ArrayList<>();
    for (Map.Entry<String, Value> e : struct.getFieldsMap().entrySet()) {
      fields.add(new JsonField(e.getKey(), jsonValue(e.getValue(), path.key(e.getKey()))));
    }
    return fields;
  }

  private static JsonValue jsonValue(Value v, FieldPath path) throws ConfigException {
    return switch (v.getKindCase()) {
      case STRING_VALUE -> new AccessLogConfig.FormattedValue(AccessLogFormatParser.parse(v.getStringValue(), path));
      case STRUCT_VALUE -> new AccessLogConfig.NestedValue(json(v.getStructValue(), path));
      case NUMBER_VALUE -> {
        double d = v.getNumberValue();
        yield new AccessLogConfig.LiteralValue(d == Math.rint(d) && Math.abs(d) < 1e15
            ? Long.toString((long) d) : Double.toString(d));
      }
      case BOOL_VALUE -> new AccessLogConfig.LiteralValue(Boolean.toString(v.getBoolValue()));
      case NULL_VALUE -> new AccessLogConfig.LiteralValue("null");
      default -> throw new ConfigException(path, "only strings, numbers, booleans and nested objects are supported "
          + "in a JSON format");
    };
  }

  // ---- filters ---------------------------------------------------------------------------------

  static Filter filter(AccessLogFilter f, FieldPath path) throws ConfigException {
    FILTER.check(f, path);
    return switch (f.getFilterSpecifierCase()) {
      case STATUS_CODE_FILTER -> {
        FieldPath p = path.field("status_code_filter").field("comparison");
        ComparisonFilter c = f.getStatusCodeFilter().getComparison();
        yield new AccessLogConfig.StatusCodeFilter(op(c, p), comparedValue(c, p), c.getValue().getRuntimeKey());
      }
      case DURATION_FILTER -> {
        FieldPath p = path.field("duration_filter").field("comparison");
        ComparisonFilter c = f.getDurationFilter().getComparison();
        yield new AccessLogConfig.DurationFilter(op(c, p), comparedValue(c, p), c.getValue().getRuntimeKey());
      }
      case NOT_HEALTH_CHECK_FILTER -> new AccessLogConfig.NotHealthCheckFilter();
      case TRACEABLE_FILTER -> new AccessLogConfig.TraceableFilter();
      case RUNTIME_FILTER -> runtime(f.getRuntimeFilter(), path.field("runtime_filter"));
      case AND_FILTER -> new AccessLogConfig.AndFilter(
          filters(f.getAndFilter().getFiltersList(), path.field("and_filter").field("filters")));
      case OR_FILTER -> new AccessLogConfig.OrFilter(
          filters(f.getOrFilter().getFiltersList(), path.field("or_filter").field("filters")));
      case HEADER_FILTER -> {
        FieldPath p = path.field("header_filter").field("header");
        if (!f.getHeaderFilter().hasHeader()) {
          throw new ConfigException(p, "header is required");
        }
        yield new AccessLogConfig.HeaderFilter(MatchTranslator.header(f.getHeaderFilter().getHeader(), p));
      }
      case RESPONSE_FLAG_FILTER -> {
        FieldPath p = path.field("response_flag_filter").field("flags");
        Set<String> flags = new LinkedHashSet<>();
        List<String> list = f.getResponseFlagFilter().getFlagsList();
        for (int i = 0; i < list.size(); i++) {
          if (!RESPONSE_FLAGS.contains(list.get(i))) {
            throw new ConfigException(p.index(i), "unknown response flag \"" + list.get(i) + "\"");
          }
          flags.add(list.get(i));
        }
        yield new AccessLogConfig.ResponseFlagFilter(flags);
      }
      case GRPC_STATUS_FILTER -> {
        FieldPath p = path.field("grpc_status_filter").field("statuses");
        GrpcStatusFilter g = f.getGrpcStatusFilter();
        Set<Integer> statuses = new HashSet<>();
        for (int i = 0; i < g.getStatusesCount(); i++) {
          if (g.getStatuses(i) == GrpcStatusFilter.Status.UNRECOGNIZED) {
            throw new ConfigException(p.index(i), "unknown gRPC status " + g.getStatusesValue(i));
          }
          statuses.add(g.getStatusesValue(i));
        }
        yield new AccessLogConfig.GrpcStatusFilter(statuses, g.getExclude());
      }
      case FILTERSPECIFIER_NOT_SET -> throw new ConfigException(path, "a filter kind is required");
      default -> throw new ConfigException(path, f.getFilterSpecifierCase().name().toLowerCase() + " is not supported");
    };
  }

  private static List<Filter> filters(List<AccessLogFilter> list, FieldPath path) throws ConfigException {
    if (list.size() < 2) {
      throw new ConfigException(path, "at least two filters are required");
    }
    List<Filter> out = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      out.add(filter(list.get(i), path.index(i)));
    }
    return out;
  }

  private static Op op(ComparisonFilter c, FieldPath path) throws ConfigException {
    return switch (c.getOp()) {
      case EQ -> Op.EQ;
      case GE -> Op.GE;
      case LE -> Op.LE;
      default -> throw new ConfigException(path.field("op"), "unknown comparison " + c.getOpValue());
    };
  }

  /** The comparison's default value (the runtime's value of its runtime_key overrides it when the log is written). */
  private static long comparedValue(ComparisonFilter c, FieldPath path) throws ConfigException {
    if (!c.hasValue()) {
      throw new ConfigException(path.field("value"), "value is required");
    }
    return Integer.toUnsignedLong(c.getValue().getDefaultValue());
  }

  private static Filter runtime(RuntimeFilter r, FieldPath path) throws ConfigException {
    RUNTIME.check(r, path);
    if (r.getRuntimeKey().isEmpty()) {
      throw new ConfigException(path.field("runtime_key"), "runtime_key is required");
    }
    // The runtime's value of the key overrides percent_sampled (absent, Envoy samples 0 of 100).
    FractionalPercent pct = r.getPercentSampled();
    long denominator = switch (pct.getDenominator()) {
      case HUNDRED -> 100;
      case TEN_THOUSAND -> 10_000;
      case MILLION -> 1_000_000;
      default -> throw new ConfigException(path.field("percent_sampled").field("denominator"),
          "unknown denominator " + pct.getDenominatorValue());
    };
    long numerator = Math.min(Integer.toUnsignedLong(pct.getNumerator()), denominator);
    return new AccessLogConfig.RuntimeFilter(r.getRuntimeKey(), numerator, denominator,
        r.getUseIndependentRandomness());
  }
}
