package io.spillway.edge.config;

import io.envoyproxy.envoy.config.route.v3.HeaderMatcher;
import io.envoyproxy.envoy.config.route.v3.QueryParameterMatcher;
import io.envoyproxy.envoy.config.route.v3.RouteMatch;
import io.envoyproxy.envoy.type.matcher.v3.RegexMatcher;
import io.envoyproxy.envoy.type.matcher.v3.StringMatcher;
import io.spillway.edge.config.Route.HeaderMatch;
import io.spillway.edge.config.Route.PathMatch;
import io.spillway.edge.config.Route.QueryParameterMatch;
import io.spillway.edge.config.Route.StringMatch;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Envoy's {@code RouteMatch}, header, query parameter and string matchers → {@link Route.Match}.
 * Regular expressions are compiled here, once; a bad one is an error naming its field.
 */
final class MatchTranslator {

  private static final SupportedFields ROUTE_MATCH = SupportedFields.of(RouteMatch.getDescriptor(),
      "prefix", "path", "safe_regex", "case_sensitive", "headers", "query_parameters", "runtime_fraction", "grpc",
      "connect_matcher");
  /**
   * What {@code grpc: {}} matches, as Envoy's gRPC request check reads the content type:
   * {@code application/grpc}, or it followed by {@code +} (a codec) or {@code ;} (parameters).
   */
  static final HeaderMatch GRPC_CONTENT_TYPE = new HeaderMatch("content-type",
      new StringMatch.Regex(java.util.regex.Pattern.compile("application/grpc(?:[+;].*)?")), false);
  private static final SupportedFields REGEX = SupportedFields.of(RegexMatcher.getDescriptor(), "regex", "google_re2");
  private static final SupportedFields HEADER_MATCHER = SupportedFields.of(HeaderMatcher.getDescriptor(),
      "name", "exact_match", "safe_regex_match", "present_match", "prefix_match", "suffix_match", "contains_match",
      "string_match", "invert_match");
  private static final SupportedFields QUERY_MATCHER = SupportedFields.of(QueryParameterMatcher.getDescriptor(),
      "name", "string_match", "present_match");
  private static final SupportedFields STRING_MATCHER = SupportedFields.of(StringMatcher.getDescriptor(),
      "exact", "prefix", "suffix", "safe_regex", "contains", "ignore_case");

  private MatchTranslator() {}

  static Route.Match translate(RouteMatch m, FieldPath path) throws ConfigException {
    ROUTE_MATCH.check(m, path);
    PathMatch pathMatch = switch (m.getPathSpecifierCase()) {
      case PREFIX -> new PathMatch.Prefix(m.getPrefix());
      case PATH -> new PathMatch.Exact(m.getPath());
      case SAFE_REGEX -> new PathMatch.Regex(regex(m.getSafeRegex(), path.field("safe_regex")));
      case CONNECT_MATCHER -> new PathMatch.Connect(); // ConnectMatcher has no fields
      default -> throw new ConfigException(path, "one of prefix, path, safe_regex or connect_matcher is required");
    };
    boolean caseSensitive = !m.hasCaseSensitive() || m.getCaseSensitive().getValue();
    List<HeaderMatch> headers = new ArrayList<>();
    for (int i = 0; i < m.getHeadersCount(); i++) {
      headers.add(header(m.getHeaders(i), path.field("headers").index(i)));
    }
    if (m.hasGrpc()) {
      headers.add(GRPC_CONTENT_TYPE); // GrpcRouteMatchOptions has no fields
    }
    List<QueryParameterMatch> query = new ArrayList<>();
    for (int i = 0; i < m.getQueryParametersCount(); i++) {
      query.add(queryParameter(m.getQueryParameters(i), path.field("query_parameters").index(i)));
    }
    java.util.Optional<RuntimeFraction> fraction = m.hasRuntimeFraction()
        ? java.util.Optional.of(RuntimeTranslator.fraction(m.getRuntimeFraction(), path.field("runtime_fraction")))
        : java.util.Optional.empty();
    return new Route.Match(pathMatch, caseSensitive, headers, query, fraction);
  }

