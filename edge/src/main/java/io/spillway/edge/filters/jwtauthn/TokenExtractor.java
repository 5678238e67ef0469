package io.spillway.edge.filters.jwtauthn;

import io.spillway.edge.config.JwtAuthnConfig;
import io.spillway.edge.http.message.RequestHeaders;
import java.util.ArrayList;
import java.util.List;

/**
 * Where one provider looks for tokens (Envoy's extractor): its {@code from_headers} (the token
 * after the {@code value_prefix}), {@code from_params} (query parameters) and {@code from_cookies};
 * when none is configured, Envoy's defaults: {@code Authorization: Bearer <token>} and the
 * {@code access_token} query parameter.
 */
final class TokenExtractor {
  private static final List<JwtAuthnConfig.TokenHeader> DEFAULT_HEADERS =
      List.of(new JwtAuthnConfig.TokenHeader("authorization", "Bearer "));
  private static final List<String> DEFAULT_PARAMS = List.of("access_token");

  /** A token found in a request; {@code header} is the header it came from, or null (a parameter or cookie). */
  record Token(String value, String header) {}

  private final List<JwtAuthnConfig.TokenHeader> headers;
  private final List<String> params;
  private final List<String> cookies;

  TokenExtractor(JwtAuthnConfig.Provider provider) {
    boolean defaults = provider.defaultLocations();
    this.headers = defaults ? DEFAULT_HEADERS : provider.fromHeaders();
    this.params = defaults ? DEFAULT_PARAMS : provider.fromParams();
    this.cookies = provider.fromCookies();
  }

  /** The tokens of the request, in location order (empty when there is none). */
  List<Token> extract(RequestHeaders request) {
    List<Token> found = List.of();
    for (int i = 0; i < headers.size(); i++) {
      JwtAuthnConfig.TokenHeader h = headers.get(i);
      String value = request.header(h.name());
      if (value == null) {
        continue;
      }
      String token = afterPrefix(value, h.valuePrefix());
      if (token != null) {
        found = add(found, new Token(token, h.name()));
      }
    }
    if (!params.isEmpty()) {
      String query = request.query();
      if (query != null && !query.isEmpty()) {
        for (int i = 0; i < params.size(); i++) {
          String token = parameter(query, params.get(i));
          if (token != null && !token.isEmpty()) {
            found = add(found, new Token(token, null));
          }
        }
      }
    }
    if (!cookies.isEmpty()) {
      String cookie = request.header("cookie");
      if (cookie != null) {
        for (int i = 0; i < cookies.size(); i++) {
          String token = cookie(cookie, cookies.get(i));
          if (token != null && !token.isEmpty()) {
            found = add(found, new Token(token, null));
          }
        }
      }
    }
    return found;
  }

  private static List<Token> add(List<Token> found, Token token) {
    List<Token> out = found.isEmpty() ? new ArrayList<>(2) : found;
    out.add(token);
    return out;
  }

  /**
   * The token in a header value: with no prefix, the value; otherwise what follows the prefix
   * (which must be where the value starts, compared ignoring case, as in {@code Bearer }), up to
   * the first character that cannot be in a token. Null when the prefix is not there or nothing follows it.
   */
  static String afterPrefix(String value, String prefix) {
    String v = value.trim();
    if (prefix.isEmpty()) {
      return v.isEmpty() ? null : v;
    }
    if (!v.regionMatches(true, 0, prefix, 0, prefix.length())) {
      return null;
    }
    int start = prefix.length();
    while (start < v.length() && v.charAt(start) == ' ') {
      start++;
    }
    int end = start;
    while (end < v.length() && tokenChar(v.charAt(end))) {
      end++;
    }
    return end == start ? null : v.substring(start, end);
  }

  private static boolean tokenChar(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
        || c == '.' || c == '=' || c == '+' || c == '/';
  }

  /** The first value of a query parameter, or null. */
  static String parameter(String query, String name) {
    int i = 0;
    while (i <= query.length()) {
      int amp = query.indexOf('&', i);
      int end = amp < 0 ? query.length() : amp;
      int eq = query.indexOf('=', i);
      if (eq > i && eq < end && eq - i == name.length() && query.startsWith(name, i)) {
        return query.substring(eq + 1, end);
      }
      if (amp < 0) {
        break;
      }
      i = amp + 1;
    }
    return null;
  }

  /** A cookie's value from a {@code Cookie} header, or null. */
  static String cookie(String header, String name) {
    for (String part : header.split(";")) {
      String p = part.trim();
      int eq = p.indexOf('=');
      if (eq == name.length() && p.startsWith(name)) {
        String v = p.substring(eq + 1);
        return v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"") ? v.substring(1, v.length() - 1) : v;
      }
    }
    return null;
  }
}
