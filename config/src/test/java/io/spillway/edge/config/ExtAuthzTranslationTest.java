package io.spillway.edge.config;

import static io.spillway.edge.config.BootstrapYaml.HCM;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.Route.StringMatch;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** envoy.filters.http.ext_authz: the HTTP service subset, its defaults, and every rejection with its path. */
class ExtAuthzTranslationTest {

  private static final String FILTER = HCM + ".http_filters[0]";
  private static final String CONFIG = FILTER + ".typed_config";
  private static final String ROUTER = """
      - name: envoy.filters.http.router
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
      """;

  /** A bootstrap whose chain is ext_authz (with these ExtAuthz fields, at column 0) then the router. */
  private static BootstrapYaml withExtAuthz(String fields) {
    return BootstrapYaml.minimal().httpFilters("""
        - name: envoy.filters.http.ext_authz
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz
        %s""".formatted(fields.indent(4)) + ROUTER);
  }

  private static final String SERVICE = """
      http_service:
        server_uri: {uri: "http://auth.local", cluster: backend, timeout: 0.25s}
      """;

  @Test
  void minimalHttpServiceTakesEnvoysDefaults() throws ConfigException {
    HttpConnectionManagerConfig hcm = withExtAuthz(SERVICE).translate().listeners().get(0).hcm();
    assertThat(hcm.filterNames()).containsExactly("envoy.filters.http.ext_authz", "envoy.filters.http.router");
    ExtAuthzConfig c = hcm.filter("envoy.filters.http.ext_authz").orElseThrow().settings(ExtAuthzConfig.class);
    assertThat(c.cluster()).isEqualTo("backend");
    assertThat(c.uri()).isEqualTo("http://auth.local");
    assertThat(c.timeout()).isEqualTo(Duration.ofMillis(250));
    assertThat(c.pathPrefix()).isEmpty();
    assertThat(c.allowedHeaders()).isEmpty();
    assertThat(c.failureModeAllow()).isFalse();
    assertThat(c.statusOnError()).isEqualTo(403);
    assertThat(c.statPrefix()).isEmpty();
  }

  @Test
  void withoutTheFilterThereIsNoConfig() throws ConfigException {
    assertThat(BootstrapYaml.minimal().translate().listeners().get(0).hcm().filter("envoy.filters.http.ext_authz")).isEmpty();
  }

  @Test
  void readsEverySupportedField() throws ConfigException {
    ExtAuthzConfig c = withExtAuthz("""
        http_service:
          server_uri: {uri: "http://auth.local", cluster: backend, timeout: {seconds: 1, nanos: 500000000}}
          path_prefix: /check
          authorization_request:
            headers_to_add: [{key: X-Edge, value: "spillway 100%%"}]
          authorization_response:
            allowed_upstream_headers: {patterns: [{exact: x-user}, {prefix: x-auth-}]}
            allowed_client_headers: {patterns: [{exact: x-reason}]}
            allowed_client_headers_on_success: {patterns: [{suffix: -trace, ignore_case: true}]}
        allowed_headers: {patterns: [{exact: cookie}]}
        failure_mode_allow: true
        failure_mode_allow_header_add: true
        status_on_error: {code: ServiceUnavailable}
        transport_api_version: V3
        include_peer_certificate: false
        stat_prefix: waf
        """).translate().listeners().get(0).hcm().filter("envoy.filters.http.ext_authz").orElseThrow().settings(ExtAuthzConfig.class);
    assertThat(c.timeout()).isEqualTo(Duration.ofMillis(1500));
    assertThat(c.pathPrefix()).isEqualTo("/check");
    assertThat(c.headersToAdd()).containsExactly(new ExtAuthzConfig.Header("x-edge", "spillway 100%"));
    assertThat(c.allowedUpstreamHeaders()).containsExactly(new StringMatch.Exact("x-user", false),
        new StringMatch.Prefix("x-auth-", false));
    assertThat(c.allowedClientHeaders()).containsExactly(new StringMatch.Exact("x-reason", false));
    assertThat(c.allowedClientHeadersOnSuccess()).containsExactly(new StringMatch.Suffix("-trace", true));
    assertThat(c.allowedHeaders()).containsExactly(new StringMatch.Exact("cookie", false));
    assertThat(c.failureModeAllow()).isTrue();
    assertThat(c.failureModeAllowHeaderAdd()).isTrue();
    assertThat(c.statusOnError()).isEqualTo(503);
    assertThat(c.statPrefix()).isEqualTo("waf");
  }

