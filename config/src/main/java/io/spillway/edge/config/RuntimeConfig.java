package io.spillway.edge.config;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Envoy's {@code layered_runtime}: the runtime's layers, later ones overriding earlier ones for the
 * same key. Keys are dotted paths ({@code overload.global_downstream_max_connections}); values are
 * the text Envoy keeps for them (numbers and booleans as written, a fractional percent as
 * {@code numerator/denominator}).
 *
 * @param layers in order, lowest first; empty when the bootstrap has no runtime
 */
public record RuntimeConfig(List<Layer> layers) {
  /** No layers: every runtime lookup answers its default, as Envoy's null runtime does. */
  public static final RuntimeConfig NONE = new RuntimeConfig(List.of());

  public RuntimeConfig {
    layers = List.copyOf(layers);
  }

  /** One layer of the runtime. */
  public sealed interface Layer permits StaticLayer, DiskLayer, AdminLayer, RtdsLayer {
    /** The layer's name, as {@code /runtime} lists it. */
    String name();
  }

  /** {@code static_layer}: values from the bootstrap, flattened to dotted keys. */
  public record StaticLayer(String name, Map<String, String> values) implements Layer {
    public StaticLayer {
      Objects.requireNonNull(name, "name");
      values = Map.copyOf(values);
    }
  }

  /**
   * {@code disk_layer}: one file a key under a directory tree, reloaded when the tree's symbolic link
   * is swapped.
   *
   * @param symlinkRoot the link the tree is read through
   * @param subdirectory the directory below it that holds this layer's files ("" for the root itself)
   * @param appendServiceCluster read {@code <subdirectory>/<node.cluster>} instead
   */
  public record DiskLayer(String name, String symlinkRoot, String subdirectory, boolean appendServiceCluster)
      implements Layer {
    public DiskLayer {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(symlinkRoot, "symlinkRoot");
      Objects.requireNonNull(subdirectory, "subdirectory");
    }
  }

  /**
   * {@code rtds_layer}: values from the control plane, the {@code envoy.service.runtime.v3.Runtime}
   * resource {@code resource} on the ADS stream; empty until it arrives.
   */
  public record RtdsLayer(String name, String resource) implements Layer {
    public RtdsLayer {
      java.util.Objects.requireNonNull(name, "name");
      java.util.Objects.requireNonNull(resource, "resource");
    }
  }

  /** The RTDS resources the layers subscribe to. */
  public java.util.Set<String> rtdsResources() {
    java.util.Set<String> names = new java.util.LinkedHashSet<>();
    for (Layer l : layers) {
      if (l instanceof RtdsLayer r) {
        names.add(r.resource());
      }
    }
    return names;
  }

  /** {@code admin_layer}: values set with {@code POST /runtime_modify}; at most one per runtime. */
  public record AdminLayer(String name) implements Layer {
    public AdminLayer {
      Objects.requireNonNull(name, "name");
    }
  }
}
