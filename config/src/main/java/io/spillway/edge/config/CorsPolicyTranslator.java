package io.spillway.edge.config;

import com.google.protobuf.BoolValue;
import io.envoyproxy.envoy.config.core.v3.RuntimeFractionalPercent;
import io.envoyproxy.envoy.type.matcher.v3.StringMatcher;
import io.spillway.edge.config.Route.StringMatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A CORS policy → {@link CorsPolicy}: the filter's own {@code envoy.extensions.filters.http.cors.v3.CorsPolicy}
 * (a {@code typed_per_filter_config} value) and the older {@code envoy.config.route.v3.CorsPolicy}
 * of {@code VirtualHost.cors} and {@code RouteAction.cors}. The two messages have the same fields
 * under different numbers; each is read into the same record.
 *
 * <p>{@code filter_enabled} and {@code shadow_enabled} take their {@code default_value}: the edge
 * has no runtime layer (a non-empty {@code layered_runtime} is refused), so a {@code runtime_key}
 * names a key that is never set, and Envoy then uses the default value too.
 */
final class CorsPolicyTranslator {

  private static final SupportedFields FILTER_POLICY = SupportedFields.of(
      io.envoyproxy.envoy.extensions.filters.http.cors.v3.CorsPolicy.getDescriptor(),
      "allow_origin_string_match", "allow_methods", "allow_headers", "expose_headers", "max_age", "allow_credentials",
      "filter_enabled", "shadow_enabled", "allow_private_network_access", "forward_not_matching_preflights");
  private static final SupportedFields ROUTE_POLICY = SupportedFields.of(
      io.envoyproxy.envoy.config.route.v3.CorsPolicy.getDescriptor(),
      "allow_origin_string_match", "allow_methods", "allow_headers", "expose_headers", "max_age", "allow_credentials",
      "filter_enabled", "shadow_enabled", "allow_private_network_access", "forward_not_matching_preflights");

  private CorsPolicyTranslator() {}

  /** The CORS filter's per-route policy. */
  static CorsPolicy translate(io.envoyproxy.envoy.extensions.filters.http.cors.v3.CorsPolicy p, FieldPath path)
      throws ConfigException {
    FILTER_POLICY.check(p, path);
    return policy(p.getAllowOriginStringMatchList(), p.getAllowMethods(), p.getAllowHeaders(), p.getExposeHeaders(),
        p.getMaxAge(), optional(p.hasAllowCredentials(), p.getAllowCredentials()),
        optional(p.hasAllowPrivateNetworkAccess(), p.getAllowPrivateNetworkAccess()),
        optional(p.hasForwardNotMatchingPreflights(), p.getForwardNotMatchingPreflights()),
        p.hasFilterEnabled(), p.getFilterEnabled(), p.hasShadowEnabled(), p.getShadowEnabled(), path);
  }

  /** A virtual host's or route action's {@code cors}. */
  static CorsPolicy translate(io.envoyproxy.envoy.config.route.v3.CorsPolicy p, FieldPath path)
      throws ConfigException {
    ROUTE_POLICY.check(p, path);
    return policy(p.getAllowOriginStringMatchList(), p.getAllowMethods(), p.getAllowHeaders(), p.getExposeHeaders(),
        p.getMaxAge(), optional(p.hasAllowCredentials(), p.getAllowCredentials()),
        optional(p.hasAllowPrivateNetworkAccess(), p.getAllowPrivateNetworkAccess()),
        optional(p.hasForwardNotMatchingPreflights(), p.getForwardNotMatchingPreflights()),
        p.hasFilterEnabled(), p.getFilterEnabled(), p.hasShadowEnabled(), p.getShadowEnabled(), path);
  }

  private static CorsPolicy policy(List<StringMatcher> origins, String allowMethods, String allowHeaders,
      String exposeHeaders, String maxAge, Optional<Boolean> allowCredentials,
      Optional<Boolean> allowPrivateNetworkAccess, Optional<Boolean> forwardNotMatchingPreflights,
      boolean hasEnabled, RuntimeFractionalPercent enabled, boolean hasShadow, RuntimeFractionalPercent shadow,
      FieldPath path) throws ConfigException {
    List<StringMatch> allowOrigins = new ArrayList<>(origins.size());
    for (int i = 0; i < origins.size(); i++) {
      FieldPath at = path.field("allow_origin_string_match").index(i);
      StringMatcher m = origins.get(i);
      if (m.getIgnoreCase() && m.getMatchPatternCase() == StringMatcher.MatchPatternCase.SAFE_REGEX) {
        throw new ConfigException(at.field("ignore_case"), "ignore_case has no effect for safe_regex");
      }
      allowOrigins.add(MatchTranslator.string(m, at));
    }
    return new CorsPolicy(allowOrigins,
        headerValue(allowMethods, path.field("allow_methods")),
        headerValue(allowHeaders, path.field("allow_headers")),
        headerValue(exposeHeaders, path.field("expose_headers")),
        headerValue(maxAge, path.field("max_age")),
        allowCredentials, allowPrivateNetworkAccess, forwardNotMatchingPreflights,
        hasEnabled ? RuntimeTranslator.fraction(enabled, path.field("filter_enabled")) : RuntimeFraction.ALWAYS,
        hasShadow ? RuntimeTranslator.fraction(shadow, path.field("shadow_enabled")) : RuntimeFraction.NEVER);
  }

  private static Optional<Boolean> optional(boolean has, BoolValue value) {
    return has ? Optional.of(value.getValue()) : Optional.empty();
  }

  /** A value the filter sends as a response header as it is: no control characters (CR, LF, NUL...). */
  private static String headerValue(String value, FieldPath path) throws ConfigException {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if ((c < ' ' && c != '\t') || c == 0x7f) {
        throw new ConfigException(path, "\"" + value.replace("\r", "\\r").replace("\n", "\\n")
            + "\" is not a valid header value (control character at index " + i + ")");
      }
    }
    return value;
  }
}
