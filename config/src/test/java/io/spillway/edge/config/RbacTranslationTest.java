package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.RbacConfig.Permission;
import io.spillway.edge.config.RbacConfig.Policy;
import io.spillway.edge.config.RbacConfig.Principal;
import io.spillway.edge.config.Route.StringMatch;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.rbac and RBACPerRoute: Envoy's documented example, every supported
 * permission and principal, policies in name order, per-route rules, and each refusal with its
 * path.
 */
class RbacTranslationTest {

  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC";
  private static final String PER_ROUTE_TYPE = "type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBACPerRoute";
  private static final String NAME = "envoy.filters.http.rbac";
  private static final String FILTER =
      "static_resources.listeners[0].filter_chains[0].filters[0].typed_config.http_filters[0].typed_config";

  private static BootstrapYaml withFilter(String fields) {
    return BootstrapYaml.minimal().httpFilters("""
        - name: envoy.filters.http.rbac
          typed_config:
            "@type": %s
        %s
        - name: envoy.filters.http.router
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
        """.formatted(TYPE, fields.stripIndent().indent(4).stripTrailing()));
  }

  private static RbacConfig translate(String fields) throws ConfigException {
    return withFilter(fields).translate().listeners().get(0).hcm().filter(NAME).orElseThrow()
        .settings(RbacConfig.class);
  }

  private static String refusal(String fields) {
    try {
      translate(fields);
    } catch (ConfigException e) {
      return e.getMessage();
    }
    throw new AssertionError("accepted: " + fields);
  }

  /** A rules block with one policy "p" of this permission and this principal (flow YAML). */
  private static String policy(String permission, String principal) {
    return "rules: { policies: { p: { permissions: [ %s ], principals: [ %s ] } } }".formatted(permission, principal);
  }

  private static Permission onlyPermission(String permission) throws ConfigException {
    return translate(policy(permission, "{ any: true }")).rules().orElseThrow().policies().get(0).permissions().get(0);
  }

  private static Principal onlyPrincipal(String principal) throws ConfigException {
    return translate(policy("{ any: true }", principal)).rules().orElseThrow().policies().get(0).principals().get(0);
  }

  private static final String POLICY = FILTER + ".rules.policies[\"p\"]";

  @Test
  void envoysDocumentedProductViewerPolicyIsAccepted() throws Exception {
    RbacConfig c = translate("""
        rules:
          action: ALLOW
          policies:
            "product-viewer":
              permissions:
              - and_rules:
                  rules:
                  - header: { name: ":method", string_match: { exact: "GET" } }
                  - url_path:
                      path: { prefix: "/products" }
                  - or_rules:
                      rules:
                      - destination_port: 80
                      - destination_port: 443
              principals:
              - any: true
        """);
    RbacConfig.Rules rules = c.rules().orElseThrow();
    assertThat(rules.action()).isEqualTo(RbacConfig.Action.ALLOW);
    Policy viewer = rules.policies().get(0);
    assertThat(viewer.name()).isEqualTo("product-viewer");
    assertThat(viewer.principals()).containsExactly(new Principal.Any());
    Permission.And and = (Permission.And) viewer.permissions().get(0);
    assertThat(and.rules()).hasSize(3);
    assertThat(and.rules().get(0)).isEqualTo(new Permission.Header(
        new Route.HeaderMatch(":method", new StringMatch.Exact("GET", false), false)));
    assertThat(and.rules().get(1)).isEqualTo(new Permission.UrlPath(new StringMatch.Prefix("/products", false)));
    assertThat(and.rules().get(2)).isEqualTo(new Permission.Or(List.of(new Permission.DestinationPort(80),
        new Permission.DestinationPort(443))));
    assertThat(c.shadowRules()).isEmpty();
    assertThat(c.rulesStatPrefix()).isEmpty();
  }

  @Test
  void envoysDocumentedServiceAdminPolicyIsAccepted() throws Exception {
    RbacConfig c = translate("""
        rules:
          action: ALLOW
          policies:
            "service-admin":
              permissions: [ { any: true } ]
              principals:
              - authenticated: { principal_name: { exact: "cluster.local/ns/default/sa/admin" } }
              - authenticated: { principal_name: { exact: "cluster.local/ns/default/sa/superuser" } }
        """);
    assertThat(c.rules().orElseThrow().policies().get(0).principals()).containsExactly(
        new Principal.Authenticated(java.util.Optional.of(new StringMatch.Exact("cluster.local/ns/default/sa/admin", false))),
        new Principal.Authenticated(java.util.Optional.of(
            new StringMatch.Exact("cluster.local/ns/default/sa/superuser", false))));
    assertThat(onlyPrincipal("{ authenticated: {} }")).isEqualTo(new Principal.Authenticated(java.util.Optional.empty()));
  }

