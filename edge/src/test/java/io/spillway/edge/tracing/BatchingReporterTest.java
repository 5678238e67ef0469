package io.spillway.edge.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.spillway.edge.config.TracingConfig;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.StatsStore;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A reporter whose send throws loses that report, counted as dropped spans, and keeps its thread for the next. */
class BatchingReporterTest {

  private final StatsStore store = new StatsStore();
  private final Counter timerFlushed = store.rootScope().counter("timer_flushed");
  private final Counter dropped = store.rootScope().counter("spans_dropped");

  /** Throws on its first report, records the others. */
  private final class FailingOnce extends BatchingReporter {
    final AtomicInteger calls = new AtomicInteger();
    final List<RequestSpan> delivered = new CopyOnWriteArrayList<>();

    FailingOnce() {
      super("test-reporter", "tracing.zipkin", () -> RuntimeSnapshot.EMPTY, timerFlushed, dropped, 100);
      start();
    }

    @Override
    void send(List<RequestSpan> spans) {
      if (calls.getAndIncrement() == 0) {
        throw new IllegalStateException("cannot encode");
      }
      delivered.addAll(spans);
    }
  }

  private static RequestSpan span(Tracer tracer) {
    DefaultHttpHeaders h = new DefaultHttpHeaders();
    h.set("x-request-id", "00000063-1111-4222-8333-444455556666");
    return tracer.startDownstream(new RequestHeaders("GET", "http", "shop.example", "/", h),
        new StreamInfo(System.nanoTime(), 1_700_000_000_000_000_000L, "10.1.2.3", false), null, new SplittableRandom(1));
  }

  @Test
  void aFailedReportIsCountedAndTheThreadGoesOn() throws Exception {
    TracingConfig config = new TracingConfig(TracingConfig.ALL, TracingConfig.ALL, TracingConfig.ALL, 10, List.of(),
        false, new TracingConfig.Zipkin("zipkin", "/api/v2/spans", "zipkin", false, false),
        TracingConfig.OperationName.INGRESS);
    try (FailingOnce reporter = new FailingOnce()) {
      Tracer tracer = new Tracer(config, "edge-1", "zone-a", s -> { }, store.rootScope(), () -> RuntimeSnapshot.EMPTY,
          false, Map.<String, String>of()::get);
      for (int i = 0; i < 5; i++) { // the default min_flush_spans: one report
        reporter.report(span(tracer));
      }
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (reporter.calls.get() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      for (int i = 0; i < 5; i++) {
        reporter.report(span(tracer));
      }
      while (reporter.delivered.size() < 5 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(reporter.delivered).as("the thread survived the failed report").hasSize(5);
      assertThat(dropped.value()).isEqualTo(5);
    }
  }
}
