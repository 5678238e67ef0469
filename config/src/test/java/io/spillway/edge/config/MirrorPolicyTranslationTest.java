package io.spillway.edge.config;

import static io.spillway.edge.config.BootstrapYaml.ROUTE;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A route action's request_mirror_policies: cluster or cluster_header, runtime_fraction,
 * disable_shadow_host_suffix_append, and every rejection with its path.
 */
class MirrorPolicyTranslationTest {

  private static final String AT = ROUTE + ".route.request_mirror_policies";

  private static BootstrapYaml route(String policies) {
    return BootstrapYaml.minimal().routes("""
        - match: {prefix: "/"}
          route:
            cluster: backend
            request_mirror_policies:
        %s
        """.formatted(policies.indent(6).stripTrailing())).clusters("""
        - name: backend
          load_assignment: {cluster_name: backend, endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 8080}}}}]}]}
        - name: mirror
          load_assignment: {cluster_name: mirror, endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 8081}}}}]}]}
        """);
  }

  private static List<Route.MirrorPolicy> policies(String yaml) throws ConfigException {
    Route r = route(yaml).translate().listeners().get(0).hcm().routeConfig().virtualHosts().get(0).routes().get(0);
    return ((Route.RouteAction) r.action()).mirrorPolicies();
  }

  @Test
  void readsEveryField() throws ConfigException {
    assertThat(policies("""
        - cluster: mirror
        - cluster_header: X-Mirror-To
          runtime_fraction: {default_value: {numerator: 25, denominator: HUNDRED}, runtime_key: mirror.share}
          disable_shadow_host_suffix_append: true
        """)).containsExactly(
        new Route.MirrorPolicy("mirror", "", RuntimeFraction.ALWAYS, true),
        new Route.MirrorPolicy("", "x-mirror-to", new RuntimeFraction("mirror.share", 250_000), false));
  }

  @Test
  void aRouteWithoutPoliciesHasNone() throws ConfigException {
    Route r = BootstrapYaml.minimal().translate().listeners().get(0).hcm().routeConfig().virtualHosts().get(0)
        .routes().get(0);
    assertThat(((Route.RouteAction) r.action()).mirrorPolicies()).isEmpty();
  }

  @Test
  void rejectsWithThePath() {
    route("- runtime_fraction: {default_value: {numerator: 1}}\n")
        .rejects(AT + "[0]: one of cluster or cluster_header is required");
    route("- {cluster: mirror, cluster_header: x-m}\n")
        .rejects(AT + "[0]: only one of cluster and cluster_header may be set");
    route("- cluster: mirror\n- cluster: nowhere\n")
        .rejects(AT + "[1].cluster: unknown cluster \"nowhere\" (no cluster of that name is configured)");
    route("- cluster_header: \"bad header\"\n")
        .rejects(AT + "[0].cluster_header: \"bad header\" is not a valid header name");
    route("- {cluster: mirror, runtime_fraction: {runtime_key: k}}\n")
        .rejects(AT + "[0].runtime_fraction.default_value: default_value is required");
    route("- {cluster: mirror, trace_sampled: true}\n")
        .rejects(AT + "[0].trace_sampled: trace_sampled is not supported yet");
  }
}
