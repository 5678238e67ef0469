package io.spillway.edge.config;

import com.google.protobuf.Any;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.cluster.v3.LoadBalancingPolicy;
import io.envoyproxy.envoy.config.core.v3.RuntimeDouble;
import io.envoyproxy.envoy.extensions.load_balancing_policies.client_side_weighted_round_robin.v3.ClientSideWeightedRoundRobin;
import io.envoyproxy.envoy.extensions.load_balancing_policies.common.v3.ConsistentHashingLbConfig;
import io.envoyproxy.envoy.extensions.load_balancing_policies.common.v3.LocalityLbConfig;
import io.envoyproxy.envoy.extensions.load_balancing_policies.least_request.v3.LeastRequest;
import io.envoyproxy.envoy.extensions.load_balancing_policies.maglev.v3.Maglev;
import io.envoyproxy.envoy.extensions.load_balancing_policies.random.v3.Random;
import io.envoyproxy.envoy.extensions.load_balancing_policies.ring_hash.v3.RingHash;
import io.envoyproxy.envoy.extensions.load_balancing_policies.round_robin.v3.RoundRobin;
import io.spillway.edge.config.ClusterConfig.ConsistentHash;
import io.spillway.edge.config.ClusterConfig.LbPolicy;
import io.spillway.edge.config.ClusterConfig.LbSettings;
import io.spillway.edge.config.ClusterConfig.WeightedRoundRobin;
import io.spillway.edge.config.ExtensionRegistry.Category;
import io.spillway.edge.config.ExtensionRegistry.Extension;
import io.spillway.edge.config.lb.Pressure;
import java.time.Duration;
import java.util.List;

/**
 * A cluster's load-balancing fields → policy, choice count and {@link LbSettings}: {@code
 * lb_policy} with {@code least_request_lb_config}, or {@code load_balancing_policy}, whose first
 * policy is taken (Envoy takes the first it has; every type Spillway registers it has).
 */
final class LoadBalancingTranslator {

  static final int DEFAULT_CHOICE_COUNT = 2;
  static final double DEFAULT_ACTIVE_REQUEST_BIAS = 1.0;
  static final Duration DEFAULT_BLACKOUT = Duration.ofSeconds(10);
  static final Duration DEFAULT_EXPIRATION = Duration.ofMinutes(3);
  static final Duration DEFAULT_UPDATE_PERIOD = Duration.ofSeconds(1);
  static final Duration MIN_UPDATE_PERIOD = Duration.ofMillis(100);