  @Test
  void readsTheDeprecatedRequestAllowedHeadersButNotBothLists() throws ConfigException {
    ExtAuthzConfig c = withExtAuthz(SERVICE + """
          authorization_request: {allowed_headers: {patterns: [{exact: x-tenant}]}}
        """).translate().listeners().get(0).hcm().filter("envoy.filters.http.ext_authz").orElseThrow().settings(ExtAuthzConfig.class);
    assertThat(c.allowedHeaders()).containsExactly(new StringMatch.Exact("x-tenant", false));

    withExtAuthz(SERVICE + """
          authorization_request: {allowed_headers: {patterns: [{exact: x-tenant}]}}
        allowed_headers: {patterns: [{exact: cookie}]}
        """).rejects(CONFIG + ".http_service.authorization_request.allowed_headers: set allowed_headers or the"
        + " deprecated http_service.authorization_request.allowed_headers, not both");
  }

  @Test
  void aServiceIsRequired() {
    withExtAuthz("failure_mode_allow: true\n")
        .rejects(CONFIG + ".http_service: http_service or grpc_service is required");
  }

  private static ExtAuthzConfig extAuthz(String fields) throws ConfigException {
    return withExtAuthz(fields).translate().listeners().get(0).hcm().filter("envoy.filters.http.ext_authz")
        .orElseThrow().settings(ExtAuthzConfig.class);
  }

  @Test
  void minimalGrpcServiceTakesEnvoysDefaults() throws ConfigException {
    ExtAuthzConfig c = extAuthz("grpc_service: {envoy_grpc: {cluster_name: backend}}\n");
    assertThat(c.service()).isEqualTo(ExtAuthzConfig.Service.GRPC);
    assertThat(c.cluster()).isEqualTo("backend");
    assertThat(c.uri()).as("authority: the cluster's name").isEmpty();
    assertThat(c.timeout()).isEqualTo(Duration.ofMillis(200));
    assertThat(c.headersToAdd()).isEmpty();
    assertThat(c.allowedHeaders()).as("empty: every header").isEmpty();
    assertThat(c.requestBody()).isEmpty();
    assertThat(c.statusOnError()).isEqualTo(403);
    assertThat(extAuthz(SERVICE).service()).isEqualTo(ExtAuthzConfig.Service.HTTP);
  }

  @Test
  void readsEverySupportedGrpcField() throws ConfigException {
    ExtAuthzConfig c = extAuthz("""
        grpc_service:
          envoy_grpc: {cluster_name: backend, authority: "authz.internal:9001", skip_envoy_headers: true}
          timeout: 0.5s
          initial_metadata: [{key: X-Tenant, value: acme}, {key: authorization, value: "Bearer k"}]
        transport_api_version: V3
        with_request_body: {max_request_bytes: 8192, allow_partial_message: true, pack_as_bytes: true}
        allowed_headers: {patterns: [{prefix: x-}]}
        failure_mode_allow: true
        failure_mode_allow_header_add: true
        status_on_error: {code: ServiceUnavailable}
        stat_prefix: authz
        """);
    assertThat(c.uri()).isEqualTo("authz.internal:9001");
    assertThat(c.timeout()).isEqualTo(Duration.ofMillis(500));
    assertThat(c.headersToAdd()).containsExactly(new ExtAuthzConfig.Header("x-tenant", "acme"),
        new ExtAuthzConfig.Header("authorization", "Bearer k"));
    assertThat(c.requestBody()).contains(new ExtAuthzConfig.RequestBody(8192, true, true));
    assertThat(c.allowedHeaders()).containsExactly(new StringMatch.Prefix("x-", false));
    assertThat(c.failureModeAllow()).isTrue();
    assertThat(c.failureModeAllowHeaderAdd()).isTrue();
    assertThat(c.statusOnError()).isEqualTo(503);
    assertThat(c.statPrefix()).isEqualTo("authz");
    assertThat(extAuthz("grpc_service: {envoy_grpc: {cluster_name: backend}, timeout: 0s}\n").timeout())
        .as("0s: no deadline").isZero();
  }

