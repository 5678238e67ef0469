package io.spillway.edge.overload;

import io.spillway.edge.config.OverloadConfig;
import io.spillway.edge.config.OverloadConfig.Trigger;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Gauge;
import io.spillway.edge.stats.Histogram;
import io.spillway.edge.stats.StatsStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/** Builds overload configs and managers over fake monitors, with a hand-driven clock. */
final class OverloadFixtures {

  final StatsStore stats = new StatsStore();
  final Map<String, FakeMonitor> monitors = new LinkedHashMap<>();
  final List<OverloadConfig.ResourceMonitor> monitorConfigs = new ArrayList<>();
  final List<OverloadConfig.Action> actions = new ArrayList<>();
  final List<OverloadConfig.LoadShedPoint> points = new ArrayList<>();
  long nanos = 1_000_000_000L;
  Duration refreshInterval = Duration.ofSeconds(1);

  /** A polled monitor named {@code name}, answered by a {@link FakeMonitor}. */
  FakeMonitor monitor(String name) {
    FakeMonitor fake = new FakeMonitor();
    monitors.put(name, fake);
    monitorConfigs.add(new OverloadConfig.ResourceMonitor(name, new OverloadConfig.InjectedResource("/unused")));
    return fake;
  }

  OverloadFixtures connectionMonitor(OverloadConfig.GlobalDownstreamConnections settings) {
    monitorConfigs.add(new OverloadConfig.ResourceMonitor(
        "envoy.resource_monitors.global_downstream_max_connections", settings));
    return this;
  }

  OverloadFixtures action(String name, Trigger... triggers) {
    actions.add(new OverloadConfig.Action(name, List.of(triggers), Optional.empty()));
    return this;
  }

  OverloadFixtures action(String name, OverloadConfig.ActionSettings settings, Trigger... triggers) {
    actions.add(new OverloadConfig.Action(name, List.of(triggers), Optional.of(settings)));
    return this;
  }

  OverloadFixtures shedPoint(String name, Trigger... triggers) {
    points.add(new OverloadConfig.LoadShedPoint(name, List.of(triggers)));
    return this;
  }

  static Trigger threshold(String resource, double value) {
    return new OverloadConfig.ThresholdTrigger(resource, value);
  }

  static Trigger scaled(String resource, double scaling, double saturation) {
    return new OverloadConfig.ScaledTrigger(resource, scaling, saturation);
  }

  OverloadConfig config() {
    return new OverloadConfig(refreshInterval, monitorConfigs, actions, points, OptionalInt.empty(), List.of());
  }

  OverloadManager build() {
    return OverloadManager.builder(config())
        .stats(stats.rootScope())
        .nanoClock(() -> nanos)
        .monitors(m -> monitors.get(m.name()))
        .build();
  }

  long counter(String name) {
    return ((Counter) stats.find(name).orElseThrow()).value();
  }

  long gauge(String name) {
    return ((Gauge) stats.find(name).orElseThrow()).value();
  }

  Histogram histogram(String name) {
    return (Histogram) stats.find(name).orElseThrow();
  }
}