  private static final SupportedFields LEAST_REQUEST_LB_CONFIG = SupportedFields.of(
      Cluster.LeastRequestLbConfig.getDescriptor(), "choice_count", "active_request_bias", "slow_start_config");
  private static final SupportedFields ROUND_ROBIN_LB_CONFIG = SupportedFields.of(
      Cluster.RoundRobinLbConfig.getDescriptor(), "slow_start_config");
  private static final SupportedFields CLUSTER_SLOW_START = SupportedFields.of(
      Cluster.SlowStartConfig.getDescriptor(), "slow_start_window", "aggression", "min_weight_percent");
  private static final SupportedFields SLOW_START = SupportedFields.of(
      io.envoyproxy.envoy.extensions.load_balancing_policies.common.v3.SlowStartConfig.getDescriptor(),
      "slow_start_window", "aggression", "min_weight_percent");
  private static final SupportedFields POLICY_LIST = SupportedFields.of(
      LoadBalancingPolicy.getDescriptor(), "policies");
  private static final SupportedFields POLICY = SupportedFields.of(
      LoadBalancingPolicy.Policy.getDescriptor(), "typed_extension_config");
  private static final SupportedFields ROUND_ROBIN = SupportedFields.of(RoundRobin.getDescriptor(),
      "slow_start_config", "locality_lb_config");
  private static final SupportedFields LEAST_REQUEST = SupportedFields.of(LeastRequest.getDescriptor(),
      "choice_count", "active_request_bias", "slow_start_config", "enable_full_scan", "selection_method",
      "locality_lb_config");
  private static final SupportedFields RANDOM = SupportedFields.of(Random.getDescriptor(), "locality_lb_config");
  private static final SupportedFields LOCALITY_WEIGHTED = SupportedFields.of(
      Cluster.CommonLbConfig.LocalityWeightedLbConfig.getDescriptor());
  private static final SupportedFields TYPED_LOCALITY_WEIGHTED = SupportedFields.of(
      LocalityLbConfig.LocalityWeightedLbConfig.getDescriptor());
  /** Why zone-aware routing is refused, wherever it is configured. */
  static final String ZONE_AWARE_REFUSED = "zone-aware routing is not supported: it needs the local cluster"
      + " (cluster_manager.local_cluster_name) and its membership, which the edge does not have; use"
      + " locality_weighted_lb_config with weights from the control plane";
  private static final SupportedFields CSWRR = SupportedFields.of(ClientSideWeightedRoundRobin.getDescriptor(),
      "enable_oob_load_report", "blackout_period", "weight_expiration_period", "weight_update_period",
      "error_utilization_penalty", "metric_names_for_computing_utilization")
      .later("oob_reporting_period");
  private static final SupportedFields RING_HASH_LB_CONFIG = SupportedFields.of(
      Cluster.RingHashLbConfig.getDescriptor(), "minimum_ring_size", "maximum_ring_size", "hash_function");
  private static final SupportedFields MAGLEV_LB_CONFIG = SupportedFields.of(
      Cluster.MaglevLbConfig.getDescriptor(), "table_size");
  private static final SupportedFields RING_HASH = SupportedFields.of(RingHash.getDescriptor(),
      "hash_function", "minimum_ring_size", "maximum_ring_size", "consistent_hashing_lb_config")
      .later("use_hostname_for_hashing", "hash_balance_factor", "locality_weighted_lb_config");
  private static final SupportedFields MAGLEV = SupportedFields.of(Maglev.getDescriptor(),
      "table_size", "consistent_hashing_lb_config")
      .later("locality_weighted_lb_config");
  private static final SupportedFields CONSISTENT_HASHING = SupportedFields.of(
      ConsistentHashingLbConfig.getDescriptor())
      .later("use_hostname_for_hashing", "hash_balance_factor");
  /** Envoy's bound on both ring sizes. */
  static final long MAX_RING_SIZE = 8L * 1024 * 1024;
  /** Envoy's bound on the Maglev table size. */
  static final long MAX_TABLE_SIZE = 5_000_011;
  private static final SupportedFields RUNTIME_DOUBLE = SupportedFields.of(RuntimeDouble.getDescriptor(),
      "default_value");

  /** The translated load-balancing fields of one cluster. */
  record Balancing(LbPolicy policy, int choiceCount, LbSettings settings) {}

  private final ExtensionRegistry registry;

  LoadBalancingTranslator(ExtensionRegistry registry) {
    this.registry = registry;
  }

  Balancing translate(Cluster c, FieldPath path) throws ConfigException {
    Balancing b = translatePolicy(c, path);
    if (!commonLocalityWeighted(c, path)) {
      return b;
    }
    FieldPath lwPath = path.field("common_lb_config").field("locality_weighted_lb_config");
    if (b.policy().hashed()) {
      throw new ConfigException(lwPath, "locality weighted balancing is not supported yet for " + b.policy()
          + " (Envoy scales the ring or table weights by locality weight)");
    }
    return new Balancing(b.policy(), b.choiceCount(), b.settings().withLocalityWeighted());
  }

  /**
   * {@code common_lb_config}'s locality specifier: true for {@code locality_weighted_lb_config}
   * beside {@code lb_policy}; {@code zone_aware_lb_config} is refused, and so is a locality config
   * beside {@code load_balancing_policy}, whose typed config has its own {@code locality_lb_config}.
   */
  private static boolean commonLocalityWeighted(Cluster c, FieldPath path) throws ConfigException {
    if (!c.hasCommonLbConfig()) {
      return false;
    }
    Cluster.CommonLbConfig common = c.getCommonLbConfig();
    FieldPath commonPath = path.field("common_lb_config");
    if (common.hasZoneAwareLbConfig()) {
      throw new ConfigException(commonPath.field("zone_aware_lb_config"), ZONE_AWARE_REFUSED);
    }
    if (!common.hasLocalityWeightedLbConfig()) {
      return false;
    }
    FieldPath lwPath = commonPath.field("locality_weighted_lb_config");
    if (c.hasLoadBalancingPolicy()) {
      throw new ConfigException(lwPath, "cannot be combined with load_balancing_policy; set locality_lb_config:"
          + " {locality_weighted_lb_config: {}} in the policy's typed_config");
    }
    LOCALITY_WEIGHTED.check(common.getLocalityWeightedLbConfig(), lwPath);
    return true;
  }