  @Test
  void theHttpServiceTakesTheRequestBodyToo() throws ConfigException {
    assertThat(extAuthz(SERVICE + "with_request_body: {max_request_bytes: 1024}\n").requestBody())
        .contains(new ExtAuthzConfig.RequestBody(1024, false, false));
  }

  @Test
  void rejectsWhatTheGrpcServiceDoesNotSupportByItsPath() {
    String grpc = CONFIG + ".grpc_service";
    withExtAuthz("grpc_service: {google_grpc: {target_uri: \"127.0.0.1:9001\", stat_prefix: authz}}\n")
        .rejects(grpc + ".google_grpc: google_grpc is not supported (use envoy_grpc with a cluster of the edge)");
    withExtAuthz("grpc_service: {timeout: 1s}\n").rejects(grpc + ".envoy_grpc: envoy_grpc is required");
    withExtAuthz("grpc_service: {envoy_grpc: {authority: a}}\n")
        .rejects(grpc + ".envoy_grpc.cluster_name: cluster_name is required");
    withExtAuthz("grpc_service: {envoy_grpc: {cluster_name: nope}}\n")
        .rejects(grpc + ".envoy_grpc.cluster_name: unknown cluster \"nope\" (no cluster of that name is configured)");
    withExtAuthz("grpc_service: {envoy_grpc: {cluster_name: backend, authority: \"a b\"}}\n")
        .rejects(grpc + ".envoy_grpc.authority: \"a b\" is not a valid authority");
    withExtAuthz("grpc_service: {envoy_grpc: {cluster_name: backend, max_receive_message_length: 1024}}\n")
        .rejects(grpc + ".envoy_grpc.max_receive_message_length: max_receive_message_length is not supported");
    withExtAuthz("grpc_service: {envoy_grpc: {cluster_name: backend, retry_policy: {num_retries: 2}}}\n")
        .rejects(grpc + ".envoy_grpc.retry_policy: retry_policy is not supported");
    withExtAuthz("grpc_service: {envoy_grpc: {cluster_name: backend}, retry_policy: {num_retries: 2}}\n")
        .rejects(grpc + ".retry_policy: retry_policy is not supported");
    withExtAuthz("grpc_service: {envoy_grpc: {cluster_name: backend}, timeout: -1s}\n")
        .rejects(grpc + ".timeout: must not be negative");
    withExtAuthz("grpc_service: {envoy_grpc: {cluster_name: backend}, initial_metadata: [{key: grpc-timeout, value: 1S}]}\n")
        .rejects(grpc + ".initial_metadata[0].key: \"grpc-timeout\" may not be set (pseudo-headers, te,"
            + " content-type, grpc-* and binary -bin metadata are the call's own)");
    withExtAuthz("grpc_service: {envoy_grpc: {cluster_name: backend}, initial_metadata: [{key: x-a, value: \"\\u00e9\"}]}\n")
        .rejects(grpc + ".initial_metadata[0].value: must be printable ASCII (gRPC ASCII metadata)");
    withExtAuthz("grpc_service: {envoy_grpc: {cluster_name: backend}, initial_metadata: [{key: x-a, raw_value: Yw==}]}\n")
        .rejects(grpc + ".initial_metadata[0].raw_value: raw_value is not supported");
    withExtAuthz("grpc_service: {envoy_grpc: {cluster_name: backend}}\ntransport_api_version: V2\n")
        .rejects(CONFIG + ".transport_api_version: V2 is not supported (only V3)");
    withExtAuthz("grpc_service: {envoy_grpc: {cluster_name: backend}}\ninclude_peer_certificate: true\n")
        .rejects(CONFIG + ".include_peer_certificate: include_peer_certificate: true is not supported");
    withExtAuthz("grpc_service: {envoy_grpc: {cluster_name: backend}}\nclear_route_cache: true\n")
        .rejects(CONFIG + ".clear_route_cache: clear_route_cache is not supported");
  }

