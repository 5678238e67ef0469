package io.spillway.edge.xds;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.spillway.edge.stats.StatsStore;
import io.spillway.report.EdgeReportProto;
import io.spillway.report.EdgeReportProto.EdgeReport;
import io.spillway.report.EdgeReportService;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The reporter driven by hand: a scheduler whose interval timer the test fires, and a channel
 * whose calls the test fails. No sockets, no sleeps.
 */
class EdgeReporterTest {

  private static final String CENTRAL = "spillway-central type.googleapis.com/spillway.policy.v1.OverloadPolicy "
      + EdgeReportService.SERVICE_NAME;

  private final ManualScheduler scheduler = new ManualScheduler();
  private final FakeChannel channel = new FakeChannel();
  private final StatsStore stats = new StatsStore();
  private final EdgeReporter reporter = new EdgeReporter("edge-1", Duration.ofSeconds(5), EdgeReport::newBuilder,
      stats.rootScope(), scheduler, Clock.fixed(Instant.ofEpochMilli(1_000), ZoneOffset.UTC), Instant.ofEpochMilli(7));

  private long sent() {
    return stats.rootScope().scope("xds").scope("report").counter("sent").value();
  }

  private long failed() {
    return stats.rootScope().scope("xds").scope("report").counter("failed").value();
  }

  @Test
  void aServerThatDoesNotAdvertiseTheServiceNeverGetsAStream() {
    reporter.start();
    reporter.answered(channel, new Metadata(), "envoy-control-plane type.googleapis.com/spillway.policy.v1.OverloadPolicy");
    scheduler.runPending();
    for (int i = 0; i < 5; i++) {
      scheduler.tick();
    }
    assertThat(channel.calls).isEmpty();
    assertThat(sent()).isZero();
  }

  @Test
  void reportsAtOnceThenEveryInterval() {
    reporter.start();
    reporter.answered(channel, new Metadata(), CENTRAL);
    scheduler.runPending();
    assertThat(channel.calls).hasSize(1);
    scheduler.tick();
    scheduler.tick();
    FakeCall call = channel.calls.get(0);
    assertThat(call.messages).hasSize(3);
    EdgeReport first = call.messages.get(0);
    assertThat(first.getNodeId()).isEqualTo("edge-1");
    assertThat(first.getTimestampMs()).isEqualTo(1_000);
    assertThat(first.getIntervalMs()).isEqualTo(5_000);
    assertThat(first.getStartedAtMs()).isEqualTo(7);
    assertThat(call.method).isEqualTo("spillway.central.report.v1.EdgeReportService/Report");
    assertThat(sent()).isEqualTo(3);
  }

  @Test
  void reopensAfterOneTwoFourEightThenTwelveIntervals() {
    reporter.start();
    reporter.answered(channel, new Metadata(), CENTRAL);
    scheduler.runPending();
    List<Integer> waits = new ArrayList<>();
    for (int attempt = 0; attempt < 7; attempt++) {
      channel.last().fail(Status.UNAVAILABLE);
      scheduler.runPending();
      int callsBefore = channel.calls.size();
      int ticks = 0;
      while (channel.calls.size() == callsBefore && ticks < 50) {
        scheduler.tick();
        ticks++;
      }
      waits.add(ticks);
    }
    assertThat(waits).containsExactly(1, 2, 4, 8, 12, 12, 12);
    assertThat(failed()).isEqualTo(7);
  }

  @Test
  void aStreamThatLivedAnIntervalStartsTheBackOffAfresh() {
    reporter.start();
    reporter.answered(channel, new Metadata(), CENTRAL);
    scheduler.runPending();
    channel.last().fail(Status.UNAVAILABLE);
    scheduler.runPending();
    scheduler.tick(); // reopened (1 interval)
    channel.last().fail(Status.UNAVAILABLE);
    scheduler.runPending();
    scheduler.tick();
    scheduler.tick(); // reopened (2 intervals)
    scheduler.tick(); // it lived an interval: healthy again
    channel.last().fail(Status.UNAVAILABLE);
    scheduler.runPending();
    int before = channel.calls.size();
    scheduler.tick();
    assertThat(channel.calls).hasSize(before + 1);
  }