  @SuppressWarnings("deprecation") // exact_match & co.: deprecated for string_match, still accepted by Envoy
  static HeaderMatch header(HeaderMatcher h, FieldPath path) throws ConfigException {
    HEADER_MATCHER.check(h, path);
    String name = HeaderMutationTranslator.headerName(h.getName(), path.field("name"));
    StringMatch match = switch (h.getHeaderMatchSpecifierCase()) {
      case EXACT_MATCH -> new StringMatch.Exact(h.getExactMatch(), false);
      case PREFIX_MATCH -> new StringMatch.Prefix(nonEmpty(h.getPrefixMatch(), path.field("prefix_match")), false);
      case SUFFIX_MATCH -> new StringMatch.Suffix(nonEmpty(h.getSuffixMatch(), path.field("suffix_match")), false);
      case CONTAINS_MATCH ->
          new StringMatch.Contains(nonEmpty(h.getContainsMatch(), path.field("contains_match")), false);
      case SAFE_REGEX_MATCH -> new StringMatch.Regex(regex(h.getSafeRegexMatch(), path.field("safe_regex_match")));
      case PRESENT_MATCH -> new StringMatch.Present(h.getPresentMatch());
      case STRING_MATCH -> string(h.getStringMatch(), path.field("string_match"));
      // Envoy: a header matcher without a specifier matches when the header is present.
      default -> new StringMatch.Present(true);
    };
    return new HeaderMatch(name, match, h.getInvertMatch());
  }

  private static QueryParameterMatch queryParameter(QueryParameterMatcher q, FieldPath path) throws ConfigException {
    QUERY_MATCHER.check(q, path);
    if (q.getName().isEmpty()) {
      throw new ConfigException(path.field("name"), "name is required");
    }
    StringMatch match = switch (q.getQueryParameterMatchSpecifierCase()) {
      case STRING_MATCH -> string(q.getStringMatch(), path.field("string_match"));
      case PRESENT_MATCH -> {
        if (!q.getPresentMatch()) {
          throw new ConfigException(path.field("present_match"), "present_match: false is not supported");
        }
        yield new StringMatch.Present(true);
      }
      // Envoy: a query parameter matcher without a specifier matches when the parameter is present.
      default -> new StringMatch.Present(true);
    };
    return new QueryParameterMatch(q.getName(), match);
  }

  static StringMatch string(StringMatcher s, FieldPath path) throws ConfigException {
    STRING_MATCHER.check(s, path);
    boolean ignoreCase = s.getIgnoreCase();
    return switch (s.getMatchPatternCase()) {
      case EXACT -> new StringMatch.Exact(s.getExact(), ignoreCase);
      case PREFIX -> new StringMatch.Prefix(nonEmpty(s.getPrefix(), path.field("prefix")), ignoreCase);
      case SUFFIX -> new StringMatch.Suffix(nonEmpty(s.getSuffix(), path.field("suffix")), ignoreCase);
      case CONTAINS -> new StringMatch.Contains(nonEmpty(s.getContains(), path.field("contains")), ignoreCase);
      // Envoy ignores ignore_case for safe_regex.
      case SAFE_REGEX -> new StringMatch.Regex(regex(s.getSafeRegex(), path.field("safe_regex")));
      default -> throw new ConfigException(path, "one of exact, prefix, suffix, contains or safe_regex is required");
    };
  }

  /** Compiles a RegexMatcher's pattern (RE2 syntax in Envoy; Java's engine reads the common subset). */
  static Pattern regex(RegexMatcher r, FieldPath path) throws ConfigException {
    REGEX.check(r, path);
    FieldPath regexPath = path.field("regex");
    if (r.getRegex().isEmpty()) {
      throw new ConfigException(regexPath, "regex is required");
    }
    try {
      return Pattern.compile(r.getRegex());
    } catch (PatternSyntaxException e) {
      String near = e.getIndex() >= 0 ? " near index " + e.getIndex() : "";
      throw new ConfigException(regexPath, "invalid regular expression \"" + r.getRegex() + "\": "
          + e.getDescription() + near, e);
    }
  }

  private static String nonEmpty(String value, FieldPath path) throws ConfigException {
    if (value.isEmpty()) {
      throw new ConfigException(path, "must not be empty");
    }
    return value;
  }
}
