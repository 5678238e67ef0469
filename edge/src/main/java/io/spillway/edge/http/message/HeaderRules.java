package io.spillway.edge.http.message;

import java.util.Set;

/** Which headers an external service (an authorization or rate limit service) may add to a request or response. */
public final class HeaderRules {

  /** Headers the edge owns: the authority and the message framing. */
  private static final Set<String> FRAMING = Set.of("host", "content-length", "transfer-encoding",
      "connection", "upgrade", "te", "keep-alive", "proxy-connection");

  private HeaderRules() {}

  /**
   * A regular header name (an RFC 9110 token, lower case, not the authority nor a framing header)
   * with a value free of CR, LF and NUL.
   */
  public static boolean settable(String name, String value) {
    if (name.isEmpty() || FRAMING.contains(name)) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean token = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!token) {
        return false;
      }
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\r' || c == '\n' || c == 0) {
        return false;
      }
    }
    return true;
  }
}
