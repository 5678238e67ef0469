package io.spillway.edge.stats;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class PrometheusStatsFormatTest {

  private static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  private static final String LABEL = "[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\"";
  private static final Pattern TYPE_LINE = Pattern.compile("# TYPE (" + NAME + ") (counter|gauge|histogram)");
  private static final Pattern SAMPLE_LINE = Pattern.compile(
      "(" + NAME + ")\\{(?:" + LABEL + "(?:," + LABEL + ")*)?\\} (-?[0-9]+(?:\\.[0-9]+)?|NaN|[+-]Inf)");

  private final StatsStore store = new StatsStore();
  private final Scope root = store.rootScope();
  private final Scope cluster = root.taggedScope("cluster", "backend", Tag.CLUSTER_NAME);
  private final Scope http = root.taggedScope("http", "ingress", Tag.HTTP_CONN_MANAGER_PREFIX);
  private final Scope listener = root.taggedScope("listener", "0.0.0.0_10000", Tag.LISTENER_ADDRESS);

  @Test
  void envoyExamplesRenderWithExtractedTags() {
    cluster.counter("upstream_rq_total").add(5);
    http.counter("downstream_rq_total").add(3);
    listener.counter("downstream_cx_total").inc();

    assertThat(render()).isEqualTo("""
        # TYPE envoy_cluster_upstream_rq_total counter
        envoy_cluster_upstream_rq_total{envoy_cluster_name="backend"} 5
        # TYPE envoy_http_downstream_rq_total counter
        envoy_http_downstream_rq_total{envoy_http_conn_manager_prefix="ingress"} 3
        # TYPE envoy_listener_downstream_cx_total counter
        envoy_listener_downstream_cx_total{envoy_listener_address="0.0.0.0_10000"} 1
        """);
  }

  @Test
  void responseCodeClassesShareOneFamily() {
    http.responseCodeClassCounter("downstream_rq", 2).add(7);
    http.responseCodeClassCounter("downstream_rq", 5).inc();
    root.taggedScope("http", "egress", Tag.HTTP_CONN_MANAGER_PREFIX).responseCodeClassCounter("downstream_rq", 2);

    assertThat(render()).isEqualTo("""
        # TYPE envoy_http_downstream_rq_xx counter
        envoy_http_downstream_rq_xx{envoy_response_code_class="2",envoy_http_conn_manager_prefix="egress"} 0
        envoy_http_downstream_rq_xx{envoy_response_code_class="2",envoy_http_conn_manager_prefix="ingress"} 7
        envoy_http_downstream_rq_xx{envoy_response_code_class="5",envoy_http_conn_manager_prefix="ingress"} 1
        """);
  }

  @Test
  void countersThenGaugesThenHistogramsEachUnderOneTypeLine() {
    root.scope("server").gauge("uptime").set(12);
    root.scope("server").gauge("memory_heap_size", () -> 1024);
    cluster.counter("upstream_rq_total").inc();
    root.taggedScope("cluster", "other", Tag.CLUSTER_NAME).counter("upstream_rq_total").add(2);
    cluster.gauge("upstream_rq_active").set(3);

    assertThat(render()).isEqualTo("""
        # TYPE envoy_cluster_upstream_rq_total counter
        envoy_cluster_upstream_rq_total{envoy_cluster_name="backend"} 1
        envoy_cluster_upstream_rq_total{envoy_cluster_name="other"} 2
        # TYPE envoy_cluster_upstream_rq_active gauge
        envoy_cluster_upstream_rq_active{envoy_cluster_name="backend"} 3
        # TYPE envoy_server_memory_heap_size gauge
        envoy_server_memory_heap_size{} 1024
        # TYPE envoy_server_uptime gauge
        envoy_server_uptime{} 12
        """);
  }

  @Test
  void histogramsAreCumulativeWithEnvoysBuckets() {
    Histogram time = cluster.histogram("upstream_rq_time", Histogram.Unit.MILLISECONDS);
    time.record(1);
    time.record(7);
    time.record(7);
    time.record(120);

    String text = render();

    assertThat(text).startsWith("# TYPE envoy_cluster_upstream_rq_time histogram\n");
    assertThat(text).contains("""
        envoy_cluster_upstream_rq_time_bucket{envoy_cluster_name="backend",le="0.5"} 0
        envoy_cluster_upstream_rq_time_bucket{envoy_cluster_name="backend",le="1"} 1
        envoy_cluster_upstream_rq_time_bucket{envoy_cluster_name="backend",le="5"} 1
        envoy_cluster_upstream_rq_time_bucket{envoy_cluster_name="backend",le="10"} 3
        envoy_cluster_upstream_rq_time_bucket{envoy_cluster_name="backend",le="25"} 3
        envoy_cluster_upstream_rq_time_bucket{envoy_cluster_name="backend",le="50"} 3
        envoy_cluster_upstream_rq_time_bucket{envoy_cluster_name="backend",le="100"} 3
        envoy_cluster_upstream_rq_time_bucket{envoy_cluster_name="backend",le="250"} 4
        """);
    assertThat(text).endsWith("""
        envoy_cluster_upstream_rq_time_bucket{envoy_cluster_name="backend",le="3600000"} 4
        envoy_cluster_upstream_rq_time_bucket{envoy_cluster_name="backend",le="+Inf"} 4
        envoy_cluster_upstream_rq_time_sum{envoy_cluster_name="backend"} 135
        envoy_cluster_upstream_rq_time_count{envoy_cluster_name="backend"} 4
        """);
    assertThat(text.lines().filter(line -> line.contains("_bucket{"))).hasSize(HistogramSnapshot.BUCKETS.size() + 1);
    // Cumulative: a later scrape still counts every value.
    assertThat(render()).contains("envoy_cluster_upstream_rq_time_count{envoy_cluster_name=\"backend\"} 4\n");
  }

  @Test
  void histogramWithoutTagsHasOnlyTheLeLabel() {
    root.scope("server").histogram("initialization_time_ms", Histogram.Unit.MILLISECONDS).record(30);

    assertThat(render())
        .contains("envoy_server_initialization_time_ms_bucket{le=\"25\"} 0\n")
        .contains("envoy_server_initialization_time_ms_bucket{le=\"50\"} 1\n")
        .contains("envoy_server_initialization_time_ms_sum{} 30\n");
  }

  @Test
  void labelValuesAreEscaped() {
    root.taggedScope("cluster", "a\\b\"c\nd", Tag.CLUSTER_NAME).counter("upstream_rq_total").inc();

    assertThat(render()).contains(
        "envoy_cluster_upstream_rq_total{envoy_cluster_name=\"a\\\\b\\\"c\\nd\"} 1\n");
    assertValidExposition(render());
  }

  @Test
  void customMetricsKeepTheirNamesVerbatim() {
    store.customScope().counter("http_admission_refused_total", Map.of("tier", "start", "mode", "shadow")).add(2);
    store.customScope().gauge("http_admission_limit").set(40);
    store.customScope().fractionalGauge("http_admission_rtt_seconds", Map.of("tier", "start"), () -> 0.0125);

    assertThat(render()).isEqualTo("""
        # TYPE http_admission_refused_total counter
        http_admission_refused_total{mode="shadow",tier="start"} 2
        # TYPE http_admission_limit gauge
        http_admission_limit{} 40
        # TYPE http_admission_rtt_seconds gauge
        http_admission_rtt_seconds{tier="start"} 0.0125
        """);
  }

  @Test
  void aFailingSupplierRendersNaN() {
    root.scope("server").fractionalGauge("broken", () -> {
      throw new IllegalStateException("gone");
    });

    assertThat(render()).isEqualTo("# TYPE envoy_server_broken gauge\nenvoy_server_broken{} NaN\n");
  }

  @Test
  void filterAppliesToFlatNamesAndUsedOnlySkipsUnwritten() {
    cluster.counter("upstream_rq_total").inc();
    cluster.counter("upstream_rq_timeout");
    http.counter("downstream_rq_total").inc();
    cluster.histogram("upstream_rq_time", Histogram.Unit.MILLISECONDS);

    assertThat(PrometheusStatsFormat.render(store, StatFilter.of("^cluster\\.backend\\.", true))).isEqualTo("""
        # TYPE envoy_cluster_upstream_rq_total counter
        envoy_cluster_upstream_rq_total{envoy_cluster_name="backend"} 1
        """);
    assertThat(PrometheusStatsFormat.render(store, StatFilter.of("timeout", false))).isEqualTo("""
        # TYPE envoy_cluster_upstream_rq_timeout counter
        envoy_cluster_upstream_rq_timeout{envoy_cluster_name="backend"} 0
        """);
  }

  @Test
  void aBusyStoreRendersValidExposition() {
    http.counter("downstream_rq_total").inc();
    for (int codeClass = 1; codeClass <= 5; codeClass++) {
      http.responseCodeClassCounter("downstream_rq", codeClass).inc();
      listener.taggedScope("http", "ingress", Tag.HTTP_CONN_MANAGER_PREFIX)
          .responseCodeClassCounter("downstream_rq", codeClass);
    }
    cluster.responseCodeCounter("upstream_rq", 503).inc();
    listener.gauge("downstream_cx_active").set(4);
    root.scope("overload").scope("envoy.resource_monitors.fixed_heap").histogram("pressure", Histogram.Unit.PERCENT)
        .record(Histogram.PERCENT_SCALE / 3);
    cluster.histogram("upstream_cx_rx_bytes_total", Histogram.Unit.BYTES).record(12_345);
    store.customScope().counter("http_client_guard_rejected_total", Map.of("mode", "enforce", "peer", "x\"y"));

    assertValidExposition(render());
  }

  private String render() {
    return PrometheusStatsFormat.render(store, StatFilter.ALL);
  }

  /** Every line is a TYPE line or a sample, and each family's samples follow its one TYPE line. */
  private static void assertValidExposition(String text) {
    assertThat(text).endsWith("\n");
    Set<String> families = new HashSet<>();
    String family = null;
    String type = null;
    for (String line : text.split("\n", -1)) {
      if (line.isEmpty()) {
        continue;
      }
      Matcher typeLine = TYPE_LINE.matcher(line);
      if (typeLine.matches()) {
        family = typeLine.group(1);
        type = typeLine.group(2);
        assertThat(families.add(family)).as("one TYPE line for %s", family).isTrue();
        continue;
      }
      Matcher sample = SAMPLE_LINE.matcher(line);
      assertThat(sample.matches()).as("sample line shape: %s", line).isTrue();
      String name = sample.group(1);
      List<String> allowed = "histogram".equals(type)
          ? List.of(family + "_bucket", family + "_sum", family + "_count")
          : List.of(String.valueOf(family));
      assertThat(allowed).as("sample %s belongs to the family above it", name).contains(name);
    }
  }
}
