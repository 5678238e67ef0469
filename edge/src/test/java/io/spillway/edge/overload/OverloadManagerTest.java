package io.spillway.edge.overload;

import static io.spillway.edge.overload.OverloadFixtures.scaled;
import static io.spillway.edge.overload.OverloadFixtures.threshold;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.spillway.edge.config.OverloadConfig;
import io.spillway.edge.config.OverloadNames;
import io.spillway.edge.stats.HistogramSnapshot;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Refreshes driven by hand: triggers, action states, coalescing, failures, publication and stats. */
class OverloadManagerTest {

  private static final String STOP_REQUESTS = OverloadNames.STOP_ACCEPTING_REQUESTS;
  private static final String KEEPALIVE = OverloadNames.DISABLE_HTTP_KEEPALIVE;

  private final OverloadFixtures f = new OverloadFixtures();

  @Test
  void anActionsStateIsTheMaximumOfItsTriggers() {
    FakeMonitor heap = f.monitor("heap");
    FakeMonitor cpu = f.monitor("cpu");
    f.action(STOP_REQUESTS, threshold("heap", 0.9), scaled("cpu", 0.5, 0.7));
    OverloadManager manager = f.build();
    ActionIndex stop = manager.actionHandle(STOP_REQUESTS);

    heap.pressure(0.5);
    cpu.pressure(0.6);
    manager.refresh();
    assertThat(manager.state().actionState(stop)).isCloseTo(0.5, within(1e-12));
    assertThat(manager.state().isActive(stop)).isTrue();
    assertThat(manager.state().isSaturated(stop)).isFalse();

    heap.pressure(0.9);
    manager.refresh();
    assertThat(manager.state().actionState(stop)).isEqualTo(1.0);
    assertThat(manager.state().isSaturated(stop)).isTrue();

    heap.pressure(0.1);
    cpu.pressure(0.65);
    manager.refresh();
    assertThat(manager.state().actionState(stop)).isCloseTo(0.75, within(1e-12));

    cpu.pressure(0.2);
    manager.refresh();
    assertThat(manager.state().actionState(stop)).isZero();
    assertThat(manager.state().isActive(stop)).isFalse();
  }

  @Test
  void publishesActionAndMonitorStats() {
    FakeMonitor heap = f.monitor("envoy.resource_monitors.fixed_heap");
    f.action(KEEPALIVE, threshold("envoy.resource_monitors.fixed_heap", 0.92));
    f.action(STOP_REQUESTS, scaled("envoy.resource_monitors.fixed_heap", 0.85, 0.95));
    OverloadManager manager = f.build();
    assertThat(f.gauge("overload.envoy.overload_actions.stop_accepting_requests.active")).isZero();

    heap.pressure(0.92);
    manager.refresh();

    assertThat(f.gauge("overload.envoy.resource_monitors.fixed_heap.pressure")).isEqualTo(92);
    assertThat(f.gauge("overload.envoy.overload_actions.disable_http_keepalive.active")).isEqualTo(1);
    assertThat(f.gauge("overload.envoy.overload_actions.disable_http_keepalive.scale_percent")).isEqualTo(100);
    assertThat(f.gauge("overload.envoy.overload_actions.stop_accepting_requests.active")).isZero();
    assertThat(f.gauge("overload.envoy.overload_actions.stop_accepting_requests.scale_percent")).isEqualTo(70);
    assertThat(f.counter("overload.envoy.resource_monitors.fixed_heap.failed_updates")).isZero();
    assertThat(f.counter("overload.envoy.resource_monitors.fixed_heap.skipped_updates")).isZero();

    heap.pressure(0.9499);
    manager.refresh();
    // Scaling never reads 100: that is reserved for saturation.
    assertThat(f.gauge("overload.envoy.overload_actions.stop_accepting_requests.scale_percent")).isEqualTo(99);
  }

  @Test
  void aFailingMonitorKeepsItsLastPressureAndCountsFailedUpdates() {
    FakeMonitor heap = f.monitor("heap");
    f.action(STOP_REQUESTS, threshold("heap", 0.9));
    OverloadManager manager = f.build();
    ActionIndex stop = manager.actionHandle(STOP_REQUESTS);

    heap.pressure(0.95);
    manager.refresh();
    assertThat(manager.state().isSaturated(stop)).isTrue();

    heap.failing(new IOException("cannot read"));
    manager.refresh();
    manager.refresh();

    assertThat(f.counter("overload.heap.failed_updates")).isEqualTo(2);
    assertThat(f.gauge("overload.heap.pressure")).isEqualTo(95);
    assertThat(manager.state().isSaturated(stop)).isTrue();
    assertThat(manager.describe().monitors().get(0).pressure()).isEqualTo(0.95);

    // A monitor that throws instead of calling back, or reports NaN, fails the same way.
    heap.pressure(Double.NaN);
    manager.refresh();
    assertThat(f.counter("overload.heap.failed_updates")).isEqualTo(3);
    assertThat(manager.state().isSaturated(stop)).isTrue();

    heap.pressure(0.1);
    manager.refresh();
    assertThat(manager.state().isSaturated(stop)).isFalse();
  }

