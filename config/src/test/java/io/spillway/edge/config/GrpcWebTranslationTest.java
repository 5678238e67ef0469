package io.spillway.edge.config;

import static io.spillway.edge.config.BootstrapYaml.HCM;
import static io.spillway.edge.config.BootstrapYaml.ROUTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.grpc_web in the chain: with its (empty) typed_config, without one, under a
 * name of its own, in a TypedStruct, turned off per route; refused twice in a chain, after the
 * router, under its former name, and with a field its config does not have.
 */
class GrpcWebTranslationTest {

  private static final String NAME = "envoy.filters.http.grpc_web";
  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.grpc_web.v3.GrpcWeb";
  private static final String ROUTER = """
      - name: envoy.filters.http.router
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
      """;

  private static HttpConnectionManagerConfig hcm(String filters) throws ConfigException {
    return BootstrapYaml.minimal().httpFilters(filters + ROUTER).translate().listeners().get(0).hcm();
  }

  @Test
  void joinsTheChainWithOrWithoutItsTypedConfig() throws ConfigException {
    HttpConnectionManagerConfig typed = hcm("""
        - name: envoy.filters.http.grpc_web
          typed_config:
            "@type": %s
        """.formatted(TYPE));
    assertThat(typed.filterNames()).containsExactly(NAME, "envoy.filters.http.router");
    assertThat(typed.filter(NAME).orElseThrow().settings()).isEqualTo(HttpFilterConfig.NoSettings.INSTANCE);

    // Envoy's own examples name it without a typed_config; its default config is complete.
    assertThat(hcm("- name: envoy.filters.http.grpc_web\n").filterNames())
        .containsExactly(NAME, "envoy.filters.http.router");
    assertThat(hcm("- name: envoy.filters.http.grpc_web\n  typed_config: {}\n").filterNames())
        .containsExactly(NAME, "envoy.filters.http.router");

    HttpConnectionManagerConfig named = hcm("""
        - name: web
          typed_config:
            "@type": %s
        """.formatted(TYPE));
    assertThat(named.filter(NAME).orElseThrow().name()).isEqualTo("web");
  }

  @Test
  void acceptsATypedStruct() throws ConfigException {
    HttpConnectionManagerConfig hcm = hcm("""
        - name: envoy.filters.http.grpc_web
          typed_config:
            "@type": type.googleapis.com/xds.type.v3.TypedStruct
            type_url: %s
            value: {}
        """.formatted(TYPE));
    assertThat(hcm.filterNames()).containsExactly(NAME, "envoy.filters.http.router");
  }

  @Test
  void aRouteMayTurnItOff() throws ConfigException {
    List<Route> routes = BootstrapYaml.minimal().httpFilters("- name: envoy.filters.http.grpc_web\n" + ROUTER)
        .routes("""
            - match: {prefix: "/plain"}
              route: {cluster: backend}
              typed_per_filter_config:
                envoy.filters.http.grpc_web:
                  "@type": type.googleapis.com/envoy.config.route.v3.FilterConfig
                  disabled: true
            - match: {prefix: "/"}
              route: {cluster: backend}
            """).translate().listeners().get(0).hcm().routeConfig().virtualHosts().get(0).routes();
    assertThat(routes.get(0).disabledFilters()).containsExactly(NAME);
    assertThat(routes.get(1).disabledFilters()).isEmpty();
  }

  @Test
  void refusesItTwiceAfterTheRouterAndUnderItsFormerName() {
    BootstrapYaml.minimal().httpFilters("""
        - name: envoy.filters.http.grpc_web
        - name: envoy.filters.http.grpc_web
        """ + ROUTER).rejects(HCM + ".http_filters[1].name: \"envoy.filters.http.grpc_web\" names an earlier filter too; give each entry of the chain its own name");
    BootstrapYaml.minimal().httpFilters(ROUTER + "- name: envoy.filters.http.grpc_web\n")
        .rejects(HCM + ".http_filters[1]: envoy.filters.http.grpc_web comes after envoy.filters.http.router,"
            + " which must be the last filter");
    BootstrapYaml.minimal().httpFilters("- name: envoy.grpc_web\n" + ROUTER)
        .rejects(HCM + ".http_filters[0].name: envoy.grpc_web is the former name of envoy.filters.http.grpc_web,"
            + " which Envoy no longer resolves: write envoy.filters.http.grpc_web with its typed_config");
  }

  @Test
  void refusesAFieldTheConfigDoesNotHave() {
    assertThatThrownBy(() -> hcm("""
        - name: envoy.filters.http.grpc_web
          typed_config:
            "@type": %s
            disable_text: true
        """.formatted(TYPE)))
        .isInstanceOf(ConfigException.class)
        .hasMessage(HCM + ".http_filters[0].typed_config.disable_text: unknown field (not in "
            + "envoy.extensions.filters.http.grpc_web.v3.GrpcWeb)");
  }
}
