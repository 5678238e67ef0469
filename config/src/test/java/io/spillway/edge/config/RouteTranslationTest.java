package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.HeaderMutations.HeaderValue;
import io.spillway.edge.config.Route.HeaderMatch;
import io.spillway.edge.config.Route.PathMatch;
import io.spillway.edge.config.Route.QueryParameterMatch;
import io.spillway.edge.config.Route.StringMatch;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RouteTranslationTest {

  private static final String TWO_CLUSTERS = """
      - name: backend
        load_assignment:
          endpoints:
          - lb_endpoints:
            - endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 8080}}}
      - name: canary
        load_assignment:
          endpoints:
          - lb_endpoints:
            - endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 8081}}}
      """;

  private static List<Route> routes(String routesYaml) throws ConfigException {
    return BootstrapYaml.minimal().routes(routesYaml).clusters(TWO_CLUSTERS).translate()
        .listeners().get(0).hcm().routeConfig().virtualHosts().get(0).routes();
  }

  @Test
  void translatesPathMatches() throws ConfigException {
    List<Route> routes = routes("""
        - match: {path: /exact, case_sensitive: false}
          route: {cluster: backend}
        - match: {safe_regex: {regex: "/items/[0-9]+"}}
          route: {cluster: backend}
        - match: {safe_regex: {google_re2: {}, regex: "/v[12]/.*"}}
          route: {cluster: backend}
        - match: {prefix: ""}
          route: {cluster: backend}
        """);

    assertThat(routes.get(0).match().path()).isEqualTo(new PathMatch.Exact("/exact"));
    assertThat(routes.get(0).match().caseSensitive()).isFalse();
    assertThat(((PathMatch.Regex) routes.get(1).match().path()).pattern().pattern()).isEqualTo("/items/[0-9]+");
    assertThat(((PathMatch.Regex) routes.get(2).match().path()).pattern().matcher("/v2/x").matches()).isTrue();
    assertThat(routes.get(3).match().path()).isEqualTo(new PathMatch.Prefix(""));
  }

  @Test
  void translatesRuntimeFractionAsEnvoysTrafficShiftingGuideWritesIt() throws ConfigException {
    List<Route> routes = routes("""
        - match:
            prefix: "/"
            runtime_fraction:
              default_value: {numerator: 50, denominator: HUNDRED}
              runtime_key: routing.traffic_shift.helloworld
          route: {cluster: canary}
        - match: {prefix: "/"}
          route: {cluster: backend}
        """);

    assertThat(routes.get(0).match().runtimeFraction())
        .contains(new RuntimeFraction("routing.traffic_shift.helloworld", 500_000));
    assertThat(routes.get(1).match().runtimeFraction()).isEmpty();
    BootstrapYaml.minimal().routes("""
        - match: {prefix: "/", runtime_fraction: {runtime_key: k}}
          route: {cluster: backend}
        """).rejects(BootstrapYaml.ROUTE + ".match.runtime_fraction.default_value: default_value is required");
  }

  @Test
  void aGrpcMatchIsAContentTypeCondition() throws ConfigException {
    Route.Match match = routes("""
        - match: {prefix: /, grpc: {}}
          route: {cluster: backend}
        """).get(0).match();
    assertThat(match.headers()).containsExactly(MatchTranslator.GRPC_CONTENT_TYPE);
    java.util.regex.Pattern p = ((Route.StringMatch.Regex) match.headers().get(0).match()).pattern();
    for (String grpc : List.of("application/grpc", "application/grpc+proto", "application/grpc;charset=utf-8")) {
      assertThat(p.matcher(grpc).matches()).as(grpc).isTrue();
    }
    for (String other : List.of("application/grpc-web", "application/grpcx", "application/json", "text/grpc")) {
      assertThat(p.matcher(other).matches()).as(other).isFalse();
    }
  }

  @Test
  void translatesHeaderAndQueryMatchers() throws ConfigException {
    Route.Match match = routes("""
        - match:
            prefix: /
            headers:
            - {name: X-Exact, exact_match: a}
            - {name: x-sm, string_match: {exact: B, ignore_case: true}}
            - {name: x-prefix, string_match: {prefix: pre}}
            - {name: x-suffix, string_match: {suffix: suf}}
            - {name: x-contains, string_match: {contains: mid}}
            - {name: x-regex, string_match: {safe_regex: {regex: "v[0-9]"}}}
            - {name: x-present, present_match: true}
            - {name: x-absent, present_match: false}
            - {name: x-bare}
            - {name: x-not, string_match: {exact: no}, invert_match: true}
            - {name: ":authority", prefix_match: api.}
            query_parameters:
            - {name: debug}
            - {name: v, string_match: {exact: "2"}}
            - {name: flag, present_match: true}
          route: {cluster: backend}
        """).get(0).match();

    assertThat(match.headers()).hasSize(11);
    assertThat(match.headers().get(0)).isEqualTo(new HeaderMatch("x-exact", new StringMatch.Exact("a", false), false));
    assertThat(match.headers().get(1)).isEqualTo(new HeaderMatch("x-sm", new StringMatch.Exact("B", true), false));
    assertThat(match.headers().get(2).match()).isEqualTo(new StringMatch.Prefix("pre", false));
    assertThat(match.headers().get(3).match()).isEqualTo(new StringMatch.Suffix("suf", false));
    assertThat(match.headers().get(4).match()).isEqualTo(new StringMatch.Contains("mid", false));
    assertThat(((StringMatch.Regex) match.headers().get(5).match()).pattern().pattern()).isEqualTo("v[0-9]");
    assertThat(match.headers().get(6).match()).isEqualTo(new StringMatch.Present(true));
    assertThat(match.headers().get(7).match()).isEqualTo(new StringMatch.Present(false));
    assertThat(match.headers().get(8).match()).isEqualTo(new StringMatch.Present(true));
    assertThat(match.headers().get(9)).isEqualTo(new HeaderMatch("x-not", new StringMatch.Exact("no", false), true));
    assertThat(match.headers().get(10)).isEqualTo(
        new HeaderMatch(":authority", new StringMatch.Prefix("api.", false), false));
    assertThat(match.queryParameters()).containsExactly(
        new QueryParameterMatch("debug", new StringMatch.Present(true)),
        new QueryParameterMatch("v", new StringMatch.Exact("2", false)),
        new QueryParameterMatch("flag", new StringMatch.Present(true)));
  }

  @Test
  void translatesRouteActions() throws ConfigException {
    List<Route> routes = routes("""
        - name: split
          match: {prefix: /split}
          route:
            weighted_clusters:
              clusters:
              - {name: backend, weight: 90}
              - {name: canary, weight: 10}
            timeout: 0s
            idle_timeout: 30s
        - match: {prefix: /api/}
          route:
            cluster: backend
            prefix_rewrite: /
            host_rewrite_literal: api.internal
            timeout: 3s
        - match: {prefix: /dyn}
          route: {cluster_header: X-Target-Cluster, auto_host_rewrite: true}
        """);

    assertThat(routes.get(0).name()).isEqualTo("split");
    assertThat(routes.get(0).action()).isEqualTo(new Route.RouteAction(
        List.of(new Route.WeightedCluster("backend", 90), new Route.WeightedCluster("canary", 10)),
        Optional.empty(), Optional.empty(), Optional.empty(), false, Duration.ZERO,
        Optional.of(Duration.ofSeconds(30)), RetryPolicy.NONE));
    assertThat(routes.get(1).action()).isEqualTo(new Route.RouteAction(
        List.of(new Route.WeightedCluster("backend", 1)), Optional.empty(), Optional.of("/"),
        Optional.of("api.internal"), false, Duration.ofSeconds(3), Optional.empty(), RetryPolicy.NONE));
    Route.RouteAction dynamic = (Route.RouteAction) routes.get(2).action();
    assertThat(dynamic.clusters()).isEmpty();
    assertThat(dynamic.clusterHeader()).contains("x-target-cluster");
    assertThat(dynamic.autoHostRewrite()).isTrue();
  }

  @Test
  void translatesMaxStreamDurationAsTheGrpcWebExamplesWriteIt() throws ConfigException {
    List<Route> routes = routes("""
        - match: {prefix: /echo}
          route:
            cluster: backend
            timeout: 0s
            max_stream_duration: {grpc_timeout_header_max: 0s}
        - match: {prefix: /}
          route:
            cluster: backend
            max_stream_duration: {max_stream_duration: 30s, grpc_timeout_header_max: 5s,
              grpc_timeout_header_offset: 0.05s}
        """);

    assertThat(((Route.RouteAction) routes.get(0).action()).maxStreamDuration()).contains(
        new Route.MaxStreamDuration(Optional.empty(), Optional.of(Duration.ZERO), Optional.empty()));
    Route.MaxStreamDuration full = ((Route.RouteAction) routes.get(1).action()).maxStreamDuration().orElseThrow();
    assertThat(full).isEqualTo(new Route.MaxStreamDuration(Optional.of(Duration.ofSeconds(30)),
        Optional.of(Duration.ofSeconds(5)), Optional.of(Duration.ofMillis(50))));
    long second = Duration.ofSeconds(1).toNanos();
    assertThat(full.limitNanos(Route.MaxStreamDuration.NONE)).isEqualTo(30 * second);
    assertThat(full.limitNanos(2 * second)).isEqualTo(2 * second - Duration.ofMillis(50).toNanos());
    assertThat(full.limitNanos(60 * second)).isEqualTo(5 * second - Duration.ofMillis(50).toNanos());
    assertThat(full.limitNanos(Duration.ofMillis(10).toNanos())).isZero(); // the offset eats it: at once
    Route.MaxStreamDuration grpcOnly = ((Route.RouteAction) routes.get(0).action()).maxStreamDuration().get();
    assertThat(grpcOnly.limitNanos(Route.MaxStreamDuration.NONE)).isEqualTo(Route.MaxStreamDuration.NONE);
    assertThat(grpcOnly.limitNanos(60 * second)).isEqualTo(60 * second); // 0: the header as it is
    BootstrapYaml.minimal().routes("""
        - match: {prefix: /}
          route: {cluster: backend, max_stream_duration: {grpc_timeout_header_offset: -1s}}
        """).rejects(BootstrapYaml.ROUTE
        + ".route.max_stream_duration.grpc_timeout_header_offset: must not be negative");
  }

  @Test
  void translatesRedirectsAndDirectResponses() throws ConfigException {
    List<Route> routes = routes("""
        - match: {prefix: /old}
          redirect: {https_redirect: true, host_redirect: new.example.com, port_redirect: 8443,
                     prefix_rewrite: /new, strip_query: true, response_code: PERMANENT_REDIRECT}
        - match: {prefix: /moved}
          redirect: {scheme_redirect: HTTP, path_redirect: /elsewhere}
        - match: {prefix: /see}
          redirect: {response_code: SEE_OTHER}
        - match: {prefix: /found}
          redirect: {response_code: FOUND}
        - match: {prefix: /temp}
          redirect: {response_code: TEMPORARY_REDIRECT}
        - match: {path: /healthz}
          direct_response: {status: 200, body: {inline_string: ok}}
        - match: {prefix: /}
          direct_response: {status: 404}
        """);

    assertThat(routes.get(0).action()).isEqualTo(new Route.Redirect(Optional.of("https"),
        Optional.of("new.example.com"), Optional.of(8443), Optional.empty(), Optional.of("/new"), true, 308));
    assertThat(routes.get(1).action()).isEqualTo(new Route.Redirect(Optional.of("http"), Optional.empty(),
        Optional.empty(), Optional.of("/elsewhere"), Optional.empty(), false, 301));
    assertThat(((Route.Redirect) routes.get(2).action()).responseCode()).isEqualTo(303);
    assertThat(((Route.Redirect) routes.get(3).action()).responseCode()).isEqualTo(302);
    assertThat(((Route.Redirect) routes.get(4).action()).responseCode()).isEqualTo(307);
    assertThat(routes.get(5).action()).isEqualTo(new Route.DirectResponse(200, Optional.of("ok")));
    assertThat(routes.get(6).action()).isEqualTo(new Route.DirectResponse(404, Optional.empty()));
  }

  @Test
  void translatesHeaderMutationsAtEveryLevel() throws ConfigException {
    RouteConfig rc = BootstrapYaml.minimal()
        .hcm("") // the route configuration's own mutations go next to virtual_hosts
        .virtualHosts("""
            - name: local
              domains: ["*"]
              request_headers_to_add:
              - header: {key: X-VHost, value: v}
                append_action: OVERWRITE_IF_EXISTS_OR_ADD
              response_headers_to_remove: [Server]
              routes:
              - match: {prefix: /}
                route: {cluster: backend}
                request_headers_to_add:
                - header: {key: X-Append, value: "50%% off"}
                - header: {key: x-legacy, value: l}
                  append: false
                - header: {key: x-explicit, value: e}
                  append_action: APPEND_IF_EXISTS_OR_ADD
                request_headers_to_remove: [X-Internal]
                response_headers_to_add:
                - header: {key: cache-control, value: no-store}
            """)
        .translate().listeners().get(0).hcm().routeConfig();

    RouteConfig.VirtualHost vhost = rc.virtualHosts().get(0);
    assertThat(vhost.requestHeaders()).isEqualTo(
        new HeaderMutations(List.of(new HeaderValue("x-vhost", "v", false)), List.of()));
    assertThat(vhost.responseHeaders()).isEqualTo(new HeaderMutations(List.of(), List.of("server")));
    Route route = vhost.routes().get(0);
    assertThat(route.requestHeaders()).isEqualTo(new HeaderMutations(List.of(
        new HeaderValue("x-append", "50% off", true),
        new HeaderValue("x-legacy", "l", false),
        new HeaderValue("x-explicit", "e", true)), List.of("x-internal")));
    assertThat(route.responseHeaders().add()).containsExactly(new HeaderValue("cache-control", "no-store", true));
  }

  @Test
  void translatesRouteConfigurationWideMutations() throws ConfigException {
    String yaml = BootstrapYaml.minimal().yaml().replace("            name: local_route\n", """
                    name: local_route
                    request_headers_to_add: [{header: {key: x-edge, value: spillway}}]
                    request_headers_to_remove: [x-debug]
                    response_headers_to_add: [{header: {key: x-served-by, value: edge}}]
                    response_headers_to_remove: [x-powered-by]
        """);

    RouteConfig rc = ConfigTranslator.translate(BootstrapLoader.parse(yaml, BootstrapLoader.Format.YAML))
        .listeners().get(0).hcm().routeConfig();

    assertThat(rc.requestHeaders()).isEqualTo(new HeaderMutations(
        List.of(new HeaderValue("x-edge", "spillway", true)), List.of("x-debug")));
    assertThat(rc.responseHeaders()).isEqualTo(new HeaderMutations(
        List.of(new HeaderValue("x-served-by", "edge", true)), List.of("x-powered-by")));
  }

  @Test
  void flattensStringMetadataForTheAdmissionTier() throws ConfigException {
    Route route = routes("""
        - match: {prefix: /}
          route: {cluster: backend}
          metadata:
            filter_metadata:
              spillway.admission: {tier: start, weight: 2}
              other: {owner: team-a}
        """).get(0);

    assertThat(route.metadata()).isEqualTo(Map.of("spillway.admission.tier", "start", "other.owner", "team-a"));
  }

  @Test
  void translatesRetryPolicies() throws ConfigException {
    RouteConfig.VirtualHost vhost = BootstrapYaml.minimal()
        .clusters(TWO_CLUSTERS)
        .virtualHosts("""
            - name: local
              domains: ["*"]
              retry_policy: {retry_on: "connect-failure,reset", num_retries: 2}
              routes:
              - match: {prefix: /own}
                route:
                  cluster: backend
                  retry_policy:
                    retry_on: " 5xx, gateway-error ,retriable-status-codes"
                    num_retries: 3
                    per_try_timeout: 1s
                    retriable_status_codes: [409, 429]
                    retry_back_off: {base_interval: 0.1s, max_interval: 0.5s}
              - match: {prefix: /inherit}
                route: {cluster: canary}
              - match: {prefix: /base-only}
                route:
                  cluster: canary
                  retry_policy: {retry_on: 5xx, retry_back_off: {base_interval: 0.2s}}
            """)
        .translate().listeners().get(0).hcm().routeConfig().virtualHosts().get(0);

    RetryPolicy hostPolicy = new RetryPolicy(
        Set.of(RetryPolicy.RetryOn.CONNECT_FAILURE, RetryPolicy.RetryOn.RESET), 2, Duration.ZERO, Set.of(),
        Duration.ofMillis(25), Duration.ofMillis(250));
    assertThat(vhost.retryPolicy()).isEqualTo(hostPolicy);
    assertThat(((Route.RouteAction) vhost.routes().get(0).action()).retryPolicy()).isEqualTo(new RetryPolicy(
        Set.of(RetryPolicy.RetryOn.FIVE_XX, RetryPolicy.RetryOn.GATEWAY_ERROR,
            RetryPolicy.RetryOn.RETRIABLE_STATUS_CODES),
        3, Duration.ofSeconds(1), Set.of(409, 429), Duration.ofMillis(100), Duration.ofMillis(500)));
    // A route without a policy of its own gets its virtual host's, resolved at translation time.
    assertThat(((Route.RouteAction) vhost.routes().get(1).action()).retryPolicy()).isEqualTo(hostPolicy);
    RetryPolicy baseOnly = ((Route.RouteAction) vhost.routes().get(2).action()).retryPolicy();
    assertThat(baseOnly.backoffBase()).isEqualTo(Duration.ofMillis(200));
    assertThat(baseOnly.backoffMax()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void lowerCasesDomainsAndAcceptsWildcardsAndPorts() throws ConfigException {
    List<RouteConfig.VirtualHost> hosts = BootstrapYaml.minimal()
        .virtualHosts("""
            - name: a
              domains: [Example.COM, "*.example.com", "*-api.example.org", "example.*", "example.net:8443"]
              routes: [{match: {prefix: /}, route: {cluster: backend}}]
            - name: fallback
              domains: ["*"]
              routes: [{match: {prefix: /}, route: {cluster: backend}}]
            """)
        .translate().listeners().get(0).hcm().routeConfig().virtualHosts();

    assertThat(hosts.get(0).domains())
        .containsExactly("example.com", "*.example.com", "*-api.example.org", "example.*", "example.net:8443");
    assertThat(hosts.get(1).domains()).containsExactly("*");
  }

  @Test
  void skipsClusterValidationWhenTheRouteConfigurationTurnsItOff() throws ConfigException {
    String yaml = BootstrapYaml.minimal().routes("""
            - match: {prefix: /}
              route: {cluster: later}
            """).yaml()
        .replace("            name: local_route\n", "            name: local_route\n            validate_clusters: false\n");

    Route route = ConfigTranslator.translate(BootstrapLoader.parse(yaml, BootstrapLoader.Format.YAML))
        .listeners().get(0).hcm().routeConfig().virtualHosts().get(0).routes().get(0);

    assertThat(((Route.RouteAction) route.action()).clusters()).containsExactly(new Route.WeightedCluster("later", 1));
  }
}
