package io.spillway.edge.config;

import static io.spillway.edge.config.BootstrapYaml.HCM;
import static io.spillway.edge.config.BootstrapYaml.ROUTE;
import static io.spillway.edge.config.BootstrapYaml.VHOST;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.RateLimitPolicy.Entry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.local_ratelimit: the filter's fields and defaults, per-route and per-virtual-host
 * configs, the route's and virtual host's rate_limits, and every rejection with its path.
 */
class LocalRateLimitTranslationTest {

  private static final String CONFIG = HCM + ".http_filters[0].typed_config";
  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit";
  private static final String ROUTER = """
      - name: envoy.filters.http.router
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
      """;
  private static final String BUCKET = "token_bucket: {max_tokens: 10, tokens_per_fill: 5, fill_interval: 2s}\n";

  /** A chain of local_ratelimit (these LocalRateLimit fields, at column 0) then the router. */
  private static BootstrapYaml withFilter(String fields) {
    return BootstrapYaml.minimal().httpFilters("""
        - name: envoy.filters.http.local_ratelimit
          typed_config:
            "@type": %s
        %s""".formatted(TYPE, fields.indent(4)) + ROUTER);
  }

  private static LocalRateLimitConfig translate(String fields) throws ConfigException {
    return withFilter(fields).translate().listeners().get(0).hcm().filter("envoy.filters.http.local_ratelimit").orElseThrow().settings(LocalRateLimitConfig.class);
  }

  @Test
  void takesEnvoysDefaults() throws ConfigException {
    HttpConnectionManagerConfig hcm = withFilter("stat_prefix: rl\n").translate().listeners().get(0).hcm();
    assertThat(hcm.filterNames()).containsExactly("envoy.filters.http.local_ratelimit", "envoy.filters.http.router");
    assertThat(hcm.filter("envoy.filters.http.local_ratelimit").orElseThrow().name()).isEqualTo("envoy.filters.http.local_ratelimit");
    LocalRateLimitConfig c = hcm.filter("envoy.filters.http.local_ratelimit").orElseThrow().settings(LocalRateLimitConfig.class);
    assertThat(c.statPrefix()).isEqualTo("rl");
    assertThat(c.status()).isEqualTo(429);
    assertThat(c.tokenBucket()).isEmpty();
    assertThat(c.filterEnabled()).isEqualTo(RuntimeFraction.NEVER); // Envoy: 0% unless set
    assertThat(c.filterEnforced()).isEqualTo(RuntimeFraction.NEVER);
    assertThat(c.alwaysConsumeDefaultTokenBucket()).isTrue();
    assertThat(c.vhRateLimits()).isEqualTo(RateLimitPolicy.VhRateLimits.OVERRIDE);
    assertThat(c.xRateLimitHeaders()).isFalse();
    assertThat(c.perDownstreamConnection()).isFalse();
    assertThat(BootstrapYaml.minimal().translate().listeners().get(0).hcm().filter("envoy.filters.http.local_ratelimit")).isEmpty();
  }

