package io.spillway.edge.config;

import static io.spillway.edge.config.BootstrapYaml.HCM;
import static io.spillway.edge.config.BootstrapYaml.ROUTE;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.ratelimit: the filter's fields and Envoy's defaults, RateLimitPerRoute on routes
 * and virtual hosts, the descriptor actions it shares with the local filter, and every rejection
 * with its path.
 */
class GlobalRateLimitTranslationTest {

  private static final String NAME = "envoy.filters.http.ratelimit";
  private static final String CONFIG = HCM + ".http_filters[0].typed_config";
  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.ratelimit.v3.RateLimit";
  private static final String PER_ROUTE = "type.googleapis.com/envoy.extensions.filters.http.ratelimit.v3.RateLimitPerRoute";
  private static final String ROUTER = """
      - name: envoy.filters.http.router
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
      """;
  private static final String SERVICE = """
      rate_limit_service:
        grpc_service: {envoy_grpc: {cluster_name: backend}}
        transport_api_version: V3
      """;

  /** A chain of the ratelimit filter (these RateLimit fields, at column 0) then the router. */
  private static BootstrapYaml withFilter(String fields) {
    return BootstrapYaml.minimal().httpFilters("""
        - name: envoy.filters.http.ratelimit
          typed_config:
            "@type": %s
        %s""".formatted(TYPE, fields.indent(4)) + ROUTER);
  }

  private static GlobalRateLimitConfig translate(String fields) throws ConfigException {
    return withFilter(fields).translate().listeners().get(0).hcm().filter(NAME).orElseThrow()
        .settings(GlobalRateLimitConfig.class);
  }

  @Test
  void takesEnvoysDefaults() throws ConfigException {
    GlobalRateLimitConfig c = translate("domain: edge\n" + SERVICE);
    assertThat(c.filterName()).isEqualTo(NAME);
    assertThat(c.domain()).isEqualTo("edge");
    assertThat(c.stage()).isZero();
    assertThat(c.requestType()).isEqualTo(GlobalRateLimitConfig.RequestType.BOTH);
    assertThat(c.timeout()).isEqualTo(Duration.ofMillis(20));
    assertThat(c.failureModeDeny()).isFalse();
    assertThat(c.service()).isEqualTo(new GrpcServiceConfig("backend", "backend", Optional.empty(), List.of()));
    assertThat(c.xRateLimitHeaders()).isFalse();
    assertThat(c.xEnvoyRateLimitedHeader()).isTrue();
    assertThat(c.rateLimitedStatus()).isEqualTo(429);
    assertThat(c.statusOnError()).isEqualTo(500);
    assertThat(c.responseHeadersToAdd().add()).isEmpty();
    assertThat(c.filterEnabled()).isEqualTo(new RuntimeFraction("ratelimit.http_filter_enabled", 1_000_000));
    assertThat(c.filterEnforced()).isEqualTo(new RuntimeFraction("ratelimit.http_filter_enforcing", 1_000_000));
  }

  @Test
  void readsEverySupportedField() throws ConfigException {
    GlobalRateLimitConfig c = translate("""
        domain: edge
        stage: 2
        request_type: external
        timeout: 0.25s
        failure_mode_deny: true
        rate_limited_as_resource_exhausted: false
        rate_limit_service:
          grpc_service:
            envoy_grpc: {cluster_name: backend, authority: rls.local}
            initial_metadata: [{key: X-Tenant, value: acme}]
          transport_api_version: V3
        enable_x_ratelimit_headers: DRAFT_VERSION_03
        disable_x_envoy_ratelimited_header: true
        rate_limited_status: {code: ServiceUnavailable}
        response_headers_to_add: [{header: {key: X-Limited, value: "yes"}}]
        status_on_error: {code: BadGateway}
        filter_enabled: {runtime_key: rl_on, default_value: {numerator: 50}}
        filter_enforced: {default_value: {numerator: 25, denominator: TEN_THOUSAND}}
        """);
    assertThat(c.filterEnabled()).isEqualTo(new RuntimeFraction("rl_on", 500_000));
    assertThat(c.filterEnforced()).isEqualTo(new RuntimeFraction("", 2_500));
    assertThat(c.stage()).isEqualTo(2);
    assertThat(c.requestType()).isEqualTo(GlobalRateLimitConfig.RequestType.EXTERNAL);
    assertThat(c.timeout()).isEqualTo(Duration.ofMillis(250));
    assertThat(c.failureModeDeny()).isTrue();
    assertThat(c.service()).isEqualTo(new GrpcServiceConfig("backend", "rls.local", Optional.empty(),
        List.of(new GrpcServiceConfig.Metadata("x-tenant", "acme"))));
    assertThat(c.xRateLimitHeaders()).isTrue();
    assertThat(c.xEnvoyRateLimitedHeader()).isFalse();
    assertThat(c.rateLimitedStatus()).isEqualTo(503);
    assertThat(c.statusOnError()).isEqualTo(502);
    assertThat(c.responseHeadersToAdd().add()).containsExactly(new HeaderMutations.HeaderValue("x-limited", "yes", true));
    assertThat(translate("domain: e\nrequest_type: internal\n" + SERVICE).requestType())
        .isEqualTo(GlobalRateLimitConfig.RequestType.INTERNAL);
    assertThat(translate("domain: e\nrequest_type: both\n" + SERVICE).requestType())
        .isEqualTo(GlobalRateLimitConfig.RequestType.BOTH);
  }