  @Test
  void policiesAreKeptInNameOrderWithTheirActionAndStatPrefixes() throws Exception {
    RbacConfig c = translate("""
        rules:
          action: DENY
          policies:
            zeta: { permissions: [ { any: true } ], principals: [ { any: true } ] }
            alpha: { permissions: [ { any: true } ], principals: [ { any: true } ] }
            mid: { permissions: [ { any: true } ], principals: [ { any: true } ] }
        rules_stat_prefix: "enforced_"
        shadow_rules:
          action: LOG
        shadow_rules_stat_prefix: "trial_"
        """);
    assertThat(c.rules().orElseThrow().action()).isEqualTo(RbacConfig.Action.DENY);
    assertThat(c.rules().orElseThrow().policies()).extracting(Policy::name).containsExactly("alpha", "mid", "zeta");
    assertThat(c.shadowRules().orElseThrow().action()).isEqualTo(RbacConfig.Action.LOG);
    assertThat(c.shadowRules().orElseThrow().policies()).isEmpty();
    assertThat(c.rulesStatPrefix()).isEqualTo("enforced_");
    assertThat(c.shadowRulesStatPrefix()).isEqualTo("trial_");
    assertThat(translate("shadow_rules: { action: ALLOW }").rules()).as("no rules: nothing enforced").isEmpty();
  }

  @Test
  void everySupportedPermission() throws Exception {
    assertThat(onlyPermission("{ any: true }")).isEqualTo(new Permission.Any());
    assertThat(onlyPermission("{ header: { name: x-a, present_match: true, invert_match: true } }"))
        .isEqualTo(new Permission.Header(new Route.HeaderMatch("x-a", new StringMatch.Present(true), true)));
    assertThat(onlyPermission("{ header: { name: X-B, suffix_match: \".json\" } }"))
        .isEqualTo(new Permission.Header(new Route.HeaderMatch("x-b", new StringMatch.Suffix(".json", false), false)));
    assertThat(onlyPermission("{ url_path: { path: { exact: \"/A\", ignore_case: true } } }"))
        .isEqualTo(new Permission.UrlPath(new StringMatch.Exact("/A", true)));
    Permission.UrlPath regex = (Permission.UrlPath) onlyPermission(
        "{ url_path: { path: { safe_regex: { regex: \"/v[0-9]+/.*\" } } } }");
    assertThat(((StringMatch.Regex) regex.match()).pattern().pattern()).isEqualTo("/v[0-9]+/.*");
    assertThat(onlyPermission("{ destination_ip: { address_prefix: 10.1.0.0, prefix_len: 16 } }"))
        .isEqualTo(new Permission.DestinationIp(new RbacConfig.IpRange("10.1.0.0", 16, new byte[] {10, 1, 0, 0})));
    assertThat(onlyPermission("{ destination_port: 8443 }")).isEqualTo(new Permission.DestinationPort(8443));
    assertThat(onlyPermission("{ destination_port_range: { start: 8000, end: 9000 } }"))
        .isEqualTo(new Permission.DestinationPortRange(8000, 9000));
    assertThat(onlyPermission("{ not_rule: { destination_port: 80 } }"))
        .isEqualTo(new Permission.Not(new Permission.DestinationPort(80)));
  }

  @Test
  void everySupportedPrincipal() throws Exception {
    RbacConfig.IpRange net = new RbacConfig.IpRange("192.0.2.0", 24, new byte[] {(byte) 192, 0, 2, 0});
    assertThat(onlyPrincipal("{ direct_remote_ip: { address_prefix: 192.0.2.0, prefix_len: 24 } }"))
        .isEqualTo(new Principal.DirectRemoteIp(net));
    assertThat(onlyPrincipal("{ remote_ip: { address_prefix: 192.0.2.0, prefix_len: 24 } }"))
        .isEqualTo(new Principal.RemoteIp(net));
    assertThat(onlyPrincipal("{ source_ip: { address_prefix: 192.0.2.0, prefix_len: 24 } }"))
        .isEqualTo(new Principal.SourceIp(net));
    assertThat(((Principal.RemoteIp) onlyPrincipal("{ remote_ip: { address_prefix: \"2001:db8::\", prefix_len: 32 } }"))
        .range().bytes()).hasSize(16);
    assertThat(onlyPrincipal("{ header: { name: x-user, string_match: { contains: admin, ignore_case: true } } }"))
        .isEqualTo(new Principal.Header(new Route.HeaderMatch("x-user", new StringMatch.Contains("admin", true), false)));
    assertThat(onlyPrincipal("{ url_path: { path: { suffix: \"/me\" } } }"))
        .isEqualTo(new Principal.UrlPath(new StringMatch.Suffix("/me", false)));
    assertThat(onlyPrincipal("{ and_ids: { ids: [ { any: true }, { not_id: { any: true } } ] } }"))
        .isEqualTo(new Principal.And(List.of(new Principal.Any(), new Principal.Not(new Principal.Any()))));
    assertThat(onlyPrincipal("{ or_ids: { ids: [ { any: true } ] } }"))
        .isEqualTo(new Principal.Or(List.of(new Principal.Any())));
  }

