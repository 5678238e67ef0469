package io.spillway.edge.config;

import static io.spillway.edge.config.BootstrapYaml.HCM;
import static io.spillway.edge.config.BootstrapYaml.ROUTE;
import static io.spillway.edge.config.BootstrapYaml.VHOST;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.Route.StringMatch;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.cors and its policies: the filter in the chain (with or without its empty
 * typed_config), every CorsPolicy field from typed_per_filter_config and from the older cors
 * fields of virtual hosts and route actions, Envoy's field-by-field precedence of the route over
 * its virtual host, and every rejection with its path.
 */
class CorsTranslationTest {

  private static final String NAME = "envoy.filters.http.cors";
  private static final String FILTER_TYPE = "type.googleapis.com/envoy.extensions.filters.http.cors.v3.Cors";
  private static final String POLICY_TYPE = "type.googleapis.com/envoy.extensions.filters.http.cors.v3.CorsPolicy";
  private static final String CHAIN = """
      - name: envoy.filters.http.cors
        typed_config:
          "@type": %s
      - name: envoy.filters.http.router
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
      """.formatted(FILTER_TYPE);
  private static final String EVERY_FIELD = """
      allow_origin_string_match:
      - exact: https://exact.example
      - prefix: https://pre
      - suffix: .suffix.example
      - contains: middle
      - safe_regex: {regex: "https://[a-z]+\\\\.regex\\\\.example"}
      - exact: HTTPS://CASE.EXAMPLE
        ignore_case: true
      allow_methods: GET, POST
      allow_headers: content-type, x-custom
      expose_headers: x-exposed
      max_age: "600"
      allow_credentials: true
      filter_enabled: {default_value: {numerator: 50, denominator: HUNDRED}, runtime_key: cors.enabled}
      shadow_enabled: {default_value: {numerator: 25, denominator: TEN_THOUSAND}}
      allow_private_network_access: true
      forward_not_matching_preflights: false
      """;

  /** The chain cors + router, and one route "/" whose route action and route carry these fields (column 0). */
  private static BootstrapYaml withRoute(String actionFields, String routeFields) {
    return BootstrapYaml.minimal().httpFilters(CHAIN).routes("""
        - match: {prefix: "/"}
          route:
            cluster: backend
        %s
        %s""".formatted(actionFields.indent(4).stripTrailing(), routeFields.indent(2).stripTrailing()));
  }

  /** One route "/" with a typed_per_filter_config CorsPolicy of these fields (column 0). */
  private static BootstrapYaml withPerRoute(String fields) {
    return withRoute("", """
        typed_per_filter_config:
          envoy.filters.http.cors:
            "@type": %s
        %s""".formatted(POLICY_TYPE, fields.indent(4).stripTrailing()));
  }

  private static Route firstRoute(BootstrapYaml yaml) throws ConfigException {
    return yaml.translate().listeners().get(0).hcm().routeConfig().virtualHosts().get(0).routes().get(0);
  }

  private static CorsPolicy perRoute(String fields) throws ConfigException {
    return (CorsPolicy) firstRoute(withPerRoute(fields)).filterConfigs().get(NAME);
  }

  @Test
  void theFilterJoinsTheChainWithOrWithoutItsEmptyTypedConfig() throws ConfigException {
    HttpConnectionManagerConfig hcm = BootstrapYaml.minimal().httpFilters(CHAIN).translate().listeners().get(0).hcm();
    assertThat(hcm.filterNames()).containsExactly(NAME, "envoy.filters.http.router");
    assertThat(hcm.filter(NAME).orElseThrow().settings()).isEqualTo(HttpFilterConfig.NoSettings.INSTANCE);

    HttpConnectionManagerConfig emptyConfig = BootstrapYaml.minimal().httpFilters("""
        - name: envoy.filters.http.cors
          typed_config: {}
        - name: envoy.filters.http.router
        """).translate().listeners().get(0).hcm();
    assertThat(emptyConfig.filterNames()).containsExactly(NAME, "envoy.filters.http.router");
    HttpConnectionManagerConfig bare = BootstrapYaml.minimal().httpFilters("""
        - name: envoy.filters.http.cors
        - name: envoy.filters.http.router
        """).translate().listeners().get(0).hcm();
    assertThat(bare.filterNames()).containsExactly(NAME, "envoy.filters.http.router");

    HttpConnectionManagerConfig named = BootstrapYaml.minimal().httpFilters("""
        - name: my_cors
          typed_config:
            "@type": %s
        - name: envoy.filters.http.router
        """.formatted(FILTER_TYPE)).translate().listeners().get(0).hcm();
    assertThat(named.filter(NAME).orElseThrow().name()).isEqualTo("my_cors");
  }

