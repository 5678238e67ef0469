package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.ClusterConfig.LbPolicy;
import io.spillway.edge.config.ClusterConfig.WeightedRoundRobin;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoadBalancingTranslationTest {
  private static final String CLUSTER_0 = "static_resources.clusters[0]";
  private static final String TYPE = "type.googleapis.com/envoy.extensions.load_balancing_policies.";

  private static ClusterConfig cluster(String yaml) throws ConfigException {
    return BootstrapYaml.minimal().clusters(yaml).translate().clusters().get("backend");
  }

  private static String policy(String type, String config) {
    return """
        - name: backend
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
  void clientSideWeightedRoundRobinWithEveryField() throws ConfigException {
    ClusterConfig c = cluster(policy("client_side_weighted_round_robin.v3.ClientSideWeightedRoundRobin", """
        enable_oob_load_report: false
                  blackout_period: 2s
                  weight_expiration_period: 60s
                  weight_update_period: 0.5s
                  error_utilization_penalty: 1.5
                  metric_names_for_computing_utilization: [named_metrics.queue, utilization.disk]"""));
    assertThat(c.lbPolicy()).isEqualTo(LbPolicy.CLIENT_SIDE_WEIGHTED_ROUND_ROBIN);
    assertThat(c.lb().weightedRoundRobin()).isEqualTo(new WeightedRoundRobin(Duration.ofSeconds(2),
        Duration.ofSeconds(60), Duration.ofMillis(500), 1.5, List.of("named_metrics.queue", "utilization.disk")));
    assertThat(c.lb().wantsLoadReports()).isTrue();
  }

  @Test
  void clientSideWeightedRoundRobinDefaultsAreEnvoys() throws ConfigException {
    ClusterConfig c = cluster(policy("client_side_weighted_round_robin.v3.ClientSideWeightedRoundRobin",
        "weight_update_period: 0.01s"));
    assertThat(c.lb().weightedRoundRobin()).isEqualTo(new WeightedRoundRobin(Duration.ofSeconds(10),
        Duration.ofMinutes(3), Duration.ofMillis(100), 1.0, List.of()));
  }

  @Test
  void typedPoliciesMeanTheSameAsTheEnum() throws ConfigException {
    assertThat(cluster(policy("round_robin.v3.RoundRobin", "")).lbPolicy()).isEqualTo(LbPolicy.ROUND_ROBIN);
    assertThat(cluster(policy("random.v3.Random", "")).lbPolicy()).isEqualTo(LbPolicy.RANDOM);
    ClusterConfig lr = cluster(policy("least_request.v3.LeastRequest",
        "choice_count: 4\n          active_request_bias: {default_value: 0.5}"));
    assertThat(lr.lbPolicy()).isEqualTo(LbPolicy.LEAST_REQUEST);
    assertThat(lr.leastRequestChoiceCount()).isEqualTo(4);
    assertThat(lr.lb().activeRequestBias()).isEqualTo(0.5);
    assertThat(lr.lb().wantsLoadReports()).isFalse();
  }

  @Test
  void fullScanFromTheSelectionMethodOrTheDeprecatedFlag() throws ConfigException {
    String lr = "least_request.v3.LeastRequest";
    assertThat(cluster(policy(lr, "selection_method: FULL_SCAN")).leastRequestChoiceCount())
        .isEqualTo(ClusterConfig.LEAST_REQUEST_FULL_SCAN);
    assertThat(cluster(policy(lr, "enable_full_scan: true")).leastRequestChoiceCount())
        .isEqualTo(ClusterConfig.LEAST_REQUEST_FULL_SCAN);
    // Envoy reads the deprecated flag only while no selection method is set, and ignores the
    // choice count under a full scan.
    assertThat(cluster(policy(lr, "selection_method: N_CHOICES\n          choice_count: 3")).leastRequestChoiceCount())
        .isEqualTo(3);
    assertThat(cluster(policy(lr, "enable_full_scan: false")).leastRequestChoiceCount()).isEqualTo(2);
    assertThat(cluster(policy(lr, "selection_method: FULL_SCAN\n          choice_count: 3")).leastRequestChoiceCount())
        .isEqualTo(ClusterConfig.LEAST_REQUEST_FULL_SCAN);
  }

  @Test
  void theFirstPolicyIsTakenAsEnvoyDoes() throws ConfigException {
    ClusterConfig c = cluster("""
        - name: backend
          load_balancing_policy:
            policies:
            - typed_extension_config:
                name: lr
                typed_config: {"@type": %sleast_request.v3.LeastRequest}
            - typed_extension_config:
                name: random
                typed_config: {"@type": %srandom.v3.Random}
        """.formatted(TYPE, TYPE));
    assertThat(c.lbPolicy()).isEqualTo(LbPolicy.LEAST_REQUEST);
  }

  @Test
  void slowStartInEveryPlaceEnvoyTakesIt() throws ConfigException {
    ClusterConfig rr = cluster("""
        - name: backend
          round_robin_lb_config: {slow_start_config: {slow_start_window: 30s}}
        """);
    assertThat(rr.lb().slowStart()).isEqualTo(new ClusterConfig.SlowStart(Duration.ofSeconds(30), 1.0, 10.0));
    ClusterConfig lr = cluster("""
        - name: backend
          lb_policy: LEAST_REQUEST
          least_request_lb_config:
            slow_start_config: {slow_start_window: 5s, aggression: {default_value: 2}, min_weight_percent: {value: 25}}
        """);
    assertThat(lr.lb().slowStart()).isEqualTo(new ClusterConfig.SlowStart(Duration.ofSeconds(5), 2.0, 25.0));
    ClusterConfig typed = cluster(policy("round_robin.v3.RoundRobin",
        "slow_start_config: {slow_start_window: 2s, aggression: {default_value: 1.5}}"));
    assertThat(typed.lb().slowStart()).isEqualTo(new ClusterConfig.SlowStart(Duration.ofSeconds(2), 1.5, 10.0));
    ClusterConfig typedLr = cluster(policy("least_request.v3.LeastRequest",
        "slow_start_config: {slow_start_window: 3s, min_weight_percent: {value: 0}}"));
    assertThat(typedLr.lb().slowStart()).isEqualTo(new ClusterConfig.SlowStart(Duration.ofSeconds(3), 1.0, 0.0));
  }

  @Test
  void activeRequestBiasOnTheClusterField() throws ConfigException {
    ClusterConfig c = cluster("""
        - name: backend
          lb_policy: LEAST_REQUEST
          least_request_lb_config: {active_request_bias: {default_value: 2, runtime_key: ""}}
        """);
    assertThat(c.lb().activeRequestBias()).isEqualTo(2.0);
    assertThat(cluster("- {name: backend, lb_policy: LEAST_REQUEST}\n").lb().activeRequestBias()).isEqualTo(1.0);
  }

  @Test
  void unsupportedSettingsAreRejectedWithTheirPath() {
    String cswrr = "client_side_weighted_round_robin.v3.ClientSideWeightedRoundRobin";
    String typed = CLUSTER_0 + ".load_balancing_policy.policies[0].typed_extension_config.typed_config";
    BootstrapYaml.minimal().clusters(policy(cswrr, "enable_oob_load_report: true"))
        .rejects(typed + ".enable_oob_load_report: out-of-band load reports (the ORCA stream) are not supported yet;"
            + " weights come from the load reports on responses");
    BootstrapYaml.minimal().clusters(policy(cswrr, "oob_reporting_period: 5s"))
        .rejects(typed + ".oob_reporting_period: oob_reporting_period is not supported yet");
    BootstrapYaml.minimal().clusters(policy(cswrr, "metric_names_for_computing_utilization: [queue]"))
        .rejects(typed + ".metric_names_for_computing_utilization[0]: \"queue\" is not an ORCA metric: use"
            + " named_metrics.<name>, utilization.<name>, cpu_utilization or mem_utilization");
    BootstrapYaml.minimal().clusters(policy(cswrr, "weight_expiration_period: 0s"))
        .rejects(typed + ".weight_expiration_period: must be greater than 0");
    BootstrapYaml.minimal().clusters(policy("round_robin.v3.RoundRobin", "slow_start_config: {aggression: {default_value: 2}}"))
        .rejects(typed + ".slow_start_config.slow_start_window: is required (slow start lasts that long)");
    BootstrapYaml.minimal().clusters(policy("round_robin.v3.RoundRobin",
            "slow_start_config: {slow_start_window: 1s, aggression: {default_value: 0}}"))
        .rejects(typed + ".slow_start_config.aggression.default_value: must be greater than 0");
    BootstrapYaml.minimal().clusters(policy("least_request.v3.LeastRequest",
            "slow_start_config: {slow_start_window: 1s, min_weight_percent: {value: 150}}"))
        .rejects(typed + ".slow_start_config.min_weight_percent.value: must be within [0, 100]");
    BootstrapYaml.minimal().clusters("""
        - name: backend
          lb_policy: RANDOM
          round_robin_lb_config: {slow_start_config: {slow_start_window: 5s}}
        """).rejects(CLUSTER_0 + ".round_robin_lb_config: is only for lb_policy ROUND_ROBIN");
    BootstrapYaml.minimal().clusters(policy("least_request.v3.LeastRequest",
            "active_request_bias: {default_value: 1, runtime_key: lb.bias}"))
        .rejects(typed + ".active_request_bias.runtime_key: runtime overrides are not supported; set default_value"
            + " only");
    BootstrapYaml.minimal().clusters("""
        - name: backend
          load_balancing_policy:
            policies:
            - typed_extension_config:
                name: pick_first
                typed_config: {"@type": %spick_first.v3.PickFirst}
        """.formatted(TYPE))
        .rejects(CLUSTER_0 + ".load_balancing_policy.policies[0].typed_extension_config.typed_config: unknown @type \""
            + TYPE + "pick_first.v3.PickFirst\" (not an extension Spillway supports)");
    BootstrapYaml.minimal().clusters("""
        - name: backend
          load_balancing_policy:
            policies:
            - typed_extension_config:
                name: router
                typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}
        """).rejects(CLUSTER_0 + ".load_balancing_policy.policies[0].typed_extension_config.typed_config:"
            + " envoy.extensions.filters.http.router.v3.Router (envoy.filters.http.router) cannot be used here:"
            + " expected a load balancing policy");
    BootstrapYaml.minimal().clusters("""
        - name: backend
          least_request_lb_config: {choice_count: 3}
          load_balancing_policy:
            policies:
            - typed_extension_config: {name: rr, typed_config: {"@type": %sround_robin.v3.RoundRobin}}
        """.formatted(TYPE))
        .rejects(CLUSTER_0 + ".least_request_lb_config: least_request_lb_config cannot be combined with"
            + " load_balancing_policy; configure the policy's typed_extension_config instead");
    BootstrapYaml.minimal().clusters("""
        - name: backend
          lb_policy: LEAST_REQUEST
          least_request_lb_config: {active_request_bias: {default_value: -1}}
        """).rejects(CLUSTER_0 + ".least_request_lb_config.active_request_bias.default_value: must be a finite"
            + " number, 0 or more");
  }
}
