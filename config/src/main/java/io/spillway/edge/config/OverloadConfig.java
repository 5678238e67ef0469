package io.spillway.edge.config;

import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The overload manager of {@code Bootstrap.overload_manager}, validated: resource monitors, the
 * actions and load shed points their triggers drive, and how often the monitors are polled. Fixed at
 * startup, as in Envoy. Names are unique within each list and every trigger names a configured
 * monitor.
 *
 * @param refreshInterval how often every monitor is polled (Envoy's default 1 s)
 * @param resourceMonitors the monitors, in configuration order; empty when the overload manager is off
 * @param actions the overload actions, in configuration order
 * @param loadShedPoints the load shed points, in configuration order
 * @param minimumAccountToTrackPowerOfTwo {@code buffer_factory_config.minimum_account_to_track_power_of_two}:
 *     streams holding at least 2^k bytes of buffers are tracked for {@code reset_high_memory_stream}
 * @param warnings startup warnings to log once (for example: no global downstream connection limit)
 */
public record OverloadConfig(
    Duration refreshInterval,
    List<ResourceMonitor> resourceMonitors,
    List<Action> actions,
    List<LoadShedPoint> loadShedPoints,
    OptionalInt minimumAccountToTrackPowerOfTwo,
    List<String> warnings) {

  /** Envoy's default {@code refresh_interval}. */
  public static final Duration DEFAULT_REFRESH_INTERVAL = Duration.ofSeconds(1);

  /** The warning logged when no global downstream connection limit is configured, as Envoy logs it. */
  public static final String NO_GLOBAL_CONNECTION_LIMIT_WARNING = "there is no configured limit to the number of"
      + " allowed active downstream connections; configure max_active_downstream_connections in the "
      + OverloadNames.GLOBAL_DOWNSTREAM_MAX_CONNECTIONS + " resource monitor";

  public OverloadConfig {
    Objects.requireNonNull(refreshInterval, "refreshInterval");
    resourceMonitors = List.copyOf(resourceMonitors);
    actions = List.copyOf(actions);
    loadShedPoints = List.copyOf(loadShedPoints);
    Objects.requireNonNull(minimumAccountToTrackPowerOfTwo, "minimumAccountToTrackPowerOfTwo");
    warnings = List.copyOf(warnings);
  }

  /** No overload manager: no monitors, nothing ever overloaded, and no global connection limit. */
  public static OverloadConfig disabled() {
    return new OverloadConfig(DEFAULT_REFRESH_INTERVAL, List.of(), List.of(), List.of(), OptionalInt.empty(),
        List.of(NO_GLOBAL_CONNECTION_LIMIT_WARNING));
  }

  /** Whether any monitor is configured. */
  public boolean enabled() {
    return !resourceMonitors.isEmpty();
  }

  /** The action configured under Envoy's {@code name}. */
  public Optional<Action> action(String name) {
    return actions.stream().filter(a -> a.name().equals(name)).findFirst();
  }

  /** The timer minimums of {@code reduce_timeouts}, when that action is configured. */
  public Optional<ScaleTimers> scaleTimers() {
    return action(OverloadNames.REDUCE_TIMEOUTS).flatMap(Action::settings)
        .filter(ScaleTimers.class::isInstance)
        .map(ScaleTimers.class::cast);
  }

  /** The settings of {@code shrink_heap}: its typed_config, or Envoy's defaults. */
  public ShrinkHeap shrinkHeap() {
    return action(OverloadNames.SHRINK_HEAP).flatMap(Action::settings)
        .filter(ShrinkHeap.class::isInstance)
        .map(ShrinkHeap.class::cast)
        .orElse(ShrinkHeap.DEFAULTS);
  }

  // --- resource monitors ----------------------------------------------------------------------

  /**
   * One resource monitor.
   *
   * @param name the name triggers refer to and stats use ({@code overload.<name>.pressure})
   * @param settings what it measures
   */
  public record ResourceMonitor(String name, MonitorSettings settings) {
    public ResourceMonitor {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(settings, "settings");
    }
  }

  /** What a monitor measures and its parameters; one record per monitor type. */
  public sealed interface MonitorSettings
      permits FixedHeap, CgroupMemory, CpuUtilization, GlobalDownstreamConnections, InjectedResource,
      BufferMemory, GcPressure, EventLoopLag {

    /** The monitor type's well-known name, e.g. {@code envoy.resource_monitors.fixed_heap}. */
    String typeName();
  }

  /** {@code envoy.resource_monitors.fixed_heap}: used heap / {@code maxHeapSizeBytes}. */
  public record FixedHeap(long maxHeapSizeBytes) implements MonitorSettings {
    @Override
    public String typeName() {
      return OverloadNames.FIXED_HEAP;
    }
  }

  /**
   * {@code envoy.resource_monitors.cgroup_memory}: cgroup memory usage / limit, where the limit is
   * min({@code maxMemoryBytes}, the cgroup's limit); no cgroup limit gives pressure 0.
   */
  public record CgroupMemory(OptionalLong maxMemoryBytes) implements MonitorSettings {
    @Override
    public String typeName() {
      return OverloadNames.CGROUP_MEMORY;
    }
  }

  /** How {@code envoy.resource_monitors.cpu_utilization} measures. */
  public enum CpuMode {
    /** The whole host, from {@code /proc/stat}. */
    HOST,
    /** This container, from its cgroup's CPU usage against its quota. */
    CONTAINER
  }

  /** {@code envoy.resource_monitors.cpu_utilization}. */
  public record CpuUtilization(CpuMode mode) implements MonitorSettings {
    public CpuUtilization {
      Objects.requireNonNull(mode, "mode");
    }

    @Override
    public String typeName() {
      return OverloadNames.CPU_UTILIZATION;
    }
  }

  /**
   * {@code envoy.resource_monitors.global_downstream_max_connections}: a proactive resource,
   * allocated on accept and released on close; empty limit = unlimited.
   */
  public record GlobalDownstreamConnections(OptionalLong maxActiveDownstreamConnections) implements MonitorSettings {
    @Override
    public String typeName() {
      return OverloadNames.GLOBAL_DOWNSTREAM_MAX_CONNECTIONS;
    }
  }

  /** {@code envoy.resource_monitors.injected_resource}: the pressure is the number in {@code filename}. */
  public record InjectedResource(String filename) implements MonitorSettings {
    public InjectedResource {
      Objects.requireNonNull(filename, "filename");
    }

    @Override
    public String typeName() {
      return OverloadNames.INJECTED_RESOURCE;
    }
  }

  /**
   * (ours) {@code spillway.resource_monitors.buffer_memory}: direct and pooled buffer memory in use
   * / the limit, which is {@code maxBufferMemoryBytes} when set, else the JVM's direct memory limit.
   */
  public record BufferMemory(OptionalLong maxBufferMemoryBytes) implements MonitorSettings {
    @Override
    public String typeName() {
      return OverloadNames.BUFFER_MEMORY;
    }
  }

  /** (ours) {@code spillway.resource_monitors.gc_pressure}: share of wall time in GC over {@code window}. */
  public record GcPressure(Duration window) implements MonitorSettings {
    /** The window when none is configured. */
    public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(10);

    public GcPressure {
      Objects.requireNonNull(window, "window");
    }

    @Override
    public String typeName() {
      return OverloadNames.GC_PRESSURE;
    }
  }

  /** (ours) {@code spillway.resource_monitors.event_loop_lag}: min(1, worst lag / {@code target}). */
  public record EventLoopLag(Duration target) implements MonitorSettings {
    /** The target when none is configured (the admission limiter's default lag target). */
    public static final Duration DEFAULT_TARGET = Duration.ofMillis(50);

    public EventLoopLag {
      Objects.requireNonNull(target, "target");
    }

    @Override
    public String typeName() {
      return OverloadNames.EVENT_LOOP_LAG;
    }
  }

  // --- triggers -------------------------------------------------------------------------------

  /** Turns one monitor's pressure into an action state in [0, 1]. */
  public sealed interface Trigger permits ThresholdTrigger, ScaledTrigger {
    /** The monitor whose pressure drives this trigger. */
    String resource();
  }

  /** State 1 when pressure >= {@code value}, else 0. */
  public record ThresholdTrigger(String resource, double value) implements Trigger {
    public ThresholdTrigger {
      Objects.requireNonNull(resource, "resource");
    }
  }

  /**
   * State 0 at or below {@code scalingThreshold}, 1 at or above {@code saturationThreshold}, linear
   * in between; {@code scalingThreshold < saturationThreshold}.
   */
  public record ScaledTrigger(String resource, double scalingThreshold, double saturationThreshold)
      implements Trigger {
    public ScaledTrigger {
      Objects.requireNonNull(resource, "resource");
      if (!(scalingThreshold < saturationThreshold)) {
        throw new IllegalArgumentException("scaling_threshold must be less than saturation_threshold");
      }
    }
  }

  // --- actions --------------------------------------------------------------------------------

  /**
   * One overload action; its state is the maximum of its triggers' states.
   *
   * @param name one of {@link OverloadNames#ACTIONS}
   * @param triggers at least one, each naming a different monitor
   * @param settings the typed_config of {@code reduce_timeouts} ({@link ScaleTimers}) or
   *     {@code shrink_heap} ({@link ShrinkHeap}); empty for every other action
   */
  public record Action(String name, List<Trigger> triggers, Optional<ActionSettings> settings) {
    public Action {
      Objects.requireNonNull(name, "name");
      triggers = List.copyOf(triggers);
      Objects.requireNonNull(settings, "settings");
    }
  }

  /** The typed_config of an action that takes one. */
  public sealed interface ActionSettings permits ScaleTimers, ShrinkHeap {}

  /** The timers {@code reduce_timeouts} scales ({@code ScaleTimersOverloadActionConfig.TimerType}). */
  public enum TimerType {
    HTTP_DOWNSTREAM_CONNECTION_IDLE,
    HTTP_DOWNSTREAM_STREAM_IDLE,
    TRANSPORT_SOCKET_CONNECT,
    HTTP_DOWNSTREAM_CONNECTION_MAX
  }

  /** How short a scaled timer may get. */
  public sealed interface TimerMinimum permits AbsoluteMinimum, ScaledMinimum {
    /** The minimum for a timer configured to {@code configured}; never more than {@code configured}. */
    Duration minimumFor(Duration configured);
  }

  /** {@code min_timeout}: a fixed minimum (capped at the configured timeout). */
  public record AbsoluteMinimum(Duration minTimeout) implements TimerMinimum {
    public AbsoluteMinimum {
      Objects.requireNonNull(minTimeout, "minTimeout");
    }

    @Override
    public Duration minimumFor(Duration configured) {
      return minTimeout.compareTo(configured) < 0 ? minTimeout : configured;
    }
  }

  /** {@code min_scale}: a share of the configured timeout ({@code min_scale.value / 100}). */
  public record ScaledMinimum(double scale) implements TimerMinimum {
    public ScaledMinimum {
      if (!(scale >= 0 && scale <= 1)) {
        throw new IllegalArgumentException("scale must be within [0, 1]: " + scale);
      }
    }

    @Override
    public Duration minimumFor(Duration configured) {
      return Duration.ofNanos(Math.round(configured.toNanos() * scale));
    }
  }

  /** {@code ScaleTimersOverloadActionConfig}: the minimum of each scaled timer type. */
  public record ScaleTimers(Map<TimerType, TimerMinimum> minimums) implements ActionSettings {
    public ScaleTimers {
      minimums = Collections.unmodifiableMap(new EnumMap<>(minimums));
    }
  }

  /**
   * {@code shrink_heap}'s settings (Envoy's {@code ShrinkHeapConfig}).
   *
   * @param timerInterval how often to check whether memory should be released (default 10 s)
   * @param maxUnfreedMemoryBytes free memory kept before releasing it (default 100 MiB)
   */
  public record ShrinkHeap(Duration timerInterval, long maxUnfreedMemoryBytes) implements ActionSettings {
    /** Envoy's defaults. */
    public static final ShrinkHeap DEFAULTS = new ShrinkHeap(Duration.ofSeconds(10), 100L * 1024 * 1024);

    public ShrinkHeap {
      Objects.requireNonNull(timerInterval, "timerInterval");
    }
  }

  // --- load shed points -----------------------------------------------------------------------

  /**
   * One load shed point; its shedding probability is the maximum of its triggers' states.
   *
   * @param name one of {@link OverloadNames#LOAD_SHED_POINTS}
   * @param triggers at least one, each naming a different polled monitor
   */
  public record LoadShedPoint(String name, List<Trigger> triggers) {
    public LoadShedPoint {
      Objects.requireNonNull(name, "name");
      triggers = List.copyOf(triggers);
    }
  }
}