  @Test
  void readsEveryFieldOfTheFiltersPerRoutePolicy() throws ConfigException {
    CorsPolicy p = perRoute(EVERY_FIELD);
    assertThat(p.allowOrigins()).hasSize(6);
    assertThat(p.allowOrigins().subList(0, 4)).containsExactly(
        new StringMatch.Exact("https://exact.example", false),
        new StringMatch.Prefix("https://pre", false),
        new StringMatch.Suffix(".suffix.example", false),
        new StringMatch.Contains("middle", false));
    assertThat(((StringMatch.Regex) p.allowOrigins().get(4)).pattern().pattern())
        .isEqualTo("https://[a-z]+\\.regex\\.example");
    assertThat(p.allowOrigins().get(5)).isEqualTo(new StringMatch.Exact("HTTPS://CASE.EXAMPLE", true));
    assertThat(p.allowMethods()).isEqualTo("GET, POST");
    assertThat(p.allowHeaders()).isEqualTo("content-type, x-custom");
    assertThat(p.exposeHeaders()).isEqualTo("x-exposed");
    assertThat(p.maxAge()).isEqualTo("600");
    assertThat(p.allowCredentials()).contains(true);
    assertThat(p.filterEnabled().defaultPerMillion()).isEqualTo(500_000);
    assertThat(p.shadowEnabled().defaultPerMillion()).isEqualTo(2_500);
    assertThat(p.allowPrivateNetworkAccess()).contains(true);
    assertThat(p.forwardNotMatchingPreflights()).contains(false);
  }

  @Test
  void anEmptyPolicyTakesEnvoysDefaults() throws ConfigException {
    CorsPolicy p = perRoute("");
    assertThat(p.allowOrigins()).isEmpty();
    assertThat(p.allowMethods()).isEmpty();
    assertThat(p.allowHeaders()).isEmpty();
    assertThat(p.exposeHeaders()).isEmpty();
    assertThat(p.maxAge()).isEmpty();
    assertThat(p.allowCredentials()).isEmpty();
    assertThat(p.allowPrivateNetworkAccess()).isEmpty();
    assertThat(p.forwardNotMatchingPreflights()).isEmpty();
    assertThat(p.filterEnabled().defaultPerMillion()).isEqualTo(CorsPolicy.MILLION); // enabled unless filter_enabled says otherwise
    assertThat(p.shadowEnabled().defaultPerMillion()).isZero();
    Route route = firstRoute(withPerRoute(""));
    assertThat(route.cors()).isEmpty();
  }

  @Test
  void fractionsScaleToPartsPerMillionAndCapAtAll() throws ConfigException {
    assertThat(perRoute("filter_enabled: {default_value: {numerator: 7, denominator: MILLION}}\n")
        .filterEnabled().defaultPerMillion()).isEqualTo(7);
    assertThat(perRoute("filter_enabled: {default_value: {numerator: 0}}\n").filterEnabled().defaultPerMillion()).isZero();
    assertThat(perRoute("filter_enabled: {default_value: {numerator: 250}}\n").filterEnabled().defaultPerMillion())
        .isEqualTo(CorsPolicy.MILLION);
    assertThat(perRoute("shadow_enabled: {default_value: {numerator: 100}}\n").shadowEnabled().defaultPerMillion())
        .isEqualTo(CorsPolicy.MILLION);
  }

