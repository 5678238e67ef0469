package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** envoy.filters.http.fault: every supported field, the runtime keys, and each refusal with its path. */
class FaultTranslationTest {

  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.fault.v3.HTTPFault";

  private static FaultConfig translate(String fields) throws ConfigException {
    return BootstrapYaml.minimal().httpFilters("""
        - name: envoy.filters.http.fault
          typed_config:
            "@type": %s
        %s
        - name: envoy.filters.http.router
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
        """.formatted(TYPE, fields.stripIndent().indent(4).stripTrailing()))
        .translate().listeners().get(0).hcm().filter("envoy.filters.http.fault").orElseThrow()
        .settings(FaultConfig.class);
  }

  private static String refusal(String fields) {
    try {
      translate(fields);
    } catch (ConfigException e) {
      return e.getMessage();
    }
    throw new AssertionError("accepted: " + fields);
  }

  @Test
  void everySupportedField() throws Exception {
    FaultConfig f = translate("""
        delay: { fixed_delay: 1.5s, percentage: { numerator: 25, denominator: TEN_THOUSAND } }
        abort: { http_status: 503, percentage: { numerator: 10 } }
        upstream_cluster: backend
        headers: [ { name: x-chaos, present_match: true } ]
        downstream_nodes: [ a, b ]
        max_active_faults: 7
        delay_percent_runtime: my.delay
        abort_percent_runtime: my.abort
        delay_duration_runtime: my.duration
        abort_http_status_runtime: my.status
        abort_grpc_status_runtime: my.grpc
        max_active_faults_runtime: my.max
        disable_downstream_cluster_stats: true
        """);
    assertThat(f.delay()).contains(new FaultConfig.Delay(Optional.of(Duration.ofMillis(1500)), 2_500, 100));
    assertThat(f.abort()).contains(new FaultConfig.HttpAbort(503, 100_000));
    assertThat(f.upstreamCluster()).isEqualTo("backend");
    assertThat(f.headers()).extracting(Route.HeaderMatch::name).containsExactly("x-chaos");
    assertThat(f.downstreamNodes()).containsExactlyInAnyOrder("a", "b");
    assertThat(f.maxActiveFaults()).hasValue(7);
    assertThat(f.runtime()).isEqualTo(new FaultConfig.RuntimeKeys("my.delay", "my.abort", "my.duration", "my.status",
        "my.grpc", "my.max"));
  }

  @Test
  void envoysDefaultsWhenFieldsAreUnset() throws Exception {
    FaultConfig f = translate("abort: { header_abort: {} }");
    assertThat(f.delay()).isEmpty();
    assertThat(f.abort()).contains(new FaultConfig.HeaderAbort(0, 10_000));
    assertThat(f.maxActiveFaults()).isEmpty();
    assertThat(f.runtime()).isEqualTo(FaultConfig.RuntimeKeys.DEFAULTS);
    assertThat(translate("abort: { grpc_status: 14, percentage: { numerator: 1, denominator: MILLION } }").abort())
        .contains(new FaultConfig.GrpcAbort(14, 1));
    assertThat(translate("delay: { header_delay: {}, percentage: { numerator: 100 } }").delay())
        .contains(new FaultConfig.Delay(Optional.empty(), 1_000_000, 10_000));
  }

  @Test
  void refusalsNameTheFieldAndTheRule() {
    String filter = "static_resources.listeners[0].filter_chains[0].filters[0].typed_config.http_filters[0].typed_config";
    assertThat(refusal("abort: { http_status: 199 }")).isEqualTo(filter + ".abort.http_status: must be in [200, 600), not 199");
    assertThat(refusal("abort: { http_status: 600 }")).contains(".abort.http_status: must be in [200, 600)");
    assertThat(refusal("abort: { percentage: { numerator: 5 } }"))
        .isEqualTo(filter + ".abort: one of http_status, grpc_status or header_abort is required");
    assertThat(refusal("delay: { percentage: { numerator: 5 } }"))
        .isEqualTo(filter + ".delay: one of fixed_delay or header_delay is required");
    assertThat(refusal("delay: { fixed_delay: 0s }")).isEqualTo(filter + ".delay.fixed_delay: must be greater than 0");
    assertThat(refusal("delay: { fixed_delay: -1s }")).contains(".delay.fixed_delay: must not be negative");
    assertThat(refusal("response_rate_limit: { fixed_limit: { limit_kbps: 1 } }"))
        .startsWith(filter + ".response_rate_limit: response_rate_limit is not supported");
    assertThat(refusal("headers: [ { name: \"\" } ]")).contains(".headers[0].name");
  }
}