  @Test
  void aThrowingMonitorIsAFailedUpdate() {
    f.monitors.put("broken", null);
    f.monitorConfigs.add(new OverloadConfig.ResourceMonitor("broken", new OverloadConfig.InjectedResource("/x")));
    f.action(STOP_REQUESTS, threshold("broken", 0.5));
    OverloadManager manager = OverloadManager.builder(f.config())
        .stats(f.stats.rootScope())
        .nanoClock(() -> f.nanos)
        .monitors(m -> callbacks -> {
          throw new IllegalStateException("boom");
        })
        .build();

    manager.refresh();

    assertThat(f.counter("overload.broken.failed_updates")).isEqualTo(1);
    assertThat(manager.state().actionState(manager.actionHandle(STOP_REQUESTS))).isZero();
  }

  @Test
  void pressuresOutsideZeroToOneAreClamped() {
    FakeMonitor heap = f.monitor("heap");
    f.action(STOP_REQUESTS, scaled("heap", 0.0, 0.5));
    OverloadManager manager = f.build();

    heap.pressure(1.7);
    manager.refresh();
    assertThat(f.gauge("overload.heap.pressure")).isEqualTo(100);
    assertThat(manager.state().actionState(manager.actionHandle(STOP_REQUESTS))).isEqualTo(1.0);

    heap.pressure(-3);
    manager.refresh();
    assertThat(f.gauge("overload.heap.pressure")).isZero();
    assertThat(manager.state().actionState(manager.actionHandle(STOP_REQUESTS))).isZero();
  }

  @Test
  void updatesWithinOneEpochAreCoalescedAndFlushedTogether() {
    FakeMonitor fast = f.monitor("fast");
    FakeMonitor slow = f.monitor("slow").holdAnswers();
    f.action(KEEPALIVE, threshold("fast", 0.5));
    f.action(STOP_REQUESTS, threshold("slow", 0.5));
    OverloadManager manager = f.build();
    ActionIndex keepalive = manager.actionHandle(KEEPALIVE);
    ActionIndex stop = manager.actionHandle(STOP_REQUESTS);

    // Epoch 1: fast answers, slow does not; nothing is published until the epoch completes.
    fast.pressure(0.9);
    manager.refresh();
    assertThat(manager.state().version()).isZero();
    assertThat(slow.held()).isEqualTo(1);

    // The last answer of the epoch flushes both results at once.
    slow.answer(0.9);
    assertThat(manager.state().version()).isEqualTo(1);
    assertThat(manager.state().isSaturated(keepalive)).isTrue();
    assertThat(manager.state().isSaturated(stop)).isTrue();

    // Epoch 2: slow does not answer. Epoch 3: slow is still pending, so it is skipped, not asked again.
    fast.pressure(0.1);
    manager.refresh();
    assertThat(manager.state().version()).isEqualTo(1);
    manager.refresh();
    assertThat(slow.calls()).isEqualTo(2);
    assertThat(f.counter("overload.slow.skipped_updates")).isEqualTo(1);
    assertThat(f.counter("overload.fast.skipped_updates")).isZero();
    // Epoch 3 started by flushing what epoch 2 gathered (fast), and flushed again when fast answered.
    assertThat(manager.state().isActive(keepalive)).isFalse();
    assertThat(manager.state().isSaturated(stop)).isTrue();

    // slow's late answer (from epoch 2) is applied but waits for the next flush.
    long version = manager.state().version();
    slow.answer(0.2);
    assertThat(manager.state().version()).isEqualTo(version);
    assertThat(manager.state().isSaturated(stop)).isTrue();
    manager.refresh();
    assertThat(manager.state().isActive(stop)).isFalse();
    assertThat(f.counter("overload.slow.failed_updates")).isZero();
  }