  /** A typed policy's {@code locality_lb_config}: true for locality weighted; zone-aware is refused. */
  private static boolean typedLocalityWeighted(boolean has, LocalityLbConfig config, FieldPath path)
      throws ConfigException {
    if (!has) {
      return false;
    }
    FieldPath localityPath = path.field("locality_lb_config");
    return switch (config.getLocalityConfigSpecifierCase()) {
      case ZONE_AWARE_LB_CONFIG -> throw new ConfigException(localityPath.field("zone_aware_lb_config"),
          ZONE_AWARE_REFUSED);
      case LOCALITY_WEIGHTED_LB_CONFIG -> {
        TYPED_LOCALITY_WEIGHTED.check(config.getLocalityWeightedLbConfig(),
            localityPath.field("locality_weighted_lb_config"));
        yield true;
      }
      default -> false;
    };
  }

  private static Balancing localityWeighted(Balancing b, boolean on) {
    return on ? new Balancing(b.policy(), b.choiceCount(), b.settings().withLocalityWeighted()) : b;
  }

  private Balancing translatePolicy(Cluster c, FieldPath path) throws ConfigException {
    if (c.hasLoadBalancingPolicy()) {
      for (String other : List.of("least_request_lb_config", "round_robin_lb_config", "ring_hash_lb_config",
          "maglev_lb_config")) {
        if (c.hasField(Cluster.getDescriptor().findFieldByName(other))) {
          throw new ConfigException(path.field(other), other + " cannot be combined with load_balancing_policy;"
              + " configure the policy's typed_extension_config instead");
        }
      }
      return policy(c.getLoadBalancingPolicy(), path.field("load_balancing_policy"));
    }
    LbPolicy policy = switch (c.getLbPolicy()) {
      case ROUND_ROBIN -> LbPolicy.ROUND_ROBIN;
      case LEAST_REQUEST -> LbPolicy.LEAST_REQUEST;
      case RANDOM -> LbPolicy.RANDOM;
      case RING_HASH -> LbPolicy.RING_HASH;
      case MAGLEV -> LbPolicy.MAGLEV;
      default -> throw new ConfigException(path.field("lb_policy"), c.getLbPolicy() + " is not supported");
    };
    int choiceCount = DEFAULT_CHOICE_COUNT;
    double bias = DEFAULT_ACTIVE_REQUEST_BIAS;
    ClusterConfig.SlowStart slowStart = null;
    ConsistentHash consistentHash = ConsistentHash.DEFAULTS;
    if (c.hasRingHashLbConfig()) {
      FieldPath rhPath = path.field("ring_hash_lb_config");
      if (policy != LbPolicy.RING_HASH) {
        throw new ConfigException(rhPath, "is only for lb_policy RING_HASH");
      }
      Cluster.RingHashLbConfig rh = c.getRingHashLbConfig();
      RING_HASH_LB_CONFIG.check(rh, rhPath);
      if (rh.getHashFunction() != Cluster.RingHashLbConfig.HashFunction.XX_HASH) {
        throw new ConfigException(rhPath.field("hash_function"), rh.getHashFunction()
            + " is not supported; only XX_HASH (the default)");
      }
      consistentHash = ringSizes(rh.hasMinimumRingSize(), rh.getMinimumRingSize().getValue(),
          rh.hasMaximumRingSize(), rh.getMaximumRingSize().getValue(), rhPath);
    }
    if (c.hasMaglevLbConfig()) {
      FieldPath mPath = path.field("maglev_lb_config");
      if (policy != LbPolicy.MAGLEV) {
        throw new ConfigException(mPath, "is only for lb_policy MAGLEV");
      }
      MAGLEV_LB_CONFIG.check(c.getMaglevLbConfig(), mPath);
      consistentHash = tableSize(c.getMaglevLbConfig().hasTableSize(),
          c.getMaglevLbConfig().getTableSize().getValue(), mPath);
    }
    if (c.hasRoundRobinLbConfig()) {
      FieldPath rrPath = path.field("round_robin_lb_config");
      if (policy != LbPolicy.ROUND_ROBIN) {
        throw new ConfigException(rrPath, "is only for lb_policy ROUND_ROBIN");
      }
      ROUND_ROBIN_LB_CONFIG.check(c.getRoundRobinLbConfig(), rrPath);
      if (c.getRoundRobinLbConfig().hasSlowStartConfig()) {
        slowStart = slowStart(c.getRoundRobinLbConfig().getSlowStartConfig(), rrPath.field("slow_start_config"));
      }
    }
    if (c.hasLeastRequestLbConfig()) {
      FieldPath lrPath = path.field("least_request_lb_config");
      Cluster.LeastRequestLbConfig lr = c.getLeastRequestLbConfig();
      LEAST_REQUEST_LB_CONFIG.check(lr, lrPath);
      choiceCount = ProtoValues.uint32(lr.hasChoiceCount(), lr.getChoiceCount(), lrPath.field("choice_count"), 2,
          DEFAULT_CHOICE_COUNT);
      if (lr.hasActiveRequestBias()) {
        bias = bias(lr.getActiveRequestBias(), lrPath.field("active_request_bias"));
      }
      if (lr.hasSlowStartConfig()) {
        slowStart = slowStart(lr.getSlowStartConfig(), lrPath.field("slow_start_config"));
      }
    }
    return new Balancing(policy, choiceCount, new LbSettings(bias, slowStart, null, consistentHash));
  }