  @Test
  void aLostAdsStreamEndsTheReportStreamAndANewServerGetsANewOne() {
    reporter.start();
    reporter.answered(channel, new Metadata(), CENTRAL);
    scheduler.runPending();
    reporter.lost();
    scheduler.runPending();
    assertThat(channel.last().cancelled).isTrue();
    scheduler.tick();
    assertThat(channel.calls).hasSize(1);
    FakeChannel other = new FakeChannel();
    reporter.answered(other, new Metadata(), CENTRAL);
    scheduler.runPending();
    assertThat(other.calls).hasSize(1);
    assertThat(failed()).isZero();
  }

  @Test
  void closeEndsTheStreamAndStopsTheScheduler() {
    reporter.start();
    reporter.answered(channel, new Metadata(), CENTRAL);
    scheduler.runPending();
    reporter.close();
    scheduler.runPending();
    assertThat(channel.last().cancelled).isTrue();
    assertThat(scheduler.isShutdown()).isTrue();
  }

  /** A scheduler run by the test: {@link #tick()} fires the fixed-rate task once, queued tasks run on {@link #runPending()}. */
  static final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {
    private final Queue<Runnable> pending = new ArrayDeque<>();
    private final List<Runnable> periodic = new ArrayList<>();
    private boolean shutdown;

    void runPending() {
      for (int i = 0; i < 1000 && !pending.isEmpty(); i++) {
        pending.poll().run();
      }
    }

    void tick() {
      runPending();
      periodic.forEach(Runnable::run);
      runPending();
    }

    @Override
    public void execute(Runnable command) {
      if (shutdown) {
        throw new java.util.concurrent.RejectedExecutionException("shut down");
      }
      pending.add(command);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
      periodic.add(command);
      return new NoFuture<>();
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
      return scheduleAtFixedRate(command, initialDelay, delay, unit);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void shutdown() {
      shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
      shutdown = true;
      return List.of();
    }

    @Override
    public boolean isShutdown() {
      return shutdown;
    }

    @Override
    public boolean isTerminated() {
      return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return true;
    }
  }

  static final class NoFuture<V> implements ScheduledFuture<V> {
    @Override
    public long getDelay(TimeUnit unit) {
      return 0;
    }

    @Override
    public int compareTo(Delayed o) {
      return 0;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      return false;
    }

    @Override
    public boolean isCancelled() {
      return false;
    }

    @Override
    public boolean isDone() {
      return false;
    }

    @Override
    public V get() {
      return null;
    }

    @Override
    public V get(long timeout, TimeUnit unit) {
      return null;
    }
  }

  /** A channel whose calls record what they are sent; the test ends them. */
  static final class FakeChannel extends Channel {
    final List<FakeCall> calls = new ArrayList<>();

    FakeCall last() {
      return calls.get(calls.size() - 1);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <Q, R> ClientCall<Q, R> newCall(MethodDescriptor<Q, R> method, CallOptions options) {
      FakeCall call = new FakeCall(method.getFullMethodName());
      calls.add(call);
      return (ClientCall<Q, R>) call;
    }

    @Override
    public String authority() {
      return "central.test";
    }
  }

  static final class FakeCall extends ClientCall<EdgeReport, EdgeReportProto.ReportAck> {
    final String method;
    final List<EdgeReport> messages = new ArrayList<>();
    Listener<EdgeReportProto.ReportAck> listener;
    boolean cancelled;

    FakeCall(String method) {
      this.method = method;
    }

    void fail(Status status) {
      listener.onClose(status, new Metadata());
    }

    @Override
    public void start(Listener<EdgeReportProto.ReportAck> responseListener, Metadata headers) {
      listener = responseListener;
    }

    @Override
    public void request(int numMessages) {}

    @Override
    public void cancel(String message, Throwable cause) {
      cancelled = true;
    }

    @Override
    public void halfClose() {}

    @Override
    public void sendMessage(EdgeReport message) {
      messages.add(message);
    }

    @Override
    public boolean isReady() {
      return true;
    }
  }
}