  @Test
  void aSecondAnswerToOneMeasurementIsIgnored() {
    List<ResourceMonitor.Callbacks> captured = new ArrayList<>();
    f.monitors.put("m", null);
    f.monitorConfigs.add(new OverloadConfig.ResourceMonitor("m", new OverloadConfig.InjectedResource("/x")));
    f.action(STOP_REQUESTS, threshold("m", 0.5));
    OverloadManager manager = OverloadManager.builder(f.config())
        .stats(f.stats.rootScope()).nanoClock(() -> f.nanos).monitors(m -> captured::add).build();

    manager.refresh();
    captured.get(0).onSuccess(0.9);
    captured.get(0).onFailure(new IOException("late"));
    captured.get(0).onSuccess(0.1);

    assertThat(manager.state().isSaturated(manager.actionHandle(STOP_REQUESTS))).isTrue();
    assertThat(f.counter("overload.m.failed_updates")).isZero();
  }

  @Test
  void aReaderHoldingAnOldSnapshotKeepsSeeingItsValues() {
    FakeMonitor heap = f.monitor("heap");
    f.action(STOP_REQUESTS, threshold("heap", 0.5));
    f.shedPoint(OverloadNames.TCP_LISTENER_ACCEPT, scaled("heap", 0.25, 0.75));
    OverloadManager manager = f.build();
    ActionIndex stop = manager.actionHandle(STOP_REQUESTS);
    ShedPointIndex accept = manager.loadShedPoint(OverloadNames.TCP_LISTENER_ACCEPT).index();

    heap.pressure(0.5);
    manager.refresh();
    OverloadState held = manager.state();

    heap.pressure(0.0);
    manager.refresh();
    OverloadState current = manager.state();

    assertThat(current).isNotSameAs(held);
    assertThat(current.version()).isEqualTo(held.version() + 1);
    assertThat(held.isSaturated(stop)).isTrue();
    assertThat(held.shedProbability(accept)).isEqualTo(0.5);
    assertThat(current.isActive(stop)).isFalse();
    assertThat(current.shedProbability(accept)).isZero();
  }

  @Test
  void listenersSeeEachPublishedSnapshot() {
    FakeMonitor heap = f.monitor("heap");
    f.action(STOP_REQUESTS, threshold("heap", 0.5));
    OverloadManager manager = f.build();
    List<OverloadState> seen = new ArrayList<>();
    manager.addStateListener(seen::add);

    heap.pressure(0.7);
    manager.refresh();
    manager.refresh();

    assertThat(seen).hasSize(2);
    assertThat(seen.get(1)).isSameAs(manager.state());
  }

  @Test
  void unconfiguredActionsAndShedPointsResolveToNoOpHandles() {
    FakeMonitor heap = f.monitor("heap").pressure(1.0);
    f.action(STOP_REQUESTS, threshold("heap", 0.5));
    OverloadManager manager = f.build();
    manager.refresh();

    ActionIndex keepalive = manager.actionHandle(KEEPALIVE);
    assertThat(keepalive).isSameAs(ActionIndex.NO_OP);
    assertThat(keepalive.isConfigured()).isFalse();
    assertThat(manager.state().actionState(keepalive)).isZero();
    assertThat(manager.actionHandle(STOP_REQUESTS).isConfigured()).isTrue();
    assertThat(manager.actionHandle(STOP_REQUESTS).name()).isEqualTo(STOP_REQUESTS);

    LoadShedPoint point = manager.loadShedPoint(OverloadNames.TCP_LISTENER_ACCEPT);
    assertThat(point).isSameAs(LoadShedPoint.NO_OP);
    assertThat(point.shouldShed(manager.state(), new SplittableRandom(1))).isFalse();
    assertThat(manager.scaledTimeouts()).isSameAs(ScaledTimeouts.NONE);
    assertThat(heap.calls()).isEqualTo(1);
  }

  @Test
  void aDisabledManagerNeverSchedulesAndIsNeverOverloaded() {
    OverloadManager manager = OverloadManager.builder(OverloadConfig.disabled())
        .stats(f.stats.rootScope()).nanoClock(() -> f.nanos).build();
    List<Runnable> scheduled = new ArrayList<>();

    manager.start((delay, task) -> scheduled.add(task));

    assertThat(scheduled).isEmpty();
    assertThat(manager.state().actionState(manager.actionHandle(STOP_REQUESTS))).isZero();
    assertThat(manager.globalConnections().limit()).isEmpty();
    assertThat(manager.describe().enabled()).isFalse();
  }

