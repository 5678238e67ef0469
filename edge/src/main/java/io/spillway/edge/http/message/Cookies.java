package io.spillway.edge.http.message;

import java.util.List;

/**
 * A cookie's value from {@code Cookie} header fields (RFC 6265 §5.4), read as Envoy's
 * {@code Http::Utility::parseCookieValue} reads it: pairs separated by {@code ;}, leading spaces
 * skipped, the name compared exactly, a quoted value's quotes dropped.
 */
public final class Cookies {
  private Cookies() {}

  /**
   * The first cookie named {@code name} over every field, or null when there is none or its value
   * is empty (Envoy treats an empty value as no cookie).
   */
  public static String value(List<String> cookieHeaders, String name) {
    for (int h = 0; h < cookieHeaders.size(); h++) {
      String header = cookieHeaders.get(h);
      int i = 0;
      int n = header.length();
      while (i < n) {
        int end = header.indexOf(';', i);
        if (end < 0) {
          end = n;
        }
        int start = i;
        while (start < end && header.charAt(start) == ' ') {
          start++;
        }
        int eq = header.indexOf('=', start);
        if (eq > 0 && eq < end && eq - start == name.length() && header.regionMatches(start, name, 0, name.length())) {
          String v = header.substring(eq + 1, end);
          if (v.length() >= 2 && v.charAt(0) == '"' && v.charAt(v.length() - 1) == '"') {
            v = v.substring(1, v.length() - 1);
          }
          return v.isEmpty() ? null : v;
        }
        i = end + 1;
      }
    }
    return null;
  }
}
