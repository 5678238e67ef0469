package io.spillway.edge.config;

import io.spillway.policy.AccessLogPolicy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The control plane's {@code accessLog} section (already checked along the policy module's table)
 * → one {@link AccessLogConfig}, as a bootstrap {@code access_log} entry would translate: the format
 * parsed by the edge's own parser (so what the policy module cannot know, such as a bad START_TIME
 * pattern, is refused here with the section's path), the filters as Envoy's
 * {@code status_code_filter}, {@code duration_filter}, {@code not_health_check_filter} and
 * {@code response_flag_filter} under an {@code and_filter}, a file destination resolved under the
 * access log directory.
 */
public final class PolicyAccessLogTranslator {

  private static final FieldPath SECTION = FieldPath.ROOT.field(AccessLogPolicy.SECTION);

  private PolicyAccessLogTranslator() {}

  /**
   * @param logDirectory the edge's {@code --access-log-dir}, absolute
   * @throws ConfigException naming the section's field that the edge cannot compile
   */
  public static AccessLogConfig translate(AccessLogPolicy policy, Path logDirectory) throws ConfigException {
    AccessLogConfig.LogFormat format = format(policy);
    Optional<AccessLogConfig.Filter> filter = filter(policy.filters());
    AccessLogPolicy.Destination d = policy.effectiveDestination();
    if (d.isFile()) {
      Path root = logDirectory.toAbsolutePath().normalize();
      Path file = root.resolve(d.file()).normalize();
      if (!file.startsWith(root) || file.equals(root)) {
        throw new ConfigException(SECTION.field("destination").field("file"), d.file() + " is not a file under the "
            + "access log directory " + root);
      }
      return new AccessLogConfig(AccessLogConfig.Sink.FILE, file.toString(), format, filter);
    }
    AccessLogConfig.Sink sink = d.stream().equals("stderr") ? AccessLogConfig.Sink.STDERR : AccessLogConfig.Sink.STDOUT;
    return new AccessLogConfig(sink, "", format, filter);
  }

  private static AccessLogConfig.LogFormat format(AccessLogPolicy policy) throws ConfigException {
    if (policy.json() != null) {
      List<AccessLogConfig.JsonField> fields = new ArrayList<>();
      FieldPath json = SECTION.field("json");
      for (Map.Entry<String, String> e : policy.json().entrySet()) {
        fields.add(new AccessLogConfig.JsonField(e.getKey(), new AccessLogConfig.FormattedValue(
            AccessLogFormatParser.parse(e.getValue(), json.field(e.getKey())))));
      }
      return new AccessLogConfig.JsonFormat(fields, true, false);
    }
    String text = policy.format() != null ? policy.format() : AccessLogConfig.DEFAULT_FORMAT;
    if (!text.endsWith("\n")) {
      text = text + "\n"; // one line per request, as the section promises
    }
    return new AccessLogConfig.TextFormat(AccessLogFormatParser.parse(text, SECTION.field("format")), false);
  }

  private static Optional<AccessLogConfig.Filter> filter(AccessLogPolicy.Filters f) {
    if (f == null) {
      return Optional.empty();
    }
    List<AccessLogConfig.Filter> all = new ArrayList<>();
    if (f.statusCode() != null) {
      all.add(new AccessLogConfig.StatusCodeFilter(op(f.statusCode()), f.statusCode().value()));
    }
    if (f.duration() != null) {
      all.add(new AccessLogConfig.DurationFilter(op(f.duration()), f.duration().value()));
    }
    if (Boolean.TRUE.equals(f.notHealthCheck())) {
      all.add(new AccessLogConfig.NotHealthCheckFilter());
    }
    if (f.responseFlags() != null) {
      all.add(new AccessLogConfig.ResponseFlagFilter(java.util.Set.copyOf(f.responseFlags())));
    }
    return switch (all.size()) {
      case 0 -> Optional.empty();
      case 1 -> Optional.of(all.get(0));
      default -> Optional.of(new AccessLogConfig.AndFilter(all));
    };
  }

  private static AccessLogConfig.Op op(AccessLogPolicy.Comparison c) {
    return switch (c.effectiveOp()) {
      case "<=" -> AccessLogConfig.Op.LE;
      case "=" -> AccessLogConfig.Op.EQ;
      default -> AccessLogConfig.Op.GE;
    };
  }
}