  @Test
  void readsEverySupportedField() throws ConfigException {
    LocalRateLimitConfig c = translate("""
        stat_prefix: rl
        status: {code: ServiceUnavailable}
        token_bucket: {max_tokens: 10, fill_interval: 2s}
        filter_enabled: {runtime_key: rl_enabled, default_value: {numerator: 50, denominator: HUNDRED}}
        filter_enforced: {default_value: {numerator: 25, denominator: TEN_THOUSAND}}
        response_headers_to_add: [{header: {key: X-Limited, value: "yes"}, append_action: OVERWRITE_IF_EXISTS_OR_ADD}]
        request_headers_to_add_when_not_enforced: [{header: {key: x-shadow-limited, value: "true"}}]
        descriptors:
        - entries: [{key: client, value: a}]
          token_bucket: {max_tokens: 1, tokens_per_fill: 1, fill_interval: 60s}
        stage: 3
        local_rate_limit_per_downstream_connection: true
        enable_x_ratelimit_headers: DRAFT_VERSION_03
        vh_rate_limits: INCLUDE
        always_consume_default_token_bucket: false
        rate_limits:
        - actions: [{request_headers: {header_name: X-Client, descriptor_key: client}}]
        """);
    assertThat(c.status()).isEqualTo(503);
    assertThat(c.tokenBucket()).contains(new LocalRateLimitConfig.TokenBucket(10, 1, Duration.ofSeconds(2)));
    assertThat(c.filterEnabled()).isEqualTo(new RuntimeFraction("rl_enabled", 500_000));
    assertThat(c.filterEnforced()).isEqualTo(new RuntimeFraction("", 2_500));
    assertThat(c.responseHeadersToAdd().add()).containsExactly(new HeaderMutations.HeaderValue("x-limited", "yes", false));
    assertThat(c.requestHeadersToAddWhenNotEnforced().add())
        .containsExactly(new HeaderMutations.HeaderValue("x-shadow-limited", "true", true));
    assertThat(c.descriptors()).containsExactly(new LocalRateLimitConfig.Descriptor(List.of(new Entry("client", "a")),
        new LocalRateLimitConfig.TokenBucket(1, 1, Duration.ofSeconds(60))));
    assertThat(c.stage()).isEqualTo(3);
    assertThat(c.perDownstreamConnection()).isTrue();
    assertThat(c.xRateLimitHeaders()).isTrue();
    assertThat(c.vhRateLimits()).isEqualTo(RateLimitPolicy.VhRateLimits.INCLUDE);
    assertThat(c.alwaysConsumeDefaultTokenBucket()).isFalse();
    assertThat(c.rateLimits()).containsExactly(new RateLimitPolicy(0,
        List.of(new RateLimitPolicy.RequestHeaders("x-client", "client", false))));
  }

  @Test
  void aStatusBelow400Means429AndANumeratorAboveTheDenominatorIsEveryRequest() throws ConfigException {
    LocalRateLimitConfig c = translate("""
        stat_prefix: rl
        status: {code: OK}
        filter_enabled: {default_value: {numerator: 150}}
        """);
    assertThat(c.status()).isEqualTo(429);
    assertThat(c.filterEnabled().defaultPerMillion()).isEqualTo(LocalRateLimitConfig.MILLION);
  }

  @Test
  void routesAndVirtualHostsCarryTheirOwnConfigAndTheirRateLimits() throws ConfigException {
    RouteConfig rc = withFilter("stat_prefix: rl\n").virtualHosts("""
        - name: local
          domains: ["*"]
          rate_limits:
          - actions: [{remote_address: {}}]
          typed_per_filter_config:
            envoy.filters.http.local_ratelimit:
              "@type": %s
              stat_prefix: vh
              token_bucket: {max_tokens: 5, fill_interval: 1s}
          routes:
          - match: {prefix: "/own"}
            route:
              cluster: backend
              include_vh_rate_limits: true
              rate_limits:
              - stage: 1
                actions:
                - generic_key: {descriptor_value: own}
                - header_value_match: {descriptor_value: get, headers: [{name: ":method", exact_match: GET}]}
                - destination_cluster: {}
            typed_per_filter_config:
              envoy.filters.http.local_ratelimit:
                "@type": %s
                stat_prefix: own
                token_bucket: {max_tokens: 1, fill_interval: 1s}
          - match: {prefix: "/off"}
            route: {cluster: backend}
            typed_per_filter_config:
              envoy.filters.http.local_ratelimit:
                "@type": type.googleapis.com/envoy.config.route.v3.FilterConfig
                disabled: true
          - match: {prefix: "/"}
            route: {cluster: backend}
        """.formatted(TYPE, TYPE)).translate().listeners().get(0).hcm().routeConfig();
    List<Route> routes = rc.virtualHosts().get(0).routes();
    Route own = routes.get(0);
    assertThat(((LocalRateLimitConfig) own.filterConfigs().get("envoy.filters.http.local_ratelimit")).statPrefix())
        .isEqualTo("own");
    assertThat(own.rateLimits().includeVirtualHost()).isTrue();
    assertThat(own.rateLimits().route()).containsExactly(new RateLimitPolicy(1, List.of(
        new RateLimitPolicy.GenericKey("generic_key", "own"),
        new RateLimitPolicy.HeaderValueMatch("header_match", "get", true,
            List.of(new Route.HeaderMatch(":method", new Route.StringMatch.Exact("GET", false), false))),
        new RateLimitPolicy.DestinationCluster())));
    assertThat(own.rateLimits().virtualHost()).containsExactly(
        new RateLimitPolicy(0, List.of(new RateLimitPolicy.RemoteAddress())));
    Route off = routes.get(1);
    assertThat(off.filterConfigs()).isEmpty(); // the route's entry replaces the virtual host's
    assertThat(off.disabledFilters()).containsExactly("envoy.filters.http.local_ratelimit");
    Route rest = routes.get(2);
    assertThat(((LocalRateLimitConfig) rest.filterConfigs().get("envoy.filters.http.local_ratelimit")).statPrefix())
        .isEqualTo("vh");
    assertThat(rest.rateLimits().route()).isEmpty();
  }

