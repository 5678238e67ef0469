package io.spillway.edge.config;

import static io.spillway.edge.config.BootstrapYaml.ROUTE;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HashPolicyTranslationTest {

  private static List<Route.HashPolicy> policies(String hashPolicyYaml) throws ConfigException {
    Route r = BootstrapYaml.minimal().routes("""
            - match: {prefix: /}
              route:
                cluster: backend
                hash_policy:
            %s
            """.formatted(hashPolicyYaml.indent(4).stripTrailing()))
        .translate().listeners().get(0).hcm().routeConfig().virtualHosts().get(0).routes().get(0);
    return ((Route.RouteAction) r.action()).hashPolicies();
  }

  @Test
  void everySupportedPolicyInOrder() throws ConfigException {
    assertThat(policies("""
        - header: {header_name: X-User}
        - cookie: {name: session, ttl: 3600s, path: /}
        - cookie: {name: plain}
        - connection_properties: {source_ip: true}
          terminal: true
        - query_parameter: {name: user}
        - connection_properties: {source_ip: false}
        """)).containsExactly(
        new Route.HashPolicy.Header("x-user", false),
        new Route.HashPolicy.Cookie("session", Optional.of(Duration.ofHours(1)), "/", false),
        new Route.HashPolicy.Cookie("plain", Optional.empty(), "", false),
        new Route.HashPolicy.SourceIp(true),
        new Route.HashPolicy.QueryParameter("user", false));
  }

  @Test
  void noHashPolicyIsAnEmptyList() throws ConfigException {
    Route r = BootstrapYaml.minimal().routes("- {match: {prefix: /}, route: {cluster: backend}}\n")
        .translate().listeners().get(0).hcm().routeConfig().virtualHosts().get(0).routes().get(0);
    assertThat(((Route.RouteAction) r.action()).hashPolicies()).isEmpty();
  }

  private static BootstrapYaml with(String hashPolicyYaml) {
    return BootstrapYaml.minimal().routes("""
        - match: {prefix: /}
          route: {cluster: backend, hash_policy: [%s]}
        """.formatted(hashPolicyYaml));
  }

  @Test
  void rejectionsNameTheirPath() {
    String p = ROUTE + ".route.hash_policy";
    with("{filter_state: {key: k}}").rejects(p + "[0].filter_state: filter_state is not supported");
    with("{header: {header_name: x}}, {header: {header_name: x, regex_rewrite: {pattern: {regex: a},"
        + " substitution: b}}}").rejects(p + "[1].header.regex_rewrite: regex_rewrite is not supported");
    with("{header: {header_name: \"bad name\"}}").rejects(p + "[0].header.header_name: \"bad name\" is not a valid"
        + " header name");
    with("{cookie: {name: c, attributes: [{name: SameSite, value: Lax}]}}")
        .rejects(p + "[0].cookie.attributes: attributes is not supported");
    with("{cookie: {ttl: 5s}}").rejects(p + "[0].cookie.name: a cookie name is required");
    with("{query_parameter: {}}").rejects(p + "[0].query_parameter.name: a query parameter name is required");
    with("{terminal: true}").rejects(p + "[0]: one of header, cookie, connection_properties or query_parameter is"
        + " required");
  }
}
