package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spillway.edge.config.ClusterConfig.LbPolicy;
import io.spillway.edge.config.PressureConfig.Dimensions;
import io.spillway.edge.config.PressureConfig.Normalization;
import io.spillway.edge.config.MetricsPollerConfig.Dimension;
import io.spillway.edge.config.MetricsPollerConfig.Mapping;
import java.time.Duration;
import java.util.List;
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

  private static final String POLLER = """
      dimensions: {cpu: 1, memory: 1, connections: 1, named_metrics: {queue: 0.5}}
      metrics_poller:
        path: /metrics
        format: PROMETHEUS
        metrics:
        - {dimension: cpu, metric: process_cpu_percent, max: 100}
      """;

  @Test
  void theMetricsPollerIsOptionalAndTranslatedWithItsDefaults() throws ConfigException {
    assertThat(cluster("").lb().pressure().poller()).isNull();
    MetricsPollerConfig p = cluster(POLLER).lb().pressure().poller();
    assertThat(p).isEqualTo(new MetricsPollerConfig("/metrics", "", Duration.ofSeconds(5), Duration.ofSeconds(1),
        MetricsPollerConfig.Format.PROMETHEUS,
        List.of(new Mapping(Dimension.CPU, "", "process_cpu_percent", Map.of(), 100))));
  }

  @Test
  void everyPollerField() throws ConfigException {
    MetricsPollerConfig p = cluster("""
        dimensions: {cpu: 1, memory: 1, application: 1, named_metrics: {queue: 0.5}}
        metrics_poller:
          path: /stats?format=json
          host: backend.internal
          interval: 1.5s
          timeout: {seconds: 0, nanos: 250000000}
          format: JSON
          metrics:
          - {dimension: memory, metric: jvm.heap.used_ratio}
          - {dimension: named_metrics.queue, metric: "pool.queue", max: 64}
          - {dimension: application, metric: load}
        """).lb().pressure().poller();
    assertThat(p).isEqualTo(new MetricsPollerConfig("/stats?format=json", "backend.internal", Duration.ofMillis(1500),
        Duration.ofMillis(250), MetricsPollerConfig.Format.JSON, List.of(
            new Mapping(Dimension.MEMORY, "", "jvm.heap.used_ratio", Map.of(), 1),
            new Mapping(Dimension.NAMED_METRIC, "queue", "pool.queue", Map.of(), 64),
            new Mapping(Dimension.APPLICATION, "", "load", Map.of(), 1))));
  }

  @Test
  void prometheusLabelMatchers() throws ConfigException {
    MetricsPollerConfig p = cluster(POLLER.replace("max: 100}", "max: 100, labels: {mode: user, core: all}}"))
        .lb().pressure().poller();
    assertThat(p.metrics().get(0).labels()).isEqualTo(Map.of("mode", "user", "core", "all"));
  }

  @Test
  void theTimeoutDefaultsToHalfAShortInterval() throws ConfigException {
    MetricsPollerConfig p = cluster(POLLER + "  interval: 1s\n").lb().pressure().poller();
    assertThat(p.timeout()).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void badPollerValuesAreRefusedWithTheirPath() {
    String m = ".metrics_poller";
    refused(POLLER + "  interval: 0.5s\n", m + ".interval", "must be within [1s, 10s], was 500ms");
    refused(POLLER + "  interval: 11s\n", m + ".interval", "must be within [1s, 10s], was 11s");
    refused(POLLER + "  interval: 0s\n", m + ".interval", "greater than 0");
    refused(POLLER + "  interval: 2s\n  timeout: 2s\n", m + ".timeout", "must be less than interval (2s)");
    refused(POLLER + "  timeout: 0s\n", m + ".timeout", "greater than 0");
    refused(POLLER.replace("path: /metrics", "path: metrics"), m + ".path", "must start with '/'");
    refused(POLLER.replace("path: /metrics", "path: \"/me trics\""), m + ".path", "visible ASCII");
    refused(POLLER.replace("  path: /metrics\n", ""), m + ".path", "required");
    refused(POLLER.replace("  format: PROMETHEUS\n", ""), m + ".format", "required: PROMETHEUS or JSON");
    refused(POLLER.replace("  metrics:\n  - {dimension: cpu, metric: process_cpu_percent, max: 100}\n", ""),
        m + ".metrics", "at least one metric");
    refused(POLLER.replace("dimension: cpu", "dimension: disk"), m + ".metrics[0].dimension",
        "unknown dimension 'disk'");
    refused(POLLER.replace("dimension: cpu", "dimension: connections"), m + ".metrics[0].dimension",
        "a named metric with a max");
    refused(POLLER.replace("dimension: cpu", "dimension: named_metrics."), m + ".metrics[0].dimension",
        "needs a metric name");
    refused(POLLER.replace("dimension: cpu", "dimension: named_metrics.threads"), m + ".metrics[0].dimension",
        "named_metrics.threads has no weight");
    refused(POLLER.replace("dimensions: {cpu: 1,", "dimensions: {"), m + ".metrics[0].dimension",
        "cpu has no weight");
    refused(POLLER.replace("metric: process_cpu_percent", "metric: process-cpu"), m + ".metrics[0].metric",
        "not a Prometheus metric name");
    refused(POLLER.replace("max: 100}", "max: 0}"), m + ".metrics[0].max.value", "finite number greater than 0");
    refused(POLLER.replace("max: 100}", "max: -1}"), m + ".metrics[0].max.value", "finite number greater than 0");
    refused(POLLER.replace("max: 100}", "max: 100, labels: {0core: all}}"), m + ".metrics[0].labels[\"0core\"]",
        "not a Prometheus label name");
    refused(POLLER + "  - {dimension: cpu, metric: other}\n", m + ".metrics[1].dimension",
        "cpu is fed by an earlier metric already");
    refused(POLLER.replace("PROMETHEUS", "JSON").replace("max: 100}", "max: 100, labels: {mode: user}}"),
        m + ".metrics[0].labels", "PROMETHEUS format only");
    refused(POLLER.replace("PROMETHEUS", "JSON").replace("metric: process_cpu_percent", "metric: a..b"),
        m + ".metrics[0].metric", "empty segment");
    refused(POLLER.replace("PROMETHEUS", "XML"), m + ".format", "");
  }

  @Test
  void anUnknownPollerFieldIsRefused() {
    assertThatThrownBy(() -> cluster(POLLER + "  intervall: 2s\n")).isInstanceOf(ConfigException.class)
        .hasMessageContaining("intervall");
  }
}
