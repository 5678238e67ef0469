package io.spillway.edge.runtime;

import io.spillway.edge.config.RuntimeConfig;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Gauge;
import io.spillway.edge.stats.Scope;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The edge's runtime (Envoy's {@code Runtime::LoaderImpl}): the configured layers, the latest
 * values of each, and the {@link RuntimeSnapshot} they merge into. Readers on any thread take
 * {@link #snapshot()}, one volatile read; changes (a disk layer reloaded, {@code /runtime_modify})
 * build a new snapshot and publish it with a compare-and-set, so they never block a reader and
 * never lose each other's updates.
 *
 * <p>Stats under {@code runtime.*}, Envoy's names: {@code load_success}, {@code load_error},
 * {@code num_keys}, {@code num_layers}, {@code admin_overrides_active},
 * {@code override_dir_exists}, {@code override_dir_not_exists}.
 */
public final class Runtime {
  private static final Logger log = LoggerFactory.getLogger(Runtime.class);

  private final RuntimeConfig config;
  private final String serviceCluster;
  private final AtomicReference<State> state;
  private final Counter loadSuccess;
  private final Counter loadError;
  private final Counter overrideDirExists;
  private final Counter overrideDirNotExists;
  private final Gauge numKeys;
  private final Gauge adminOverridesActive;

  /** Each layer's current values, in config order, and the snapshot they make. */
  private record State(List<Map<String, String>> layers, RuntimeSnapshot snapshot) {}

  /**
   * Loads every layer now (disk layers from their directories).
   *
   * @param serviceCluster {@code node.cluster}, which disk layers with {@code append_service_cluster} read below
   * @param scope {@code runtime}
   */
  public Runtime(RuntimeConfig config, String serviceCluster, Scope scope) {
    this.config = Objects.requireNonNull(config, "config");
    this.serviceCluster = Objects.requireNonNull(serviceCluster, "serviceCluster");
    loadSuccess = scope.counter("load_success");
    loadError = scope.counter("load_error");
    overrideDirExists = scope.counter("override_dir_exists");
    overrideDirNotExists = scope.counter("override_dir_not_exists");
    numKeys = scope.gauge("num_keys");
    adminOverridesActive = scope.gauge("admin_overrides_active");
    scope.gauge("num_layers").set(config.layers().size());
    List<Map<String, String>> layers = new ArrayList<>();
    for (RuntimeConfig.Layer layer : config.layers()) {
      layers.add(switch (layer) {
        case RuntimeConfig.StaticLayer s -> s.values();
        case RuntimeConfig.DiskLayer d -> readDisk(d, Map.of());
        case RuntimeConfig.AdminLayer a -> Map.of();
        case RuntimeConfig.RtdsLayer r -> Map.of();
      });
    }
    state = new AtomicReference<>(state(layers));
    published(state.get());
  }

  /** A runtime without layers: every lookup answers its default. */
  public static Runtime none(Scope scope) {
    return new Runtime(RuntimeConfig.NONE, "", scope);
  }

  /** The latest snapshot. Any thread; one volatile read. */
  public RuntimeSnapshot snapshot() {
    return state.get().snapshot();
  }

  public RuntimeConfig config() {
    return config;
  }

  /** The directories the disk layers read, for the watcher. */
  public List<Path> diskDirectories() {
    List<Path> dirs = new ArrayList<>();
    for (RuntimeConfig.Layer layer : config.layers()) {
      if (layer instanceof RuntimeConfig.DiskLayer d) {
        dirs.add(directory(d));
      }
    }
    return dirs;
  }

  /** Whether {@code /runtime_modify} has a layer to write to. */
  public boolean hasAdminLayer() {
    return config.layers().stream().anyMatch(l -> l instanceof RuntimeConfig.AdminLayer);
  }

  /**
   * Sets keys in the admin layer ({@code POST /runtime_modify}); an empty value removes the key.
   *
   * @throws IllegalStateException when no admin layer is configured
   */
  public void modifyAdminLayer(Map<String, String> changes) {
    int index = adminIndex();
    update(layers -> {
      Map<String, String> admin = new LinkedHashMap<>(layers.get(index));
      changes.forEach((k, v) -> {
        if (v.isEmpty()) {
          admin.remove(k);
        } else {
          admin.put(k, v);
        }
      });
      List<Map<String, String>> next = new ArrayList<>(layers);
      next.set(index, admin);
      return next;
    });
  }

  /**
   * The RTDS layers' new values: each layer takes the values of the resource it names, or none when
   * the set no longer has it (Envoy empties a layer whose resource is removed).
   *
   * @param resources {@code envoy.service.runtime.v3.Runtime} name to its layer's flattened values
   */
  public void applyRtds(Map<String, Map<String, String>> resources) {
    update(layers -> {
      List<Map<String, String>> next = new ArrayList<>(layers);
      for (int i = 0; i < config.layers().size(); i++) {
        if (config.layers().get(i) instanceof RuntimeConfig.RtdsLayer r) {
          next.set(i, resources.getOrDefault(r.resource(), Map.of()));
        }
      }
      return next;
    });
  }

  /** Re-reads every disk layer (its tree's link was swapped). Blocking I/O: never on a worker. */
  public void reloadDiskLayers() {
    List<Map<String, String>> current = state.get().layers();
    List<Map<String, String>> read = new ArrayList<>(current);
    for (int i = 0; i < config.layers().size(); i++) {
      if (config.layers().get(i) instanceof RuntimeConfig.DiskLayer d) {
        read.set(i, readDisk(d, current.get(i)));
      }
    }
    update(layers -> {
      List<Map<String, String>> next = new ArrayList<>(layers);
      for (int i = 0; i < config.layers().size(); i++) {
        if (config.layers().get(i) instanceof RuntimeConfig.DiskLayer) {
          next.set(i, read.get(i));
        }
      }
      return next;
    });
  }

  private void update(UnaryOperator<List<Map<String, String>>> change) {
    State before;
    State after;
    do {
      before = state.get();
      after = state(change.apply(before.layers()));
    } while (!state.compareAndSet(before, after));
    published(after);
  }

  private State state(List<Map<String, String>> layers) {
    List<String> names = config.layers().stream().map(RuntimeConfig.Layer::name).toList();
    return new State(List.copyOf(layers), new RuntimeSnapshot(names, layers));
  }

  private void published(State s) {
    numKeys.set(s.snapshot().values().size());
    int admin = adminIndexOrMinusOne();
    adminOverridesActive.set(admin >= 0 && !s.layers().get(admin).isEmpty() ? 1 : 0);
  }

  private Map<String, String> readDisk(RuntimeConfig.DiskLayer layer, Map<String, String> previous) {
    Path dir = directory(layer);
    (DiskLayerReader.exists(dir) ? overrideDirExists : overrideDirNotExists).inc();
    try {
      Map<String, String> values = DiskLayerReader.read(dir);
      loadSuccess.inc();
      return values;
    } catch (IOException | RuntimeException e) {
      loadError.inc();
      log.warn("runtime layer {}: cannot read {}: {}; keeping its previous values", layer.name(), dir,
          e.getMessage());
      return previous;
    }
  }

  private Path directory(RuntimeConfig.DiskLayer layer) {
    Path dir = Path.of(layer.symlinkRoot());
    if (!layer.subdirectory().isEmpty()) {
      dir = dir.resolve(layer.subdirectory());
    }
    if (layer.appendServiceCluster() && !serviceCluster.isEmpty()) {
      dir = dir.resolve(serviceCluster);
    }
    return dir;
  }

  private int adminIndex() {
    int i = adminIndexOrMinusOne();
    if (i < 0) {
      throw new IllegalStateException("no admin layer is configured (layered_runtime.layers[].admin_layer)");
    }
    return i;
  }

  private int adminIndexOrMinusOne() {
    for (int i = 0; i < config.layers().size(); i++) {
      if (config.layers().get(i) instanceof RuntimeConfig.AdminLayer) {
        return i;
      }
    }
    return -1;
  }
}