  /** Ring sizes: each within [1, 8M] (Envoy's bounds), the minimum not above the maximum. */
  private static ConsistentHash ringSizes(boolean hasMin, long min, boolean hasMax, long max, FieldPath path)
      throws ConfigException {
    long minimum = hasMin ? min : ConsistentHash.DEFAULTS.minimumRingSize();
    long maximum = hasMax ? max : ConsistentHash.DEFAULTS.maximumRingSize();
    if (minimum < 1 || minimum > MAX_RING_SIZE) {
      throw new ConfigException(path.field("minimum_ring_size").field("value"), "must be within [1, 8388608]");
    }
    if (maximum < 1 || maximum > MAX_RING_SIZE) {
      throw new ConfigException(path.field("maximum_ring_size").field("value"), "must be within [1, 8388608]");
    }
    if (minimum > maximum) {
      throw new ConfigException(path.field("minimum_ring_size").field("value"), "minimum_ring_size (" + minimum
          + ") must not be greater than maximum_ring_size (" + maximum + ")");
    }
    return new ConsistentHash(minimum, maximum, ConsistentHash.DEFAULTS.tableSize());
  }

  /** A Maglev table size: a prime, at most 5000011 (Envoy's bound). */
  private static ConsistentHash tableSize(boolean has, long size, FieldPath path) throws ConfigException {
    if (!has) {
      return ConsistentHash.DEFAULTS;
    }
    if (size > MAX_TABLE_SIZE || !isPrime(size)) {
      throw new ConfigException(path.field("table_size").field("value"), size
          + " is not a prime number of at most 5000011");
    }
    return new ConsistentHash(ConsistentHash.DEFAULTS.minimumRingSize(), ConsistentHash.DEFAULTS.maximumRingSize(),
        (int) size);
  }

  /** Whether {@code n} is prime (a Maglev table size must be, for every host's permutation to reach every slot). */
  static boolean isPrime(long n) {
    if (n < 2) {
      return false;
    }
    if (n % 2 == 0) {
      return n == 2;
    }
    for (long d = 3; d * d <= n; d += 2) {
      if (n % d == 0) {
        return false;
      }
    }
    return true;
  }

