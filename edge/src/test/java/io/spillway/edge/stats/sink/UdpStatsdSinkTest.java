package io.spillway.edge.stats.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Gauge;
import io.spillway.edge.stats.Histogram;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.stats.Tag;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The statsd and DogStatsD lines of a store filled by hand, flushed by calling the flush (the timer's
 * tick) directly, into a writer that records datagrams.
 */
class UdpStatsdSinkTest {

  /** Records every datagram; refuses them while {@code refuse} is set. */
  static final class RecordingWriter implements DatagramWriter {
    final List<String> datagrams = new ArrayList<>();
    boolean refuse;
    boolean closed;

    @Override
    public boolean send(ByteBuffer datagram) {
      if (refuse) {
        return false;
      }
      datagrams.add(StandardCharsets.UTF_8.decode(datagram).toString());
      return true;
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  private final StatsStore store = new StatsStore();
  private final Scope root = store.rootScope();
  private final Scope cluster = root.taggedScope("cluster", "backend", Tag.CLUSTER_NAME);
  private final RecordingWriter writer = new RecordingWriter();
  // The sinks' own counters live in another store, so they stay out of the lines under test.
  private final StatsStore own = new StatsStore();
  private final UdpStatsdSink.SinkStats sinkStats = UdpStatsdSink.SinkStats.of(own.rootScope());

  private void flush(StatsSink sink) {
    new StatsFlusher(store, List.of(sink)).flush();
  }

  @Test
  void statsdSendsCounterDeltasGaugesAndEachHistogramValueUnderFlatNamesOnePerDatagram() {
    UdpStatsdSink sink = UdpStatsdSink.statsd(writer, "envoy", sinkStats);
    Counter total = cluster.counter("upstream_rq_total");
    cluster.counter("upstream_rq_timeout"); // never used: never sent
    Gauge active = cluster.gauge("upstream_rq_active");
    Histogram time = cluster.histogram("upstream_rq_time", Histogram.Unit.MILLISECONDS);
    total.add(3);
    active.set(2);
    time.record(12);
    time.record(12);
    time.record(4);

    flush(sink);

    assertThat(writer.datagrams).containsExactly(
        "envoy.cluster.backend.upstream_rq_total:3|c",
        "envoy.cluster.backend.upstream_rq_active:2|g",
        "envoy.cluster.backend.upstream_rq_time:4|ms",
        "envoy.cluster.backend.upstream_rq_time:12|ms",
        "envoy.cluster.backend.upstream_rq_time:12|ms");
    assertThat(own.find("statsd.datagrams_sent").orElseThrow().toString()).endsWith(": 5");
  }

  @Test
  void countersAreDeltasSinceThePreviousFlushAndUsedOnesAreSentEvenUnchanged() {
    UdpStatsdSink sink = UdpStatsdSink.statsd(writer, "envoy", sinkStats);
    Counter total = cluster.counter("upstream_rq_total");
    Histogram time = cluster.histogram("upstream_rq_time", Histogram.Unit.MILLISECONDS);
    total.add(5);
    time.record(1);
    flush(sink);
    writer.datagrams.clear();

    flush(sink);
    total.add(2);
    flush(sink);

    assertThat(writer.datagrams).containsExactly(
        "envoy.cluster.backend.upstream_rq_total:0|c",
        "envoy.cluster.backend.upstream_rq_total:2|c");
  }

  @Test
  void thePrefixReplacesEnvoy() {
    root.scope("server").counter("watchdog_miss").inc();

    flush(UdpStatsdSink.statsd(writer, "edge-prod", sinkStats));

    assertThat(writer.datagrams).containsExactly("edge-prod.server.watchdog_miss:1|c");
  }

  @Test
  void percentHistogramsAreSentAsFractionsWithTheHistogramType() {
    Histogram pressure = root.scope("overload").histogram("pressure_histogram", Histogram.Unit.PERCENT);
    pressure.record(250); // exact: below 256
    pressure.record(0);
    pressure.record(Histogram.PERCENT_SCALE / 2); // the middle of its recording bucket, within 1%

    flush(UdpStatsdSink.statsd(writer, "envoy", sinkStats));

    assertThat(writer.datagrams).containsExactly(
        "envoy.overload.pressure_histogram:0|h",
        "envoy.overload.pressure_histogram:0.00025|h",
        "envoy.overload.pressure_histogram:0.500736|h");
    assertThat(UdpStatsdSink.fraction(123_456, Histogram.PERCENT_SCALE)).isEqualTo("0.123456");
    assertThat(UdpStatsdSink.fraction(1_234_567_891, Histogram.PERCENT_SCALE)).isEqualTo("1234.57");
  }

  @Test
  void fractionalSuppliedGaugesKeepTheirFractionAndNaNIsLeftOut() {
    store.customScope().fractionalGauge("http_admission_rtt_seconds", Map.of("tier", "start"), () -> 0.025);
    store.customScope().fractionalGauge("broken", Map.of(), () -> Double.NaN);

    flush(UdpStatsdSink.statsd(writer, "envoy", sinkStats));

    assertThat(writer.datagrams).containsExactly("envoy.http_admission_rtt_seconds.tier.start:0.025|g");
  }

  @Test
  void dogStatsdSendsTagExtractedNamesWithEnvoysTagNames() {
    Scope http = root.taggedScope("listener", "127.0.0.1_10000", Tag.LISTENER_ADDRESS)
        .taggedScope("http", "ingress", Tag.HTTP_CONN_MANAGER_PREFIX);
    http.responseCodeClassCounter("downstream_rq", 2).add(4);
    cluster.gauge("upstream_rq_active").set(1);
    cluster.histogram("upstream_rq_time", Histogram.Unit.MILLISECONDS).record(9);
    root.scope("server").counter("watchdog_miss").inc();
    store.customScope().counter("http_admission_refused_total", Map.of("tier", "start", "mode", "shadow")).inc();

    flush(UdpStatsdSink.dogStatsd(writer, "envoy", 0, sinkStats));

    assertThat(writer.datagrams).containsExactly(
        "envoy.http_admission_refused_total:1|c|#mode:shadow,tier:start",
        "envoy.listener.http.downstream_rq_xx:4|c|#envoy.response_code_class:2,"
            + "envoy.http_conn_manager_prefix:ingress,envoy.listener_address:127.0.0.1_10000",
        "envoy.server.watchdog_miss:1|c",
        "envoy.cluster.upstream_rq_active:1|g|#envoy.cluster_name:backend",
        "envoy.cluster.upstream_rq_time:9|ms|#envoy.cluster_name:backend");
  }

  @Test
  void dogStatsdBatchesNewlineSeparatedLinesUpToTheDatagramSize() {
    Scope s = root.scope("s");
    s.counter("a").inc(); // "p.s.a:1|c": 9 bytes each
    s.counter("b").inc();
    s.counter("c").inc();
    s.counter("d").inc();

    // Two lines and their newline are 19 bytes: they fit in 19, a third does not.
    flush(UdpStatsdSink.dogStatsd(writer, "p", 19, sinkStats));

    assertThat(writer.datagrams).containsExactly("p.s.a:1|c\np.s.b:1|c", "p.s.c:1|c\np.s.d:1|c");

    writer.datagrams.clear();
    s.counter("a").inc();
    s.counter("b").inc();
    s.counter("c").inc();
    s.counter("d").inc();
    flush(UdpStatsdSink.dogStatsd(writer, "p", 18, sinkStats));

    assertThat(writer.datagrams).containsExactly("p.s.a:1|c", "p.s.b:1|c", "p.s.c:1|c", "p.s.d:1|c");
  }

  @Test
  void aLineThatReachesTheDatagramSizeGoesAloneAndTheBatchKeepsItsOrderAround() {
    Scope s = root.scope("s");
    s.counter("a").inc();
    s.counter("b_long_name_here").inc(); // "p.s.b_long_name_here:1|c": 24 bytes
    s.counter("c").inc();

    flush(UdpStatsdSink.dogStatsd(writer, "p", 20, sinkStats));

    assertThat(writer.datagrams).containsExactly("p.s.b_long_name_here:1|c", "p.s.a:1|c\np.s.c:1|c");
  }

  @Test
  void aDatagramThatIsNotSentIsCountedAndTheFlushGoesOn() {
    cluster.counter("upstream_rq_total").inc();
    cluster.counter("upstream_rq_503").inc();
    UdpStatsdSink sink = UdpStatsdSink.statsd(writer, "envoy", sinkStats);
    writer.refuse = true;

    flush(sink);
    writer.refuse = false;
    flush(sink);

    assertThat(own.find("statsd.datagrams_failed").orElseThrow().toString()).endsWith(": 2");
    assertThat(own.find("statsd.datagrams_sent").orElseThrow().toString()).endsWith(": 2");
    assertThat(writer.datagrams).containsExactly(
        "envoy.cluster.backend.upstream_rq_503:0|c", "envoy.cluster.backend.upstream_rq_total:0|c");
  }

  @Test
  void aSinkThatThrowsDoesNotStopTheOthers() {
    cluster.counter("upstream_rq_total").inc();
    StatsSink broken = new StatsSink() {
      @Override
      public void flush(MetricSnapshot snapshot) {
        throw new IllegalStateException("broken");
      }

      @Override
      public void close() {}
    };
    UdpStatsdSink sink = UdpStatsdSink.statsd(writer, "envoy", sinkStats);
    StatsFlusher flusher = new StatsFlusher(store, List.of(broken, sink));

    flusher.flush();
    flusher.close();

    assertThat(writer.datagrams).containsExactly("envoy.cluster.backend.upstream_rq_total:1|c");
    assertThat(writer.closed).isTrue();
  }
}
