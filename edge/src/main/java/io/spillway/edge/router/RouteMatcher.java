package io.spillway.edge.router;

import io.spillway.edge.config.Route;
import io.spillway.edge.config.Route.StringMatch;
import io.spillway.edge.config.RuntimeFraction;
import io.spillway.edge.runtime.RuntimeSnapshot;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/** A route's match compiled into a predicate over {@link RequestView}. */
public final class RouteMatcher {

  private final Route.PathMatch path;
  private final boolean caseSensitive;
  private final List<Route.HeaderMatch> headers;
  private final List<Route.QueryParameterMatch> queries;
  /** {@code runtime_fraction}, or null. */
  private final RuntimeFraction fraction;
  private final Supplier<RuntimeSnapshot> runtime;

  private RouteMatcher(Route.Match match, Supplier<RuntimeSnapshot> runtime) {
    this.path = match.path();
    this.caseSensitive = match.caseSensitive();
    this.headers = match.headers();
    this.queries = match.queryParameters();
    this.fraction = match.runtimeFraction().orElse(null);
    this.runtime = runtime;
  }

  /**
   * A route match compiled for use outside the route table (a filter's own rules, such as
   * jwt_authn's {@code rules}): the same predicate a route uses.
   */
  public static RouteMatcher of(Route.Match match, Supplier<RuntimeSnapshot> runtime) {
    return new RouteMatcher(match, runtime);
  }

  public boolean matches(RequestView request) {
    if (!matchesPath(request.path(), request)) {
      return false;
    }
    for (int i = 0; i < headers.size(); i++) {
      Route.HeaderMatch h = headers.get(i);
      if (matchesHeader(h, request.header(h.name())) == h.invert()) {
        return false;
      }
    }
    if (!queries.isEmpty()) {
      String query = request.query();
      for (int i = 0; i < queries.size(); i++) {
        Route.QueryParameterMatch q = queries.get(i);
        if (!matches(q.match(), queryParameter(query, q.name()))) {
          return false;
        }
      }
    }
    // Envoy draws a random value per stream; a thread's own generator stands in for it.
    return fraction == null || runtime.get().featureEnabled(fraction, ThreadLocalRandom.current());
  }

  /**
   * Only a CONNECT request has an empty path (the codecs refuse every other target that does not
   * start with {@code /}): {@code connect_matcher} matches it, and nothing else does, as in Envoy.
   */
  private boolean matchesPath(String requestPath, RequestView request) {
    if (requestPath.isEmpty() || path instanceof Route.PathMatch.Connect) {
      return requestPath.isEmpty() && path instanceof Route.PathMatch.Connect
          && "CONNECT".equals(request.header(":method"));
    }
    return switch (path) {
      case Route.PathMatch.Prefix p -> caseSensitive
          ? requestPath.startsWith(p.prefix())
          : requestPath.regionMatches(true, 0, p.prefix(), 0, p.prefix().length());
      case Route.PathMatch.Exact e -> caseSensitive
          ? requestPath.equals(e.path())
          : requestPath.equalsIgnoreCase(e.path());
      case Route.PathMatch.Regex r -> r.pattern().matcher(requestPath).matches();
      case Route.PathMatch.Connect c -> false;
    };
  }

  /** Whether one header condition holds for the request ({@code invert} applied), as in a route match. */
  public static boolean headerMatches(Route.HeaderMatch h, RequestView request) {
    return matchesHeader(h, request.headerValues(h.name())) != h.invert();
  }

  private static boolean matchesHeader(Route.HeaderMatch h, String value) {
    return matches(h.match(), value);
  }

  /** Whether {@code value} (null when absent) satisfies {@code match}; also used by access log header filters. */
  public static boolean matches(StringMatch match, String value) {
    if (match instanceof StringMatch.Present p) {
      return (value != null) == p.present();
    }
    if (value == null) {
      return false;
    }
    return switch (match) {
      case StringMatch.Exact e -> e.ignoreCase() ? value.equalsIgnoreCase(e.value()) : value.equals(e.value());
      case StringMatch.Prefix p -> value.regionMatches(p.ignoreCase(), 0, p.value(), 0, p.value().length());
      case StringMatch.Suffix s -> value.length() >= s.value().length()
          && value.regionMatches(s.ignoreCase(), value.length() - s.value().length(), s.value(), 0, s.value().length());
      case StringMatch.Contains c -> c.ignoreCase()
          ? containsIgnoreCase(value, c.value())
          : value.contains(c.value());
      case StringMatch.Regex r -> fullMatch(r.pattern(), value);
      case StringMatch.Present p -> true;
    };
  }

  private static boolean fullMatch(Pattern p, String value) {
    return p.matcher(value).matches();
  }

  private static boolean containsIgnoreCase(String value, String part) {
    int max = value.length() - part.length();
    for (int i = 0; i <= max; i++) {
      if (value.regionMatches(true, i, part, 0, part.length())) {
        return true;
      }
    }
    return false;
  }

  /** The decoded-as-is value of the first {@code name} parameter ("" for a bare key), or null. */
  static String queryParameter(String query, String name) {
    int i = 0;
    int n = query.length();
    while (i < n) {
      int amp = query.indexOf('&', i);
      int end = amp < 0 ? n : amp;
      int eq = query.indexOf('=', i);
      int keyEnd = eq < 0 || eq > end ? end : eq;
      if (keyEnd - i == name.length() && query.regionMatches(i, name, 0, name.length())) {
        return keyEnd == end ? "" : query.substring(keyEnd + 1, end);
      }
      i = end + 1;
    }
    return null;
  }
}