  @Test
  void aRoutesRbacPerRouteReplacesTheRulesAndAnEmptyOneLeavesNone() throws Exception {
    RouteConfig rc = withFilter(policy("{ any: true }", "{ any: true }")).virtualHosts("""
        - name: local
          domains: ["*"]
          typed_per_filter_config:
            envoy.filters.http.rbac:
              "@type": %s
              rbac:
                rules:
                  action: DENY
                  policies:
                    blocked: { permissions: [ { url_path: { path: { prefix: /admin } } } ], principals: [ { any: true } ] }
          routes:
          - match: { prefix: "/open" }
            route: { cluster: backend }
            typed_per_filter_config:
              envoy.filters.http.rbac:
                "@type": %s
          - match: { prefix: "/" }
            route: { cluster: backend }
        """.formatted(PER_ROUTE_TYPE, PER_ROUTE_TYPE)).translate().listeners().get(0).hcm().routeConfig();
    List<Route> routes = rc.virtualHosts().get(0).routes();
    RbacConfig open = (RbacConfig) routes.get(0).filterConfigs().get(NAME);
    assertThat(open.rules()).isEmpty();
    assertThat(open.shadowRules()).isEmpty();
    RbacConfig host = (RbacConfig) routes.get(1).filterConfigs().get(NAME);
    assertThat(host.rules().orElseThrow().action()).isEqualTo(RbacConfig.Action.DENY);
    assertThat(host.rules().orElseThrow().policies()).extracting(Policy::name).containsExactly("blocked");
  }

  @Test
  void refusalsNameTheFieldAndTheRule() {
    assertThat(refusal("rules: { policies: { p: { permissions: [ { any: true } ], principals: [ { any: true } ],"
        + " condition: { const_expr: { bool_value: true } } } } }"))
        .isEqualTo(POLICY + ".condition: CEL conditions are not supported (Spillway has no expression evaluator)");
    assertThat(refusal("matcher: { matcher_list: { matchers: [] } }"))
        .startsWith(FILTER + ".matcher: the xDS matcher API is not supported");
    // As Envoy's RBAC example writes it: the core API's input and action types parse, and the matcher is refused by name.
    assertThat(refusal("""
        matcher: { matcher_list: { matchers: [ { predicate: { single_predicate: {
          input: { name: h, typed_config: { "@type": type.googleapis.com/envoy.type.matcher.v3.HttpRequestHeaderMatchInput,
            header_name: x-user } },
          value_match: { exact: admin } } },
          on_match: { action: { name: allow, typed_config: { "@type": type.googleapis.com/envoy.config.rbac.v3.Action,
            name: allow } } } } ] } }"""))
        .startsWith(FILTER + ".matcher: the xDS matcher API is not supported");
    assertThat(refusal("shadow_matcher: { matcher_list: { matchers: [] } }"))
        .startsWith(FILTER + ".shadow_matcher: the xDS matcher API is not supported");
    assertThat(refusal("track_per_rule_stats: true")).startsWith(FILTER + ".track_per_rule_stats: ");
    assertThat(refusal("rules: { audit_logging_options: { audit_condition: ON_DENY } }"))
        .startsWith(FILTER + ".rules.audit_logging_options: ");
    assertThat(refusal(policy("{ metadata: { filter: f, path: [ { key: k } ], value: { present_match: true } } }",
        "{ any: true }"))).startsWith(POLICY + ".permissions[0].metadata: metadata is not supported");
    assertThat(refusal(policy("{ requested_server_name: { exact: a.example } }", "{ any: true }")))
        .startsWith(POLICY + ".permissions[0].requested_server_name: ");
    assertThat(refusal(policy("{ any: true }", "{ filter_state: { key: k, string_match: { exact: v } } }")))
        .startsWith(POLICY + ".principals[0].filter_state: ");
    assertThat(refusal(policy("{ any: true }", "{ metadata: { filter: f, path: [ { key: k } ], value: { present_match: true } } }")))
        .startsWith(POLICY + ".principals[0].metadata: ");
    assertThat(refusal(policy("{ and_rules: { rules: [ { any: true }, { not_rule: { metadata: { filter: f } } } ] } }",
        "{ any: true }"))).startsWith(POLICY + ".permissions[0].and_rules.rules[1].not_rule.metadata: ");
    assertThat(refusal(policy("{ any: true }", "{ or_ids: { ids: [ { custom: { name: x } } ] } }")))
        .startsWith(POLICY + ".principals[0].or_ids.ids[0].custom: ");
    assertThat(refusal(policy("{ any: true }", "{ authenticated: { principal_name: { prefix: \"\" } } }")))
        .isEqualTo(POLICY + ".principals[0].authenticated.principal_name.prefix: must not be empty");
  }

