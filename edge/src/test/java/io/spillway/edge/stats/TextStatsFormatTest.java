package io.spillway.edge.stats;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TextStatsFormatTest {

  private final StatsStore store = new StatsStore();
  private final Scope root = store.rootScope();
  private final Scope http = root.taggedScope("http", "ingress", Tag.HTTP_CONN_MANAGER_PREFIX);

  @Test
  void countersAndGaugesSortedThenHistograms() {
    http.counter("downstream_rq_total").add(3);
    http.responseCodeClassCounter("downstream_rq", 2).add(2);
    http.gauge("downstream_rq_active").set(1);
    root.scope("server").gauge("memory_heap_size", () -> 1024);
    store.customScope().fractionalGauge("http_admission_rtt_seconds", Map.of("tier", "start"), () -> 0.0125);
    Histogram time = http.histogram("downstream_rq_time", Histogram.Unit.MILLISECONDS);
    for (int v = 1; v <= 100; v++) {
      time.record(v);
    }
    root.scope("cluster").histogram("unused", Histogram.Unit.BYTES);

    assertThat(TextStatsFormat.render(store, StatFilter.ALL)).isEqualTo("""
        http.ingress.downstream_rq_2xx: 2
        http.ingress.downstream_rq_active: 1
        http.ingress.downstream_rq_total: 3
        http_admission_rtt_seconds.tier.start: 0.0125
        server.memory_heap_size: 1024
        cluster.unused: No recorded values
        http.ingress.downstream_rq_time: P0(1,1) P25(25,25) P50(50,50) P75(75,75) P90(90,90) \
        P95(95,95) P99(99,99) P99.5(100,100) P99.9(100,100) P100(100,100)
        """);
  }

  @Test
  void anEmptyIntervalPrintsNan() {
    Histogram time = http.histogram("downstream_rq_time", Histogram.Unit.MILLISECONDS);
    time.record(7);
    TextStatsFormat.render(store, StatFilter.ALL);

    assertThat(TextStatsFormat.render(store, StatFilter.ALL)).isEqualTo(
        "http.ingress.downstream_rq_time: P0(nan,7) P25(nan,7) P50(nan,7) P75(nan,7) P90(nan,7) "
            + "P95(nan,7) P99(nan,7) P99.5(nan,7) P99.9(nan,7) P100(nan,7)\n");
  }

  @Test
  void filterSearchesTheFlatNameAnywhere() {
    http.responseCodeClassCounter("downstream_rq", 2).inc();
    http.responseCodeClassCounter("downstream_rq", 5).inc();
    root.taggedScope("cluster", "backend", Tag.CLUSTER_NAME).counter("upstream_rq_total");

    assertThat(TextStatsFormat.render(store, StatFilter.of("rq_[45]xx", false)))
        .isEqualTo("http.ingress.downstream_rq_5xx: 1\n");
    assertThat(TextStatsFormat.render(store, StatFilter.of("^cluster\\.", false)))
        .isEqualTo("cluster.backend.upstream_rq_total: 0\n");
  }

  @Test
  void usedOnlySkipsStatsNeverWritten() {
    http.counter("downstream_rq_total").inc();
    http.counter("downstream_rq_timeout");
    http.gauge("downstream_rq_active");
    http.histogram("downstream_rq_time", Histogram.Unit.MILLISECONDS);

    assertThat(TextStatsFormat.render(store, StatFilter.of(null, true)))
        .isEqualTo("http.ingress.downstream_rq_total: 1\n");
  }

  @Test
  void resetCountersShowsZeros() {
    http.counter("downstream_rq_total").add(5);
    http.gauge("downstream_rq_active").set(2);
    http.histogram("downstream_rq_time", Histogram.Unit.MILLISECONDS).record(3);

    store.resetCounters();

    assertThat(TextStatsFormat.render(store, StatFilter.ALL)).isEqualTo("""
        http.ingress.downstream_rq_active: 2
        http.ingress.downstream_rq_total: 0
        http.ingress.downstream_rq_time: No recorded values
        """);
  }
}
