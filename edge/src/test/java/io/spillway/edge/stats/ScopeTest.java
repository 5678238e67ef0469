package io.spillway.edge.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScopeTest {

  private final StatsStore store = new StatsStore();
  private final Scope root = store.rootScope();

  @Test
  void clusterScopeExtractsTheClusterName() {
    Counter counter = root.taggedScope("cluster", "backend", Tag.CLUSTER_NAME).counter("upstream_rq_total");

    assertThat(counter.statName()).isEqualTo(new StatName(
        "cluster.backend.upstream_rq_total", "cluster.upstream_rq_total",
        "envoy_cluster_upstream_rq_total",
        List.of(new Tag("envoy_cluster_name", "backend"))));
  }

  @Test
  void httpScopeExtractsTheStatPrefix() {
    Counter counter = root.taggedScope("http", "ingress", Tag.HTTP_CONN_MANAGER_PREFIX).counter("downstream_rq_total");

    assertThat(counter.name()).isEqualTo("http.ingress.downstream_rq_total");
    assertThat(counter.statName().prometheusName()).isEqualTo("envoy_http_downstream_rq_total");
    assertThat(counter.statName().tags()).containsExactly(new Tag("envoy_http_conn_manager_prefix", "ingress"));
  }

  @Test
  void listenerAddressMayContainDots() {
    Gauge gauge = root.taggedScope("listener", "0.0.0.0_10000", Tag.LISTENER_ADDRESS).gauge("downstream_cx_total");

    assertThat(gauge.name()).isEqualTo("listener.0.0.0.0_10000.downstream_cx_total");
    assertThat(gauge.statName().prometheusName()).isEqualTo("envoy_listener_downstream_cx_total");
    assertThat(gauge.statName().tags()).containsExactly(new Tag("envoy_listener_address", "0.0.0.0_10000"));
  }

  @Test
  void responseCodeClassTagComesFirstThenScopeTagsInnermostFirst() {
    Scope listenerHttp = root.taggedScope("listener", "0.0.0.0_10000", Tag.LISTENER_ADDRESS)
        .taggedScope("http", "ingress", Tag.HTTP_CONN_MANAGER_PREFIX);

    Counter counter = listenerHttp.responseCodeClassCounter("downstream_rq", 2);

    assertThat(counter.statName()).isEqualTo(new StatName(
        "listener.0.0.0.0_10000.http.ingress.downstream_rq_2xx", "listener.http.downstream_rq_xx",
        "envoy_listener_http_downstream_rq_xx",
        List.of(
            new Tag("envoy_response_code_class", "2"),
            new Tag("envoy_http_conn_manager_prefix", "ingress"),
            new Tag("envoy_listener_address", "0.0.0.0_10000"))));
  }

  @Test
  void responseCodeClassCounterIsTheFourArgumentCounter() {
    Scope http = root.taggedScope("http", "ingress", Tag.HTTP_CONN_MANAGER_PREFIX);

    Counter viaHelper = http.responseCodeClassCounter("downstream_rq", 5);
    Counter explicit = http.counter("downstream_rq_5xx", "downstream_rq_xx", Tag.RESPONSE_CODE_CLASS, "5");

    assertThat(explicit).isSameAs(viaHelper);
    assertThat(viaHelper.name()).isEqualTo("http.ingress.downstream_rq_5xx");
    assertThatThrownBy(() -> http.responseCodeClassCounter("downstream_rq", 6))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void responseCodeCounterTagsTheCode() {
    Counter counter = root.taggedScope("cluster", "backend", Tag.CLUSTER_NAME).responseCodeCounter("upstream_rq", 503);

    assertThat(counter.statName()).isEqualTo(new StatName(
        "cluster.backend.upstream_rq_503", "cluster.upstream_rq",
        "envoy_cluster_upstream_rq",
        List.of(new Tag("envoy_response_code", "503"), new Tag("envoy_cluster_name", "backend"))));
  }

  @Test
  void plainScopesJoinSegmentsAndSanitizeThePrometheusName() {
    Gauge gauge = root.scope("overload").scope("envoy.resource_monitors.fixed-heap").gauge("pressure");

    assertThat(gauge.name()).isEqualTo("overload.envoy.resource_monitors.fixed-heap.pressure");
    assertThat(gauge.statName().prometheusName()).isEqualTo("envoy_overload_envoy_resource_monitors_fixed_heap_pressure");
    assertThat(gauge.statName().tags()).isEmpty();
    assertThat(root.scope("server").prefix()).isEqualTo("server.");
  }

  @Test
  void creatingTheSameStatTwiceReturnsTheSameObject() {
    Counter first = root.taggedScope("cluster", "backend", Tag.CLUSTER_NAME).counter("upstream_rq_total");
    first.inc();

    // A config reload rebuilds its scopes from scratch.
    Scope rebuilt = new StatsStore().rootScope(); // another store is independent
    Counter again = root.taggedScope("cluster", "backend", Tag.CLUSTER_NAME).counter("upstream_rq_total");

    assertThat(again).isSameAs(first);
    assertThat(again.value()).isEqualTo(1);
    assertThat(rebuilt.taggedScope("cluster", "backend", Tag.CLUSTER_NAME).counter("upstream_rq_total"))
        .isNotSameAs(first);
    assertThat(root.gauge("g")).isSameAs(root.gauge("g"));
    assertThat(root.histogram("h", Histogram.Unit.MILLISECONDS))
        .isSameAs(root.histogram("h", Histogram.Unit.MILLISECONDS));
    assertThat(store.find("cluster.backend.upstream_rq_total")).containsSame(first);
  }

  @Test
  void aNameCannotChangeKindUnitOrPrometheusIdentity() {
    root.counter("x");
    root.histogram("h", Histogram.Unit.MILLISECONDS);
    root.taggedScope("cluster", "backend", Tag.CLUSTER_NAME).counter("upstream_rq_total");

    assertThatThrownBy(() -> root.gauge("x")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> root.gauge("x", () -> 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> root.histogram("h", Histogram.Unit.BYTES)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> root.scope("cluster").scope("backend").counter("upstream_rq_total"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cluster.backend.upstream_rq_total");
  }

  @Test
  void aPrometheusFamilyHasOneTypeAndEachSeriesOneStat() {
    root.taggedScope("cluster", "a", Tag.CLUSTER_NAME).counter("upstream_rq_total");

    assertThatThrownBy(() -> root.taggedScope("cluster", "b", Tag.CLUSTER_NAME).gauge("upstream_rq_total"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("envoy_cluster_upstream_rq_total");
    assertThatThrownBy(() -> store.customScope()
        .counter("envoy_cluster_upstream_rq_total", Map.of("envoy_cluster_name", "a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("same Prometheus series");
  }

  @Test
  void aScopeCannotCarryTheSameTagTwice() {
    Scope cluster = root.taggedScope("cluster", "a", Tag.CLUSTER_NAME);

    assertThatThrownBy(() -> cluster.taggedScope("cluster", "b", Tag.CLUSTER_NAME))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> cluster.counter("x", "x", Tag.CLUSTER_NAME, "b"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void emptySegmentsAndBadTagNamesAreRejected() {
    assertThatThrownBy(() -> root.scope("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> root.taggedScope("cluster", "", Tag.CLUSTER_NAME)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> root.taggedScope("cluster", "a", "bad-name")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> root.counter("")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void customScopeUsesTheNameVerbatimAndOrdersTagsByName() {
    Counter refused = store.customScope()
        .counter("http_admission_refused_total", Map.of("tier", "start", "mode", "shadow"));

    assertThat(refused.statName()).isEqualTo(new StatName(
        "http_admission_refused_total.mode.shadow.tier.start", "http_admission_refused_total",
        "http_admission_refused_total",
        List.of(new Tag("mode", "shadow"), new Tag("tier", "start"))));
    assertThat(store.customScope().counter("http_admission_refused_total", Map.of("mode", "shadow", "tier", "start")))
        .isSameAs(refused);
    assertThat(store.customScope().gauge("http_admission_limit").name()).isEqualTo("http_admission_limit");
    assertThatThrownBy(() -> store.customScope().counter("http.admission")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.customScope().counter("x", Map.of("__reserved", "v")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void suppliedGaugeCreatedAgainTakesTheNewSupplier() {
    SuppliedGauge first = root.scope("server").gauge("memory_heap_size", () -> 1);
    SuppliedGauge second = root.scope("server").gauge("memory_heap_size", () -> 2);

    assertThat(second).isSameAs(first);
    assertThat(first.value()).isEqualTo(2.0);
  }
}
