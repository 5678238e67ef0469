package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** envoy.filters.http.health_check: the fields and Envoy's rules, each refusal with its path. */
class HealthCheckTranslationTest {

  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.health_check.v3.HealthCheck";
  private static final String CONFIG =
      "static_resources.listeners[0].filter_chains[0].filters[0].typed_config.http_filters[0].typed_config";

  private static BootstrapYaml with(String fields) {
    return BootstrapYaml.minimal().httpFilters("""
        - name: envoy.filters.http.health_check
          typed_config:
            "@type": %s
        %s
        - name: envoy.filters.http.router
        """.formatted(TYPE, fields.stripIndent().indent(4).stripTrailing()));
  }

  @Test
  void readsTheModeTheHeadersAndTheClusterShares() throws Exception {
    HealthCheckFilterConfig c = with("""
        pass_through_mode: true
        headers: [ { name: ":path", string_match: { exact: /healthz } }, { name: x-probe, present_match: true } ]
        cluster_min_healthy_percentages: { a: { value: 50 }, b: { value: 0 } }
        """).translate().listeners().get(0).hcm().filter("envoy.filters.http.health_check").orElseThrow()
        .settings(HealthCheckFilterConfig.class);
    assertThat(c.passThrough()).isTrue();
    assertThat(c.headers()).extracting(Route.HeaderMatch::name).containsExactly(":path", "x-probe");
    assertThat(c.clusterMinHealthyPercent()).isEqualTo(Map.of("a", 50.0, "b", 0.0));
  }

  @Test
  void refusesWhatEnvoyRefusesAndTheResponseCache() {
    with("headers: [ { name: \":path\", string_match: { exact: /h } } ]")
        .rejects(CONFIG + ".pass_through_mode: pass_through_mode is required");
    with("pass_through_mode: false").rejects(CONFIG + ".headers: at least one header matcher is required");
    with("""
        pass_through_mode: true
        headers: [ { name: ":path", string_match: { exact: /h } } ]
        cache_time: 5s
        """).rejects(CONFIG + ".cache_time: cache_time is not supported");
    with("""
        pass_through_mode: false
        headers: [ { name: ":path", string_match: { exact: /h } } ]
        cluster_min_healthy_percentages: { a: { value: 100.5 } }
        """).rejects(CONFIG + ".cluster_min_healthy_percentages[\"a\"].value: must be in [0, 100], not 100.5");
  }
}