  @Test
  void rejectsABrokenRequestBodySetting() {
    withExtAuthz(SERVICE + "with_request_body: {allow_partial_message: true}\n")
        .rejects(CONFIG + ".with_request_body.max_request_bytes: must be greater than 0");
    withExtAuthz(SERVICE + "with_request_body: {max_request_bytes: 4294967295}\n")
        .rejects(CONFIG + ".with_request_body.max_request_bytes: 4294967295 is larger than the supported maximum"
            + " 2147483647");
  }

  @Test
  void rejectsEveryOtherFieldByItsPath() {
    withExtAuthz(SERVICE + "clear_route_cache: true\n")
        .rejects(CONFIG + ".clear_route_cache: clear_route_cache is not supported");
    withExtAuthz(SERVICE + "metadata_context_namespaces: [a]\n")
        .rejects(CONFIG + ".metadata_context_namespaces: metadata_context_namespaces is not supported");
    withExtAuthz(SERVICE + "filter_enabled: {default_value: {numerator: 50}}\n")
        .rejects(CONFIG + ".filter_enabled: filter_enabled is not supported");
    withExtAuthz(SERVICE + "disallowed_headers: {patterns: [{exact: cookie}]}\n")
        .rejects(CONFIG + ".disallowed_headers: disallowed_headers is not supported");
    withExtAuthz(SERVICE + "include_peer_certificate: true\n")
        .rejects(CONFIG + ".include_peer_certificate: include_peer_certificate: true is not supported");
    withExtAuthz(SERVICE + "transport_api_version: V2\n")
        .rejects(CONFIG + ".transport_api_version: V2 is not supported (only V3)");
    withExtAuthz(SERVICE + "status_on_error: {code: Continue}\n")
        .rejects(CONFIG + ".status_on_error.code: must be a status from 200 to 599");
    withExtAuthz("""
        http_service:
          server_uri: {uri: "http://auth.local", cluster: backend, timeout: 1s}
          authorization_response: {allowed_upstream_headers_to_append: {patterns: [{exact: x-a}]}}
        """).rejects(CONFIG + ".http_service.authorization_response.allowed_upstream_headers_to_append:"
        + " allowed_upstream_headers_to_append is not supported");
    withExtAuthz("""
        http_service:
          server_uri: {uri: "http://auth.local", cluster: backend, timeout: 1s}
          authorization_request: {headers_to_add: [{key: x-a, value: b, raw_value: Yw==}]}
        """).rejects(CONFIG + ".http_service.authorization_request.headers_to_add[0].raw_value:"
        + " raw_value is not supported");
  }

  @Test
  void rejectsABrokenServerUri() {
    withExtAuthz("http_service: {path_prefix: /x}\n")
        .rejects(CONFIG + ".http_service.server_uri: server_uri is required");
    withExtAuthz("http_service: {server_uri: {uri: \"http://a\", cluster: nope, timeout: 1s}}\n")
        .rejects(CONFIG + ".http_service.server_uri.cluster: unknown cluster \"nope\""
            + " (no cluster of that name is configured)");
    withExtAuthz("http_service: {server_uri: {uri: \"http://a\", timeout: 1s}}\n")
        .rejects(CONFIG + ".http_service.server_uri.cluster: cluster is required");
    withExtAuthz("http_service: {server_uri: {cluster: backend, timeout: 1s}}\n")
        .rejects(CONFIG + ".http_service.server_uri.uri: uri is required");
    withExtAuthz("http_service: {server_uri: {uri: \"http://a\", cluster: backend}}\n")
        .rejects(CONFIG + ".http_service.server_uri.timeout: timeout is required");
    withExtAuthz("http_service: {server_uri: {uri: \"http://a\", cluster: backend, timeout: -1s}}\n")
        .rejects(CONFIG + ".http_service.server_uri.timeout: must not be negative");
    withExtAuthz("http_service: {server_uri: {uri: \"http://a\", cluster: backend, timeout: 1s}, path_prefix: x}\n")
        .rejects(CONFIG + ".http_service.path_prefix: must start with '/'");
  }

