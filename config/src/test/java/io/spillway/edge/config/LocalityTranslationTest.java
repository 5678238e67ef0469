package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.ClusterConfig.Endpoint;
import io.spillway.edge.config.ClusterConfig.LbPolicy;
import io.spillway.edge.config.ClusterConfig.Locality;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Priorities, localities, the assignment policy and the locality configs: what is taken and what is refused. */
class LocalityTranslationTest {
  private static final String CLUSTER_0 = "static_resources.clusters[0]";
  private static final String TYPE = "type.googleapis.com/envoy.extensions.load_balancing_policies.";

  private static final String TWO_PRIORITIES = """
        load_assignment:
          cluster_name: backend
          policy: {overprovisioning_factor: 120, weighted_priority_health: true}
          endpoints:
          - locality: {region: eu, zone: a, sub_zone: r1}
            load_balancing_weight: 3
            lb_endpoints:
            - endpoint: {address: {socket_address: {address: 10.0.0.1, port_value: 80}}}
              load_balancing_weight: 2
          - locality: {region: eu, zone: b}
            lb_endpoints:
            - endpoint: {address: {socket_address: {address: 10.0.0.2, port_value: 80}}}
          - locality: {region: eu, zone: a, sub_zone: r1}
            priority: 1
            lb_endpoints:
            - endpoint: {address: {socket_address: {address: 10.0.1.1, port_value: 80}}}
        """;

  private static ClusterConfig cluster(String yaml) throws ConfigException {
    return BootstrapYaml.minimal().clusters(yaml).translate().clusters().get("backend");
  }

  private static String staticCluster(String lb, String assignment) {
    return "- name: backend\n  type: STATIC\n" + indent(lb) + "\n" + indent(assignment);
  }

  private static String indent(String text) {
    return text.strip().isEmpty() ? "" : text.stripTrailing().replaceAll("(?m)^", "  ");
  }

  private static String typed(String type, String config) {
    return """
        load_balancing_policy:
          policies:
          - typed_extension_config:
              name: lb
              typed_config:
                "@type": %s%s
                %s
        """.formatted(TYPE, type, config);
  }

  @Test
  void prioritiesLocalitiesWeightsAndThePolicyAreTaken() throws ConfigException {
    ClusterConfig c = cluster(staticCluster("lb_policy: ROUND_ROBIN\ncommon_lb_config: {locality_weighted_lb_config: {}}",
        TWO_PRIORITIES));
    Locality a = new Locality("eu", "a", "r1");
    assertThat(c.endpoints()).containsExactly(
        new Endpoint(new SocketAddress("10.0.0.1", 80), 2, "", 0, a, 3),
        new Endpoint(new SocketAddress("10.0.0.2", 80), 1, "", 0, new Locality("eu", "b", ""), 0),
        new Endpoint(new SocketAddress("10.0.1.1", 80), 1, "", 1, a, 0));
    assertThat(c.assignmentPolicy()).isEqualTo(new ClusterConfig.AssignmentPolicy(120, true));
    assertThat(c.lb().localityWeighted()).isTrue();
  }

  @Test
  void withoutAPolicyTheFactorIs140() throws ConfigException {
    ClusterConfig c = cluster(staticCluster("lb_policy: LEAST_REQUEST", """
        load_assignment:
          endpoints:
          - lb_endpoints:
            - endpoint: {address: {socket_address: {address: 10.0.0.1, port_value: 80}}}
        """));
    assertThat(c.assignmentPolicy()).isEqualTo(ClusterConfig.AssignmentPolicy.DEFAULTS);
    assertThat(c.assignmentPolicy().overprovisioningFactor()).isEqualTo(140);
    assertThat(c.lb().localityWeighted()).isFalse();
  }

  @Test
  void typedPoliciesTakeLocalityWeightingFromTheirLocalityLbConfig() throws ConfigException {
    for (String type : List.of("round_robin.v3.RoundRobin", "least_request.v3.LeastRequest", "random.v3.Random")) {
      ClusterConfig c = cluster(staticCluster(typed(type, "locality_lb_config: {locality_weighted_lb_config: {}}"),
          TWO_PRIORITIES));
      assertThat(c.lb().localityWeighted()).as(type).isTrue();
    }
    assertThat(cluster(staticCluster(typed("random.v3.Random", ""), TWO_PRIORITIES)).lb().localityWeighted())
        .isFalse();
  }

