package io.spillway.policy;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What a rate limit tells callers apart by, parsed from its {@code key}: {@code clientAddress} (the
 * client's IP as the connection manager trusts it, i.e. after {@code xff_num_trusted_hops}),
 * {@code header:<name>} (the value of a request header, name in any case) or {@code route} (the
 * matched route's name).
 *
 * @param kind which
 * @param headerName for {@link Kind#HEADER}, the header name in lower case; else null
 */
public record RateLimitKey(Kind kind, String headerName) {

  /** The kinds of key. */
  public enum Kind { CLIENT_ADDRESS, HEADER, ROUTE }

  /** RFC 9110 token characters, which a header name is made of, as a regular expression. */
  static final String HEADER_NAME = "[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}";
  private static final Pattern TOKEN = Pattern.compile(HEADER_NAME);

  /** The message for a key that is none of these, after the field's path. */
  static final String EXPECTED = "must be clientAddress, route or header:<name> (a header name of token characters)";

  /**
   * The key spelled {@code text}, or null when it is none of the three forms.
   */
  public static RateLimitKey parse(String text) {
    if (text == null) {
      return null;
    }
    if (text.equals("clientAddress")) {
      return new RateLimitKey(Kind.CLIENT_ADDRESS, null);
    }
    if (text.equals("route")) {
      return new RateLimitKey(Kind.ROUTE, null);
    }
    if (text.startsWith("header:") && TOKEN.matcher(text.substring(7)).matches()) {
      return new RateLimitKey(Kind.HEADER, text.substring(7).toLowerCase(Locale.ROOT));
    }
    return null;
  }
}
