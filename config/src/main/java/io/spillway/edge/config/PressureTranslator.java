package io.spillway.edge.config;

import io.spillway.edge.config.PressureConfig.Dimensions;
import io.spillway.edge.config.PressureConfig.Normalization;
import io.spillway.edge.config.lb.Pressure;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code spillway.edge.lb.v1.Pressure} → {@link PressureConfig}: every value range-checked, the
 * relations between fields checked (return below eject threshold, max ejection time not below the
 * base), the metrics poller by {@link MetricsPollerTranslator}, each violation refused with its field path.
 */
final class PressureTranslator {
  static final Duration MIN_UPDATE_PERIOD = Duration.ofMillis(100);

  private PressureTranslator() {}

  static PressureConfig translate(Pressure p, FieldPath path) throws ConfigException {
    PressureConfig.Builder b = PressureConfig.builder();
    b.normalization(switch (p.getNormalization()) {
      case MAX -> Normalization.MAX;
      case WEIGHTED_SUM -> Normalization.WEIGHTED_SUM;
      default -> throw new ConfigException(path.field("normalization"), "unknown value " + p.getNormalizationValue()
          + "; use MAX or WEIGHTED_SUM");
    });
    Dimensions preset = switch (p.getPreset()) {
      case BALANCED -> Dimensions.BALANCED;
      case COMPUTE_BOUND -> Dimensions.COMPUTE_BOUND;
      case IO_BOUND -> Dimensions.IO_BOUND;
      case GATEWAY -> Dimensions.GATEWAY;
      default -> throw new ConfigException(path.field("preset"), "unknown value " + p.getPresetValue()
          + "; use BALANCED, COMPUTE_BOUND, IO_BOUND or GATEWAY");
    };
    Dimensions weights = p.hasDimensions() ? dimensions(p.getDimensions(), path.field("dimensions")) : preset;
    b.dimensions(weights);
    b.capacity(ProtoValues.uint32(p.hasCapacity(), p.getCapacity(), path.field("capacity"), 1, 100));
    b.smoothingTimeConstant(ProtoValues.positiveDuration(p.hasSmoothingTimeConstant(), p.getSmoothingTimeConstant(),
        path.field("smoothing_time_constant"), Duration.ofSeconds(5)));
    b.peakSensitive(p.getPeakSensitive());
    Duration update = ProtoValues.positiveDuration(p.hasWeightUpdatePeriod(), p.getWeightUpdatePeriod(),
        path.field("weight_update_period"), Duration.ofSeconds(1));
    b.weightUpdatePeriod(update.compareTo(MIN_UPDATE_PERIOD) < 0 ? MIN_UPDATE_PERIOD : update);
    b.blackoutPeriod(ProtoValues.duration(p.hasBlackoutPeriod(), p.getBlackoutPeriod(), path.field("blackout_period"),
        Duration.ofSeconds(10)));
    b.expirationPeriod(ProtoValues.positiveDuration(p.hasWeightExpirationPeriod(), p.getWeightExpirationPeriod(),
        path.field("weight_expiration_period"), Duration.ofMinutes(3)));

    double eject = 0.8;
    if (p.hasEjectThreshold()) {
      eject = p.getEjectThreshold().getValue();
      if (!(eject > 0 && eject <= 1)) {
        throw new ConfigException(path.field("eject_threshold").field("value"), "must be within (0, 1]");
      }
    }
    double back = p.hasReturnThreshold() ? p.getReturnThreshold().getValue() : Math.min(0.6, eject);
    if (!(back >= 0 && back <= eject)) {
      throw new ConfigException(path.field(p.hasReturnThreshold() ? "return_threshold" : "eject_threshold")
          .field("value"), "return_threshold (" + back + ") must be within [0, eject_threshold (" + eject + ")]");
    }
    b.ejectThreshold(eject).returnThreshold(back);
    b.ejectAfterUpdates(ProtoValues.uint32(p.hasEjectAfterUpdates(), p.getEjectAfterUpdates(),
        path.field("eject_after_updates"), 1, 3));
    Duration base = ProtoValues.positiveDuration(p.hasBaseEjectionTime(), p.getBaseEjectionTime(),
        path.field("base_ejection_time"), Duration.ofSeconds(30));
    Duration max = ProtoValues.positiveDuration(p.hasMaxEjectionTime(), p.getMaxEjectionTime(),
        path.field("max_ejection_time"), Duration.ofSeconds(300));
    if (max.compareTo(base) < 0) {
      throw new ConfigException(path.field(p.hasMaxEjectionTime() ? "max_ejection_time" : "base_ejection_time"),
          "max_ejection_time (" + max.toMillis() + " ms) must not be less than base_ejection_time (" + base.toMillis()
              + " ms)");
    }
    b.baseEjectionTime(base).maxEjectionTime(max);
    b.maxEjectionPercent(percent(p.hasMaxEjectionPercent(), p.getMaxEjectionPercent().getValue(),
        path.field("max_ejection_percent"), 10));
    b.panicThresholdPercent(percent(p.hasPanicThresholdPercent(), p.getPanicThresholdPercent().getValue(),
        path.field("panic_threshold_percent"), 50));

    Duration window = ProtoValues.duration(p.hasSlowStartWindow(), p.getSlowStartWindow(),
        path.field("slow_start_window"), Duration.ofSeconds(10));
    double aggression = 1.0;
    if (p.hasSlowStartAggression()) {
      aggression = p.getSlowStartAggression().getValue();
      if (!(aggression > 0) || Double.isInfinite(aggression)) {
        throw new ConfigException(path.field("slow_start_aggression").field("value"), "must be greater than 0");
      }
    }
    double minPercent = p.hasSlowStartMinWeightPercent() ? p.getSlowStartMinWeightPercent().getValue() : 10;
    if (!(minPercent >= 0 && minPercent <= 100)) {
      throw new ConfigException(path.field("slow_start_min_weight_percent").field("value"), "must be within [0, 100]");
    }
    b.slowStart(window.isZero() ? null : new ClusterConfig.SlowStart(window, aggression, minPercent));
    if (p.hasMetricsPoller()) {
      b.poller(MetricsPollerTranslator.translate(p.getMetricsPoller(), weights, path.field("metrics_poller")));
    }
    return b.build();
  }

