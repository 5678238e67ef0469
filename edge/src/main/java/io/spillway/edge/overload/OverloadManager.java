package io.spillway.edge.overload;

import io.spillway.edge.config.OverloadConfig;
import io.spillway.edge.config.OverloadNames;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Gauge;
import io.spillway.edge.stats.Histogram;
import io.spillway.edge.stats.Scope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Envoy's overload manager for the edge: polls every resource monitor each
 * {@code refresh_interval} on the control thread, turns pressures into action states and shed
 * probabilities through the configured triggers, and publishes all of them at once as one immutable
 * {@link OverloadState}.
 *
 * <p><b>Control side</b> (one thread, the control executor): {@link #start(Scheduler)} schedules
 * {@link #refresh()}, which runs a <em>flush epoch</em> as Envoy's does. It first flushes results
 * that arrived since the last flush, then asks every monitor for a new measurement. A monitor whose
 * previous measurement has not answered yet is skipped and counts {@code skipped_updates}: updates
 * within one epoch are coalesced, never queued. When the last monitor of the epoch answers, the
 * results are flushed to every action and shed point at once and a new snapshot is published
 * (results that arrive after their epoch ended go out with the next flush). A failed measurement
 * counts {@code failed_updates} and leaves the monitor's last pressure in effect. The proactive
 * {@link GlobalConnectionLimit} is read at each refresh like a monitor that answers at once.
 *
 * <p><b>Hot side</b> (workers): components resolve their handles by name once, when they are built
 * ({@link #actionHandle(String)}, {@link #loadShedPoint(String)}, {@link #scaledTimeouts()},
 * {@link #globalConnections()}); per connection or request they read {@link #state()} (one volatile
 * read) and look states up by index. Nothing on that path hashes a string, locks or allocates.
 *
 * <p><b>Stats</b>, under {@code overload.}: per monitor {@code <name>.pressure} (gauge, percent),
 * {@code <name>.failed_updates}, {@code <name>.skipped_updates}; per action {@code <name>.active}
 * (1 when saturated, else 0) and {@code <name>.scale_percent} (0–99 while scaling, 100 saturated);
 * per shed point {@code <name>.scale_percent} and {@code <name>.shed_load_count}; and
 * {@code refresh_interval_delay} (histogram, ms): how much later than scheduled each refresh ran.
 */
public final class OverloadManager {

  private static final Logger log = LoggerFactory.getLogger(OverloadManager.class);

  /** Runs a task once after a delay, on the control thread (an adapter over the control executor). */
  @FunctionalInterface
  public interface Scheduler {
    void schedule(Duration delay, Runnable task);
  }

  private final OverloadConfig config;
  private final LongSupplier nanoClock;
  private final long refreshIntervalNanos;
  private final Histogram refreshIntervalDelay;

  // Monitors, in configuration order (the pressures of OverloadState follow this order).
  private final String[] monitorNames;
  private final String[] monitorTypes;
  private final Gauge[] pressureGauges;
  private final Counter[] failedUpdates;
  private final Counter[] skippedUpdates;
  private final Resource[] resources;
  private final GlobalConnectionLimit connections;
  private final int connectionsPosition;
  private final int[] connectionsTriggerSlots;

  // Triggers, flattened: actions' first, then shed points'.
  private final OverloadConfig.Trigger[] triggers;
  private final int[][] actionTriggerSlots;
  private final int[][] pointTriggerSlots;

  private final String[] actionNames;
  private final Gauge[] activeGauges;
  private final Gauge[] actionScaleGauges;
  private final Map<String, ActionIndex> actionHandles;
  private final String[] pointNames;
  private final Gauge[] pointScaleGauges;
  private final Counter[] shedLoadCounts;
  private final Map<String, LoadShedPoint> points;
  private final ScaledTimeouts scaledTimeouts;

  private final List<Consumer<OverloadState>> listeners = new CopyOnWriteArrayList<>();
  private volatile OverloadState state;

  // Control thread only.
  private final double[] pressures;
  private final double[] triggerStates;
  private long epoch;
  private int awaiting;
  private boolean dirty;
  private boolean measuredOnce;
  private long lastRefreshNanos;
  private boolean started;
  private Scheduler scheduler;
  private volatile boolean stopped;

  private OverloadManager(Builder b) {
    this.config = b.config;
    this.nanoClock = b.nanoClock;
    this.refreshIntervalNanos = config.refreshInterval().toNanos();
    Scope overload = b.stats.scope("overload");
    this.refreshIntervalDelay = overload.histogram("refresh_interval_delay", Histogram.Unit.MILLISECONDS);

    List<OverloadConfig.ResourceMonitor> monitors = config.resourceMonitors();
    int monitorCount = monitors.size();
    monitorNames = new String[monitorCount];
    monitorTypes = new String[monitorCount];
    pressureGauges = new Gauge[monitorCount];
    failedUpdates = new Counter[monitorCount];
    skippedUpdates = new Counter[monitorCount];
    Map<String, Integer> positions = new HashMap<>();
    for (int i = 0; i < monitorCount; i++) {
      OverloadConfig.ResourceMonitor m = monitors.get(i);
      if (positions.putIfAbsent(m.name(), i) != null) {
        throw new IllegalArgumentException("duplicate resource monitor " + m.name());
      }
      monitorNames[i] = m.name();
      monitorTypes[i] = m.settings().typeName();
      Scope scope = overload.scope(m.name());
      pressureGauges[i] = scope.gauge("pressure");
      failedUpdates[i] = scope.counter("failed_updates");
      if (!(m.settings() instanceof OverloadConfig.GlobalDownstreamConnections)) {
        skippedUpdates[i] = scope.counter("skipped_updates");
      }
    }

    // Flatten the triggers and index them by the resource that drives them.
    List<OverloadConfig.Trigger> flat = new ArrayList<>();
    Map<String, List<Integer>> slotsByResource = new HashMap<>();
    List<OverloadConfig.Action> actions = config.actions();
    actionTriggerSlots = new int[actions.size()][];
    for (int i = 0; i < actions.size(); i++) {
      actionTriggerSlots[i] = addTriggers(actions.get(i).triggers(), flat, slotsByResource, positions,
          actions.get(i).name());
    }
    List<OverloadConfig.LoadShedPoint> shedPoints = config.loadShedPoints();
    pointTriggerSlots = new int[shedPoints.size()][];
    for (int i = 0; i < shedPoints.size(); i++) {
      pointTriggerSlots[i] = addTriggers(shedPoints.get(i).triggers(), flat, slotsByResource, positions,
          shedPoints.get(i).name());
    }
    triggers = flat.toArray(OverloadConfig.Trigger[]::new);
    triggerStates = new double[triggers.length];

    List<Resource> polled = new ArrayList<>();
    GlobalConnectionLimit limit = GlobalConnectionLimit.unlimited();
    int limitPosition = -1;
    int[] limitSlots = new int[0];
    for (int i = 0; i < monitorCount; i++) {
      OverloadConfig.ResourceMonitor m = monitors.get(i);
      int[] slots = toArray(slotsByResource.get(m.name()));
      if (m.settings() instanceof OverloadConfig.GlobalDownstreamConnections c) {
        limit = new GlobalConnectionLimit(c.maxActiveDownstreamConnections(), failedUpdates[i]);
        limitPosition = i;
        limitSlots = slots;
      } else {
        if (b.monitors == null) {
          throw new IllegalStateException("no ResourceMonitorFactory for monitor " + m.name());
        }
        ResourceMonitor monitor = Objects.requireNonNull(b.monitors.create(m), "monitor for " + m.name());
        polled.add(new Resource(i, monitor, slots));
      }
    }
    resources = polled.toArray(Resource[]::new);
    connections = limit;
    connectionsPosition = limitPosition;
    connectionsTriggerSlots = limitSlots;

    actionNames = new String[actions.size()];
    activeGauges = new Gauge[actions.size()];
    actionScaleGauges = new Gauge[actions.size()];
    Map<String, ActionIndex> handles = new LinkedHashMap<>();
    for (int i = 0; i < actions.size(); i++) {
      String name = actions.get(i).name();
      actionNames[i] = name;
      Scope scope = overload.scope(name);
      activeGauges[i] = scope.gauge("active");
      actionScaleGauges[i] = scope.gauge("scale_percent");
      activeGauges[i].set(0);
      actionScaleGauges[i].set(0);
      if (handles.putIfAbsent(name, new ActionIndex(i + 1, name)) != null) {
        throw new IllegalArgumentException("duplicate overload action " + name);
      }
    }
    actionHandles = Map.copyOf(handles);

    pointNames = new String[shedPoints.size()];
    pointScaleGauges = new Gauge[shedPoints.size()];
    shedLoadCounts = new Counter[shedPoints.size()];
    Map<String, LoadShedPoint> byName = new LinkedHashMap<>();
    for (int i = 0; i < shedPoints.size(); i++) {
      String name = shedPoints.get(i).name();
      pointNames[i] = name;
      Scope scope = overload.scope(name);
      pointScaleGauges[i] = scope.gauge("scale_percent");
      pointScaleGauges[i].set(0);
      shedLoadCounts[i] = scope.counter("shed_load_count");
      if (byName.putIfAbsent(name, new LoadShedPoint(new ShedPointIndex(i + 1, name), shedLoadCounts[i])) != null) {
        throw new IllegalArgumentException("duplicate load shed point " + name);
      }
    }
    points = Map.copyOf(byName);

    scaledTimeouts = config.scaleTimers()
        .map(timers -> new ScaledTimeouts(actionHandle(OverloadNames.REDUCE_TIMEOUTS),
            timers.minimums()))
        .orElse(ScaledTimeouts.NONE);

    pressures = new double[monitorCount];
    state = OverloadState.initial(actions.size(), shedPoints.size(), monitorCount);
  }

  private static int[] addTriggers(List<OverloadConfig.Trigger> configured, List<OverloadConfig.Trigger> flat,
      Map<String, List<Integer>> slotsByResource, Map<String, Integer> positions, String owner) {
    int[] slots = new int[configured.size()];
    for (int j = 0; j < configured.size(); j++) {
      OverloadConfig.Trigger trigger = configured.get(j);
      if (!positions.containsKey(trigger.resource())) {
        throw new IllegalArgumentException("Unknown trigger resource " + trigger.resource() + " for " + owner);
      }
      slots[j] = flat.size();
      slotsByResource.computeIfAbsent(trigger.resource(), r -> new ArrayList<>()).add(flat.size());
      flat.add(trigger);
    }
    return slots;
  }

  private static int[] toArray(List<Integer> list) {
    if (list == null) {
      return new int[0];
    }
    return list.stream().mapToInt(Integer::intValue).toArray();
  }

  /** A builder for the manager of {@code config}. */
  public static Builder builder(OverloadConfig config) {
    return new Builder(config);
  }

  // --- hot side -------------------------------------------------------------------------------

  /** The last published snapshot. Hot path: one volatile read. */
  public OverloadState state() {
    return state;
  }

  /** The handle of the action named {@code name}, or {@link ActionIndex#NO_OP} when it is not configured. */
  public ActionIndex actionHandle(String name) {
    return actionHandles.getOrDefault(name, ActionIndex.NO_OP);
  }

  /** The load shed point named {@code name}, or {@link LoadShedPoint#NO_OP} when it is not configured. */
  public LoadShedPoint loadShedPoint(String name) {
    return points.getOrDefault(name, LoadShedPoint.NO_OP);
  }

  /** The reduce_timeouts helper ({@link ScaledTimeouts#NONE} without that action). */
  public ScaledTimeouts scaledTimeouts() {
    return scaledTimeouts;
  }

  /** The global downstream connection count (unlimited, and without stats, when not configured). */
  public GlobalConnectionLimit globalConnections() {
    return connections;
  }

  // --- control side ---------------------------------------------------------------------------

  /** The configuration this manager runs. */
  public OverloadConfig config() {
    return config;
  }

  /**
   * Calls {@code listener} on the control thread with each newly published snapshot, for
   * control-side reactions (shrinking buffer pools, posting to workers). Register before
   * {@link #start(Scheduler)}.
   */
  public void addStateListener(Consumer<OverloadState> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Starts refreshing every {@code refresh_interval} through {@code scheduler}; does nothing when no
   * monitor is configured. Call once, on the control thread.
   */
  public void start(Scheduler scheduler) {
    if (started) {
      throw new IllegalStateException("the overload manager is already started");
    }
    started = true;
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    if (!config.enabled()) {
      return;
    }
    measuredOnce = true;
    lastRefreshNanos = nanoClock.getAsLong();
    scheduler.schedule(config.refreshInterval(), this::scheduledRefresh);
  }

  /** Stops scheduling refreshes (one already running finishes). */
  public void stop() {
    stopped = true;
  }

  private void scheduledRefresh() {
    if (stopped) {
      return;
    }
    try {
      refresh();
    } catch (RuntimeException e) {
      log.error("overload manager refresh failed", e);
    } finally {
      if (!stopped) {
        scheduler.schedule(config.refreshInterval(), this::scheduledRefresh);
      }
    }
  }

  /**
   * One refresh: flush what arrived since the last flush, start a new flush epoch and ask every
   * monitor without a pending measurement for a new one. Control thread only; {@link #start(Scheduler)}
   * calls it on schedule, tests call it by hand.
   */
  public void refresh() {
    long now = nanoClock.getAsLong();
    if (measuredOnce) {
      long late = now - lastRefreshNanos - refreshIntervalNanos;
      refreshIntervalDelay.record(late <= 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(late));
    }
    measuredOnce = true;
    lastRefreshNanos = now;

    flush();
    long thisEpoch = ++epoch;
    List<Resource> toPoll = new ArrayList<>(resources.length);
    for (Resource r : resources) {
      if (r.pending) {
        skippedUpdates[r.position].inc();
        log.debug("skipping update of resource monitor {}, which has one pending", monitorNames[r.position]);
      } else {
        r.pending = true;
        toPoll.add(r);
      }
    }
    awaiting = toPoll.size();
    if (connectionsPosition >= 0) {
      applyPressure(connectionsPosition, connectionsTriggerSlots, connections.pressure());
    }
    for (Resource r : toPoll) {
      Update update = new Update(r, thisEpoch);
      try {
        r.monitor.updateResourceUsage(update);
      } catch (RuntimeException e) {
        update.onFailure(e);
      }
    }
    if (awaiting == 0 && epoch == thisEpoch) {
      flush();
    }
  }

  private void complete(Resource r, long updateEpoch, double pressure, Exception error) {
    r.pending = false;
    if (error == null && Double.isNaN(pressure)) {
      error = new IllegalArgumentException("pressure is not a number");
    }
    if (error != null) {
      failedUpdates[r.position].inc();
      log.debug("resource monitor {} failed to update: {}", monitorNames[r.position], error.toString());
    } else {
      applyPressure(r.position, r.triggerSlots, pressure);
    }
    if (updateEpoch == epoch && --awaiting == 0) {
      flush();
    }
  }

  private void applyPressure(int position, int[] slots, double pressure) {
    double p = pressure >= 1.0 ? 1.0 : (pressure > 0.0 ? pressure : 0.0);
    pressures[position] = p;
    pressureGauges[position].set(Math.round(p * 100));
    for (int slot : slots) {
      triggerStates[slot] = Triggers.state(triggers[slot], p);
    }
    dirty = true;
  }

  /** Publishes the results gathered since the last flush as one new snapshot. */
  private void flush() {
    if (!dirty) {
      return;
    }
    dirty = false;
    OverloadState previous = state;
    double[] actionStates = new double[actionTriggerSlots.length + 1];
    for (int i = 0; i < actionTriggerSlots.length; i++) {
      actionStates[i + 1] = max(actionTriggerSlots[i]);
    }
    double[] shedProbabilities = new double[pointTriggerSlots.length + 1];
    for (int i = 0; i < pointTriggerSlots.length; i++) {
      shedProbabilities[i + 1] = max(pointTriggerSlots[i]);
    }
    OverloadState next = new OverloadState(previous.version() + 1, actionStates, shedProbabilities, pressures.clone());
    for (int i = 0; i < actionNames.length; i++) {
      double s = actionStates[i + 1];
      activeGauges[i].set(s >= 1.0 ? 1 : 0);
      actionScaleGauges[i].set(scalePercent(s));
      double before = previous.actionState(i + 1);
      if ((before >= 1.0) != (s >= 1.0)) {
        log.info("overload action {} became {}", actionNames[i], s >= 1.0 ? "saturated" : "scaling");
      }
    }
    for (int i = 0; i < pointNames.length; i++) {
      pointScaleGauges[i].set(scalePercent(shedProbabilities[i + 1]));
    }
    state = next;
    for (Consumer<OverloadState> listener : listeners) {
      try {
        listener.accept(next);
      } catch (RuntimeException e) {
        log.error("overload state listener failed", e);
      }
    }
  }

  private double max(int[] slots) {
    double m = 0.0;
    for (int slot : slots) {
      m = Math.max(m, triggerStates[slot]);
    }
    return m;
  }

  /** 100 when saturated, otherwise the rounded percentage but at most 99, as Envoy's gauge reads. */
  private static long scalePercent(double state) {
    if (state >= 1.0) {
      return 100;
    }
    return Math.min(99, Math.round(state * 100));
  }

  /** Every monitor's pressure and every action's and shed point's state, as last published. Any thread. */
  public OverloadDescription describe() {
    OverloadState s = state;
    List<OverloadDescription.Monitor> monitors = new ArrayList<>(monitorNames.length);
    for (int i = 0; i < monitorNames.length; i++) {
      monitors.add(new OverloadDescription.Monitor(monitorNames[i], monitorTypes[i], s.pressure(i),
          failedUpdates[i].value(), skippedUpdates[i] == null ? 0 : skippedUpdates[i].value()));
    }
    List<OverloadDescription.Action> actions = new ArrayList<>(actionNames.length);
    for (int i = 0; i < actionNames.length; i++) {
      double value = s.actionState(i + 1);
      actions.add(new OverloadDescription.Action(actionNames[i], value, value >= 1.0));
    }
    List<OverloadDescription.ShedPoint> shed = new ArrayList<>(pointNames.length);
    for (int i = 0; i < pointNames.length; i++) {
      shed.add(new OverloadDescription.ShedPoint(pointNames[i], s.shedProbability(i + 1), shedLoadCounts[i].value()));
    }
    OptionalLong limit = connections.limit();
    return new OverloadDescription(config.enabled(), config.refreshInterval(), s.version(), monitors, actions, shed,
        new OverloadDescription.GlobalConnections(connections.active(), limit));
  }

  @Override
  public String toString() {
    return "OverloadManager[monitors=" + monitorNames.length + ", actions=" + actionNames.length
        + ", loadShedPoints=" + pointNames.length + ", state=" + state + "]";
  }

  /** One polled monitor and its measurement in flight. Control thread only. */
  private static final class Resource {
    final int position;
    final ResourceMonitor monitor;
    final int[] triggerSlots;
    boolean pending;

    Resource(int position, ResourceMonitor monitor, int[] triggerSlots) {
      this.position = position;
      this.monitor = monitor;
      this.triggerSlots = triggerSlots;
    }
  }

  /** The callbacks of one measurement: the first answer counts, later ones are ignored. */
  private final class Update implements ResourceMonitor.Callbacks {
    private final Resource resource;
    private final long updateEpoch;
    private boolean done;

    Update(Resource resource, long updateEpoch) {
      this.resource = resource;
      this.updateEpoch = updateEpoch;
    }

    @Override
    public void onSuccess(double pressure) {
      if (!done) {
        done = true;
        complete(resource, updateEpoch, pressure, null);
      }
    }

    @Override
    public void onFailure(Exception error) {
      if (!done) {
        done = true;
        complete(resource, updateEpoch, 0.0, Objects.requireNonNull(error, "error"));
      }
    }
  }

  /** Collects what the manager needs; {@link #build()} checks it. */
  public static final class Builder {
    private final OverloadConfig config;
    private Scope stats;
    private LongSupplier nanoClock;
    private ResourceMonitorFactory monitors;

    private Builder(OverloadConfig config) {
      this.config = Objects.requireNonNull(config, "config");
    }

    /** The root stats scope; the manager's stats go under {@code overload.}. Required. */
    public Builder stats(Scope root) {
      this.stats = Objects.requireNonNull(root, "root");
      return this;
    }

    /** The monotonic clock, in nanoseconds ({@code System::nanoTime} in production). Required. */
    public Builder nanoClock(LongSupplier nanoClock) {
      this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
      return this;
    }

    /** Builds each polled monitor. Required when the config has polled monitors. */
    public Builder monitors(ResourceMonitorFactory factory) {
      this.monitors = Objects.requireNonNull(factory, "factory");
      return this;
    }

    /** The manager, with every stat created and every handle resolvable. */
    public OverloadManager build() {
      if (stats == null) {
        throw new IllegalStateException("stats scope is required");
      }
      if (nanoClock == null) {
        throw new IllegalStateException("nanoClock is required");
      }
      return new OverloadManager(this);
    }
  }
}