  @Test
  void readsTheOlderCorsFieldsOfVirtualHostsAndRouteActions() throws ConfigException {
    RouteConfig rc = BootstrapYaml.minimal().httpFilters(CHAIN).virtualHosts("""
        - name: local
          domains: ["*"]
          cors:
        %s
          routes:
          - match: {prefix: "/own"}
            route:
              cluster: backend
              cors:
                allow_origin_string_match: [{exact: "https://own.example"}]
                allow_methods: PUT
                filter_enabled: {default_value: {numerator: 0}}
          - match: {prefix: "/inherits"}
            route: {cluster: backend}
          - match: {prefix: "/direct"}
            direct_response: {status: 204}
        """.formatted(EVERY_FIELD.indent(4).stripTrailing())).translate().listeners().get(0).hcm().routeConfig();
    List<Route> routes = rc.virtualHosts().get(0).routes();

    CorsPolicy own = routes.get(0).cors().orElseThrow();
    assertThat(own.allowOrigins()).containsExactly(new StringMatch.Exact("https://own.example", false));
    assertThat(own.allowMethods()).isEqualTo("PUT");
    // Envoy reads each field the route action's policy leaves empty from the virtual host's ...
    assertThat(own.allowHeaders()).isEqualTo("content-type, x-custom");
    assertThat(own.exposeHeaders()).isEqualTo("x-exposed");
    assertThat(own.maxAge()).isEqualTo("600");
    assertThat(own.allowCredentials()).contains(true);
    assertThat(own.allowPrivateNetworkAccess()).contains(true);
    assertThat(own.forwardNotMatchingPreflights()).contains(false);
    // ... but whether the policy is on is the most specific policy's alone.
    assertThat(own.filterEnabled().defaultPerMillion()).isZero();
    assertThat(own.shadowEnabled().defaultPerMillion()).isZero();

    CorsPolicy inherited = routes.get(1).cors().orElseThrow();
    assertThat(inherited.allowOrigins()).hasSize(6);
    assertThat(inherited.allowMethods()).isEqualTo("GET, POST");
    assertThat(inherited.filterEnabled().defaultPerMillion()).isEqualTo(500_000);
    assertThat(inherited.shadowEnabled().defaultPerMillion()).isEqualTo(2_500);

    assertThat(routes.get(2).cors()).isEmpty(); // the CORS filter leaves routes without a route action alone
    assertThat(routes.get(0).filterConfigs()).isEmpty();
  }

  @Test
  void aRoutesPerFilterPolicyIsMergedFieldByFieldOverItsVirtualHosts() throws ConfigException {
    RouteConfig rc = BootstrapYaml.minimal().httpFilters(CHAIN).virtualHosts("""
        - name: local
          domains: ["*"]
          typed_per_filter_config:
            envoy.filters.http.cors:
              "@type": %s
              allow_origin_string_match: [{exact: "https://host.example"}]
              allow_methods: GET
              max_age: "60"
              allow_credentials: true
              shadow_enabled: {default_value: {numerator: 100}}
          routes:
          - match: {prefix: "/own"}
            route: {cluster: backend}
            typed_per_filter_config:
              envoy.filters.http.cors:
                "@type": %s
                allow_methods: DELETE
                allow_credentials: false
          - match: {prefix: "/off"}
            route: {cluster: backend}
            typed_per_filter_config:
              envoy.filters.http.cors:
                "@type": type.googleapis.com/envoy.config.route.v3.FilterConfig
                disabled: true
          - match: {prefix: "/"}
            route: {cluster: backend}
        """.formatted(POLICY_TYPE, POLICY_TYPE)).translate().listeners().get(0).hcm().routeConfig();
    List<Route> routes = rc.virtualHosts().get(0).routes();
    CorsPolicy own = (CorsPolicy) routes.get(0).filterConfigs().get(NAME);
    assertThat(own.allowOrigins()).containsExactly(new StringMatch.Exact("https://host.example", false));
    assertThat(own.allowMethods()).isEqualTo("DELETE");
    assertThat(own.maxAge()).isEqualTo("60");
    assertThat(own.allowCredentials()).contains(false);
    assertThat(own.filterEnabled().defaultPerMillion()).isEqualTo(CorsPolicy.MILLION);
    assertThat(own.shadowEnabled().defaultPerMillion()).isZero(); // the route's policy has no shadow_enabled

    assertThat(routes.get(1).filterConfigs()).isEmpty();
    assertThat(routes.get(1).disabledFilters()).containsExactly(NAME);

    CorsPolicy host = (CorsPolicy) routes.get(2).filterConfigs().get(NAME);
    assertThat(host.allowMethods()).isEqualTo("GET");
    assertThat(host.shadowEnabled().defaultPerMillion()).isEqualTo(CorsPolicy.MILLION);
  }

