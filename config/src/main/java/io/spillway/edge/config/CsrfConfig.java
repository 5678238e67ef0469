package io.spillway.edge.config;

import io.spillway.edge.config.Route.StringMatch;
import java.util.List;
import java.util.Objects;

/**
 * Envoy's {@code envoy.filters.http.csrf} policy ({@code envoy.extensions.filters.http.csrf.v3.CsrfPolicy}):
 * the filter's own config, and the same message as a route's or virtual host's
 * {@code typed_per_filter_config} entry, which replaces it for that route (the most specific wins,
 * as Envoy's {@code resolveMostSpecificPerFilterConfig}).
 *
 * @param filterEnabled {@code filter_enabled}: the share of requests the policy is enforced for
 * @param shadowEnabled {@code shadow_enabled}: for requests it is not enforced for, the share that
 *     is still checked and counted; never when unset
 * @param additionalOrigins {@code additional_origins}: source origins (host and port) allowed besides
 *     the request's own host, matchers compiled
 */
public record CsrfConfig(RuntimeFraction filterEnabled, RuntimeFraction shadowEnabled,
    List<StringMatch> additionalOrigins) implements HttpFilterConfig.Settings, RouteFilterConfig {
  public CsrfConfig {
    Objects.requireNonNull(filterEnabled, "filterEnabled");
    Objects.requireNonNull(shadowEnabled, "shadowEnabled");
    additionalOrigins = List.copyOf(additionalOrigins);
  }
}