  @Test
  void refreshesOnScheduleAndRecordsHowLateEachRefreshRan() {
    FakeMonitor heap = f.monitor("heap").pressure(0.3);
    f.action(STOP_REQUESTS, threshold("heap", 0.5));
    f.refreshInterval = Duration.ofMillis(250);
    OverloadManager manager = f.build();
    List<Duration> delays = new ArrayList<>();
    List<Runnable> tasks = new ArrayList<>();

    manager.start((delay, task) -> {
      delays.add(delay);
      tasks.add(task);
    });
    assertThat(delays).containsExactly(Duration.ofMillis(250));

    f.nanos += Duration.ofMillis(250).toNanos();
    tasks.get(0).run();
    f.nanos += Duration.ofMillis(280).toNanos();
    tasks.get(1).run();

    assertThat(heap.calls()).isEqualTo(2);
    assertThat(delays).containsExactly(Duration.ofMillis(250), Duration.ofMillis(250), Duration.ofMillis(250));
    HistogramSnapshot delay = f.histogram("overload.refresh_interval_delay").snapshot();
    assertThat(delay.sampleCount()).isEqualTo(2);
    assertThat(delay.sampleSum()).isEqualTo(30.0);

    manager.stop();
    tasks.get(2).run();
    assertThat(heap.calls()).isEqualTo(2);
    assertThat(tasks).hasSize(3);
    assertThatThrownBy(() -> manager.start((d, t) -> { })).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void theConnectionLimitDrivesTriggersAtEachRefresh() {
    f.monitor("heap").pressure(0.0);
    f.connectionMonitor(new OverloadConfig.GlobalDownstreamConnections(OptionalLong.of(4)));
    f.action(OverloadNames.STOP_ACCEPTING_CONNECTIONS,
        threshold(OverloadNames.GLOBAL_DOWNSTREAM_MAX_CONNECTIONS, 0.75));
    OverloadManager manager = f.build();
    GlobalConnectionLimit connections = manager.globalConnections();
    ActionIndex stop = manager.actionHandle(OverloadNames.STOP_ACCEPTING_CONNECTIONS);

    assertThat(connections.tryAllocate()).isTrue();
    assertThat(connections.tryAllocate()).isTrue();
    assertThat(connections.tryAllocate()).isTrue();
    manager.refresh();

    assertThat(manager.state().isSaturated(stop)).isTrue();
    assertThat(f.gauge("overload.envoy.resource_monitors.global_downstream_max_connections.pressure")).isEqualTo(75);
    assertThat(manager.describe().globalConnections())
        .isEqualTo(new OverloadDescription.GlobalConnections(3, OptionalLong.of(4)));
  }

  @Test
  void describesEveryMonitorActionAndShedPoint() {
    f.monitor("heap").pressure(0.8);
    f.monitor("cpu").failing(new IOException("no /proc"));
    f.action(STOP_REQUESTS, scaled("heap", 0.6, 1.0));
    f.shedPoint(OverloadNames.HCM_DECODE_HEADERS, threshold("heap", 0.7));
    OverloadManager manager = f.build();
    manager.refresh();
    manager.loadShedPoint(OverloadNames.HCM_DECODE_HEADERS).shouldShed(manager.state(), new SplittableRandom(3));

    OverloadDescription description = manager.describe();

    assertThat(description.enabled()).isTrue();
    assertThat(description.refreshInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(description.version()).isEqualTo(1);
    assertThat(description.monitors()).containsExactly(
        new OverloadDescription.Monitor("heap", OverloadNames.INJECTED_RESOURCE, 0.8, 0, 0),
        new OverloadDescription.Monitor("cpu", OverloadNames.INJECTED_RESOURCE, 0.0, 1, 0));
    assertThat(description.actions()).hasSize(1);
    assertThat(description.actions().get(0).name()).isEqualTo(STOP_REQUESTS);
    assertThat(description.actions().get(0).state()).isCloseTo(0.5, within(1e-12));
    assertThat(description.actions().get(0).saturated()).isFalse();
    assertThat(description.loadShedPoints()).containsExactly(
        new OverloadDescription.ShedPoint(OverloadNames.HCM_DECODE_HEADERS, 1.0, 1));
    assertThat(description.globalConnections()).isEqualTo(new OverloadDescription.GlobalConnections(0,
        OptionalLong.empty()));
  }

  @Test
  void rejectsATriggerOnAnUnknownMonitorAndAMissingFactory() {
    f.monitor("heap");
    f.action(STOP_REQUESTS, threshold("nope", 0.5));
    assertThatThrownBy(f::build).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Unknown trigger resource nope");

    OverloadFixtures other = new OverloadFixtures();
    other.monitor("heap");
    assertThatThrownBy(() -> OverloadManager.builder(other.config()).stats(other.stats.rootScope())
        .nanoClock(() -> 0L).build()).isInstanceOf(IllegalStateException.class);
  }
}
