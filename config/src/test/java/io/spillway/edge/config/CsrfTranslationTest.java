package io.spillway.edge.config;

import static io.spillway.edge.config.BootstrapYaml.HCM;
import static io.spillway.edge.config.BootstrapYaml.ROUTE;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.Route.StringMatch;
import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.csrf: the CsrfPolicy as the filter's config and as a route's
 * typed_per_filter_config, Envoy's required filter_enabled, and every rejection with its path.
 */
class CsrfTranslationTest {

  private static final String NAME = "envoy.filters.http.csrf";
  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.csrf.v3.CsrfPolicy";

  private static BootstrapYaml chain(String policy) {
    return BootstrapYaml.minimal().httpFilters("""
        - name: envoy.filters.http.csrf
          typed_config:
            "@type": %s
        %s
        - name: envoy.filters.http.router
        """.formatted(TYPE, policy.indent(4).stripTrailing()));
  }

  private static CsrfConfig filterConfig(BootstrapYaml yaml) throws ConfigException {
    return yaml.translate().listeners().get(0).hcm().filter(NAME).orElseThrow().settings(CsrfConfig.class);
  }

  @Test
  void readsEveryField() throws ConfigException {
    CsrfConfig c = filterConfig(chain("""
        filter_enabled: {default_value: {numerator: 50, denominator: HUNDRED}, runtime_key: csrf.enabled}
        shadow_enabled: {default_value: {numerator: 3, denominator: TEN_THOUSAND}, runtime_key: csrf.shadow}
        additional_origins:
        - exact: trusted.example
        - suffix: .partner.example
        """));
    assertThat(c.filterEnabled()).isEqualTo(new RuntimeFraction("csrf.enabled", 500_000));
    assertThat(c.shadowEnabled()).isEqualTo(new RuntimeFraction("csrf.shadow", 300));
    assertThat(c.additionalOrigins()).containsExactly(new StringMatch.Exact("trusted.example", false),
        new StringMatch.Suffix(".partner.example", false));
  }

  @Test
  void shadowIsOffWhenUnset() throws ConfigException {
    CsrfConfig c = filterConfig(chain("filter_enabled: {default_value: {numerator: 100}}\n"));
    assertThat(c.filterEnabled().defaultPerMillion()).isEqualTo(RuntimeFraction.MILLION);
    assertThat(c.shadowEnabled()).isEqualTo(RuntimeFraction.NEVER);
    assertThat(c.additionalOrigins()).isEmpty();
  }

  @Test
  void aRoutesPolicyIsItsFilterConfig() throws ConfigException {
    BootstrapYaml yaml = chain("filter_enabled: {default_value: {numerator: 100}}\n").routes("""
        - match: {prefix: "/"}
          route: {cluster: backend}
          typed_per_filter_config:
            envoy.filters.http.csrf:
              "@type": %s
              filter_enabled: {default_value: {numerator: 0}}
              shadow_enabled: {default_value: {numerator: 100}}
        """.formatted(TYPE));
    Route route = yaml.translate().listeners().get(0).hcm().routeConfig().virtualHosts().get(0).routes().get(0);
    CsrfConfig own = (CsrfConfig) route.filterConfigs().get(NAME);
    assertThat(own.filterEnabled()).isEqualTo(RuntimeFraction.NEVER);
    assertThat(own.shadowEnabled()).isEqualTo(RuntimeFraction.ALWAYS);
  }

  @Test
  void rejectsWithThePath() {
    String at = HCM + ".http_filters[0].typed_config";
    chain("shadow_enabled: {default_value: {numerator: 1}}\n")
        .rejects(at + ".filter_enabled: filter_enabled is required");
    chain("filter_enabled: {runtime_key: k}\n")
        .rejects(at + ".filter_enabled.default_value: default_value is required");
    chain("filter_enabled: {default_value: {numerator: 1}}\nadditional_origins: [{prefix: \"\"}]\n")
        .rejects(at + ".additional_origins[0].prefix: must not be empty");
    chain("filter_enabled: {default_value: {numerator: 1}}\nadditional_origins: [{safe_regex: {regex: \"(\"}}]\n")
        .rejects(at + ".additional_origins[0].safe_regex.regex: invalid regular expression \"(\": "
            + "Unclosed group near index 1");
    chain("filter_enabled: {default_value: {numerator: 1}}").routes("""
        - match: {prefix: "/"}
          route: {cluster: backend}
          typed_per_filter_config:
            envoy.filters.http.csrf:
              "@type": %s
        """.formatted(TYPE))
        .rejects(ROUTE + ".typed_per_filter_config[\"envoy.filters.http.csrf\"].filter_enabled: "
            + "filter_enabled is required");
  }
}