  @Test
  void rejectsHeadersTheCheckOwnsAndSubstitutions() {
    withExtAuthz("""
        http_service:
          server_uri: {uri: "http://auth.local", cluster: backend, timeout: 1s}
          authorization_request: {headers_to_add: [{key: Host, value: x}]}
        """).rejects(CONFIG + ".http_service.authorization_request.headers_to_add[0].key: \"Host\" may not be set"
        + " (pseudo-headers, host and content-length are the check's own)");
    withExtAuthz("""
        http_service:
          server_uri: {uri: "http://auth.local", cluster: backend, timeout: 1s}
          authorization_request: {headers_to_add: [{key: x-id, value: "%REQ(x-id)%"}]}
        """).rejects(CONFIG + ".http_service.authorization_request.headers_to_add[0].value:"
        + " %...% substitutions are not supported (write %% for a literal %)");
    withExtAuthz("""
        http_service:
          server_uri: {uri: "http://auth.local", cluster: backend, timeout: 1s}
          authorization_response: {allowed_client_headers: {patterns: [{}]}}
        """).rejects(CONFIG + ".http_service.authorization_response.allowed_client_headers.patterns[0]:"
        + " one of exact, prefix, suffix, contains or safe_regex is required");
  }

  @Test
  void mustComeBeforeTheRouterAndOnlyOnce() {
    BootstrapYaml.minimal().httpFilters(ROUTER + """
        - name: envoy.filters.http.ext_authz
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz
            http_service: {server_uri: {uri: "http://a", cluster: backend, timeout: 1s}}
        """).rejects(HCM + ".http_filters[1]: envoy.filters.http.ext_authz comes after envoy.filters.http.router,"
        + " which must be the last filter");
    BootstrapYaml.minimal().httpFilters("""
        - name: envoy.filters.http.ext_authz
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz
            http_service: {server_uri: {uri: "http://a", cluster: backend, timeout: 1s}}
        - name: envoy.filters.http.ext_authz
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz
            http_service: {server_uri: {uri: "http://a", cluster: backend, timeout: 1s}}
        """ + ROUTER).rejects(HCM + ".http_filters[1].name: \"envoy.filters.http.ext_authz\" names an earlier filter too; give each entry of the chain its own name");
    BootstrapYaml.minimal().httpFilters("- name: envoy.filters.http.ext_authz\n" + ROUTER)
        .rejects(FILTER + ".typed_config: typed_config is required for envoy.filters.http.ext_authz");
  }

  @Test
  void exposesEveryMatcherKind() throws ConfigException {
    ExtAuthzConfig c = withExtAuthz("""
        http_service:
          server_uri: {uri: "http://auth.local", cluster: backend, timeout: 1s}
          authorization_response:
            allowed_upstream_headers: {patterns: [{contains: user}, {safe_regex: {regex: "x-[a-z]+"}}]}
        """).translate().listeners().get(0).hcm().filter("envoy.filters.http.ext_authz").orElseThrow().settings(ExtAuthzConfig.class);
    assertThat(c.allowedUpstreamHeaders()).hasSize(2);
    assertThat(c.allowedUpstreamHeaders().get(0)).isEqualTo(new StringMatch.Contains("user", false));
    assertThat(c.allowedUpstreamHeaders().get(1)).isInstanceOf(StringMatch.Regex.class);
    assertThat(List.of(c.allowedClientHeaders(), c.allowedClientHeadersOnSuccess())).allMatch(List::isEmpty);
  }
  private static final String PER_ROUTE = "type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthzPerRoute";

