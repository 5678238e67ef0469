package io.spillway.edge.config;

import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.config.bootstrap.v3.LayeredRuntime;
import io.envoyproxy.envoy.config.bootstrap.v3.RuntimeLayer;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code layered_runtime} → {@link RuntimeConfig}. A static layer's nested objects become dotted
 * keys ({@code {overload: {global_downstream_max_connections: 5}}} is
 * {@code overload.global_downstream_max_connections = 5}); an object with {@code numerator} or
 * {@code denominator} is one fractional-percent value, as in Envoy. Lists and nulls have no runtime
 * meaning and are refused, as are duplicate layer names and a second admin layer (Envoy's rules).
 * An RTDS layer needs the ADS stream: its {@code rtds_config} must be {@code ads: {}}.
 */
final class RuntimeTranslator {
  private static final SupportedFields LAYERED = SupportedFields.of(LayeredRuntime.getDescriptor(), "layers");
  private static final SupportedFields LAYER = SupportedFields.of(RuntimeLayer.getDescriptor(),
      "name", "static_layer", "disk_layer", "admin_layer", "rtds_layer");
  private static final SupportedFields RTDS = SupportedFields.of(RuntimeLayer.RtdsLayer.getDescriptor(),
      "name", "rtds_config");
  private static final SupportedFields FRACTION = SupportedFields.of(
      io.envoyproxy.envoy.config.core.v3.RuntimeFractionalPercent.getDescriptor(), "default_value", "runtime_key");
  private static final SupportedFields DISK = SupportedFields.of(RuntimeLayer.DiskLayer.getDescriptor(),
      "symlink_root", "subdirectory", "append_service_cluster");

  private RuntimeTranslator() {}

  /** @param ads whether the bootstrap has an ADS stream (which RTDS layers need) */
  static RuntimeConfig translate(LayeredRuntime runtime, FieldPath path, boolean ads)
      throws ConfigException {
    LAYERED.check(runtime, path);
    List<RuntimeConfig.Layer> layers = new ArrayList<>();
    Set<String> names = new HashSet<>();
    boolean admin = false;
    for (int i = 0; i < runtime.getLayersCount(); i++) {
      FieldPath layerPath = path.field("layers").index(i);
      RuntimeLayer layer = runtime.getLayers(i);
      LAYER.check(layer, layerPath);
      if (!names.add(layer.getName())) {
        throw new ConfigException(layerPath.field("name"), "duplicate layer name \"" + layer.getName() + "\"");
      }
      layers.add(switch (layer.getLayerSpecifierCase()) {
        case STATIC_LAYER -> new RuntimeConfig.StaticLayer(layer.getName(),
            flatten(layer.getStaticLayer(), layerPath.field("static_layer")));
        case DISK_LAYER -> disk(layer, layerPath.field("disk_layer"));
        case RTDS_LAYER -> rtds(layer, layerPath.field("rtds_layer"), ads);
        case ADMIN_LAYER -> {
          if (admin) {
            throw new ConfigException(layerPath.field("admin_layer"),
                "at most one admin layer may be specified");
          }
          admin = true;
          yield new RuntimeConfig.AdminLayer(layer.getName());
        }
        default -> throw new ConfigException(layerPath,
            "one of static_layer, disk_layer, admin_layer or rtds_layer is required");
      });
    }
    return new RuntimeConfig(layers);
  }

  /**
   * A {@code RuntimeFractionalPercent}: its runtime key and its {@code default_value} (required, as
   * Envoy's validation has it) in parts per million, capped at 100 % as Envoy does.
   */
  static RuntimeFraction fraction(io.envoyproxy.envoy.config.core.v3.RuntimeFractionalPercent f, FieldPath path)
      throws ConfigException {
    FRACTION.check(f, path);
    if (!f.hasDefaultValue()) {
      throw new ConfigException(path.field("default_value"), "default_value is required");
    }
    return new RuntimeFraction(f.getRuntimeKey(), perMillion(f.getDefaultValue(), path.field("default_value")));
  }

  /** A {@code FractionalPercent} in parts per million, capped at 100 % as Envoy does. */
  static int perMillion(io.envoyproxy.envoy.type.v3.FractionalPercent p, FieldPath path) throws ConfigException {
    long scale = switch (p.getDenominator()) {
      case HUNDRED -> 10_000;
      case TEN_THOUSAND -> 100;
      case MILLION -> 1;
      default -> throw new ConfigException(path.field("denominator"),
          p.getDenominatorValue() + " is not a denominator (HUNDRED, TEN_THOUSAND or MILLION)");
    };
    return (int) Math.min(RuntimeFraction.MILLION, Integer.toUnsignedLong(p.getNumerator()) * scale);
  }

  private static RuntimeConfig.RtdsLayer rtds(RuntimeLayer layer, FieldPath path, boolean ads)
      throws ConfigException {
    RuntimeLayer.RtdsLayer rtds = layer.getRtdsLayer();
    RTDS.check(rtds, path);
    if (rtds.getName().isEmpty()) {
      throw new ConfigException(path.field("name"), "the resource name to subscribe to is required");
    }
    if (!ads) {
      throw new ConfigException(path, "an RTDS layer needs dynamic_resources.ads_config (runtime comes over ADS)");
    }
    DynamicResourcesTranslator.adsConfigSource(rtds.hasRtdsConfig(), rtds.getRtdsConfig(),
        path.field("rtds_config").toString());
    return new RuntimeConfig.RtdsLayer(layer.getName(), rtds.getName());
  }

  private static RuntimeConfig.DiskLayer disk(RuntimeLayer layer, FieldPath path)
      throws ConfigException {
    RuntimeLayer.DiskLayer disk = layer.getDiskLayer();
    DISK.check(disk, path);
    if (disk.getSymlinkRoot().isEmpty()) {
      throw new ConfigException(path.field("symlink_root"), "symlink_root is required");
    }
    if (disk.getSubdirectory().contains("..")) {
      throw new ConfigException(path.field("subdirectory"), "must not leave symlink_root (\"..\")");
    }
    return new RuntimeConfig.DiskLayer(layer.getName(), disk.getSymlinkRoot(), disk.getSubdirectory(),
        disk.getAppendServiceCluster());
  }

  /** A static layer's values under their dotted keys, sorted. */
  static Map<String, String> flatten(Struct struct, FieldPath path) throws ConfigException {
    Map<String, String> values = new TreeMap<>();
    walk(struct, "", path, values);
    return values;
  }

  private static void walk(Struct struct, String prefix, FieldPath path, Map<String, String> values)
      throws ConfigException {
    for (Map.Entry<String, Value> e : struct.getFieldsMap().entrySet()) {
      String key = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
      FieldPath keyPath = path.field(e.getKey());
      Value v = e.getValue();
      switch (v.getKindCase()) {
        case STRING_VALUE -> values.put(key, v.getStringValue());
        case BOOL_VALUE -> values.put(key, Boolean.toString(v.getBoolValue()));
        case NUMBER_VALUE -> values.put(key, number(v.getNumberValue()));
        case STRUCT_VALUE -> {
          Struct s = v.getStructValue();
          if (s.containsFields("numerator") || s.containsFields("denominator")) {
            values.put(key, fractionalPercent(s, keyPath));
          } else if (s.getFieldsCount() == 0) {
            throw new ConfigException(keyPath, "an empty object is not a runtime value");
          } else {
            walk(s, key, keyPath, values);
          }
        }
        default -> throw new ConfigException(keyPath, "a runtime value is a string, number, boolean or"
            + " fractional percent ({numerator, denominator}), not " + v.getKindCase().name().toLowerCase());
      }
    }
  }

  /** Integers as integers (5, not 5.0): the text a runtime lookup parses. */
  private static String number(double d) {
    if (d == Math.rint(d) && !Double.isInfinite(d) && Math.abs(d) < 1e18) {
      return Long.toString((long) d);
    }
    return BigDecimal.valueOf(d).toPlainString();
  }

  private static String fractionalPercent(Struct s, FieldPath path) throws ConfigException {
    for (String field : s.getFieldsMap().keySet()) {
      if (!field.equals("numerator") && !field.equals("denominator")) {
        throw new ConfigException(path.field(field), "a fractional percent has only numerator and denominator");
      }
    }
    Value n = s.getFieldsOrDefault("numerator", Value.newBuilder().setNumberValue(0).build());
    if (n.getKindCase() != Value.KindCase.NUMBER_VALUE || n.getNumberValue() < 0
        || n.getNumberValue() != Math.rint(n.getNumberValue()) || n.getNumberValue() > 0xFFFF_FFFFL) {
      throw new ConfigException(path.field("numerator"), "must be a whole number from 0 to 4294967295");
    }
    String denominator = "HUNDRED";
    if (s.containsFields("denominator")) {
      Value d = s.getFieldsOrThrow("denominator");
      denominator = d.getKindCase() == Value.KindCase.STRING_VALUE ? d.getStringValue().toUpperCase() : "";
      if (!Set.of("HUNDRED", "TEN_THOUSAND", "MILLION").contains(denominator)) {
        throw new ConfigException(path.field("denominator"), "must be HUNDRED, TEN_THOUSAND or MILLION");
      }
    }
    long scale = switch (denominator) {
      case "TEN_THOUSAND" -> 10_000;
      case "MILLION" -> 1_000_000;
      default -> 100;
    };
    return (long) n.getNumberValue() + "/" + scale;
  }
}