  @Test
  void statusesBelow400MeanEnvoysDefaults() throws ConfigException {
    GlobalRateLimitConfig c = translate("domain: e\nrate_limited_status: {code: OK}\nstatus_on_error: {code: Found}\n"
        + SERVICE);
    assertThat(c.rateLimitedStatus()).isEqualTo(429);
    assertThat(c.statusOnError()).isEqualTo(500);
  }

  @Test
  void routesAndVirtualHostsCarryRateLimitPerRouteAndTheirActions() throws ConfigException {
    RouteConfig rc = withFilter("domain: edge\n" + SERVICE).virtualHosts("""
        - name: local
          domains: ["*"]
          rate_limits:
          - actions: [{source_cluster: {}}]
          typed_per_filter_config:
            envoy.filters.http.ratelimit:
              "@type": %s
              vh_rate_limits: INCLUDE
          routes:
          - match: {prefix: "/own"}
            route:
              cluster: backend
              rate_limits:
              - stage: 1
                actions:
                - request_headers: {header_name: X-Client, descriptor_key: client, skip_if_absent: true}
                - generic_key: {descriptor_value: own, descriptor_key: kind}
                - remote_address: {}
                - destination_cluster: {}
            typed_per_filter_config:
              envoy.filters.http.ratelimit:
                "@type": %s
                vh_rate_limits: IGNORE
                override_option: OVERRIDE_POLICY
                domain: other
                rate_limits:
                - actions: [{generic_key: {descriptor_value: per-route}}]
          - match: {prefix: "/"}
            route: {cluster: backend}
        """.formatted(PER_ROUTE, PER_ROUTE)).translate().listeners().get(0).hcm().routeConfig();
    List<Route> routes = rc.virtualHosts().get(0).routes();
    Route own = routes.get(0);
    assertThat(own.filterConfigs().get(NAME)).isEqualTo(new GlobalRateLimitConfig.PerRoute(
        RateLimitPolicy.VhRateLimits.IGNORE,
        List.of(new RateLimitPolicy(0, List.of(new RateLimitPolicy.GenericKey("generic_key", "per-route")))),
        Optional.of("other")));
    assertThat(own.rateLimits().route()).containsExactly(new RateLimitPolicy(1, List.of(
        new RateLimitPolicy.RequestHeaders("x-client", "client", true),
        new RateLimitPolicy.GenericKey("kind", "own"),
        new RateLimitPolicy.RemoteAddress(),
        new RateLimitPolicy.DestinationCluster())));
    assertThat(own.rateLimits().virtualHost()).containsExactly(
        new RateLimitPolicy(0, List.of(new RateLimitPolicy.SourceCluster())));
    assertThat(routes.get(1).filterConfigs().get(NAME)).isEqualTo(new GlobalRateLimitConfig.PerRoute(
        RateLimitPolicy.VhRateLimits.INCLUDE, List.of(), Optional.empty()));
  }

  @Test
  void rejectsBadFiltersWithTheirPaths() {
    withFilter(SERVICE).rejects(CONFIG + ".domain: domain is required");
    withFilter("domain: e\n").rejects(CONFIG + ".rate_limit_service: rate_limit_service is required");
    withFilter("domain: e\nstage: 11\n" + SERVICE).rejects(CONFIG + ".stage: must be at most 10");
    withFilter("domain: e\nrequest_type: sometimes\n" + SERVICE)
        .rejects(CONFIG + ".request_type: must be internal, external or both, not \"sometimes\"");
    withFilter("domain: e\nrate_limited_as_resource_exhausted: true\n" + SERVICE)
        .rejects(CONFIG + ".rate_limited_as_resource_exhausted: rate_limited_as_resource_exhausted: true is not"
            + " supported (local replies to gRPC requests keep their HTTP status)");
    withFilter("domain: e\nstat_prefix: rl\n" + SERVICE).rejects(CONFIG + ".stat_prefix: stat_prefix is not supported");
    withFilter("domain: e\nfilter_enforced: {runtime_key: k}\n" + SERVICE)
        .rejects(CONFIG + ".filter_enforced.default_value: default_value is required");
    withFilter("domain: e\nrate_limited_status: {}\n" + SERVICE)
        .rejects(CONFIG + ".rate_limited_status.code: code is required");
    withFilter("domain: e\nresponse_headers_to_add: [{header: {key: x-a, value: \"%START_TIME%\"}}]\n" + SERVICE)
        .rejects(CONFIG + ".response_headers_to_add[0].header.value: %...% substitutions are not supported"
            + " (write %% for a literal %)");
  }

