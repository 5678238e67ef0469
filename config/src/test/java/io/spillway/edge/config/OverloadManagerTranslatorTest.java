package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spillway.edge.config.OverloadConfig.AbsoluteMinimum;
import io.spillway.edge.config.OverloadConfig.ScaledMinimum;
import io.spillway.edge.config.OverloadConfig.ScaledTrigger;
import io.spillway.edge.config.OverloadConfig.ThresholdTrigger;
import io.spillway.edge.config.OverloadConfig.TimerType;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Bootstrap.overload_manager from YAML: Envoy's examples load, and each of Envoy's startup checks rejects. */
class OverloadManagerTranslatorTest {

  private static final String OM = "overload_manager";
  private static final String HEAP = """
      - name: envoy.resource_monitors.fixed_heap
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.resource_monitors.fixed_heap.v3.FixedHeapConfig
          max_heap_size_bytes: 2147483648
      """;
  private static final String INJECTED = """
      - name: envoy.resource_monitors.injected_resource
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.resource_monitors.injected_resource.v3.InjectedResourceConfig
          filename: /tmp/pressure
      """;

  /** The standard registry plus what the overload manager's Struct configs need to parse. */
  private static final ExtensionRegistry REGISTRY = registry();

  private static ExtensionRegistry registry() {
    ExtensionRegistry.Builder builder = ExtensionRegistry.builder();
    for (ExtensionRegistry.Extension e : ExtensionRegistry.standard().extensions()) {
      builder.add(e.name(), e.category(), e.defaultInstance());
    }
    for (ExtensionRegistry.Extension e : OverloadManagerTranslator.extensions()) {
      if (ExtensionRegistry.standard().byTypeUrl(e.typeUrl()).isEmpty()) {
        builder.add(e.name(), e.category(), e.defaultInstance());
      }
    }
    return builder.build();
  }

  /** Translates a bootstrap whose overload_manager has {@code body} (YAML at column 0). */
  private static OverloadConfig translate(String body) throws ConfigException {
    String yaml = "overload_manager:\n" + body.indent(2);
    return OverloadManagerTranslator.translate(
        BootstrapLoader.parse(yaml, BootstrapLoader.Format.YAML, REGISTRY).getOverloadManager(),
        FieldPath.ROOT.field(OM), REGISTRY);
  }

  private static void assertRejects(String body, String message) {
    assertThatThrownBy(() -> translate(body)).isInstanceOf(ConfigException.class).hasMessage(message);
  }

  private static String monitors(String items) {
    return "resource_monitors:\n" + items;
  }

  // --- accepted ------------------------------------------------------------------------------

  @Test
  void loadsTheSeedsThreeTierExampleUnchanged() throws ConfigException {
    OverloadConfig config = translate("""
        refresh_interval:
          seconds: 0
          nanos: 250000000
        resource_monitors:
          - name: envoy.resource_monitors.fixed_heap
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.resource_monitors.fixed_heap.v3.FixedHeapConfig
              max_heap_size_bytes: 2147483648
        actions:
          - name: envoy.overload_actions.disable_http_keepalive
            triggers:
              - name: envoy.resource_monitors.fixed_heap
                threshold:
                  value: 0.92
          - name: envoy.overload_actions.stop_accepting_requests
            triggers:
              - name: envoy.resource_monitors.fixed_heap
                threshold:
                  value: 0.95
        loadshed_points:
          - name: envoy.load_shed_points.tcp_listener_accept
            triggers:
              - name: envoy.resource_monitors.fixed_heap
                threshold:
                  value: 0.95
        """);

    assertThat(config.enabled()).isTrue();
    assertThat(config.refreshInterval()).isEqualTo(Duration.ofMillis(250));
    assertThat(config.resourceMonitors()).containsExactly(new OverloadConfig.ResourceMonitor(
        OverloadNames.FIXED_HEAP, new OverloadConfig.FixedHeap(2147483648L)));
    assertThat(config.actions()).containsExactly(
        new OverloadConfig.Action(OverloadNames.DISABLE_HTTP_KEEPALIVE,
            List.of(new ThresholdTrigger(OverloadNames.FIXED_HEAP, 0.92)), java.util.Optional.empty()),
        new OverloadConfig.Action(OverloadNames.STOP_ACCEPTING_REQUESTS,
            List.of(new ThresholdTrigger(OverloadNames.FIXED_HEAP, 0.95)), java.util.Optional.empty()));
    assertThat(config.loadShedPoints()).containsExactly(new OverloadConfig.LoadShedPoint(
        OverloadNames.TCP_LISTENER_ACCEPT, List.of(new ThresholdTrigger(OverloadNames.FIXED_HEAP, 0.95))));
    assertThat(config.minimumAccountToTrackPowerOfTwo()).isEmpty();
    assertThat(config.warnings()).containsExactly(OverloadConfig.NO_GLOBAL_CONNECTION_LIMIT_WARNING);
  }

