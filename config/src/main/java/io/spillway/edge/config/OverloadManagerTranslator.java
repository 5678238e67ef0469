package io.spillway.edge.config;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import com.google.protobuf.util.Durations;
import io.envoyproxy.envoy.config.overload.v3.BufferFactoryConfig;
import io.envoyproxy.envoy.config.overload.v3.LoadShedPoint;
import io.envoyproxy.envoy.config.overload.v3.OverloadAction;
import io.envoyproxy.envoy.config.overload.v3.OverloadManager;
import io.envoyproxy.envoy.config.overload.v3.ResourceMonitor;
import io.envoyproxy.envoy.config.overload.v3.ScaleTimersOverloadActionConfig;
import io.envoyproxy.envoy.config.overload.v3.ScaleTimersOverloadActionConfig.ScaleTimer;
import io.envoyproxy.envoy.config.overload.v3.ScaledTrigger;
import io.envoyproxy.envoy.config.overload.v3.ThresholdTrigger;
import io.envoyproxy.envoy.config.overload.v3.Trigger;
import io.envoyproxy.envoy.extensions.resource_monitors.cpu_utilization.v3.CpuUtilizationConfig;
import io.envoyproxy.envoy.extensions.resource_monitors.downstream_connections.v3.DownstreamConnectionsConfig;
import io.envoyproxy.envoy.extensions.resource_monitors.fixed_heap.v3.FixedHeapConfig;
import io.envoyproxy.envoy.extensions.resource_monitors.injected_resource.v3.InjectedResourceConfig;
import io.spillway.edge.config.ExtensionRegistry.Category;
import io.spillway.edge.config.OverloadConfig.MonitorSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code Bootstrap.overload_manager} → {@link OverloadConfig}, with every check Envoy's
 * {@code OverloadManagerImpl} makes at startup, in the same order and with the same words as the rule
 * of the {@link ConfigException} ({@code <path>: <rule>}):
 *
 * <ul>
 *   <li>{@code Duplicate resource monitor <name>}
 *   <li>{@code Unknown Overload Manager Action <name>}
 *   <li>{@code action not set for trigger <name>} (neither threshold nor scaled)
 *   <li>{@code scaling_threshold must be less than saturation_threshold}
 *   <li>{@code Duplicate trigger resource for overload action <name>}
 *   <li>{@code Duplicate overload action <name>}
 *   <li>{@code Found duplicate entry for timer type <TIMER>} (reduce_timeouts)
 *   <li>{@code Overload action "<name>" requires buffer_factory_config.} (reset_high_memory_stream)
 *   <li>{@code Overload action "<name>" has an unexpected value for the typed_config field} (any action but
 *       reduce_timeouts and shrink_heap)
 *   <li>{@code Unknown trigger resource <monitor> for overload action <name>}
 *   <li>{@code Unknown trigger resource <monitor> for loadshed point <name>}
 *   <li>{@code Duplicate trigger resource for LoadShedPoint <name>}
 *   <li>{@code Duplicate loadshed point <name>}
 * </ul>
 *
 * plus the proto's own validation rules (thresholds within [0, 1], {@code min_scale} within [0, 100],
 * {@code minimum_account_to_track_power_of_two} within [10, 56], required names and triggers) and
 * ours: an unknown load shed point name ({@code Unknown load shed point <name>}) and a monitor whose
 * name and typed_config match no implementation (Envoy's
 * {@code Didn't find a registered implementation for name: '<name>'}).
 *
 * <p><b>Monitor types.</b> A monitor is identified by its name when that is a well-known monitor
 * name ({@link OverloadNames#RESOURCE_MONITORS}), otherwise by the type of its typed_config. The
 * API version Spillway is built on has no {@code CgroupMemoryConfig} and no {@code ShrinkHeapConfig},
 * so {@code cgroup_memory}, {@code shrink_heap} and our {@code spillway.resource_monitors.*} monitors
 * take either no typed_config or a {@code google.protobuf.Struct} with these keys:
 *
 * <ul>
 *   <li>{@code envoy.resource_monitors.cgroup_memory}: {@code max_memory_bytes} (integer > 0, optional)
 *   <li>{@code spillway.resource_monitors.buffer_memory}: {@code max_buffer_memory_bytes} (integer > 0,
 *       optional; default the JVM's direct memory limit)
 *   <li>{@code spillway.resource_monitors.gc_pressure}: {@code window} (duration such as {@code "10s"},
 *       default 10 s)
 *   <li>{@code spillway.resource_monitors.event_loop_lag}: {@code target} (duration, default
 *       {@code "0.05s"})
 *   <li>{@code envoy.overload_actions.shrink_heap}: {@code timer_interval} (duration, default 10 s),
 *       {@code max_unfreed_memory_bytes} (integer >= 0, default 104857600)
 * </ul>
 *
 * written in YAML as {@code typed_config: {"@type": type.googleapis.com/google.protobuf.Struct, value:
 * {max_memory_bytes: 1073741824}}}. Reading that YAML needs {@code google.protobuf.Struct} in the
 * {@link ExtensionRegistry} ({@link #extensions()}).
 */
public final class OverloadManagerTranslator {

  private static final String STRUCT = "google.protobuf.Struct";
  private static final String SCALE_TIMERS_TYPE =
      ScaleTimersOverloadActionConfig.getDescriptor().getFullName();

  private static final SupportedFields OVERLOAD_MANAGER = SupportedFields.of(OverloadManager.getDescriptor(),
      "refresh_interval", "resource_monitors", "actions", "loadshed_points", "buffer_factory_config");
  private static final SupportedFields RESOURCE_MONITOR = SupportedFields.of(ResourceMonitor.getDescriptor(),
      "name", "typed_config");
  private static final SupportedFields ACTION = SupportedFields.of(OverloadAction.getDescriptor(),
      "name", "triggers", "typed_config");
  private static final SupportedFields LOAD_SHED_POINT = SupportedFields.of(LoadShedPoint.getDescriptor(),
      "name", "triggers");
  private static final SupportedFields TRIGGER = SupportedFields.of(Trigger.getDescriptor(),
      "name", "threshold", "scaled");
  private static final SupportedFields THRESHOLD = SupportedFields.of(ThresholdTrigger.getDescriptor(), "value");
  private static final SupportedFields SCALED = SupportedFields.of(ScaledTrigger.getDescriptor(),
      "scaling_threshold", "saturation_threshold");
  private static final SupportedFields BUFFER_FACTORY = SupportedFields.of(BufferFactoryConfig.getDescriptor(),
      "minimum_account_to_track_power_of_two");
  private static final SupportedFields SCALE_TIMERS = SupportedFields.of(
      ScaleTimersOverloadActionConfig.getDescriptor(), "timer_scale_factors");
  private static final SupportedFields SCALE_TIMER = SupportedFields.of(ScaleTimer.getDescriptor(),
      "timer", "min_timeout", "min_scale");
  private static final SupportedFields FIXED_HEAP = SupportedFields.of(FixedHeapConfig.getDescriptor(),
      "max_heap_size_bytes");
  private static final SupportedFields CPU = SupportedFields.of(CpuUtilizationConfig.getDescriptor(), "mode");
  private static final SupportedFields DOWNSTREAM_CONNECTIONS = SupportedFields.of(
      DownstreamConnectionsConfig.getDescriptor(), "max_active_downstream_connections");
  private static final SupportedFields INJECTED = SupportedFields.of(InjectedResourceConfig.getDescriptor(),
      "filename");

  /** Envoy's monitor config types, by full proto name, and the monitor each stands for. */
  private static final Map<String, String> MONITOR_BY_TYPE = Map.of(
      FixedHeapConfig.getDescriptor().getFullName(), OverloadNames.FIXED_HEAP,
      CpuUtilizationConfig.getDescriptor().getFullName(), OverloadNames.CPU_UTILIZATION,
      DownstreamConnectionsConfig.getDescriptor().getFullName(), OverloadNames.GLOBAL_DOWNSTREAM_MAX_CONNECTIONS,
      InjectedResourceConfig.getDescriptor().getFullName(), OverloadNames.INJECTED_RESOURCE);

  private static final int MIN_ACCOUNT_POWER_OF_TWO = 10;
  private static final int MAX_ACCOUNT_POWER_OF_TWO = 56;
  /** The largest integer a Struct's double holds exactly. */
  private static final double MAX_EXACT_INTEGER = 9_007_199_254_740_992d;

  private OverloadManagerTranslator() {}

  /**
   * The extensions whose types an overload manager's typed_configs use beyond what
   * {@link ExtensionRegistry#standard()} registers today: {@code google.protobuf.Struct} (as a
   * resource monitor config, which also lets {@code shrink_heap} parse its Struct).
   */
  public static List<ExtensionRegistry.Extension> extensions() {
    return List.of(new ExtensionRegistry.Extension(
        "spillway.resource_monitors.struct_config", Category.RESOURCE_MONITOR, Struct.getDefaultInstance()));
  }

  /**
   * Translates {@code proto}, found at {@code path} (normally {@code overload_manager}). An empty
   * message is the {@linkplain OverloadConfig#disabled() disabled} overload manager.
   */
  static OverloadConfig translate(OverloadManager proto, FieldPath path, ExtensionRegistry registry)
      throws ConfigException {
    OVERLOAD_MANAGER.check(proto, path);
    if (proto.getAllFields().isEmpty()) {
      return OverloadConfig.disabled();
    }
    Duration refreshInterval = ProtoValues.positiveDuration(proto.hasRefreshInterval(), proto.getRefreshInterval(),
        path.field("refresh_interval"), OverloadConfig.DEFAULT_REFRESH_INTERVAL);
    if (proto.getResourceMonitorsCount() == 0) {
      throw new ConfigException(path.field("resource_monitors"), "at least one resource monitor is required");
    }

    // Monitors: names unique; the proactive connection monitor is kept apart, as Envoy does.
    Map<String, OverloadConfig.ResourceMonitor> monitors = new LinkedHashMap<>();
    FieldPath monitorsPath = path.field("resource_monitors");
    for (int i = 0; i < proto.getResourceMonitorsCount(); i++) {
      OverloadConfig.ResourceMonitor monitor =
          monitor(proto.getResourceMonitors(i), monitorsPath.index(i), registry);
      if (monitors.putIfAbsent(monitor.name(), monitor) != null) {
        throw new ConfigException(monitorsPath.index(i).field("name"), "Duplicate resource monitor " + monitor.name());
      }
    }
    Set<String> polled = new LinkedHashSet<>();
    for (OverloadConfig.ResourceMonitor m : monitors.values()) {
      if (!(m.settings() instanceof OverloadConfig.GlobalDownstreamConnections)) {
        polled.add(m.name());
      }
    }

    OptionalInt minimumAccount = OptionalInt.empty();
    if (proto.hasBufferFactoryConfig()) {
      FieldPath bufferPath = path.field("buffer_factory_config");
      BufferFactoryConfig buffer = proto.getBufferFactoryConfig();
      BUFFER_FACTORY.check(buffer, bufferPath);
      long power = Integer.toUnsignedLong(buffer.getMinimumAccountToTrackPowerOfTwo());
      if (power < MIN_ACCOUNT_POWER_OF_TWO || power > MAX_ACCOUNT_POWER_OF_TWO) {
        throw new ConfigException(bufferPath.field("minimum_account_to_track_power_of_two"),
            "must be within [" + MIN_ACCOUNT_POWER_OF_TWO + ", " + MAX_ACCOUNT_POWER_OF_TWO + "], got " + power);
      }
      minimumAccount = OptionalInt.of((int) power);
    }

    List<OverloadConfig.Action> actions = new ArrayList<>();
    Set<String> actionNames = new LinkedHashSet<>();
    FieldPath actionsPath = path.field("actions");
    for (int i = 0; i < proto.getActionsCount(); i++) {
      actions.add(action(proto.getActions(i), actionsPath.index(i), proto.hasBufferFactoryConfig(),
          monitors.keySet(), actionNames, registry));
    }

    List<OverloadConfig.LoadShedPoint> points = new ArrayList<>();
    Set<String> pointNames = new LinkedHashSet<>();
    FieldPath pointsPath = path.field("loadshed_points");
    for (int i = 0; i < proto.getLoadshedPointsCount(); i++) {
      points.add(loadShedPoint(proto.getLoadshedPoints(i), pointsPath.index(i), polled, pointNames));
    }

    List<String> warnings = new ArrayList<>();
    OverloadConfig.ResourceMonitor connections = monitors.get(OverloadNames.GLOBAL_DOWNSTREAM_MAX_CONNECTIONS);
    if (connections == null || ((OverloadConfig.GlobalDownstreamConnections) connections.settings())
        .maxActiveDownstreamConnections().isEmpty()) {
      warnings.add(OverloadConfig.NO_GLOBAL_CONNECTION_LIMIT_WARNING);
    }
    return new OverloadConfig(refreshInterval, List.copyOf(monitors.values()), actions, points, minimumAccount,
        warnings);
  }

  // --- resource monitors ----------------------------------------------------------------------

  private static OverloadConfig.ResourceMonitor monitor(ResourceMonitor proto, FieldPath path,
      ExtensionRegistry registry) throws ConfigException {
    RESOURCE_MONITOR.check(proto, path);
    String name = proto.getName();
    if (name.isEmpty()) {
      throw new ConfigException(path.field("name"), "name is required");
    }
    FieldPath configPath = path.field("typed_config");
    Optional<Any> config = proto.hasTypedConfig() && !isEmpty(proto.getTypedConfig())
        ? Optional.of(proto.getTypedConfig())
        : Optional.empty();
    String kind = monitorKind(name, config, path);
    MonitorSettings settings = switch (kind) {
      case OverloadNames.FIXED_HEAP -> fixedHeap(config, configPath, registry);
      case OverloadNames.CGROUP_MEMORY -> new OverloadConfig.CgroupMemory(
          optionalPositiveLong(struct(config, configPath, kind, Set.of("max_memory_bytes")), "max_memory_bytes",
              configPath));
      case OverloadNames.CPU_UTILIZATION -> cpu(config, configPath, registry);
      case OverloadNames.GLOBAL_DOWNSTREAM_MAX_CONNECTIONS -> downstreamConnections(config, configPath, registry);
      case OverloadNames.INJECTED_RESOURCE -> injected(config, configPath, registry);
      case OverloadNames.BUFFER_MEMORY -> new OverloadConfig.BufferMemory(optionalPositiveLong(
          struct(config, configPath, kind, Set.of("max_buffer_memory_bytes")), "max_buffer_memory_bytes",
          configPath));
      case OverloadNames.GC_PRESSURE -> new OverloadConfig.GcPressure(positiveDuration(
          struct(config, configPath, kind, Set.of("window")), "window", configPath,
          OverloadConfig.GcPressure.DEFAULT_WINDOW));
      case OverloadNames.EVENT_LOOP_LAG -> new OverloadConfig.EventLoopLag(positiveDuration(
          struct(config, configPath, kind, Set.of("target")), "target", configPath,
          OverloadConfig.EventLoopLag.DEFAULT_TARGET));
      default -> throw new IllegalStateException("no settings for monitor " + kind);
    };
    return new OverloadConfig.ResourceMonitor(name, settings);
  }

  /** The monitor type: by well-known name, else by the typed_config's type (as Envoy's factory lookup). */
  private static String monitorKind(String name, Optional<Any> config, FieldPath path) throws ConfigException {
    if (OverloadNames.RESOURCE_MONITORS.contains(name)) {
      return name;
    }
    String byType = config.map(any -> MONITOR_BY_TYPE.get(typeNameOf(any.getTypeUrl()))).orElse(null);
    if (byType == null) {
      throw new ConfigException(path.field("name"), "Didn't find a registered implementation for name: '" + name
          + "'");
    }
    if (byType.equals(OverloadNames.GLOBAL_DOWNSTREAM_MAX_CONNECTIONS)) {
      // Envoy recognises its proactive resource by name only.
      throw new ConfigException(path.field("name"), "the global downstream connection monitor must be named "
          + OverloadNames.GLOBAL_DOWNSTREAM_MAX_CONNECTIONS);
    }
    return byType;
  }

  private static MonitorSettings fixedHeap(Optional<Any> config, FieldPath path, ExtensionRegistry registry)
      throws ConfigException {
    FixedHeapConfig heap = config.isPresent()
        ? registry.unpack(config.get(), FixedHeapConfig.class, Category.RESOURCE_MONITOR, path)
        : FixedHeapConfig.getDefaultInstance();
    FIXED_HEAP.check(heap, path);
    long max = heap.getMaxHeapSizeBytes();
    if (max == 0) {
      throw new ConfigException(path.field("max_heap_size_bytes"), "must be greater than 0");
    }
    if (max < 0) {
      throw new ConfigException(path.field("max_heap_size_bytes"), Long.toUnsignedString(max)
          + " is larger than the supported maximum " + Long.MAX_VALUE);
    }
    return new OverloadConfig.FixedHeap(max);
  }

  private static MonitorSettings cpu(Optional<Any> config, FieldPath path, ExtensionRegistry registry)
      throws ConfigException {
    CpuUtilizationConfig cpu = config.isPresent()
        ? registry.unpack(config.get(), CpuUtilizationConfig.class, Category.RESOURCE_MONITOR, path)
        : CpuUtilizationConfig.getDefaultInstance();
    CPU.check(cpu, path);
    OverloadConfig.CpuMode mode = switch (cpu.getMode()) {
      case HOST -> OverloadConfig.CpuMode.HOST;
      case CONTAINER -> OverloadConfig.CpuMode.CONTAINER;
      default -> throw new ConfigException(path.field("mode"), cpu.getModeValue() + " is not a valid mode"
          + " (HOST or CONTAINER)");
    };
    return new OverloadConfig.CpuUtilization(mode);
  }

  private static MonitorSettings downstreamConnections(Optional<Any> config, FieldPath path,
      ExtensionRegistry registry) throws ConfigException {
    DownstreamConnectionsConfig connections = config.isPresent()
        ? registry.unpack(config.get(), DownstreamConnectionsConfig.class, Category.RESOURCE_MONITOR, path)
        : DownstreamConnectionsConfig.getDefaultInstance();
    DOWNSTREAM_CONNECTIONS.check(connections, path);
    long max = connections.getMaxActiveDownstreamConnections();
    if (max < 0) {
      throw new ConfigException(path.field("max_active_downstream_connections"), "must be greater than 0");
    }
    // Unset (0) is no limit, with the startup warning Envoy logs.
    return new OverloadConfig.GlobalDownstreamConnections(max == 0 ? OptionalLong.empty() : OptionalLong.of(max));
  }

  private static MonitorSettings injected(Optional<Any> config, FieldPath path, ExtensionRegistry registry)
      throws ConfigException {
    InjectedResourceConfig injected = config.isPresent()
        ? registry.unpack(config.get(), InjectedResourceConfig.class, Category.RESOURCE_MONITOR, path)
        : InjectedResourceConfig.getDefaultInstance();
    INJECTED.check(injected, path);
    if (injected.getFilename().isEmpty()) {
      throw new ConfigException(path.field("filename"), "filename is required");
    }
    return new OverloadConfig.InjectedResource(injected.getFilename());
  }

  // --- actions --------------------------------------------------------------------------------

  private static OverloadConfig.Action action(OverloadAction proto, FieldPath path, boolean hasBufferFactory,
      Set<String> monitors, Set<String> seen, ExtensionRegistry registry) throws ConfigException {
    ACTION.check(proto, path);
    String name = proto.getName();
    if (name.isEmpty()) {
      throw new ConfigException(path.field("name"), "name is required");
    }
    if (!OverloadNames.ACTIONS.contains(name)) {
      throw new ConfigException(path.field("name"), "Unknown Overload Manager Action " + name);
    }
    List<OverloadConfig.Trigger> triggers =
        triggers(proto.getTriggersList(), path.field("triggers"), "Duplicate trigger resource for overload action "
            + name);
    if (!seen.add(name)) {
      throw new ConfigException(path.field("name"), "Duplicate overload action " + name);
    }
    FieldPath configPath = path.field("typed_config");
    Optional<OverloadConfig.ActionSettings> settings = Optional.empty();
    switch (name) {
      case OverloadNames.REDUCE_TIMEOUTS -> settings = Optional.of(scaleTimers(proto, configPath, registry));
      case OverloadNames.SHRINK_HEAP -> {
        if (proto.hasTypedConfig() && !isEmpty(proto.getTypedConfig())) {
          settings = Optional.of(shrinkHeap(proto.getTypedConfig(), configPath));
        }
      }
      case OverloadNames.RESET_HIGH_MEMORY_STREAM -> {
        if (!hasBufferFactory) {
          throw new ConfigException(path.field("name"),
              "Overload action \"" + name + "\" requires buffer_factory_config.");
        }
        rejectTypedConfig(proto, configPath);
      }
      default -> rejectTypedConfig(proto, configPath);
    }
    for (int j = 0; j < triggers.size(); j++) {
      String resource = triggers.get(j).resource();
      if (!monitors.contains(resource)) {
        throw new ConfigException(path.field("triggers").index(j).field("name"),
            "Unknown trigger resource " + resource + " for overload action " + name);
      }
    }
    return new OverloadConfig.Action(name, triggers, settings);
  }

  private static void rejectTypedConfig(OverloadAction proto, FieldPath path) throws ConfigException {
    if (proto.hasTypedConfig()) {
      throw new ConfigException(path,
          "Overload action \"" + proto.getName() + "\" has an unexpected value for the typed_config field");
    }
  }

  private static OverloadConfig.ScaleTimers scaleTimers(OverloadAction action, FieldPath path,
      ExtensionRegistry registry) throws ConfigException {
    if (!action.hasTypedConfig() || isEmpty(action.getTypedConfig())) {
      throw new ConfigException(path, "Overload action \"" + action.getName() + "\" requires a typed_config of type "
          + SCALE_TIMERS_TYPE);
    }
    ScaleTimersOverloadActionConfig config = registry.unpack(action.getTypedConfig(),
        ScaleTimersOverloadActionConfig.class, Category.OVERLOAD_ACTION, path);
    SCALE_TIMERS.check(config, path);
    FieldPath timersPath = path.field("timer_scale_factors");
    if (config.getTimerScaleFactorsCount() == 0) {
      throw new ConfigException(timersPath, "at least one timer is required");
    }
    Map<OverloadConfig.TimerType, OverloadConfig.TimerMinimum> minimums =
        new EnumMap<>(OverloadConfig.TimerType.class);
    for (int k = 0; k < config.getTimerScaleFactorsCount(); k++) {
      FieldPath timerPath = timersPath.index(k);
      ScaleTimer timer = config.getTimerScaleFactors(k);
      SCALE_TIMER.check(timer, timerPath);
      OverloadConfig.TimerType type = switch (timer.getTimer()) {
        case HTTP_DOWNSTREAM_CONNECTION_IDLE -> OverloadConfig.TimerType.HTTP_DOWNSTREAM_CONNECTION_IDLE;
        case HTTP_DOWNSTREAM_STREAM_IDLE -> OverloadConfig.TimerType.HTTP_DOWNSTREAM_STREAM_IDLE;
        case TRANSPORT_SOCKET_CONNECT -> OverloadConfig.TimerType.TRANSPORT_SOCKET_CONNECT;
        case HTTP_DOWNSTREAM_CONNECTION_MAX -> OverloadConfig.TimerType.HTTP_DOWNSTREAM_CONNECTION_MAX;
        case UNSPECIFIED -> throw new ConfigException(timerPath.field("timer"), "timer is required");
        default -> throw new ConfigException(timerPath.field("timer"), "Unknown timer type " + timer.getTimerValue());
      };
      OverloadConfig.TimerMinimum minimum = switch (timer.getOverloadAdjustCase()) {
        case MIN_TIMEOUT -> new OverloadConfig.AbsoluteMinimum(ProtoValues.duration(true, timer.getMinTimeout(),
            timerPath.field("min_timeout"), Duration.ZERO));
        case MIN_SCALE -> {
          double percent = timer.getMinScale().getValue();
          if (!(percent >= 0 && percent <= 100)) {
            throw new ConfigException(timerPath.field("min_scale").field("value"),
                "must be within [0, 100], got " + percent);
          }
          yield new OverloadConfig.ScaledMinimum(percent / 100.0);
        }
        case OVERLOADADJUST_NOT_SET -> throw new ConfigException(timerPath,
            "one of min_timeout and min_scale is required");
      };
      if (minimums.putIfAbsent(type, minimum) != null) {
        throw new ConfigException(timerPath.field("timer"), "Found duplicate entry for timer type " + type.name());
      }
    }
    return new OverloadConfig.ScaleTimers(minimums);
  }

  private static OverloadConfig.ShrinkHeap shrinkHeap(Any config, FieldPath path) throws ConfigException {
    Struct struct = unpackStruct(config, path, OverloadNames.SHRINK_HEAP);
    checkKeys(struct, path, OverloadNames.SHRINK_HEAP, Set.of("timer_interval", "max_unfreed_memory_bytes"));
    Duration interval = positiveDuration(struct, "timer_interval", path,
        OverloadConfig.ShrinkHeap.DEFAULTS.timerInterval());
    long maxUnfreed = struct.containsFields("max_unfreed_memory_bytes")
        ? integer(struct.getFieldsOrThrow("max_unfreed_memory_bytes"), path.field("max_unfreed_memory_bytes"), 0)
        : OverloadConfig.ShrinkHeap.DEFAULTS.maxUnfreedMemoryBytes();
    return new OverloadConfig.ShrinkHeap(interval, maxUnfreed);
  }

  // --- load shed points -----------------------------------------------------------------------

  private static OverloadConfig.LoadShedPoint loadShedPoint(LoadShedPoint proto, FieldPath path, Set<String> polled,
      Set<String> seen) throws ConfigException {
    LOAD_SHED_POINT.check(proto, path);
    String name = proto.getName();
    if (name.isEmpty()) {
      throw new ConfigException(path.field("name"), "name is required");
    }
    if (!OverloadNames.LOAD_SHED_POINTS.contains(name)) {
      throw new ConfigException(path.field("name"), "Unknown load shed point " + name);
    }
    for (int j = 0; j < proto.getTriggersCount(); j++) {
      String resource = proto.getTriggers(j).getName();
      if (!resource.isEmpty() && !polled.contains(resource)) {
        throw new ConfigException(path.field("triggers").index(j).field("name"),
            "Unknown trigger resource " + resource + " for loadshed point " + name);
      }
    }
    List<OverloadConfig.Trigger> triggers = triggers(proto.getTriggersList(), path.field("triggers"),
        "Duplicate trigger resource for LoadShedPoint " + name);
    if (!seen.add(name)) {
      throw new ConfigException(path.field("name"), "Duplicate loadshed point " + name);
    }
    return new OverloadConfig.LoadShedPoint(name, triggers);
  }

  // --- triggers -------------------------------------------------------------------------------

  private static List<OverloadConfig.Trigger> triggers(List<Trigger> protos, FieldPath path, String duplicateRule)
      throws ConfigException {
    if (protos.isEmpty()) {
      throw new ConfigException(path, "at least one trigger is required");
    }
    List<OverloadConfig.Trigger> triggers = new ArrayList<>();
    Set<String> resources = new HashSet<>();
    for (int j = 0; j < protos.size(); j++) {
      FieldPath triggerPath = path.index(j);
      OverloadConfig.Trigger trigger = trigger(protos.get(j), triggerPath);
      if (!resources.add(trigger.resource())) {
        throw new ConfigException(triggerPath.field("name"), duplicateRule);
      }
      triggers.add(trigger);
    }
    return triggers;
  }

  private static OverloadConfig.Trigger trigger(Trigger proto, FieldPath path) throws ConfigException {
    TRIGGER.check(proto, path);
    String resource = proto.getName();
    if (resource.isEmpty()) {
      throw new ConfigException(path.field("name"), "name is required");
    }
    switch (proto.getTriggerOneofCase()) {
      case THRESHOLD -> {
        FieldPath thresholdPath = path.field("threshold");
        THRESHOLD.check(proto.getThreshold(), thresholdPath);
        double value = unit(proto.getThreshold().getValue(), thresholdPath.field("value"));
        return new OverloadConfig.ThresholdTrigger(resource, value);
      }
      case SCALED -> {
        FieldPath scaledPath = path.field("scaled");
        ScaledTrigger scaled = proto.getScaled();
        SCALED.check(scaled, scaledPath);
        double scaling = unit(scaled.getScalingThreshold(), scaledPath.field("scaling_threshold"));
        double saturation = unit(scaled.getSaturationThreshold(), scaledPath.field("saturation_threshold"));
        if (scaling >= saturation) {
          throw new ConfigException(scaledPath, "scaling_threshold must be less than saturation_threshold");
        }
        return new OverloadConfig.ScaledTrigger(resource, scaling, saturation);
      }
      case TRIGGERONEOF_NOT_SET -> throw new ConfigException(path, "action not set for trigger " + resource);
      default -> throw new IllegalStateException("unexpected trigger " + proto.getTriggerOneofCase());
    }
  }

  private static double unit(double value, FieldPath path) throws ConfigException {
    if (!(value >= 0 && value <= 1)) {
      throw new ConfigException(path, "must be within [0, 1], got " + value);
    }
    return value;
  }

  // --- Struct configs -------------------------------------------------------------------------

  /** The Struct typed_config of {@code kind}, with only {@code keys}; empty when there is no typed_config. */
  private static Struct struct(Optional<Any> config, FieldPath path, String kind, Set<String> keys)
      throws ConfigException {
    if (config.isEmpty()) {
      return Struct.getDefaultInstance();
    }
    Struct struct = unpackStruct(config.get(), path, kind);
    checkKeys(struct, path, kind, keys);
    return struct;
  }

  private static Struct unpackStruct(Any any, FieldPath path, String kind) throws ConfigException {
    String typeName = typeNameOf(any.getTypeUrl());
    if (!typeName.equals(STRUCT)) {
      throw new ConfigException(path, "expected " + STRUCT + " (" + kind + " takes its settings as a Struct), got "
          + typeName);
    }
    try {
      return any.unpack(Struct.class);
    } catch (InvalidProtocolBufferException e) {
      throw new ConfigException(path, "cannot decode " + STRUCT + ": " + e.getMessage(), e);
    }
  }

  private static void checkKeys(Struct struct, FieldPath path, String kind, Set<String> keys)
      throws ConfigException {
    for (String key : new TreeSet<>(struct.getFieldsMap().keySet())) {
      if (!keys.contains(key)) {
        throw new ConfigException(path.field(key), "unknown field (" + kind + " takes "
            + String.join(", ", new TreeSet<>(keys)) + ")");
      }
    }
  }

  private static OptionalLong optionalPositiveLong(Struct struct, String key, FieldPath path)
      throws ConfigException {
    if (!struct.containsFields(key)) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(integer(struct.getFieldsOrThrow(key), path.field(key), 1));
  }

  private static long integer(Value value, FieldPath path, long min) throws ConfigException {
    if (value.getKindCase() != Value.KindCase.NUMBER_VALUE) {
      throw new ConfigException(path, "expected an integer, got " + describe(value));
    }
    double d = value.getNumberValue();
    if (d != Math.rint(d) || Math.abs(d) > MAX_EXACT_INTEGER) {
      throw new ConfigException(path, "expected an integer, got " + d);
    }
    if (d < min) {
      throw new ConfigException(path, min == 1 ? "must be greater than 0" : "must be at least " + min);
    }
    return (long) d;
  }

  private static Duration positiveDuration(Struct struct, String key, FieldPath path, Duration fallback)
      throws ConfigException {
    if (!struct.containsFields(key)) {
      return fallback;
    }
    FieldPath keyPath = path.field(key);
    Value value = struct.getFieldsOrThrow(key);
    if (value.getKindCase() != Value.KindCase.STRING_VALUE) {
      throw new ConfigException(keyPath, "expected a duration such as \"10s\", got " + describe(value));
    }
    Duration d;
    try {
      com.google.protobuf.Duration proto = Durations.parse(value.getStringValue().trim());
      d = Duration.ofSeconds(proto.getSeconds(), proto.getNanos());
    } catch (java.text.ParseException | IllegalArgumentException e) {
      throw new ConfigException(keyPath, "\"" + value.getStringValue() + "\" is not a duration (write e.g. \"0.25s\")");
    }
    if (d.isNegative() || d.isZero()) {
      throw new ConfigException(keyPath, "must be greater than 0");
    }
    return d;
  }

  private static String describe(Value value) {
    return switch (value.getKindCase()) {
      case NULL_VALUE -> "null";
      case NUMBER_VALUE -> "a number";
      case STRING_VALUE -> "a string";
      case BOOL_VALUE -> "a boolean";
      case STRUCT_VALUE -> "an object";
      case LIST_VALUE -> "a list";
      case KIND_NOT_SET -> "nothing";
    };
  }

  // --- helpers --------------------------------------------------------------------------------

  private static boolean isEmpty(Any any) {
    return any.getTypeUrl().isEmpty() && any.getValue().isEmpty();
  }

  private static String typeNameOf(String typeUrl) {
    return typeUrl.substring(typeUrl.lastIndexOf('/') + 1);
  }
}