  @SuppressWarnings("deprecation") // use_hostname_for_hashing, hash_balance_factor: refused, listed as later
  private static Balancing ringHash(RingHash rh, FieldPath path) throws ConfigException {
    RING_HASH.check(rh, path);
    if (rh.getHashFunction() == RingHash.HashFunction.MURMUR_HASH_2) {
      throw new ConfigException(path.field("hash_function"), "MURMUR_HASH_2 is not supported; only XX_HASH (the"
          + " default)");
    }
    if (rh.hasConsistentHashingLbConfig()) {
      CONSISTENT_HASHING.check(rh.getConsistentHashingLbConfig(), path.field("consistent_hashing_lb_config"));
    }
    ConsistentHash sizes = ringSizes(rh.hasMinimumRingSize(), rh.getMinimumRingSize().getValue(),
        rh.hasMaximumRingSize(), rh.getMaximumRingSize().getValue(), path);
    return new Balancing(LbPolicy.RING_HASH, DEFAULT_CHOICE_COUNT,
        new LbSettings(DEFAULT_ACTIVE_REQUEST_BIAS, null, null, sizes));
  }

  private static Balancing maglev(Maglev m, FieldPath path) throws ConfigException {
    MAGLEV.check(m, path);
    if (m.hasConsistentHashingLbConfig()) {
      CONSISTENT_HASHING.check(m.getConsistentHashingLbConfig(), path.field("consistent_hashing_lb_config"));
    }
    ConsistentHash sizes = tableSize(m.hasTableSize(), m.getTableSize().getValue(), path);
    return new Balancing(LbPolicy.MAGLEV, DEFAULT_CHOICE_COUNT,
        new LbSettings(DEFAULT_ACTIVE_REQUEST_BIAS, null, null, sizes));
  }

  private Balancing policy(LoadBalancingPolicy lbp, FieldPath path) throws ConfigException {
    POLICY_LIST.check(lbp, path);
    if (lbp.getPoliciesCount() == 0) {
      throw new ConfigException(path.field("policies"), "at least one policy is required");
    }
    // Envoy takes the first policy it has and keeps the rest as fallbacks. A type Spillway does not
    // register is refused when the bootstrap is read, so the first policy is the one taken.
    FieldPath policyPath = path.field("policies").index(0);
    LoadBalancingPolicy.Policy p = lbp.getPolicies(0);
    POLICY.check(p, policyPath);
    if (!p.hasTypedExtensionConfig()) {
      throw new ConfigException(policyPath.field("typed_extension_config"), "typed_extension_config is required");
    }
    FieldPath configPath = policyPath.field("typed_extension_config").field("typed_config");
    Any any = p.getTypedExtensionConfig().getTypedConfig();
    Extension e = registry.resolve(any, Category.LOAD_BALANCING_POLICY, configPath);
    return switch (e.name()) {
      case ExtensionRegistry.LB_ROUND_ROBIN -> {
        RoundRobin rr = registry.unpack(any, RoundRobin.class, Category.LOAD_BALANCING_POLICY, configPath);
        ROUND_ROBIN.check(rr, configPath);
        ClusterConfig.SlowStart slowStart = rr.hasSlowStartConfig()
            ? slowStart(rr.getSlowStartConfig(), configPath.field("slow_start_config"))
            : null;
        yield localityWeighted(new Balancing(LbPolicy.ROUND_ROBIN, DEFAULT_CHOICE_COUNT,
            new LbSettings(DEFAULT_ACTIVE_REQUEST_BIAS, slowStart, null)),
            typedLocalityWeighted(rr.hasLocalityLbConfig(), rr.getLocalityLbConfig(), configPath));
      }
      case ExtensionRegistry.LB_RANDOM -> {
        Random r = registry.unpack(any, Random.class, Category.LOAD_BALANCING_POLICY, configPath);
        RANDOM.check(r, configPath);
        yield localityWeighted(new Balancing(LbPolicy.RANDOM, DEFAULT_CHOICE_COUNT, LbSettings.DEFAULTS),
            typedLocalityWeighted(r.hasLocalityLbConfig(), r.getLocalityLbConfig(), configPath));
      }
      case ExtensionRegistry.LB_LEAST_REQUEST -> {
        LeastRequest lr = registry.unpack(any, LeastRequest.class, Category.LOAD_BALANCING_POLICY, configPath);
        Balancing b = leastRequest(lr, configPath);
        yield localityWeighted(b, typedLocalityWeighted(lr.hasLocalityLbConfig(), lr.getLocalityLbConfig(),
            configPath));
      }
      case ExtensionRegistry.LB_CLIENT_SIDE_WEIGHTED_ROUND_ROBIN -> weightedRoundRobin(registry.unpack(any,
          ClientSideWeightedRoundRobin.class, Category.LOAD_BALANCING_POLICY, configPath), configPath);
      case ExtensionRegistry.LB_RING_HASH -> ringHash(
          registry.unpack(any, RingHash.class, Category.LOAD_BALANCING_POLICY, configPath), configPath);
      case ExtensionRegistry.LB_MAGLEV -> maglev(
          registry.unpack(any, Maglev.class, Category.LOAD_BALANCING_POLICY, configPath), configPath);
      case ExtensionRegistry.LB_PRESSURE -> new Balancing(LbPolicy.PRESSURE, DEFAULT_CHOICE_COUNT,
          LbSettings.pressure(PressureTranslator.translate(registry.unpack(any, Pressure.class,
              Category.LOAD_BALANCING_POLICY, configPath), configPath)));
      default -> throw new IllegalStateException("no translation for " + e.name());
    };
  }

