package io.spillway.edge.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code envoy.filters.http.header_to_metadata} ({@code header_to_metadata.v3.Config}),
 * translated and checked: the rules that turn request and response headers (or cookies) into the
 * stream's dynamic metadata. The same record is a route's or virtual host's own rules in
 * {@code typed_per_filter_config}, which replace the filter's.
 *
 * @param requestRules applied to the request's headers, in order
 * @param responseRules applied to the response's headers, in order
 */
public record HeaderToMetadataConfig(List<Rule> requestRules, List<Rule> responseRules)
    implements HttpFilterConfig.Settings, RouteFilterConfig {

  /** The namespace of a pair without {@code metadata_namespace}: the filter's canonical name. */
  public static final String DEFAULT_NAMESPACE = "envoy.filters.http.header_to_metadata";

  public HeaderToMetadataConfig {
    requestRules = List.copyOf(requestRules);
    responseRules = List.copyOf(responseRules);
  }

  /** Where a rule reads its value. */
  public enum Source { HEADER, COOKIE }

  /**
   * One rule.
   *
   * @param source a header or a cookie
   * @param name the header's name (lower case; {@code :authority}, {@code :path}, {@code :method},
   *     {@code :scheme} and {@code host} on requests, {@code :status} on responses) or the cookie's
   * @param onPresent what to write when the header is there (a cookie: there and not empty)
   * @param onMissing what to write when it is not
   * @param remove remove the header once read (headers only)
   */
  public record Rule(Source source, String name, Optional<KeyValue> onPresent, Optional<KeyValue> onMissing,
      boolean remove) {
    public Rule {
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(name, "name");
    }
  }

  /** How a value is stored: Envoy's {@code ValueType}. */
  public enum ValueType { STRING, NUMBER, PROTOBUF_VALUE }

  /**
   * One metadata entry a rule writes.
   *
   * @param namespace {@code metadata_namespace}, or {@link #DEFAULT_NAMESPACE}
   * @param key the key in the namespace (not empty)
   * @param value the value written instead of the header's; empty = the header's (always set for
   *     {@code on_header_missing})
   * @param rewrite {@code regex_value_rewrite} of an {@code on_header_present} without {@code value}
   * @param type how the value is stored
   * @param base64 {@code encode: BASE64}: the value is decoded first
   */
  public record KeyValue(String namespace, String key, String value, Optional<Rewrite> rewrite, ValueType type,
      boolean base64) {}

  /**
   * {@code regex_value_rewrite}: every match of {@code pattern} in the value is replaced by the
   * substitution (RE2's {@code GlobalReplace}); no match leaves the value as it is.
   *
   * @param substitution literal text and capture groups ({@code \1} in Envoy's syntax), in order
   */
  public record Rewrite(Pattern pattern, List<SubstitutionPart> substitution) {
    public Rewrite {
      substitution = List.copyOf(substitution);
    }
  }

  /** A piece of a substitution. */
  public sealed interface SubstitutionPart {}

  /** Text copied as it is. */
  public record LiteralPart(String text) implements SubstitutionPart {}

  /** The text of capture group {@code group} (0: the whole match). */
  public record GroupPart(int group) implements SubstitutionPart {}
}
