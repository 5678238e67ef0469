package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.HostHealthConfig.HttpProbe;
import io.spillway.edge.config.HostHealthConfig.Outlier;
import io.spillway.edge.config.HostHealthConfig.StatusRange;
import io.spillway.edge.config.HostHealthConfig.TcpProbe;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class HostHealthTranslationTest {

  private static HostHealthConfig health(String yaml) throws ConfigException {
    return BootstrapYaml.minimal().clusters(yaml).translate().clusters().get("backend").hostHealth();
  }

  @Test
  void withoutHealthFieldsAClusterHasEnvoysDefaults() throws ConfigException {
    HostHealthConfig h = health("- {name: backend}\n");
    assertThat(h).isEqualTo(HostHealthConfig.NONE);
    assertThat(h.tracksHealth()).isFalse();
    assertThat(h.healthyPanicThreshold()).isEqualTo(50.0);
  }

  @Test
  void anHttpHealthCheckTakesEnvoysDefaultsForWhatIsUnset() throws ConfigException {
    HostHealthConfig h = health("""
        - name: backend
          health_checks:
          - timeout: 1s
            interval: 5s
            unhealthy_threshold: 3
            healthy_threshold: 0
            http_health_check: {path: /healthz}
        """);
    var check = h.healthCheck().orElseThrow();
    assertThat(check.timeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(check.interval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(check.unhealthyInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(check.unhealthyEdgeInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(check.healthyEdgeInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(check.noTrafficInterval()).isEqualTo(Duration.ofSeconds(60));
    assertThat(check.noTrafficHealthyInterval()).isEqualTo(Duration.ofSeconds(60));
    assertThat(check.healthyThreshold()).as("0 is taken as 1").isEqualTo(1);
    assertThat(check.reuseConnection()).isTrue();
    HttpProbe probe = (HttpProbe) check.probe();
    assertThat(probe.host()).as("the cluster's name").isEqualTo("backend");
    assertThat(probe.method()).isEqualTo("GET");
    assertThat(probe.http2()).isFalse();
    assertThat(probe.expectedStatuses()).containsExactly(new StatusRange(200, 201));
    assertThat(probe.expected(200)).isTrue();
    assertThat(probe.expected(204)).isFalse();
  }

  @Test
  void everySupportedHealthCheckFieldIsRead() throws ConfigException {
    HostHealthConfig h = health("""
        - name: backend
          health_checks:
          - timeout: 0.5s
            interval: 2s
            initial_jitter: 1s
            interval_jitter: 0.1s
            interval_jitter_percent: 20
            unhealthy_threshold: 2
            healthy_threshold: 3
            unhealthy_interval: 10s
            unhealthy_edge_interval: 1s
            healthy_edge_interval: 3s
            no_traffic_interval: 30s
            no_traffic_healthy_interval: 40s
            reuse_connection: false
            always_log_health_check_failures: true
            http_health_check:
              host: health.internal
              path: /ready
              method: HEAD
              codec_client_type: HTTP2
              expected_statuses: [{start: 200, end: 300}]
              retriable_statuses: [{start: 429, end: 430}]
              request_headers_to_add: [{header: {key: x-probe, value: "1"}}]
              request_headers_to_remove: [x-unwanted]
          common_lb_config: {healthy_panic_threshold: {value: 25}}
        """);
    var check = h.healthCheck().orElseThrow();
    assertThat(check.initialJitter()).isEqualTo(Duration.ofSeconds(1));
    assertThat(check.intervalJitter()).isEqualTo(Duration.ofMillis(100));
    assertThat(check.intervalJitterPercent()).isEqualTo(20);
    assertThat(check.unhealthyInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(check.unhealthyEdgeInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(check.healthyEdgeInterval()).isEqualTo(Duration.ofSeconds(3));
    assertThat(check.noTrafficHealthyInterval()).isEqualTo(Duration.ofSeconds(40));
    assertThat(check.reuseConnection()).isFalse();
    HttpProbe probe = (HttpProbe) check.probe();
    assertThat(probe.host()).isEqualTo("health.internal");
    assertThat(probe.method()).isEqualTo("HEAD");
    assertThat(probe.http2()).isTrue();
    assertThat(probe.expected(299)).isTrue();
    assertThat(probe.retriable(429)).isTrue();
    assertThat(probe.headers().add()).hasSize(1);
    assertThat(probe.headers().remove()).containsExactly("x-unwanted");
    assertThat(h.healthyPanicThreshold()).isEqualTo(25.0);
  }

  @Test
  void aTcpCheckReadsHexAndBinaryPayloads() throws ConfigException {
    HostHealthConfig h = health("""
        - name: backend
          health_checks:
          - timeout: 1s
            interval: 1s
            unhealthy_threshold: 1
            healthy_threshold: 1
            tcp_health_check:
              send: {text: "50494e47"}
              receive: [{text: "504f4e47"}, {binary: "T0s="}]
        """);
    TcpProbe tcp = (TcpProbe) h.healthCheck().orElseThrow().probe();
    assertThat(tcp.send()).isEqualTo("PING".getBytes());
    assertThat(tcp.receive()).hasSize(2);
    assertThat(tcp.receive().get(0)).isEqualTo("PONG".getBytes());
    assertThat(tcp.receive().get(1)).isEqualTo("OK".getBytes());
  }

  @Test
  void outlierDetectionHasEnvoysDefaultsAndReadsEveryField() throws ConfigException {
    assertThat(health("- {name: backend, outlier_detection: {}}\n").outlier()).contains(Outlier.DEFAULTS);
    Outlier o = health("""
        - name: backend
          outlier_detection:
            consecutive_5xx: 3
            interval: 1s
            base_ejection_time: 2s
            max_ejection_time: 20s
            max_ejection_time_jitter: 0.5s
            max_ejection_percent: 50
            enforcing_consecutive_5xx: 90
            consecutive_gateway_failure: 4
            enforcing_consecutive_gateway_failure: 80
            split_external_local_origin_errors: true
            consecutive_local_origin_failure: 6
            enforcing_consecutive_local_origin_failure: 70
            enforcing_success_rate: 60
            enforcing_local_origin_success_rate: 50
            success_rate_minimum_hosts: 3
            success_rate_request_volume: 10
            success_rate_stdev_factor: 1000
            failure_percentage_threshold: 40
            enforcing_failure_percentage: 30
            enforcing_failure_percentage_local_origin: 20
            failure_percentage_minimum_hosts: 2
            failure_percentage_request_volume: 5
            successful_active_health_check_uneject_host: true
            always_eject_one_host: true
        """).outlier().orElseThrow();
    assertThat(o).isEqualTo(new Outlier(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(20), 50, true,
        3, 90, 4, 80, 6, 70, 60, 50, 3, 10, 1000, 40, 30, 20, 2, 5, Duration.ofMillis(500), true, true));
  }

  @Test
  void aClusterWithTheSameHealthConfigIsEqual() throws ConfigException {
    String yaml = """
        - name: backend
          health_checks: [{timeout: 1s, interval: 1s, unhealthy_threshold: 1, healthy_threshold: 1,
                           tcp_health_check: {send: {text: "00"}}}]
        """;
    assertThat(health(yaml)).isEqualTo(health(yaml));
    assertThat(List.of(health(yaml))).containsExactly(health(yaml));
  }
}