  private static Balancing leastRequest(LeastRequest lr, FieldPath path) throws ConfigException {
    LEAST_REQUEST.check(lr, path);
    int choiceCount = ProtoValues.uint32(lr.hasChoiceCount(), lr.getChoiceCount(), path.field("choice_count"), 2,
        DEFAULT_CHOICE_COUNT);
    if (fullScan(lr, path)) {
      choiceCount = ClusterConfig.LEAST_REQUEST_FULL_SCAN;
    }
    double bias = lr.hasActiveRequestBias()
        ? bias(lr.getActiveRequestBias(), path.field("active_request_bias"))
        : DEFAULT_ACTIVE_REQUEST_BIAS;
    ClusterConfig.SlowStart slowStart = lr.hasSlowStartConfig()
        ? slowStart(lr.getSlowStartConfig(), path.field("slow_start_config"))
        : null;
    return new Balancing(LbPolicy.LEAST_REQUEST, choiceCount, new LbSettings(bias, slowStart, null));
  }

  /**
   * Whether every host is compared: {@code selection_method: FULL_SCAN}, or the deprecated
   * {@code enable_full_scan: true} when no selection method is set (Envoy reads the old field only
   * then). A choice count beside a full scan is ignored, as Envoy ignores it.
   */
  private static boolean fullScan(LeastRequest lr, FieldPath path) throws ConfigException {
    return switch (lr.getSelectionMethod()) {
      case N_CHOICES -> lr.hasEnableFullScan() && lr.getEnableFullScan().getValue();
      case FULL_SCAN -> true;
      default -> throw new ConfigException(path.field("selection_method"),
          "unknown selection method " + lr.getSelectionMethodValue() + "; N_CHOICES or FULL_SCAN");
    };
  }

  private static ClusterConfig.SlowStart slowStart(Cluster.SlowStartConfig s, FieldPath path) throws ConfigException {
    CLUSTER_SLOW_START.check(s, path);
    return slowStart(s.hasSlowStartWindow(), s.getSlowStartWindow(), s.hasAggression(), s.getAggression(),
        s.hasMinWeightPercent(), s.getMinWeightPercent().getValue(), path);
  }

  private static ClusterConfig.SlowStart slowStart(
      io.envoyproxy.envoy.extensions.load_balancing_policies.common.v3.SlowStartConfig s, FieldPath path)
      throws ConfigException {
    SLOW_START.check(s, path);
    return slowStart(s.hasSlowStartWindow(), s.getSlowStartWindow(), s.hasAggression(), s.getAggression(),
        s.hasMinWeightPercent(), s.getMinWeightPercent().getValue(), path);
  }