  @Test
  void rejectsBadFiltersWithTheirPaths() {
    withFilter("token_bucket: {max_tokens: 1, fill_interval: 1s}\n")
        .rejects(CONFIG + ".stat_prefix: stat_prefix is required");
    withFilter("stat_prefix: rl\ntoken_bucket: {max_tokens: 0, fill_interval: 1s}\n")
        .rejects(CONFIG + ".token_bucket.max_tokens: must be greater than 0");
    withFilter("stat_prefix: rl\ntoken_bucket: {max_tokens: 1, tokens_per_fill: 0, fill_interval: 1s}\n")
        .rejects(CONFIG + ".token_bucket.tokens_per_fill: must be greater than 0");
    withFilter("stat_prefix: rl\ntoken_bucket: {max_tokens: 1}\n")
        .rejects(CONFIG + ".token_bucket.fill_interval: fill_interval is required");
    withFilter("stat_prefix: rl\ntoken_bucket: {max_tokens: 1, fill_interval: 0.01s}\n")
        .rejects(CONFIG + ".token_bucket.fill_interval: must be at least 50ms");
    withFilter("stat_prefix: rl\nstage: 11\n").rejects(CONFIG + ".stage: must be at most 10");
    withFilter("stat_prefix: rl\nstatus: {}\n").rejects(CONFIG + ".status.code: code is required");
    withFilter("stat_prefix: rl\nlocal_cluster_rate_limit: {}\n")
        .rejects(CONFIG + ".local_cluster_rate_limit: local_cluster_rate_limit is not supported");
    withFilter("stat_prefix: rl\nrate_limited_as_resource_exhausted: true\n")
        .rejects(CONFIG + ".rate_limited_as_resource_exhausted: rate_limited_as_resource_exhausted is not supported");
    withFilter("stat_prefix: rl\nmax_dynamic_descriptors: 5\n")
        .rejects(CONFIG + ".max_dynamic_descriptors: max_dynamic_descriptors is not supported");
    withFilter("stat_prefix: rl\nresponse_headers_to_add: [{header: {key: x-a, value: \"%START_TIME%\"}}]\n")
        .rejects(CONFIG + ".response_headers_to_add[0].header.value: %...% substitutions are not supported"
            + " (write %% for a literal %)");
    withFilter("stat_prefix: rl\nrequest_headers_to_add_when_not_enforced: [{header: {key: host, value: a}}]\n")
        .rejects(CONFIG + ".request_headers_to_add_when_not_enforced[0].header.key: \"host\" may not be modified"
            + " (pseudo-headers and host are protected)");
    withFilter("stat_prefix: rl\nfilter_enabled: {default_value: {numerator: 1}, runtime_key: k}\n").translateOk();
    // Envoy's validation requires default_value.
    withFilter("stat_prefix: rl\nfilter_enforced: {runtime_key: k}\n")
        .rejects(CONFIG + ".filter_enforced.default_value: default_value is required");
  }

  @Test
  void rejectsBadDescriptorsWithTheirPaths() {
    withFilter("stat_prefix: rl\ndescriptors: [{entries: [{key: a, value: b}]}]\n")
        .rejects(CONFIG + ".descriptors[0].token_bucket: token_bucket is required");
    withFilter("stat_prefix: rl\ndescriptors: [{token_bucket: {max_tokens: 1, fill_interval: 1s}}]\n")
        .rejects(CONFIG + ".descriptors[0].entries: at least one entry is required");
    withFilter("stat_prefix: rl\ndescriptors: [{entries: [{key: a}], token_bucket: {max_tokens: 1, fill_interval: 1s}}]\n")
        .rejects(CONFIG + ".descriptors[0].entries[0].value: an empty value (a wildcard descriptor) is not supported yet");
    withFilter("stat_prefix: rl\ndescriptors: [{entries: [{value: b}], token_bucket: {max_tokens: 1, fill_interval: 1s}}]\n")
        .rejects(CONFIG + ".descriptors[0].entries[0].key: key is required");
    withFilter("""
        stat_prefix: rl
        descriptors:
        - {entries: [{key: a, value: b}], token_bucket: {max_tokens: 1, fill_interval: 1s}}
        - {entries: [{key: a, value: b}], token_bucket: {max_tokens: 2, fill_interval: 1s}}
        """).rejects(CONFIG + ".descriptors[1].entries: the same entries as an earlier descriptor");
  }