  @Test
  void rejectsBadServicesWithTheirPaths() {
    String service = CONFIG + ".rate_limit_service";
    withFilter("domain: e\nrate_limit_service: {grpc_service: {envoy_grpc: {cluster_name: backend}}}\n")
        .rejects(service + ".transport_api_version: must be V3 (the edge speaks envoy.service.ratelimit.v3 only), not AUTO");
    withFilter("domain: e\nrate_limit_service: {transport_api_version: V3}\n")
        .rejects(service + ".grpc_service: grpc_service is required");
    withFilter("domain: e\nrate_limit_service: {grpc_service: {envoy_grpc: {}}, transport_api_version: V3}\n")
        .rejects(service + ".grpc_service.envoy_grpc.cluster_name: cluster_name is required");
    withFilter("domain: e\nrate_limit_service: {grpc_service: {envoy_grpc: {cluster_name: nope}}, transport_api_version: V3}\n")
        .rejects(service + ".grpc_service.envoy_grpc.cluster_name: unknown cluster \"nope\" (no cluster of that name"
            + " is configured)");
    withFilter("domain: e\nrate_limit_service: {grpc_service: {google_grpc: {target_uri: \"127.0.0.1:1\","
        + " stat_prefix: r}}, transport_api_version: V3}\n")
        .rejects(service + ".grpc_service.google_grpc: google_grpc is not supported (use envoy_grpc with a cluster"
            + " of the edge)");
    withFilter("domain: e\nrate_limit_service: {grpc_service: {envoy_grpc: {cluster_name: backend}, timeout: 1s},"
        + " transport_api_version: V3}\n")
        .rejects(service + ".grpc_service.timeout: is not supported here: the filter's timeout is the call's deadline");
    withFilter("domain: e\nrate_limit_service: {grpc_service: {envoy_grpc: {cluster_name: backend,"
        + " retry_policy: {num_retries: 1}}}, transport_api_version: V3}\n")
        .rejects(service + ".grpc_service.envoy_grpc.retry_policy: retry_policy is not supported");
  }

  @Test
  void rejectsBadPerRouteConfigsAndActionsWithTheirPaths() {
    String perRoute = ROUTE + ".typed_per_filter_config[\"envoy.filters.http.ratelimit\"]";
    String filter = "domain: e\n" + SERVICE;
    withFilter(filter).routes("""
        - match: {prefix: "/"}
          route: {cluster: backend}
          typed_per_filter_config:
            envoy.filters.http.ratelimit:
              "@type": %s
              override_option: INCLUDE_POLICY
        """.formatted(PER_ROUTE)).rejects(perRoute + ".override_option: INCLUDE_POLICY is not supported (only DEFAULT"
            + " and OVERRIDE_POLICY: the most specific configuration applies)");
    withFilter(filter).routes("""
        - match: {prefix: "/"}
          route: {cluster: backend}
          typed_per_filter_config:
            envoy.filters.http.ratelimit:
              "@type": %s
              rate_limits: [{stage: 1, actions: [{remote_address: {}}]}]
        """.formatted(PER_ROUTE)).rejects(perRoute + ".rate_limits[0].stage: stage is not supported");
    withFilter(filter).routes("""
        - match: {prefix: "/"}
          route:
            cluster: backend
            rate_limits: [{actions: [{masked_remote_address: {}}]}]
        """).rejects(ROUTE + ".route.rate_limits[0].actions[0].masked_remote_address: masked_remote_address is not"
            + " supported");
    withFilter(filter).routes("""
        - match: {prefix: "/"}
          route:
            cluster: backend
            rate_limits: [{actions: [{dynamic_metadata: {descriptor_key: k, metadata_key: {key: a, path: [{key: b}]}}}]}]
        """).rejects(ROUTE + ".route.rate_limits[0].actions[0].dynamic_metadata: dynamic_metadata is not supported");
    withFilter(filter).routes("""
        - match: {prefix: "/"}
          route:
            cluster: backend
            rate_limits: [{disable_key: off, actions: [{remote_address: {}}]}]
        """).rejects(ROUTE + ".route.rate_limits[0].disable_key: disable_key is not supported");
  }
}