  @Test
  void malformedRulesAreRefusedWithTheirPath() {
    assertThat(refusal("rules: { policies: { p: { principals: [ { any: true } ] } } }"))
        .isEqualTo(POLICY + ".permissions: at least one permission is required");
    assertThat(refusal("rules: { policies: { p: { permissions: [ { any: true } ] } } }"))
        .isEqualTo(POLICY + ".principals: at least one principal is required");
    assertThat(refusal(policy("{}", "{ any: true }"))).startsWith(POLICY + ".permissions[0]: a permission rule is required");
    assertThat(refusal(policy("{ any: true }", "{}"))).startsWith(POLICY + ".principals[0]: a principal identifier is required");
    assertThat(refusal(policy("{ any: false }", "{ any: true }"))).isEqualTo(POLICY + ".permissions[0].any: must be true");
    assertThat(refusal(policy("{ and_rules: {} }", "{ any: true }")))
        .isEqualTo(POLICY + ".permissions[0].and_rules.rules: at least one rule is required");
    assertThat(refusal(policy("{ any: true }", "{ or_ids: {} }")))
        .isEqualTo(POLICY + ".principals[0].or_ids.ids: at least one id is required");
    assertThat(refusal(policy("{ destination_port: 70000 }", "{ any: true }")))
        .isEqualTo(POLICY + ".permissions[0].destination_port: must be at most 65535, not 70000");
    assertThat(refusal(policy("{ destination_port_range: { start: 90, end: 80 } }", "{ any: true }")))
        .startsWith(POLICY + ".permissions[0].destination_port_range: must be a port range");
    assertThat(refusal(policy("{ url_path: {} }", "{ any: true }")))
        .isEqualTo(POLICY + ".permissions[0].url_path.path: path is required");
    assertThat(refusal(policy("{ url_path: { path: { safe_regex: { regex: \"(\" } } } }", "{ any: true }")))
        .startsWith(POLICY + ".permissions[0].url_path.path.safe_regex.regex: invalid regular expression");
    assertThat(refusal(policy("{ header: { name: \"\" } }", "{ any: true }")))
        .startsWith(POLICY + ".permissions[0].header.name: ");
    assertThat(refusal(policy("{ any: true }", "{ remote_ip: { address_prefix: 10.0.0.1 } }")))
        .startsWith(POLICY + ".principals[0].remote_ip.prefix_len: prefix_len is required");
    assertThat(refusal(policy("{ any: true }", "{ direct_remote_ip: { address_prefix: 10.0.0.0, prefix_len: 33 } }")))
        .isEqualTo(POLICY + ".principals[0].direct_remote_ip.prefix_len: must be at most 32 for 10.0.0.0");
    assertThat(refusal(policy("{ any: true }", "{ source_ip: { address_prefix: backend.local, prefix_len: 8 } }")))
        .isEqualTo(POLICY + ".principals[0].source_ip.address_prefix: \"backend.local\" is not an IP address");
    assertThat(refusal("rules_stat_prefix: \"a b\""))
        .isEqualTo(FILTER + ".rules_stat_prefix: must not contain whitespace or control characters");
  }

  @Test
  void aPerRouteRefusalNamesTheRoutesField() {
    String message;
    try {
      withFilter(policy("{ any: true }", "{ any: true }")).routes("""
          - match: { prefix: "/" }
            route: { cluster: backend }
            typed_per_filter_config:
              envoy.filters.http.rbac:
                "@type": %s
                rbac: { rules: { policies: { p: { permissions: [ { any: true } ], principals: [ { filter_state: { key: k } } ] } } } }
          """.formatted(PER_ROUTE_TYPE)).translate();
      throw new AssertionError("accepted");
    } catch (ConfigException e) {
      message = e.getMessage();
    }
    assertThat(message).startsWith(BootstrapYaml.ROUTE
        + ".typed_per_filter_config[\"envoy.filters.http.rbac\"].rbac.rules.policies[\"p\"].principals[0].filter_state: ");
  }
}