  @Test
  void rejectsUnsupportedRateLimitActionsWithTheirPaths() {
    String filterLimits = CONFIG + ".rate_limits[0]";
    withFilter("stat_prefix: rl\nrate_limits: [{stage: 1, actions: [{remote_address: {}}]}]\n")
        .rejects(filterLimits + ".stage: stage is not supported");
    withFilter("stat_prefix: rl\nrate_limits: [{actions: []}]\n")
        .rejects(filterLimits + ".actions: at least one action is required");
    withFilter("stat_prefix: rl\nrate_limits: [{actions: [{masked_remote_address: {}}]}]\n")
        .rejects(filterLimits + ".actions[0].masked_remote_address: masked_remote_address is not supported");
    withFilter("stat_prefix: rl\nrate_limits: [{actions: [{query_parameters: {query_parameter_name: a, descriptor_key: b}}]}]\n")
        .rejects(filterLimits + ".actions[0].query_parameters: query_parameters is not supported");
    withFilter("stat_prefix: rl\nrate_limits: [{actions: [{request_headers: {header_name: x-a}}]}]\n")
        .rejects(filterLimits + ".actions[0].request_headers.descriptor_key: descriptor_key is required");
    withFilter("stat_prefix: rl\nrate_limits: [{actions: [{generic_key: {descriptor_key: k}}]}]\n")
        .rejects(filterLimits + ".actions[0].generic_key.descriptor_value: descriptor_value is required");
    withFilter("stat_prefix: rl\nrate_limits: [{actions: [{header_value_match: {descriptor_value: v}}]}]\n")
        .rejects(filterLimits + ".actions[0].header_value_match.headers: at least one header matcher is required");

    String routeLimits = ROUTE + ".route.rate_limits[0]";
    BootstrapYaml.minimal().routes("""
        - match: {prefix: "/"}
          route: {cluster: backend, rate_limits: [{actions: [{metadata: {descriptor_key: k, metadata_key: {key: a, path: [{key: b}]}}}]}]}
        """).rejects(routeLimits + ".actions[0].metadata: metadata is not supported");
    BootstrapYaml.minimal().routes("""
        - match: {prefix: "/"}
          route: {cluster: backend, rate_limits: [{disable_key: off, actions: [{remote_address: {}}]}]}
        """).rejects(routeLimits + ".disable_key: disable_key is not supported");
    BootstrapYaml.minimal().routes("""
        - match: {prefix: "/"}
          route: {cluster: backend, rate_limits: [{stage: 11, actions: [{remote_address: {}}]}]}
        """).rejects(routeLimits + ".stage: must be at most 10");
    BootstrapYaml.minimal().virtualHosts("""
        - name: local
          domains: ["*"]
          rate_limits: [{actions: [{extension: {name: x}}]}]
          routes: [{match: {prefix: "/"}, route: {cluster: backend}}]
        """).rejects(VHOST + ".rate_limits[0].actions[0].extension: extension is not supported");
  }

  @Test
  void aRoutesConfigMustBringItsOwnBucket() {
    BootstrapYaml.minimal().routes("""
        - match: {prefix: "/"}
          route: {cluster: backend}
          typed_per_filter_config:
            rl:
              "@type": %s
              stat_prefix: route
        """.formatted(TYPE)).rejects(ROUTE + ".typed_per_filter_config[\"rl\"].token_bucket: token_bucket is required"
        + " in typed_per_filter_config (the route's bucket)");
    BootstrapYaml.minimal().routes("""
        - match: {prefix: "/"}
          route: {cluster: backend}
          typed_per_filter_config:
            rl:
              "@type": %s
              token_bucket: {max_tokens: 1, fill_interval: 1s}
        """.formatted(TYPE)).rejects(ROUTE + ".typed_per_filter_config[\"rl\"].stat_prefix: stat_prefix is required");
  }
}