  @Test
  void ringHashAndMaglevTakePrioritiesButNotLocalityWeightsYet() throws ConfigException {
    assertThat(cluster(staticCluster("lb_policy: MAGLEV", TWO_PRIORITIES)).lbPolicy()).isEqualTo(LbPolicy.MAGLEV);
    BootstrapYaml.minimal().clusters(staticCluster(
        "lb_policy: RING_HASH\ncommon_lb_config: {locality_weighted_lb_config: {}}", TWO_PRIORITIES))
        .rejects(CLUSTER_0 + ".common_lb_config.locality_weighted_lb_config: locality weighted balancing is not"
            + " supported yet for RING_HASH (Envoy scales the ring or table weights by locality weight)");
    BootstrapYaml.minimal().clusters(staticCluster(typed("maglev.v3.Maglev", "locality_weighted_lb_config: {}"),
        TWO_PRIORITIES))
        .rejects(CLUSTER_0 + ".load_balancing_policy.policies[0].typed_extension_config.typed_config"
            + ".locality_weighted_lb_config: locality_weighted_lb_config is not supported yet");
  }

  @Test
  void zoneAwareRoutingIsRefusedWhereverItIsSet() {
    BootstrapYaml.minimal().clusters(staticCluster("common_lb_config: {zone_aware_lb_config: {}}", TWO_PRIORITIES))
        .rejects(CLUSTER_0 + ".common_lb_config.zone_aware_lb_config: " + LoadBalancingTranslator.ZONE_AWARE_REFUSED);
    BootstrapYaml.minimal().clusters(staticCluster(typed("round_robin.v3.RoundRobin",
        "locality_lb_config: {zone_aware_lb_config: {min_cluster_size: 3}}"), TWO_PRIORITIES))
        .rejects(CLUSTER_0 + ".load_balancing_policy.policies[0].typed_extension_config.typed_config"
            + ".locality_lb_config.zone_aware_lb_config: " + LoadBalancingTranslator.ZONE_AWARE_REFUSED);
  }

  @Test
  void theCommonLocalityConfigBesideALoadBalancingPolicyIsRefused() {
    BootstrapYaml.minimal().clusters(staticCluster(typed("round_robin.v3.RoundRobin", "")
        + "common_lb_config: {locality_weighted_lb_config: {}}", TWO_PRIORITIES))
        .rejects(CLUSTER_0 + ".common_lb_config.locality_weighted_lb_config: cannot be combined with"
            + " load_balancing_policy; set locality_lb_config: {locality_weighted_lb_config: {}} in the policy's"
            + " typed_config");
  }

  @Test
  void prioritiesUnderPoliciesWithOneScheduleAreRefused() {
    BootstrapYaml.minimal().clusters(staticCluster(typed(
        "client_side_weighted_round_robin.v3.ClientSideWeightedRoundRobin", ""), TWO_PRIORITIES))
        .rejects(CLUSTER_0 + ".load_assignment.endpoints[2].priority: priority 1 is not supported for cluster"
            + " \"backend\": its CLIENT_SIDE_WEIGHTED_ROUND_ROBIN policy balances one host set (priority 0 only);"
            + " use ROUND_ROBIN, LEAST_REQUEST, RANDOM, RING_HASH or MAGLEV for priority levels");
  }

