package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spillway.edge.config.ClusterConfig.LbPolicy;
import io.spillway.edge.config.PressureConfig.Dimensions;
import io.spillway.edge.config.PressureConfig.Normalization;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PressureTranslationTest {
  private static final String CONFIG = "static_resources.clusters[0].load_balancing_policy.policies[0]"
      + ".typed_extension_config.typed_config";

  private static ClusterConfig cluster(String fields) throws ConfigException {
    return BootstrapYaml.minimal().clusters("""
        - name: backend
          load_balancing_policy:
            policies:
            - typed_extension_config:
                name: spillway.load_balancing_policies.pressure
                typed_config:
                  "@type": type.googleapis.com/spillway.edge.lb.v1.Pressure
        %s""".formatted(fields.indent(10))).translate().clusters().get("backend");
  }

  private static void refused(String fields, String path, String message) {
    assertThatThrownBy(() -> cluster(fields)).isInstanceOf(ConfigException.class)
        .hasMessageContaining(CONFIG + path).hasMessageContaining(message);
  }

  @Test
  void defaults() throws ConfigException {
    ClusterConfig c = cluster("");
    assertThat(c.lbPolicy()).isEqualTo(LbPolicy.PRESSURE);
    PressureConfig p = c.lb().pressure();
    assertThat(p).isEqualTo(PressureConfig.builder().build());
    assertThat(p.normalization()).isEqualTo(Normalization.MAX);
    assertThat(p.dimensions()).isEqualTo(Dimensions.BALANCED);
    assertThat(p.ejectThreshold()).isEqualTo(0.8);
    assertThat(p.returnThreshold()).isEqualTo(0.6);
    assertThat(p.blackoutPeriod()).isEqualTo(Duration.ofSeconds(10));
    assertThat(p.expirationPeriod()).isEqualTo(Duration.ofMinutes(3));
    assertThat(p.maxEjectionPercent()).isEqualTo(10);
    assertThat(c.lb().wantsLoadReports()).isTrue();
  }

  @Test
  void everyField() throws ConfigException {
    PressureConfig p = cluster("""
        normalization: WEIGHTED_SUM
        preset: IO_BOUND
        dimensions: {cpu: 0.4, connections: 0.3, latency: 0.2, errors: 0.1, named_metrics: {queue: 0.5}}
        capacity: 50
        smoothing_time_constant: 2s
        peak_sensitive: true
        weight_update_period: 0.01s
        blackout_period: 0s
        weight_expiration_period: 30s
        eject_threshold: 0.9
        return_threshold: 0.5
        eject_after_updates: 5
        base_ejection_time: 10s
        max_ejection_time: 60s
        max_ejection_percent: 34
        panic_threshold_percent: 20
        slow_start_window: 0s
        """).lb().pressure();
    assertThat(p).isEqualTo(PressureConfig.builder().normalization(Normalization.WEIGHTED_SUM)
        .dimensions(new Dimensions(0.4, 0, 0, Map.of("queue", 0.5), 0.3, 0.2, 0.1))
        .capacity(50).smoothingTimeConstant(Duration.ofSeconds(2)).peakSensitive(true)
        .weightUpdatePeriod(Duration.ofMillis(100)) // raised to the minimum
        .blackoutPeriod(Duration.ZERO).expirationPeriod(Duration.ofSeconds(30))
        .ejectThreshold(0.9).returnThreshold(0.5).ejectAfterUpdates(5)
        .baseEjectionTime(Duration.ofSeconds(10)).maxEjectionTime(Duration.ofSeconds(60))
        .maxEjectionPercent(34).panicThresholdPercent(20).slowStart(null).build());
  }

  @Test
  void presetsSetTheDimensions() throws ConfigException {
    assertThat(cluster("preset: GATEWAY").lb().pressure().dimensions()).isEqualTo(Dimensions.GATEWAY);
    assertThat(cluster("preset: COMPUTE_BOUND").lb().pressure().dimensions()).isEqualTo(Dimensions.COMPUTE_BOUND);
    ClusterConfig local = cluster("dimensions: {connections: 1, latency: 1}");
    assertThat(local.lb().wantsLoadReports()).isFalse(); // no ORCA dimension: reports are not even kept
  }

  @Test
  void badValuesAreRefusedWithTheirPath() {
    refused("eject_threshold: 1.5", ".eject_threshold.value", "within (0, 1]");
    refused("return_threshold: 0.9", ".return_threshold.value", "must be within [0, eject_threshold (0.8)]");
    refused("dimensions: {cpu: -1}", ".dimensions.cpu", "finite number");
    refused("dimensions: {named_metrics: {q: -0.5}}", ".dimensions.named_metrics.q", "finite number");
    refused("dimensions: {cpu: 0}", ".dimensions", "at least one dimension");
    refused("capacity: 0", ".capacity", "at least 1");
    refused("smoothing_time_constant: 0s", ".smoothing_time_constant", "greater than 0");
    refused("eject_after_updates: 0", ".eject_after_updates", "at least 1");
    refused("base_ejection_time: 60s\nmax_ejection_time: 30s", ".max_ejection_time", "must not be less than");
    refused("max_ejection_percent: 101", ".max_ejection_percent.value", "[0, 100]");
    refused("panic_threshold_percent: 200", ".panic_threshold_percent.value", "[0, 100]");
    refused("slow_start_aggression: 0", ".slow_start_aggression.value", "greater than 0");
    refused("slow_start_min_weight_percent: 120", ".slow_start_min_weight_percent.value", "[0, 100]");
    refused("blackout_period: -1s", ".blackout_period", "negative");
  }

  @Test
  void theDefaultReturnThresholdFollowsALowEjectThreshold() throws ConfigException {
    PressureConfig p = cluster("eject_threshold: 0.5").lb().pressure();
    assertThat(p.returnThreshold()).isEqualTo(0.5);
  }

  @Test
  void anUnknownFieldIsRefused() {
    assertThatThrownBy(() -> cluster("eject_treshold: 0.9")).isInstanceOf(ConfigException.class)
        .hasMessageContaining("eject_treshold");
  }
}