  @Test
  void anEmptyOverloadManagerIsDisabledAndRefreshDefaultsToOneSecond() throws ConfigException {
    assertThat(translate("{}\n")).isEqualTo(OverloadConfig.disabled());
    assertThat(OverloadConfig.disabled().enabled()).isFalse();

    OverloadConfig config = translate(monitors(HEAP));
    assertThat(config.refreshInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(config.actions()).isEmpty();
    assertThat(config.loadShedPoints()).isEmpty();
  }

  @Test
  void readsEveryMonitorType() throws ConfigException {
    OverloadConfig config = translate(monitors("""
        - name: envoy.resource_monitors.cgroup_memory
        - name: envoy.resource_monitors.cpu_utilization
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.resource_monitors.cpu_utilization.v3.CpuUtilizationConfig
            mode: CONTAINER
        - name: envoy.resource_monitors.global_downstream_max_connections
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.resource_monitors.downstream_connections.v3.DownstreamConnectionsConfig
            max_active_downstream_connections: 1000
        - name: envoy.resource_monitors.injected_resource
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.resource_monitors.injected_resource.v3.InjectedResourceConfig
            filename: /var/run/pressure
        - name: spillway.resource_monitors.buffer_memory
          typed_config:
            "@type": type.googleapis.com/google.protobuf.Struct
            value: {max_buffer_memory_bytes: 536870912}
        - name: spillway.resource_monitors.gc_pressure
          typed_config:
            "@type": type.googleapis.com/google.protobuf.Struct
            value: {window: 30s}
        - name: spillway.resource_monitors.event_loop_lag
          typed_config:
            "@type": type.googleapis.com/google.protobuf.Struct
            value: {target: 0.1s}
        """));

    assertThat(config.resourceMonitors()).extracting(OverloadConfig.ResourceMonitor::settings).containsExactly(
        new OverloadConfig.CgroupMemory(OptionalLong.empty()),
        new OverloadConfig.CpuUtilization(OverloadConfig.CpuMode.CONTAINER),
        new OverloadConfig.GlobalDownstreamConnections(OptionalLong.of(1000)),
        new OverloadConfig.InjectedResource("/var/run/pressure"),
        new OverloadConfig.BufferMemory(OptionalLong.of(536870912)),
        new OverloadConfig.GcPressure(Duration.ofSeconds(30)),
        new OverloadConfig.EventLoopLag(Duration.ofMillis(100)));
    assertThat(config.warnings()).isEmpty();
  }

  @Test
  void monitorsWithoutTypedConfigTakeTheirDefaults() throws ConfigException {
    OverloadConfig config = translate(monitors("""
        - name: envoy.resource_monitors.cpu_utilization
        - name: envoy.resource_monitors.global_downstream_max_connections
        - name: spillway.resource_monitors.buffer_memory
        - name: spillway.resource_monitors.gc_pressure
        - name: spillway.resource_monitors.event_loop_lag
        - name: envoy.resource_monitors.cgroup_memory
          typed_config:
            "@type": type.googleapis.com/google.protobuf.Struct
            value: {max_memory_bytes: 1073741824}
        """));

    assertThat(config.resourceMonitors()).extracting(OverloadConfig.ResourceMonitor::settings).containsExactly(
        new OverloadConfig.CpuUtilization(OverloadConfig.CpuMode.HOST),
        new OverloadConfig.GlobalDownstreamConnections(OptionalLong.empty()),
        new OverloadConfig.BufferMemory(OptionalLong.empty()),
        new OverloadConfig.GcPressure(Duration.ofSeconds(10)),
        new OverloadConfig.EventLoopLag(Duration.ofMillis(50)),
        new OverloadConfig.CgroupMemory(OptionalLong.of(1073741824)));
    // A connection monitor without a limit is unlimited, with Envoy's startup warning.
    assertThat(config.warnings()).containsExactly(OverloadConfig.NO_GLOBAL_CONNECTION_LIMIT_WARNING);
  }

  @Test
  void findsAMonitorByTheTypeOfItsConfigWhenItsNameIsNotWellKnown() throws ConfigException {
    OverloadConfig config = translate("""
        resource_monitors:
        - name: heap
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.resource_monitors.fixed_heap.v3.FixedHeapConfig
            max_heap_size_bytes: 1000
        actions:
        - name: envoy.overload_actions.stop_accepting_requests
          triggers: [{name: heap, threshold: {value: 0.9}}]
        """);

    assertThat(config.resourceMonitors())
        .containsExactly(new OverloadConfig.ResourceMonitor("heap", new OverloadConfig.FixedHeap(1000)));
  }

  @Test
  void readsScaledTriggersAndReduceTimeouts() throws ConfigException {
    OverloadConfig config = translate(monitors(HEAP) + """
        actions:
        - name: envoy.overload_actions.reduce_timeouts
          triggers:
          - name: envoy.resource_monitors.fixed_heap
            scaled:
              scaling_threshold: 0.85
              saturation_threshold: 0.95
          typed_config:
            "@type": type.googleapis.com/envoy.config.overload.v3.ScaleTimersOverloadActionConfig
            timer_scale_factors:
            - timer: HTTP_DOWNSTREAM_CONNECTION_IDLE
              min_timeout: 2s
            - timer: HTTP_DOWNSTREAM_STREAM_IDLE
              min_scale: {value: 10}
            - timer: TRANSPORT_SOCKET_CONNECT
              min_timeout: {seconds: 1}
        """);

    OverloadConfig.Action action = config.actions().get(0);
    assertThat(action.triggers()).containsExactly(new ScaledTrigger(OverloadNames.FIXED_HEAP, 0.85, 0.95));
    assertThat(config.scaleTimers().orElseThrow().minimums()).containsExactly(
        java.util.Map.entry(TimerType.HTTP_DOWNSTREAM_CONNECTION_IDLE, new AbsoluteMinimum(Duration.ofSeconds(2))),
        java.util.Map.entry(TimerType.HTTP_DOWNSTREAM_STREAM_IDLE, new ScaledMinimum(0.1)),
        java.util.Map.entry(TimerType.TRANSPORT_SOCKET_CONNECT, new AbsoluteMinimum(Duration.ofSeconds(1))));
    assertThat(new ScaledMinimum(0.1).minimumFor(Duration.ofSeconds(600))).isEqualTo(Duration.ofSeconds(60));
    assertThat(new AbsoluteMinimum(Duration.ofSeconds(2)).minimumFor(Duration.ofSeconds(1)))
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void readsShrinkHeapResetStreamsAndTheOtherActions() throws ConfigException {
    OverloadConfig config = translate(monitors(HEAP) + """
        buffer_factory_config:
          minimum_account_to_track_power_of_two: 20
        actions:
        - name: envoy.overload_actions.shrink_heap
          typed_config:
            "@type": type.googleapis.com/google.protobuf.Struct
            value: {timer_interval: 5s, max_unfreed_memory_bytes: 52428800}
          triggers: [{name: envoy.resource_monitors.fixed_heap, threshold: {value: 0.9}}]
        - name: envoy.overload_actions.reset_high_memory_stream
          triggers: [{name: envoy.resource_monitors.fixed_heap, scaled: {scaling_threshold: 0.85, saturation_threshold: 0.95}}]
        - name: envoy.overload_actions.stop_accepting_connections
          triggers: [{name: envoy.resource_monitors.fixed_heap, threshold: {value: 0.97}}]
        - name: envoy.overload_actions.reject_incoming_connections
          triggers: [{name: envoy.resource_monitors.fixed_heap, threshold: {value: 0.98}}]
        - name: envoy.overload_actions.close_idle_http_connections
          triggers: [{name: envoy.resource_monitors.fixed_heap, threshold: {value: 0.8}}]
        """);

    assertThat(config.shrinkHeap()).isEqualTo(new OverloadConfig.ShrinkHeap(Duration.ofSeconds(5), 52428800));
    assertThat(config.minimumAccountToTrackPowerOfTwo()).isEqualTo(OptionalInt.of(20));
    assertThat(config.actions()).extracting(OverloadConfig.Action::name).containsExactly(
        OverloadNames.SHRINK_HEAP, OverloadNames.RESET_HIGH_MEMORY_STREAM, OverloadNames.STOP_ACCEPTING_CONNECTIONS,
        OverloadNames.REJECT_INCOMING_CONNECTIONS, OverloadNames.CLOSE_IDLE_HTTP_CONNECTIONS);
    assertThat(config.scaleTimers()).isEmpty();

    OverloadConfig defaults = translate(monitors(HEAP) + """
        actions:
        - name: envoy.overload_actions.shrink_heap
          triggers: [{name: envoy.resource_monitors.fixed_heap, threshold: {value: 0.9}}]
        """);
    assertThat(defaults.shrinkHeap())
        .isEqualTo(new OverloadConfig.ShrinkHeap(Duration.ofSeconds(10), 100L * 1024 * 1024))
        .isEqualTo(OverloadConfig.ShrinkHeap.DEFAULTS);
  }

  @Test
  void acceptsEveryLoadShedPointAndTheConnectionMonitorAsAnActionTrigger() throws ConfigException {
    StringBuilder points = new StringBuilder("loadshed_points:\n");
    for (String name : OverloadNames.LOAD_SHED_POINTS) {
      points.append("- name: ").append(name).append('\n')
          .append("  triggers: [{name: envoy.resource_monitors.fixed_heap, scaled: {scaling_threshold: 0.5,")
          .append(" saturation_threshold: 0.9}}]\n");
    }
    OverloadConfig config = translate(monitors(HEAP + """
        - name: envoy.resource_monitors.global_downstream_max_connections
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.resource_monitors.downstream_connections.v3.DownstreamConnectionsConfig
            max_active_downstream_connections: 10
        """) + """
        actions:
        - name: envoy.overload_actions.stop_accepting_connections
          triggers: [{name: envoy.resource_monitors.global_downstream_max_connections, threshold: {value: 0.9}}]
        """ + points);

    assertThat(config.loadShedPoints()).extracting(OverloadConfig.LoadShedPoint::name)
        .containsExactlyElementsOf(OverloadNames.LOAD_SHED_POINTS);
    assertThat(config.actions().get(0).triggers())
        .containsExactly(new ThresholdTrigger(OverloadNames.GLOBAL_DOWNSTREAM_MAX_CONNECTIONS, 0.9));
  }

  // --- Envoy's startup checks ------------------------------------------------------------------

  @Test
  void rejectsAnUnknownAction() {
    assertRejects(monitors(HEAP) + """
        actions:
        - name: envoy.overload_actions.not_a_valid_action
          triggers: [{name: envoy.resource_monitors.fixed_heap, threshold: {value: 0.9}}]
        """, "overload_manager.actions[0].name: Unknown Overload Manager Action envoy.overload_actions.not_a_valid_action");
  }

  @Test
  void rejectsATriggerOnAnUnconfiguredMonitor() {
    assertRejects(monitors(HEAP) + """
        actions:
        - name: envoy.overload_actions.shrink_heap
          triggers:
          - name: envoy.resource_monitors.fixed_heap
            threshold: {value: 0.9}
          - name: envoy.resource_monitors.fake_resource1
            threshold: {value: 0.9}
        """, "overload_manager.actions[0].triggers[1].name: Unknown trigger resource"
        + " envoy.resource_monitors.fake_resource1 for overload action envoy.overload_actions.shrink_heap");
    assertRejects(monitors(HEAP) + """
        loadshed_points:
        - name: envoy.load_shed_points.tcp_listener_accept
          triggers: [{name: envoy.resource_monitors.fake_resource1, threshold: {value: 0.9}}]
        """, "overload_manager.loadshed_points[0].triggers[0].name: Unknown trigger resource"
        + " envoy.resource_monitors.fake_resource1 for loadshed point envoy.load_shed_points.tcp_listener_accept");
  }

  @Test
  void rejectsTheProactiveConnectionMonitorAsALoadShedTrigger() {
    // Envoy's shed points only follow polled resources.
    assertRejects(monitors(HEAP + "- name: envoy.resource_monitors.global_downstream_max_connections\n") + """
        loadshed_points:
        - name: envoy.load_shed_points.tcp_listener_accept
          triggers: [{name: envoy.resource_monitors.global_downstream_max_connections, threshold: {value: 0.9}}]
        """, "overload_manager.loadshed_points[0].triggers[0].name: Unknown trigger resource"
        + " envoy.resource_monitors.global_downstream_max_connections for loadshed point"
        + " envoy.load_shed_points.tcp_listener_accept");
  }

  @Test
  void rejectsDuplicateNames() {
    assertRejects(monitors(HEAP + HEAP),
        "overload_manager.resource_monitors[1].name: Duplicate resource monitor envoy.resource_monitors.fixed_heap");
    assertRejects(monitors(HEAP) + """
        actions:
        - name: envoy.overload_actions.stop_accepting_requests
          triggers: [{name: envoy.resource_monitors.fixed_heap, threshold: {value: 0.9}}]
        - name: envoy.overload_actions.stop_accepting_requests
          triggers: [{name: envoy.resource_monitors.fixed_heap, threshold: {value: 0.95}}]
        """, "overload_manager.actions[1].name: Duplicate overload action envoy.overload_actions.stop_accepting_requests");
    assertRejects(monitors(HEAP) + """
        actions:
        - name: envoy.overload_actions.stop_accepting_requests
          triggers:
          - {name: envoy.resource_monitors.fixed_heap, threshold: {value: 0.9}}
          - {name: envoy.resource_monitors.fixed_heap, threshold: {value: 0.95}}
        """, "overload_manager.actions[0].triggers[1].name: Duplicate trigger resource for overload action"
        + " envoy.overload_actions.stop_accepting_requests");
    assertRejects(monitors(HEAP) + """
        loadshed_points:
        - name: envoy.load_shed_points.tcp_listener_accept
          triggers:
          - {name: envoy.resource_monitors.fixed_heap, threshold: {value: 0.9}}
          - {name: envoy.resource_monitors.fixed_heap, threshold: {value: 0.95}}
        """, "overload_manager.loadshed_points[0].triggers[1].name: Duplicate trigger resource for LoadShedPoint"
        + " envoy.load_shed_points.tcp_listener_accept");
    assertRejects(monitors(HEAP) + """
        loadshed_points:
        - name: envoy.load_shed_points.tcp_listener_accept
          triggers: [{name: envoy.resource_monitors.fixed_heap, threshold: {value: 0.9}}]
        - name: envoy.load_shed_points.tcp_listener_accept
          triggers: [{name: envoy.resource_monitors.fixed_heap, threshold: {value: 0.9}}]
        """, "overload_manager.loadshed_points[1].name: Duplicate loadshed point"
        + " envoy.load_shed_points.tcp_listener_accept");
  }

  @Test
  void rejectsTypedConfigOnActionsOtherThanReduceTimeoutsAndShrinkHeap() {
    for (String action : List.of(OverloadNames.STOP_ACCEPTING_REQUESTS, OverloadNames.DISABLE_HTTP_KEEPALIVE,
        OverloadNames.STOP_ACCEPTING_CONNECTIONS, OverloadNames.REJECT_INCOMING_CONNECTIONS,
        OverloadNames.CLOSE_IDLE_HTTP_CONNECTIONS)) {
      assertRejects(monitors(HEAP) + """
          actions:
          - name: %s
            triggers: [{name: envoy.resource_monitors.fixed_heap, threshold: {value: 0.9}}]
            typed_config:
              "@type": type.googleapis.com/envoy.config.overload.v3.ScaleTimersOverloadActionConfig
              timer_scale_factors: [{timer: HTTP_DOWNSTREAM_CONNECTION_IDLE, min_timeout: 2s}]
          """.formatted(action),
          "overload_manager.actions[0].typed_config: Overload action \"" + action
              + "\" has an unexpected value for the typed_config field");
    }
  }

  @Test
  void rejectsResetHighMemoryStreamWithoutBufferFactoryConfig() {
    assertRejects(monitors(HEAP) + """
        actions:
        - name: envoy.overload_actions.reset_high_memory_stream
          triggers: [{name: envoy.resource_monitors.fixed_heap, threshold: {value: 0.9}}]
        """, "overload_manager.actions[0].name: Overload action \"envoy.overload_actions.reset_high_memory_stream\""
        + " requires buffer_factory_config.");
    assertRejects(monitors(HEAP) + "buffer_factory_config: {minimum_account_to_track_power_of_two: 9}\n",
        "overload_manager.buffer_factory_config.minimum_account_to_track_power_of_two: must be within [10, 56], got 9");
    assertRejects(monitors(HEAP) + "buffer_factory_config: {minimum_account_to_track_power_of_two: 57}\n",
        "overload_manager.buffer_factory_config.minimum_account_to_track_power_of_two: must be within [10, 56], got 57");
  }

  @Test
  void rejectsScaledTriggersWhoseScalingThresholdIsNotBelowSaturation() {
    for (String thresholds : List.of("{scaling_threshold: 0.9, saturation_threshold: 0.9}",
        "{scaling_threshold: 0.95, saturation_threshold: 0.85}")) {
      assertRejects(monitors(HEAP) + """
          actions:
          - name: envoy.overload_actions.stop_accepting_requests
            triggers: [{name: envoy.resource_monitors.fixed_heap, scaled: %s}]
          """.formatted(thresholds),
          "overload_manager.actions[0].triggers[0].scaled: scaling_threshold must be less than saturation_threshold");
    }
  }

  @Test
  void rejectsThresholdsOutsideZeroToOne() {
    assertRejects(monitors(HEAP) + """
        actions:
        - name: envoy.overload_actions.stop_accepting_requests
          triggers: [{name: envoy.resource_monitors.fixed_heap, threshold: {value: 1.5}}]
        """, "overload_manager.actions[0].triggers[0].threshold.value: must be within [0, 1], got 1.5");
    assertRejects(monitors(HEAP) + """
        loadshed_points:
        - name: envoy.load_shed_points.tcp_listener_accept
          triggers: [{name: envoy.resource_monitors.fixed_heap, threshold: {value: -0.1}}]
        """, "overload_manager.loadshed_points[0].triggers[0].threshold.value: must be within [0, 1], got -0.1");
    assertRejects(monitors(HEAP) + """
        actions:
        - name: envoy.overload_actions.stop_accepting_requests
          triggers: [{name: envoy.resource_monitors.fixed_heap, scaled: {scaling_threshold: -1, saturation_threshold: 0.9}}]
        """, "overload_manager.actions[0].triggers[0].scaled.scaling_threshold: must be within [0, 1], got -1.0");
    assertRejects(monitors(HEAP) + """
        actions:
        - name: envoy.overload_actions.stop_accepting_requests
          triggers: [{name: envoy.resource_monitors.fixed_heap, scaled: {scaling_threshold: 0.5, saturation_threshold: 2}}]
        """, "overload_manager.actions[0].triggers[0].scaled.saturation_threshold: must be within [0, 1], got 2.0");
  }

  @Test
  void rejectsMalformedTriggers() {
    assertRejects(monitors(HEAP) + """
        actions:
        - name: envoy.overload_actions.stop_accepting_requests
          triggers: [{name: envoy.resource_monitors.fixed_heap}]
        """, "overload_manager.actions[0].triggers[0]: action not set for trigger envoy.resource_monitors.fixed_heap");
    assertRejects(monitors(HEAP) + """
        actions:
        - name: envoy.overload_actions.stop_accepting_requests
          triggers: []
        """, "overload_manager.actions[0].triggers: at least one trigger is required");
    assertRejects(monitors(HEAP) + """
        loadshed_points:
        - name: envoy.load_shed_points.tcp_listener_accept
        """, "overload_manager.loadshed_points[0].triggers: at least one trigger is required");
    assertRejects(monitors(HEAP) + """
        actions:
        - name: envoy.overload_actions.stop_accepting_requests
          triggers: [{threshold: {value: 0.9}}]
        """, "overload_manager.actions[0].triggers[0].name: name is required");
    assertRejects(monitors(HEAP) + """
        actions:
        - triggers: [{name: envoy.resource_monitors.fixed_heap, threshold: {value: 0.9}}]
        """, "overload_manager.actions[0].name: name is required");
  }

  @Test
  void rejectsAnUnknownLoadShedPoint() {
    assertRejects(monitors(HEAP) + """
        loadshed_points:
        - name: envoy.load_shed_points.tcp_proxy_on_data
          triggers: [{name: envoy.resource_monitors.fixed_heap, threshold: {value: 0.9}}]
        """, "overload_manager.loadshed_points[0].name: Unknown load shed point envoy.load_shed_points.tcp_proxy_on_data");
  }

  @Test
  void rejectsBadReduceTimeoutsConfigs() {
    String action = monitors(HEAP) + """
        actions:
        - name: envoy.overload_actions.reduce_timeouts
          triggers: [{name: envoy.resource_monitors.fixed_heap, scaled: {scaling_threshold: 0.85, saturation_threshold: 0.95}}]
        """;
    String typed = action + """
          typed_config:
            "@type": type.googleapis.com/envoy.config.overload.v3.ScaleTimersOverloadActionConfig
        """;
    String path = "overload_manager.actions[0].typed_config";

    assertRejects(typed + """
            timer_scale_factors:
            - {timer: HTTP_DOWNSTREAM_CONNECTION_IDLE, min_timeout: 2s}
            - {timer: HTTP_DOWNSTREAM_CONNECTION_IDLE, min_scale: {value: 10}}
        """, path + ".timer_scale_factors[1].timer: Found duplicate entry for timer type HTTP_DOWNSTREAM_CONNECTION_IDLE");
    assertRejects(action, path + ": Overload action \"envoy.overload_actions.reduce_timeouts\" requires a typed_config"
        + " of type envoy.config.overload.v3.ScaleTimersOverloadActionConfig");
    assertRejects(typed + "    timer_scale_factors: []\n", path + ".timer_scale_factors: at least one timer is required");
    assertRejects(typed + "    timer_scale_factors: [{timer: HTTP_DOWNSTREAM_STREAM_IDLE}]\n",
        path + ".timer_scale_factors[0]: one of min_timeout and min_scale is required");
    assertRejects(typed + "    timer_scale_factors: [{min_timeout: 1s}]\n",
        path + ".timer_scale_factors[0].timer: timer is required");
    assertRejects(typed + "    timer_scale_factors: [{timer: TRANSPORT_SOCKET_CONNECT, min_scale: {value: 101}}]\n",
        path + ".timer_scale_factors[0].min_scale.value: must be within [0, 100], got 101.0");
  }

  @Test
  void rejectsBadMonitorConfigs() {
    String path = "overload_manager.resource_monitors[0]";
    assertRejects("refresh_interval: 0.25s\n", "overload_manager.resource_monitors: at least one resource monitor is"
        + " required");
    assertRejects(monitors(HEAP) + "refresh_interval: 0s\n", "overload_manager.refresh_interval: must be greater than 0");
    assertRejects(monitors("- name: envoy.resource_monitors.not_a_monitor\n"),
        path + ".name: Didn't find a registered implementation for name: 'envoy.resource_monitors.not_a_monitor'");
    assertRejects(monitors("- name: envoy.resource_monitors.fixed_heap\n"),
        path + ".typed_config.max_heap_size_bytes: must be greater than 0");
    assertRejects(monitors("""
        - name: envoy.resource_monitors.injected_resource
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.resource_monitors.injected_resource.v3.InjectedResourceConfig
        """), path + ".typed_config.filename: filename is required");
    assertRejects(monitors("""
        - name: envoy.resource_monitors.cpu_utilization
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.resource_monitors.fixed_heap.v3.FixedHeapConfig
            max_heap_size_bytes: 1
        """), path + ".typed_config: expected envoy.extensions.resource_monitors.cpu_utilization.v3.CpuUtilizationConfig,"
        + " got envoy.extensions.resource_monitors.fixed_heap.v3.FixedHeapConfig");
    assertRejects(monitors("""
        - name: connections
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.resource_monitors.downstream_connections.v3.DownstreamConnectionsConfig
            max_active_downstream_connections: 10
        """), path + ".name: the global downstream connection monitor must be named"
        + " envoy.resource_monitors.global_downstream_max_connections");
    assertRejects(monitors("""
        - name: envoy.resource_monitors.global_downstream_max_connections
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.resource_monitors.downstream_connections.v3.DownstreamConnectionsConfig
            max_active_downstream_connections: -5
        """), path + ".typed_config.max_active_downstream_connections: must be greater than 0");
  }

  @Test
  void rejectsBadStructSettings() {
    String path = "overload_manager.resource_monitors[0].typed_config";
    assertRejects(monitors("""
        - name: spillway.resource_monitors.gc_pressure
          typed_config:
            "@type": type.googleapis.com/google.protobuf.Struct
            value: {windw: 10s}
        """), path + ".windw: unknown field (spillway.resource_monitors.gc_pressure takes window)");
    assertRejects(monitors("""
        - name: spillway.resource_monitors.gc_pressure
          typed_config:
            "@type": type.googleapis.com/google.protobuf.Struct
            value: {window: 10}
        """), path + ".window: expected a duration such as \"10s\", got a number");
    assertRejects(monitors("""
        - name: spillway.resource_monitors.event_loop_lag
          typed_config:
            "@type": type.googleapis.com/google.protobuf.Struct
            value: {target: 50ms}
        """), path + ".target: \"50ms\" is not a duration (write e.g. \"0.25s\")");
    assertRejects(monitors("""
        - name: spillway.resource_monitors.event_loop_lag
          typed_config:
            "@type": type.googleapis.com/google.protobuf.Struct
            value: {target: 0s}
        """), path + ".target: must be greater than 0");
    assertRejects(monitors("""
        - name: envoy.resource_monitors.cgroup_memory
          typed_config:
            "@type": type.googleapis.com/google.protobuf.Struct
            value: {max_memory_bytes: 0}
        """), path + ".max_memory_bytes: must be greater than 0");
    assertRejects(monitors("""
        - name: spillway.resource_monitors.buffer_memory
          typed_config:
            "@type": type.googleapis.com/google.protobuf.Struct
            value: {max_buffer_memory_bytes: 1.5}
        """), path + ".max_buffer_memory_bytes: expected an integer, got 1.5");
    assertRejects(monitors("""
        - name: spillway.resource_monitors.buffer_memory
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.resource_monitors.fixed_heap.v3.FixedHeapConfig
            max_heap_size_bytes: 1
        """), path + ": expected google.protobuf.Struct (spillway.resource_monitors.buffer_memory takes its settings"
        + " as a Struct), got envoy.extensions.resource_monitors.fixed_heap.v3.FixedHeapConfig");
    assertRejects(monitors(HEAP) + """
        actions:
        - name: envoy.overload_actions.shrink_heap
          triggers: [{name: envoy.resource_monitors.fixed_heap, threshold: {value: 0.9}}]
          typed_config:
            "@type": type.googleapis.com/google.protobuf.Struct
            value: {timer_interval: 5s, max_unfreed: 1}
        """, "overload_manager.actions[0].typed_config.max_unfreed: unknown field"
        + " (envoy.overload_actions.shrink_heap takes max_unfreed_memory_bytes, timer_interval)");
  }
}
