package io.spillway.edge.config;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Spillway's pressure-aware load-balancing policy ({@code spillway.edge.lb.v1.Pressure}), translated
 * and validated: how a host's signals become one pressure score, how it is smoothed, how scores become
 * weights, and when a host is ejected. Built with {@link #builder()}, whose defaults are the
 * documented ones (docs/load-balancing.md#pressure-aware-balancing).
 *
 * @param normalization how the weighted dimensions combine into one score
 * @param dimensions the weight of each dimension (a preset's or the configured ones)
 * @param capacity active requests at which the connections dimension reads 1
 * @param smoothingTimeConstant the EWMA's tau: alpha = 1 - exp(-dt / tau)
 * @param peakSensitive a rising score is taken at once, a falling one smoothed
 * @param weightUpdatePeriod how often the control thread rebuilds the weights
 * @param blackoutPeriod how long a new host must have data before its score counts
 * @param expirationPeriod a host without fresh data for this long gets the median weight
 * @param ejectThreshold a score above this for {@code ejectAfterUpdates} updates ejects the host
 * @param returnThreshold an ejected host returns only below this (hysteresis)
 * @param ejectAfterUpdates consecutive updates above the eject threshold before an ejection
 * @param baseEjectionTime ejection time is base * ejection count ...
 * @param maxEjectionTime ... capped at this
 * @param maxEjectionPercent at most this share of the hosts ejected (one may always be, one always stays)
 * @param panicThresholdPercent below this share of non-ejected hosts, ejections are ignored
 * @param slowStart the ramp of a host returning from ejection, or null for none
 * @param poller the poller of each host's metrics endpoint, or null for none
 */
public record PressureConfig(
    Normalization normalization,
    Dimensions dimensions,
    int capacity,
    Duration smoothingTimeConstant,
    boolean peakSensitive,
    Duration weightUpdatePeriod,
    Duration blackoutPeriod,
    Duration expirationPeriod,
    double ejectThreshold,
    double returnThreshold,
    int ejectAfterUpdates,
    Duration baseEjectionTime,
    Duration maxEjectionTime,
    int maxEjectionPercent,
    int panicThresholdPercent,
    ClusterConfig.SlowStart slowStart,
    MetricsPollerConfig poller) {

  public PressureConfig {
    Objects.requireNonNull(normalization, "normalization");
    Objects.requireNonNull(dimensions, "dimensions");
  }

  /** How the weighted dimensions of a host combine. */
  public enum Normalization {
    /** The largest weighted dimension: one saturated resource is never averaged away. */
    MAX,
    /** {@code Σ wᵢ·xᵢ / Σ wᵢ} over the dimensions that have data. */
    WEIGHTED_SUM
  }

  /**
   * The weight of each dimension; 0 leaves it out. Each dimension reads 0 (idle) to 1 (saturated).
   *
   * @param cpu ORCA {@code cpu_utilization}
   * @param memory ORCA {@code mem_utilization}
   * @param application ORCA {@code application_utilization}
   * @param namedMetrics ORCA {@code named_metrics.<name>} (or {@code utilization.<name>}) by name
   * @param connections active requests through this edge / capacity
   * @param latency {@code 1 - fastest host's latency EWMA / this host's}
   * @param errors share of the host's requests that failed since the last update
   */
  public record Dimensions(double cpu, double memory, double application, Map<String, Double> namedMetrics,
      double connections, double latency, double errors) {
    /** Every dimension 1.0. */
    public static final Dimensions BALANCED = new Dimensions(1, 1, 1, Map.of(), 1, 1, 1);
    /** CPU-heavy backends (rendering, transcoding): CPU and the application's own utilization dominate. */
    public static final Dimensions COMPUTE_BOUND = new Dimensions(1.0, 0.6, 1.0, Map.of(), 0.5, 0.5, 1.0);
    /** Backends waiting on disks or databases: concurrency and latency dominate, CPU counts little. */
    public static final Dimensions IO_BOUND = new Dimensions(0.3, 0.6, 1.0, Map.of(), 1.0, 1.0, 1.0);
    /** Proxies and gateways: concurrency first, then latency; CPU and memory count little. */
    public static final Dimensions GATEWAY = new Dimensions(0.3, 0.3, 1.0, Map.of(), 1.0, 0.8, 1.0);

    public Dimensions {
      namedMetrics = Map.copyOf(namedMetrics);
    }

    /** The weight of the dimension a polled metric feeds (0: the value would not count). */
    public double weightOf(MetricsPollerConfig.Mapping m) {
      return switch (m.dimension()) {
        case CPU -> cpu;
        case MEMORY -> memory;
        case APPLICATION -> application;
        case NAMED_METRIC -> namedMetrics.getOrDefault(m.namedMetric(), 0.0);
      };
    }

    /** Whether any ORCA dimension has a weight (then the hosts' load reports are collected). */
    public boolean usesLoadReports() {
      return cpu > 0 || memory > 0 || application > 0 || !namedMetrics.isEmpty();
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Starts from the documented defaults; {@link #build()} checks the relations between fields. */
  public static final class Builder {
    private Normalization normalization = Normalization.MAX;
    private Dimensions dimensions = Dimensions.BALANCED;
    private int capacity = 100;
    private Duration smoothingTimeConstant = Duration.ofSeconds(5);
    private boolean peakSensitive;
    private Duration weightUpdatePeriod = Duration.ofSeconds(1);
    private Duration blackoutPeriod = Duration.ofSeconds(10);
    private Duration expirationPeriod = Duration.ofMinutes(3);
    private double ejectThreshold = 0.8;
    private double returnThreshold = 0.6;
    private int ejectAfterUpdates = 3;
    private Duration baseEjectionTime = Duration.ofSeconds(30);
    private Duration maxEjectionTime = Duration.ofSeconds(300);
    private int maxEjectionPercent = 10;
    private int panicThresholdPercent = 50;
    private ClusterConfig.SlowStart slowStart = new ClusterConfig.SlowStart(Duration.ofSeconds(10), 1.0, 10);
    private MetricsPollerConfig poller;

    private Builder() {}

    public Builder normalization(Normalization v) {
      normalization = v;
      return this;
    }

    public Builder dimensions(Dimensions v) {
      dimensions = v;
      return this;
    }

    public Builder capacity(int v) {
      capacity = v;
      return this;
    }

    public Builder smoothingTimeConstant(Duration v) {
      smoothingTimeConstant = v;
      return this;
    }

    public Builder peakSensitive(boolean v) {
      peakSensitive = v;
      return this;
    }

    public Builder weightUpdatePeriod(Duration v) {
      weightUpdatePeriod = v;
      return this;
    }

    public Builder blackoutPeriod(Duration v) {
      blackoutPeriod = v;
      return this;
    }

    public Builder expirationPeriod(Duration v) {
      expirationPeriod = v;
      return this;
    }

    public Builder ejectThreshold(double v) {
      ejectThreshold = v;
      return this;
    }

    public Builder returnThreshold(double v) {
      returnThreshold = v;
      return this;
    }

    public Builder ejectAfterUpdates(int v) {
      ejectAfterUpdates = v;
      return this;
    }

    public Builder baseEjectionTime(Duration v) {
      baseEjectionTime = v;
      return this;
    }

    public Builder maxEjectionTime(Duration v) {
      maxEjectionTime = v;
      return this;
    }

    public Builder maxEjectionPercent(int v) {
      maxEjectionPercent = v;
      return this;
    }

    public Builder panicThresholdPercent(int v) {
      panicThresholdPercent = v;
      return this;
    }

    /** The ramp of a host returning from ejection; null for none. */
    public Builder slowStart(ClusterConfig.SlowStart v) {
      slowStart = v;
      return this;
    }

    /** The poller of each host's metrics endpoint; null for none. */
    public Builder poller(MetricsPollerConfig v) {
      poller = v;
      return this;
    }

    /** @throws IllegalArgumentException when the fields contradict each other (the translator checks first, with paths) */
    public PressureConfig build() {
      if (capacity < 1 || smoothingTimeConstant.isZero() || smoothingTimeConstant.isNegative()) {
        throw new IllegalArgumentException("capacity and smoothing_time_constant must be positive");
      }
      if (!(ejectThreshold > 0 && ejectThreshold <= 1) || !(returnThreshold >= 0 && returnThreshold <= ejectThreshold)) {
        throw new IllegalArgumentException("need 0 <= return_threshold <= eject_threshold, 0 < eject_threshold <= 1");
      }
      if (ejectAfterUpdates < 1 || maxEjectionPercent > 100 || panicThresholdPercent > 100) {
        throw new IllegalArgumentException("eject_after_updates >= 1, percentages within [0, 100]");
      }
      if (poller != null) {
        for (MetricsPollerConfig.Mapping m : poller.metrics()) {
          if (!(dimensions.weightOf(m) > 0)) {
            throw new IllegalArgumentException("metrics_poller feeds " + m.dimensionName() + ", which has no weight");
          }
        }
      }
      return new PressureConfig(normalization, dimensions, capacity, smoothingTimeConstant, peakSensitive,
          weightUpdatePeriod, blackoutPeriod, expirationPeriod, ejectThreshold, returnThreshold, ejectAfterUpdates,
          baseEjectionTime, maxEjectionTime, maxEjectionPercent, panicThresholdPercent, slowStart, poller);
    }
  }
}
