package io.spillway.edge.config;

import io.netty.util.NetUtil;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One entry of a {@code CertificateValidationContext}'s {@code match_typed_subject_alt_names}, or
 * of the legacy {@code match_subject_alt_names} (type {@link Type#ANY}: tried against DNS, URI,
 * email and IP SANs), for a server certificate (clusters) and a client certificate (listeners)
 * alike. A certificate is accepted when any matcher matches any of its SANs (Envoy's semantics).
 *
 * <p>A DNS SAN against an {@code exact} matcher follows Envoy's DNS name matching (RFC 6125 section
 * 6.4.3): case-insensitive, and a wildcard SAN {@code *.example.com} covers {@code
 * a.example.com} but neither {@code example.com} nor {@code a.b.example.com}. Other matchers
 * compare the SAN as it is written. IPv6 SANs are compared in their RFC 5952 form ({@code ::1}).
 */
public record SanMatcher(Type type, Route.StringMatch match) {

  /** Which subject alternative names a matcher looks at; ANY is the legacy {@code match_subject_alt_names}. */
  public enum Type { DNS, URI, IP_ADDRESS, EMAIL, ANY }

  public SanMatcher {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(match, "match");
  }

  /** Whether a SAN of {@code cert} satisfies one of {@code matchers}. */
  public static boolean anyMatches(X509Certificate cert, List<SanMatcher> matchers) throws CertificateParsingException {
    Collection<List<?>> sans = cert.getSubjectAlternativeNames();
    if (sans == null) {
      return false;
    }
    for (List<?> san : sans) {
      if (san.size() < 2 || !(san.get(0) instanceof Integer kind) || !(san.get(1) instanceof String value)) {
        continue;
      }
      Type type = switch (kind) {
        case 1 -> Type.EMAIL;
        case 2 -> Type.DNS;
        case 6 -> Type.URI;
        case 7 -> Type.IP_ADDRESS;
        default -> null;
      };
      if (type == null) {
        continue;
      }
      if (type == Type.IP_ADDRESS) {
        value = canonicalIp(value);
      }
      for (SanMatcher m : matchers) {
        if ((m.type() == type || m.type() == Type.ANY) && m.matches(type, value)) {
          return true;
        }
      }
    }
    return false;
  }

  private boolean matches(Type sanType, String san) {
    if (sanType == Type.DNS && match instanceof Route.StringMatch.Exact exact) {
      return dnsNameMatch(exact.value(), san);
    }
    return matches(match, san);
  }

  /**
   * Envoy's {@code dnsNameMatch}: {@code name} equals {@code pattern} ignoring case, or {@code
   * pattern} is {@code *.<parent>} and {@code name} is one label under {@code <parent>}.
   */
  static boolean dnsNameMatch(String name, String pattern) {
    String n = name.toLowerCase(Locale.ROOT);
    String p = pattern.toLowerCase(Locale.ROOT);
    if (n.equals(p)) {
      return true;
    }
    if (p.length() > 1 && p.startsWith("*.") && n.length() > p.length() - 1) {
      int label = n.length() - (p.length() - 1);
      return n.lastIndexOf('.', label - 1) < 0 && n.endsWith(p.substring(1));
    }
    return false;
  }

  private static boolean matches(Route.StringMatch match, String value) {
    return switch (match) {
      case Route.StringMatch.Exact e -> e.ignoreCase() ? value.equalsIgnoreCase(e.value()) : value.equals(e.value());
      case Route.StringMatch.Prefix p -> value.regionMatches(p.ignoreCase(), 0, p.value(), 0, p.value().length());
      case Route.StringMatch.Suffix s -> value.length() >= s.value().length()
          && value.regionMatches(s.ignoreCase(), value.length() - s.value().length(), s.value(), 0, s.value().length());
      case Route.StringMatch.Contains c -> c.ignoreCase()
          ? value.toLowerCase(Locale.ROOT).contains(c.value().toLowerCase(Locale.ROOT))
          : value.contains(c.value());
      case Route.StringMatch.Regex r -> r.pattern().matcher(value).matches();
      case Route.StringMatch.Present p -> p.present();
    };
  }

  /** IPv6 SANs in their RFC 5952 form ({@code ::1}), as Envoy prints them. */
  private static String canonicalIp(String ip) {
    byte[] bytes = NetUtil.createByteArrayFromIpAddressString(ip);
    return bytes == null || bytes.length == 4 ? ip : NetUtil.bytesToIpAddress(bytes);
  }
}
