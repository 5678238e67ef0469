package io.spillway.edge.config;

import io.spillway.edge.config.Route.StringMatch;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A CORS policy, from a route's or virtual host's {@code typed_per_filter_config}
 * ({@code envoy.extensions.filters.http.cors.v3.CorsPolicy}) or from their older {@code cors}
 * field ({@code envoy.config.route.v3.CorsPolicy}); both have the same fields and mean the same.
 *
 * <p>Envoy reads a request's policies field by field, the route's first: a field the route's
 * policy leaves empty comes from its virtual host's, while whether CORS is on at all
 * ({@code filter_enabled}, {@code shadow_enabled}) is the route's policy's alone. {@link #over}
 * does that merge once, when the routes are translated.
 *
 * @param allowOrigins {@code allow_origin_string_match}, regular expressions compiled; an origin
 *     is allowed when one matches it, or matches {@code *}
 * @param allowMethods {@code allow_methods}, "" when unset; {@code *} echoes the preflight's method
 * @param allowHeaders {@code allow_headers}, "" when unset; {@code *} echoes the preflight's headers
 * @param exposeHeaders {@code expose_headers}, "" when unset
 * @param maxAge {@code max_age}, "" when unset
 * @param allowCredentials {@code allow_credentials}, empty when unset (false)
 * @param allowPrivateNetworkAccess {@code allow_private_network_access}, empty when unset (false)
 * @param forwardNotMatchingPreflights {@code forward_not_matching_preflights}, empty when unset (true)
 * @param filterEnabled {@code filter_enabled}; always when unset (Envoy enforces the policy unless
 *     told otherwise)
 * @param shadowEnabled {@code shadow_enabled}; never when unset
 */
public record CorsPolicy(
    List<StringMatch> allowOrigins,
    String allowMethods,
    String allowHeaders,
    String exposeHeaders,
    String maxAge,
    Optional<Boolean> allowCredentials,
    Optional<Boolean> allowPrivateNetworkAccess,
    Optional<Boolean> forwardNotMatchingPreflights,
    RuntimeFraction filterEnabled,
    RuntimeFraction shadowEnabled) implements RouteFilterConfig {

  /** One million: the scale of the two fractions. */
  public static final int MILLION = RuntimeFraction.MILLION;

  public CorsPolicy {
    allowOrigins = List.copyOf(allowOrigins);
    Objects.requireNonNull(allowMethods, "allowMethods");
    Objects.requireNonNull(allowHeaders, "allowHeaders");
    Objects.requireNonNull(exposeHeaders, "exposeHeaders");
    Objects.requireNonNull(maxAge, "maxAge");
    Objects.requireNonNull(allowCredentials, "allowCredentials");
    Objects.requireNonNull(allowPrivateNetworkAccess, "allowPrivateNetworkAccess");
    Objects.requireNonNull(forwardNotMatchingPreflights, "forwardNotMatchingPreflights");
  }

  /**
   * This (more specific) policy with each field it leaves empty taken from {@code lessSpecific};
   * the two fractions stay this policy's.
   */
  public CorsPolicy over(CorsPolicy lessSpecific) {
    return new CorsPolicy(
        allowOrigins.isEmpty() ? lessSpecific.allowOrigins : allowOrigins,
        allowMethods.isEmpty() ? lessSpecific.allowMethods : allowMethods,
        allowHeaders.isEmpty() ? lessSpecific.allowHeaders : allowHeaders,
        exposeHeaders.isEmpty() ? lessSpecific.exposeHeaders : exposeHeaders,
        maxAge.isEmpty() ? lessSpecific.maxAge : maxAge,
        allowCredentials.or(lessSpecific::allowCredentials),
        allowPrivateNetworkAccess.or(lessSpecific::allowPrivateNetworkAccess),
        forwardNotMatchingPreflights.or(lessSpecific::forwardNotMatchingPreflights),
        filterEnabled,
        shadowEnabled);
  }
}