  /** Envoy's defaults: aggression 1.0 (linear), min_weight_percent 10 %; a window is required. */
  private static ClusterConfig.SlowStart slowStart(boolean hasWindow, com.google.protobuf.Duration window,
      boolean hasAggression, RuntimeDouble aggression, boolean hasMinPercent, double minPercent, FieldPath path)
      throws ConfigException {
    Duration w = ProtoValues.positiveDuration(hasWindow, window, path.field("slow_start_window"), Duration.ZERO);
    if (w.isZero()) {
      throw new ConfigException(path.field("slow_start_window"), "is required (slow start lasts that long)");
    }
    double a = 1.0;
    if (hasAggression) {
      FieldPath aPath = path.field("aggression");
      if (!aggression.getRuntimeKey().isEmpty()) {
        throw new ConfigException(aPath.field("runtime_key"), "runtime overrides are not supported; set default_value"
            + " only");
      }
      a = aggression.getDefaultValue();
      if (!(a > 0) || Double.isInfinite(a)) {
        throw new ConfigException(aPath.field("default_value"), "must be greater than 0");
      }
    }
    double min = hasMinPercent ? minPercent : 10.0;
    if (!(min >= 0 && min <= 100)) {
      throw new ConfigException(path.field("min_weight_percent").field("value"), "must be within [0, 100]");
    }
    return new ClusterConfig.SlowStart(w, a, min);
  }

  private static double bias(RuntimeDouble value, FieldPath path) throws ConfigException {
    if (!value.getRuntimeKey().isEmpty()) {
      throw new ConfigException(path.field("runtime_key"), "runtime overrides are not supported; set default_value"
          + " only");
    }
    RUNTIME_DOUBLE.check(value, path);
    double bias = value.getDefaultValue();
    if (!(bias >= 0) || Double.isInfinite(bias)) {
      throw new ConfigException(path.field("default_value"), "must be a finite number, 0 or more");
    }
    return bias;
  }

  private static Balancing weightedRoundRobin(ClientSideWeightedRoundRobin w, FieldPath path) throws ConfigException {
    CSWRR.check(w, path);
    if (w.hasEnableOobLoadReport() && w.getEnableOobLoadReport().getValue()) {
      throw new ConfigException(path.field("enable_oob_load_report"), "out-of-band load reports (the ORCA stream)"
          + " are not supported yet; weights come from the load reports on responses");
    }
    Duration blackout = ProtoValues.duration(w.hasBlackoutPeriod(), w.getBlackoutPeriod(),
        path.field("blackout_period"), DEFAULT_BLACKOUT);
    Duration expiration = ProtoValues.positiveDuration(w.hasWeightExpirationPeriod(), w.getWeightExpirationPeriod(),
        path.field("weight_expiration_period"), DEFAULT_EXPIRATION);
    Duration update = ProtoValues.positiveDuration(w.hasWeightUpdatePeriod(), w.getWeightUpdatePeriod(),
        path.field("weight_update_period"), DEFAULT_UPDATE_PERIOD);
    if (update.compareTo(MIN_UPDATE_PERIOD) < 0) {
      update = MIN_UPDATE_PERIOD; // Envoy and gRPC raise shorter periods to 100 ms
    }
    double penalty = 1.0;
    if (w.hasErrorUtilizationPenalty()) {
      penalty = w.getErrorUtilizationPenalty().getValue();
      if (!(penalty >= 0) || Double.isInfinite(penalty)) {
        throw new ConfigException(path.field("error_utilization_penalty"), "must be a finite number, 0 or more");
      }
    }
    List<String> names = w.getMetricNamesForComputingUtilizationList();
    for (int i = 0; i < names.size(); i++) {
      String n = names.get(i);
      boolean known = n.equals("cpu_utilization") || n.equals("mem_utilization")
          || n.equals("application_utilization")
          || (n.startsWith("named_metrics.") && n.length() > "named_metrics.".length())
          || (n.startsWith("utilization.") && n.length() > "utilization.".length());
      if (!known) {
        throw new ConfigException(path.field("metric_names_for_computing_utilization").index(i),
            "\"" + n + "\" is not an ORCA metric: use named_metrics.<name>, utilization.<name>, cpu_utilization"
                + " or mem_utilization");
      }
    }
    return new Balancing(LbPolicy.CLIENT_SIDE_WEIGHTED_ROUND_ROBIN, DEFAULT_CHOICE_COUNT,
        new LbSettings(DEFAULT_ACTIVE_REQUEST_BIAS, null,
            new WeightedRoundRobin(blackout, expiration, update, penalty, names)));
  }
}