  @Test
  void badValuesAreRefusedWithTheirPath() {
    String locality = """
        load_assignment:
          %s
          endpoints:
          - %s
            lb_endpoints:
            - endpoint: {address: {socket_address: {address: 10.0.0.1, port_value: 80}}}
        """;
    BootstrapYaml.minimal().clusters(staticCluster("", locality.formatted("", "load_balancing_weight: 0")))
        .rejects(CLUSTER_0 + ".load_assignment.endpoints[0].load_balancing_weight: must be at least 1");
    BootstrapYaml.minimal().clusters(staticCluster("", locality.formatted("policy: {overprovisioning_factor: 0}",
        "priority: 0")))
        .rejects(CLUSTER_0 + ".load_assignment.policy.overprovisioning_factor: must be at least 1");
    BootstrapYaml.minimal().clusters(staticCluster("", locality.formatted(
        "policy: {drop_overloads: [{category: lb, drop_percentage: {numerator: 5}}]}", "priority: 0")))
        .rejects(CLUSTER_0 + ".load_assignment.policy.drop_overloads: drop_overloads is not supported");
    BootstrapYaml.minimal().clusters(staticCluster("", locality.formatted("policy: {endpoint_stale_after: 5s}",
        "priority: 0")))
        .rejects(CLUSTER_0 + ".load_assignment.policy.endpoint_stale_after: endpoint_stale_after is not supported");
    BootstrapYaml.minimal().clusters(staticCluster("", """
        load_assignment:
          endpoints:
          - locality: {zone: a}
            lb_endpoints: []
          - locality: {zone: a}
            lb_endpoints: []
        """))
        .rejects(CLUSTER_0 + ".load_assignment.endpoints[1].locality: locality {region: \"\", zone: \"a\", sub_zone:"
            + " \"\"} already has endpoints at priority 0 in " + CLUSTER_0 + ".load_assignment.endpoints[0]; list"
            + " each locality once per priority");
  }

  @Test
  void edsAssignmentsCarryPrioritiesAndThePolicy() throws ConfigException {
    var assignment = io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment.newBuilder()
        .setClusterName("svc")
        .setPolicy(io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment.Policy.newBuilder()
            .setOverprovisioningFactor(com.google.protobuf.UInt32Value.of(100)))
        .addEndpoints(io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints.newBuilder()
            .setPriority(2)
            .setLoadBalancingWeight(com.google.protobuf.UInt32Value.of(5))
            .setLocality(io.envoyproxy.envoy.config.core.v3.Locality.newBuilder().setZone("z"))
            .addLbEndpoints(io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint.newBuilder()
                .setEndpoint(io.envoyproxy.envoy.config.endpoint.v3.Endpoint.newBuilder()
                    .setAddress(io.envoyproxy.envoy.config.core.v3.Address.newBuilder()
                        .setSocketAddress(io.envoyproxy.envoy.config.core.v3.SocketAddress.newBuilder()
                            .setAddress("10.0.0.9").setPortValue(81))))))
        .build();
    ClusterConfig.LoadAssignment la = new XdsResourceTranslator(ExtensionRegistry.standard()).endpoints(assignment);
    assertThat(la.policy().overprovisioningFactor()).isEqualTo(100);
    assertThat(la.endpoints()).containsExactly(new Endpoint(new SocketAddress("10.0.0.9", 81), 1, "", 2,
        new Locality("", "z", ""), 5));
  }

  @Test
  void healthStatusIsReadAsEnvoysHostsReadIt() throws ConfigException {
    StringBuilder endpoints = new StringBuilder();
    String[] statuses = {"UNKNOWN", "HEALTHY", "DEGRADED", "UNHEALTHY", "TIMEOUT", "DRAINING"};
    for (int i = 0; i < statuses.length; i++) {
      endpoints.append("    - endpoint: {address: {socket_address: {address: 10.0.0.").append(i + 1)
          .append(", port_value: 80}}}\n      health_status: ").append(statuses[i]).append('\n');
    }
    ClusterConfig c = cluster(staticCluster("", """
        load_assignment:
          cluster_name: backend
          endpoints:
          - lb_endpoints:
        """ + endpoints));
    assertThat(c.endpoints()).extracting(ClusterConfig.Endpoint::health).containsExactly(
        ClusterConfig.EndpointHealth.HEALTHY, ClusterConfig.EndpointHealth.HEALTHY,
        ClusterConfig.EndpointHealth.DEGRADED, ClusterConfig.EndpointHealth.UNHEALTHY,
        ClusterConfig.EndpointHealth.UNHEALTHY, ClusterConfig.EndpointHealth.DRAINING);
  }
}
