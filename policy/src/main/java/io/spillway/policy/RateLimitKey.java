package io.spillway.policy;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What a rate limit tells callers apart by, parsed from its {@code key}: {@code clientAddress} (the
 * client's IP as the connection manager trusts it, i.e. after {@code xff_num_trusted_hops}),
 * {@code header:<name>} (the value of a request header, name in any case), {@code route} (the
 * matched route's name), {@code tier} (the matched route's admission tier) or {@code subject} (the
 * {@code sub} claim of the JWT that jwt_authn verified for the request).
 *
 * @param kind which
 * @param headerName for {@link Kind#HEADER}, the header name in lower case; else null
 */
public record RateLimitKey(Kind kind, String headerName) {

  /** The kinds of key. */
  public enum Kind {
    CLIENT_ADDRESS, HEADER, ROUTE, TIER, SUBJECT;

    /** Whether the key is known only once every configured filter ran (jwt_authn sets the subject). */
    public boolean needsFilters() {
      return this == SUBJECT;
    }
  }

  /** The admission tiers, as the {@code tier} key's values and a route's {@code spillway.admission.tier} metadata name them. */
  public static final java.util.List<String> TIERS = java.util.List.of("proxy", "start", "continuation", "exempt");

  /** RFC 9110 token characters, which a header name is made of, as a regular expression. */
  static final String HEADER_NAME = "[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}";
  private static final Pattern TOKEN = Pattern.compile(HEADER_NAME);

  /** The message for a key that is none of these, after the field's path. */
  static final String EXPECTED =
      "must be clientAddress, route, tier, subject or header:<name> (a header name of token characters)";

  /**
   * The key spelled {@code text}, or null when it is none of the forms.
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
    if (text.equals("tier")) {
      return new RateLimitKey(Kind.TIER, null);
    }
    if (text.equals("subject")) {
      return new RateLimitKey(Kind.SUBJECT, null);
    }
    if (text.startsWith("header:") && TOKEN.matcher(text.substring(7)).matches()) {
      return new RateLimitKey(Kind.HEADER, text.substring(7).toLowerCase(Locale.ROOT));
    }
    return null;
  }
}
