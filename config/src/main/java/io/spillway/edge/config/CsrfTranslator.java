package io.spillway.edge.config;

import io.envoyproxy.envoy.extensions.filters.http.csrf.v3.CsrfPolicy;
import io.spillway.edge.config.Route.StringMatch;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code envoy.extensions.filters.http.csrf.v3.CsrfPolicy} → {@link CsrfConfig}, for the filter's
 * {@code typed_config} and for a route's {@code typed_per_filter_config}. Every field is supported;
 * {@code filter_enabled} is required (Envoy's validation), each fraction needs its
 * {@code default_value}, and a {@code runtime_key} is read from the edge's runtime per request.
 */
final class CsrfTranslator {

  private static final SupportedFields POLICY = SupportedFields.of(CsrfPolicy.getDescriptor(),
      "filter_enabled", "shadow_enabled", "additional_origins");

  private CsrfTranslator() {}

  static CsrfConfig translate(CsrfPolicy p, FieldPath path) throws ConfigException {
    POLICY.check(p, path);
    if (!p.hasFilterEnabled()) {
      throw new ConfigException(path.field("filter_enabled"), "filter_enabled is required");
    }
    RuntimeFraction enabled = RuntimeTranslator.fraction(p.getFilterEnabled(), path.field("filter_enabled"));
    RuntimeFraction shadow = p.hasShadowEnabled()
        ? RuntimeTranslator.fraction(p.getShadowEnabled(), path.field("shadow_enabled"))
        : RuntimeFraction.NEVER;
    List<StringMatch> origins = new ArrayList<>(p.getAdditionalOriginsCount());
    for (int i = 0; i < p.getAdditionalOriginsCount(); i++) {
      origins.add(MatchTranslator.string(p.getAdditionalOrigins(i), path.field("additional_origins").index(i)));
    }
    return new CsrfConfig(enabled, shadow, origins);
  }
}