  @Test
  void typedPerFilterConfigTurnsTheFilterOffPerVirtualHostAndRoute() throws ConfigException {
    RouteConfig routes = withExtAuthz(SERVICE).virtualHosts("""
        - name: local
          domains: ["*"]
          typed_per_filter_config:
            envoy.filters.http.ext_authz: {"@type": "%s", disabled: true}
          routes:
          - match: {prefix: "/health"}
            route: {cluster: backend}
          - match: {prefix: "/admin"}
            route: {cluster: backend}
            typed_per_filter_config:
              envoy.filters.http.ext_authz: {"@type": "%s", disabled: false}
          - match: {prefix: "/generic"}
            route: {cluster: backend}
            typed_per_filter_config:
              custom-name: {"@type": "type.googleapis.com/envoy.config.route.v3.FilterConfig", disabled: true}
        """.formatted(PER_ROUTE, PER_ROUTE)).translate().listeners().get(0).hcm().routeConfig();
    List<Route> all = routes.virtualHosts().get(0).routes();
    assertThat(all.get(0).disabledFilters()).containsExactly("envoy.filters.http.ext_authz");
    assertThat(all.get(1).disabledFilters()).as("the route's own entry wins").isEmpty();
    assertThat(all.get(2).disabledFilters()).containsExactlyInAnyOrder("envoy.filters.http.ext_authz", "custom-name");
    assertThat(withExtAuthz(SERVICE).translate().listeners().get(0).hcm().filter("envoy.filters.http.ext_authz").orElseThrow().settings(ExtAuthzConfig.class).filterName())
        .isEqualTo("envoy.filters.http.ext_authz");
  }

  @Test
  void typedPerFilterConfigOnlyTurnsFiltersOffOrOn() {
    String key = BootstrapYaml.ROUTE + ".typed_per_filter_config[\"envoy.filters.http.ext_authz\"]";
    withExtAuthz(SERVICE).routes("""
        - match: {prefix: "/"}
          route: {cluster: backend}
          typed_per_filter_config:
            envoy.filters.http.ext_authz: {"@type": "%s", check_settings: {context_extensions: {a: b}}}
        """.formatted(PER_ROUTE)).rejects(key + ".check_settings: check_settings is not supported");
    withExtAuthz(SERVICE).routes("""
        - match: {prefix: "/"}
          route: {cluster: backend}
          typed_per_filter_config:
            envoy.filters.http.ext_authz:
              "@type": type.googleapis.com/envoy.config.route.v3.FilterConfig
              config: {"@type": "%s", disabled: true}
        """.formatted(PER_ROUTE)).rejects(key + ".config: config is not supported");
    withExtAuthz(SERVICE).routes("""
        - match: {prefix: "/"}
          route: {cluster: backend}
          typed_per_filter_config:
            envoy.filters.http.ext_authz:
              "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
        """).rejects(key + ": \"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router\" is not supported"
            + " here: only envoy.extensions.filters.http.ext_authz.v3.ExtAuthzPerRoute or envoy.config.route.v3.FilterConfig"
            + " with disabled, envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit or"
            + " envoy.extensions.filters.http.ratelimit.v3.RateLimitPerRoute or"
            + " envoy.extensions.filters.http.cors.v3.CorsPolicy or"
            + " envoy.extensions.filters.http.compressor.v3.CompressorPerRoute or"
            + " envoy.extensions.filters.http.fault.v3.HTTPFault or"
            + " envoy.extensions.filters.http.rbac.v3.RBACPerRoute or"
            + " envoy.extensions.filters.http.lua.v3.LuaPerRoute or"
            + " envoy.extensions.filters.http.header_to_metadata.v3.Config or"
            + " envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig or"
            + " envoy.extensions.filters.http.csrf.v3.CsrfPolicy");
  }
}