  private static int percent(boolean has, int raw, FieldPath path, int fallback) throws ConfigException {
    if (!has) {
      return fallback;
    }
    long v = Integer.toUnsignedLong(raw);
    if (v > 100) {
      throw new ConfigException(path.field("value"), "must be within [0, 100]");
    }
    return (int) v;
  }

  private static Dimensions dimensions(io.spillway.edge.config.lb.Dimensions d, FieldPath path)
      throws ConfigException {
    double cpu = weight(d.getCpu(), path.field("cpu"));
    double memory = weight(d.getMemory(), path.field("memory"));
    double application = weight(d.getApplication(), path.field("application"));
    double connections = weight(d.getConnections(), path.field("connections"));
    double latency = weight(d.getLatency(), path.field("latency"));
    double errors = weight(d.getErrors(), path.field("errors"));
    Map<String, Double> named = new LinkedHashMap<>();
    for (Map.Entry<String, Double> e : new java.util.TreeMap<>(d.getNamedMetricsMap()).entrySet()) {
      FieldPath entry = path.field("named_metrics").field(e.getKey().isEmpty() ? "\"\"" : e.getKey());
      if (e.getKey().isEmpty()) {
        throw new ConfigException(entry, "a named metric needs a name");
      }
      double w = weight(e.getValue(), entry);
      if (w > 0) {
        named.put(e.getKey(), w);
      }
    }
    if (cpu + memory + application + connections + latency + errors == 0 && named.isEmpty()) {
      throw new ConfigException(path, "at least one dimension needs a weight greater than 0");
    }
    return new Dimensions(cpu, memory, application, named, connections, latency, errors);
  }

  private static double weight(double w, FieldPath path) throws ConfigException {
    if (!(w >= 0) || Double.isInfinite(w)) {
      throw new ConfigException(path, "must be a finite number, 0 or more");
    }
    return w;
  }
}