  @Test
  void rejectsBadPerRoutePoliciesWithTheirPaths() {
    String at = ROUTE + ".typed_per_filter_config[\"envoy.filters.http.cors\"]";
    withPerRoute("allow_origin_string_match: [{safe_regex: {regex: \"a\"}, ignore_case: true}]\n")
        .rejects(at + ".allow_origin_string_match[0].ignore_case: ignore_case has no effect for safe_regex");
    withPerRoute("allow_origin_string_match: [{safe_regex: {regex: \"(\"}}]\n")
        .rejects(at + ".allow_origin_string_match[0].safe_regex.regex: invalid regular expression \"(\": "
            + "Unclosed group near index 1");
    withPerRoute("allow_origin_string_match: [{prefix: \"\"}]\n")
        .rejects(at + ".allow_origin_string_match[0].prefix: must not be empty");
    withPerRoute("allow_origin_string_match: [{ignore_case: true}]\n")
        .rejects(at + ".allow_origin_string_match[0]: one of exact, prefix, suffix, contains or safe_regex is required");
    withPerRoute("allow_origin_string_match: [{custom: {name: x, typed_config: {\"@type\": "
        + "\"type.googleapis.com/google.protobuf.Struct\"}}}]\n")
        .rejects(at + ".allow_origin_string_match[0].custom: custom is not supported");
    withPerRoute("allow_methods: \"GET\\r\\nx-injected: 1\"\n")
        .rejects(at + ".allow_methods: \"GET\\r\\nx-injected: 1\" is not a valid header value"
            + " (control character at index 3)");
    withPerRoute("allow_headers: \"a\\u0000\"\n")
        .rejects(at + ".allow_headers: \"a\u0000\" is not a valid header value (control character at index 1)");
    withPerRoute("expose_headers: \"a\\nb\"\n")
        .rejects(at + ".expose_headers: \"a\\nb\" is not a valid header value (control character at index 1)");
    withPerRoute("max_age: \"1\\r\"\n")
        .rejects(at + ".max_age: \"1\\r\" is not a valid header value (control character at index 1)");
    withPerRoute("filter_enabled: {runtime_key: cors.on}\n")
        .rejects(at + ".filter_enabled.default_value: default_value is required");
    withPerRoute("shadow_enabled: {default_value: {numerator: 1, denominator: 7}}\n")
        .rejects(at + ".shadow_enabled.default_value.denominator: 7 is not one of HUNDRED, TEN_THOUSAND, MILLION");
  }

  @Test
  void rejectsBadOlderPoliciesWithTheirPaths() {
    withRoute("cors: {allow_origin_string_match: [{suffix: \"\"}]}", "")
        .rejects(ROUTE + ".route.cors.allow_origin_string_match[0].suffix: must not be empty");
    withRoute("cors: {filter_enabled: {default_value: {numerator: 1, denominator: 9}}}", "")
        .rejects(ROUTE + ".route.cors.filter_enabled.default_value.denominator: 9 is not one of HUNDRED,"
            + " TEN_THOUSAND, MILLION");
    BootstrapYaml.minimal().httpFilters(CHAIN).virtualHosts("""
        - name: local
          domains: ["*"]
          cors: {max_age: "1\\n"}
          routes:
          - match: {prefix: "/"}
            route: {cluster: backend}
        """).rejects(VHOST + ".cors.max_age: \"1\\n\" is not a valid header value (control character at index 1)");
  }

  @Test
  void rejectsAFilterConfigWithFieldsAndTheFormerName() {
    BootstrapYaml.minimal().httpFilters("""
        - name: envoy.cors
        - name: envoy.filters.http.router
        """).rejects(HCM + ".http_filters[0].name: envoy.cors is the former name of envoy.filters.http.cors, which"
        + " Envoy no longer resolves: write envoy.filters.http.cors with its typed_config");
    BootstrapYaml.minimal().httpFilters("""
        - name: envoy.filters.http.cors
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.http.cors.v3.CorsPolicy
        - name: envoy.filters.http.router
        """).rejects(HCM + ".http_filters[0].typed_config: envoy.extensions.filters.http.cors.v3.CorsPolicy"
        + " (envoy.filters.http.cors.per_route) cannot be used here: expected an HTTP filter");
  }

  @Test
  void aPolicyWithoutTheFilterIsStillTranslated() throws ConfigException {
    // Envoy keeps the route's cors policy whether or not a CORS filter runs; without one it does nothing.
    Route r = firstRoute(BootstrapYaml.minimal().routes("""
        - match: {prefix: "/"}
          route:
            cluster: backend
            cors: {allow_methods: GET}
        """));
    assertThat(r.cors()).map(CorsPolicy::allowMethods).isEqualTo(Optional.of("GET"));
  }
}
