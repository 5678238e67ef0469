package io.spillway.edge.config;

import java.time.Duration;
import java.util.List;

/**
 * An upstream cluster.
 *
 * @param name cluster name; stats live under {@code cluster.<name>.*}
 * @param discoveryType STATIC (IP literals), STRICT_DNS (names resolved and re-resolved; every
 *     address a host), LOGICAL_DNS (one endpoint, one host at the first address of the latest
 *     resolution) or EDS (endpoints delivered over ADS)
 * @param lbPolicy how a host is picked
 * @param leastRequestChoiceCount LEAST_REQUEST's choice count (Envoy default 2), or
 *     {@link #LEAST_REQUEST_FULL_SCAN} for Envoy's {@code selection_method: FULL_SCAN}
 * @param connectTimeout upstream connect timeout (Envoy default 5 s)
 * @param dnsRefreshRate STRICT_DNS / LOGICAL_DNS re-resolution interval (Envoy default 5 s)
 * @param endpoints the load assignment, flattened over localities (each with its priority and locality)
 * @param thresholds circuit breaker thresholds of the DEFAULT priority
 * @param protocol HTTP/1.1 or HTTP/2 towards the upstream
 * @param perConnectionBufferLimitBytes soft limit on buffered bytes per upstream connection
 * @param maxRequestsPerConnection close an upstream connection after this many requests (0 = no limit)
 * @param idleTimeout upstream connection idle timeout ({@link Duration#ZERO}: none); 60 s when unset, where
 *     Envoy's is 1 h
 * @param dnsLookupFamily which resolved addresses of a DNS name count (Envoy default AUTO)
 * @param edsServiceName for an EDS cluster, the ClusterLoadAssignment name its endpoints come under
 *     ({@code eds_cluster_config.service_name}, else the cluster name); empty otherwise
 * @param http2 {@code http2_protocol_options} of an HTTP/2 cluster: SETTINGS, windows, flood
 *     limits and the most streams per connection ({@link Http2Options#UPSTREAM_DEFAULTS} otherwise)
 * @param lb the load-balancing policy's settings beyond {@code lbPolicy} ({@link LbSettings#DEFAULTS} otherwise)
 * @param hostHealth active health checking, outlier detection and the panic threshold
 * @param dnsRefresh a DNS cluster's re-resolution after failures, its jitter, and whether start-up
 *     waits for the first resolution ({@link DnsRefresh#DEFAULTS} otherwise)
 * @param tls the {@code transport_socket} TLS towards the hosts; empty: cleartext
 * @param assignmentPolicy the load assignment's {@code policy} (overprovisioning factor, weighted
 *     priority health); an EDS cluster takes its policy from each {@link LoadAssignment} instead
 */
public record ClusterConfig(
    String name,
    DiscoveryType discoveryType,
    LbPolicy lbPolicy,
    int leastRequestChoiceCount,
    Duration connectTimeout,
    Duration dnsRefreshRate,
    List<Endpoint> endpoints,
    Thresholds thresholds,
    UpstreamProtocol protocol,
    int perConnectionBufferLimitBytes,
    int maxRequestsPerConnection,
    Duration idleTimeout,
    DnsLookupFamily dnsLookupFamily,
    String edsServiceName,
    Http2Options http2,
    LbSettings lb,
    HostHealthConfig hostHealth,
    DnsRefresh dnsRefresh,
    java.util.Optional<UpstreamTlsConfig> tls,
    AssignmentPolicy assignmentPolicy) {

  /** {@link #leastRequestChoiceCount} of a LEAST_REQUEST cluster that scans every host. */
  public static final int LEAST_REQUEST_FULL_SCAN = 0;

  public ClusterConfig {
    java.util.Objects.requireNonNull(tls, "tls");
    java.util.Objects.requireNonNull(assignmentPolicy, "assignmentPolicy");
    endpoints = List.copyOf(endpoints);
    java.util.Objects.requireNonNull(dnsRefresh, "dnsRefresh");
    java.util.Objects.requireNonNull(http2, "http2");
    java.util.Objects.requireNonNull(lb, "lb");
    java.util.Objects.requireNonNull(hostHealth, "hostHealth");
    if (lbPolicy == LbPolicy.CLIENT_SIDE_WEIGHTED_ROUND_ROBIN && lb.weightedRoundRobin() == null) {
      throw new IllegalArgumentException("CLIENT_SIDE_WEIGHTED_ROUND_ROBIN needs its settings");
    }
    if (lbPolicy == LbPolicy.PRESSURE && lb.pressure() == null) {
      throw new IllegalArgumentException("PRESSURE needs its settings");
    }
  }

  /** A cluster whose load assignment has the default policy. */
  public ClusterConfig(String name, DiscoveryType discoveryType, LbPolicy lbPolicy, int leastRequestChoiceCount,
      Duration connectTimeout, Duration dnsRefreshRate, List<Endpoint> endpoints, Thresholds thresholds,
      UpstreamProtocol protocol, int perConnectionBufferLimitBytes, int maxRequestsPerConnection, Duration idleTimeout,
      DnsLookupFamily dnsLookupFamily, String edsServiceName, Http2Options http2, LbSettings lb,
      HostHealthConfig hostHealth, DnsRefresh dnsRefresh, java.util.Optional<UpstreamTlsConfig> tls) {
    this(name, discoveryType, lbPolicy, leastRequestChoiceCount, connectTimeout, dnsRefreshRate, endpoints, thresholds,
        protocol, perConnectionBufferLimitBytes, maxRequestsPerConnection, idleTimeout, dnsLookupFamily, edsServiceName,
        http2, lb, hostHealth, dnsRefresh, tls, AssignmentPolicy.DEFAULTS);
  }

  /** A cleartext cluster. */
  public ClusterConfig(String name, DiscoveryType discoveryType, LbPolicy lbPolicy, int leastRequestChoiceCount,
      Duration connectTimeout, Duration dnsRefreshRate, List<Endpoint> endpoints, Thresholds thresholds,
      UpstreamProtocol protocol, int perConnectionBufferLimitBytes, int maxRequestsPerConnection, Duration idleTimeout,
      DnsLookupFamily dnsLookupFamily, String edsServiceName, Http2Options http2, LbSettings lb,
      HostHealthConfig hostHealth, DnsRefresh dnsRefresh) {
    this(name, discoveryType, lbPolicy, leastRequestChoiceCount, connectTimeout, dnsRefreshRate, endpoints, thresholds,
        protocol, perConnectionBufferLimitBytes, maxRequestsPerConnection, idleTimeout, dnsLookupFamily, edsServiceName,
        http2, lb, hostHealth, dnsRefresh, java.util.Optional.empty());
  }

  /** A cluster with the default DNS refresh settings. */
  public ClusterConfig(String name, DiscoveryType discoveryType, LbPolicy lbPolicy, int leastRequestChoiceCount,
      Duration connectTimeout, Duration dnsRefreshRate, List<Endpoint> endpoints, Thresholds thresholds,
      UpstreamProtocol protocol, int perConnectionBufferLimitBytes, int maxRequestsPerConnection, Duration idleTimeout,
      DnsLookupFamily dnsLookupFamily, String edsServiceName, Http2Options http2, LbSettings lb,
      HostHealthConfig hostHealth) {
    this(name, discoveryType, lbPolicy, leastRequestChoiceCount, connectTimeout, dnsRefreshRate, endpoints, thresholds,
        protocol, perConnectionBufferLimitBytes, maxRequestsPerConnection, idleTimeout, dnsLookupFamily, edsServiceName,
        http2, lb, hostHealth, DnsRefresh.DEFAULTS);
  }

  /** A cluster with the default load-balancing settings of its policy. */
  public ClusterConfig(String name, DiscoveryType discoveryType, LbPolicy lbPolicy, int leastRequestChoiceCount,
      Duration connectTimeout, Duration dnsRefreshRate, List<Endpoint> endpoints, Thresholds thresholds,
      UpstreamProtocol protocol, int perConnectionBufferLimitBytes, int maxRequestsPerConnection, Duration idleTimeout,
      DnsLookupFamily dnsLookupFamily, String edsServiceName, Http2Options http2, HostHealthConfig hostHealth) {
    this(name, discoveryType, lbPolicy, leastRequestChoiceCount, connectTimeout, dnsRefreshRate, endpoints, thresholds,
        protocol, perConnectionBufferLimitBytes, maxRequestsPerConnection, idleTimeout, dnsLookupFamily, edsServiceName,
        http2, LbSettings.DEFAULTS, hostHealth);
  }

  /** A cluster without health checking or outlier detection. */
  public ClusterConfig(String name, DiscoveryType discoveryType, LbPolicy lbPolicy, int leastRequestChoiceCount,
      Duration connectTimeout, Duration dnsRefreshRate, List<Endpoint> endpoints, Thresholds thresholds,
      UpstreamProtocol protocol, int perConnectionBufferLimitBytes, int maxRequestsPerConnection, Duration idleTimeout,
      DnsLookupFamily dnsLookupFamily, String edsServiceName, Http2Options http2, LbSettings lb) {
    this(name, discoveryType, lbPolicy, leastRequestChoiceCount, connectTimeout, dnsRefreshRate, endpoints, thresholds,
        protocol, perConnectionBufferLimitBytes, maxRequestsPerConnection, idleTimeout, dnsLookupFamily, edsServiceName,
        http2, lb, HostHealthConfig.NONE);
  }

  /** A cluster with the default load-balancing settings, without health checking or outlier detection. */
  public ClusterConfig(String name, DiscoveryType discoveryType, LbPolicy lbPolicy, int leastRequestChoiceCount,
      Duration connectTimeout, Duration dnsRefreshRate, List<Endpoint> endpoints, Thresholds thresholds,
      UpstreamProtocol protocol, int perConnectionBufferLimitBytes, int maxRequestsPerConnection, Duration idleTimeout,
      DnsLookupFamily dnsLookupFamily, String edsServiceName, Http2Options http2) {
    this(name, discoveryType, lbPolicy, leastRequestChoiceCount, connectTimeout, dnsRefreshRate, endpoints, thresholds,
        protocol, perConnectionBufferLimitBytes, maxRequestsPerConnection, idleTimeout, dnsLookupFamily, edsServiceName,
        http2, LbSettings.DEFAULTS, HostHealthConfig.NONE);
  }

  /** A cluster with the upstream HTTP/2 defaults. */
  public ClusterConfig(String name, DiscoveryType discoveryType, LbPolicy lbPolicy, int leastRequestChoiceCount,
      Duration connectTimeout, Duration dnsRefreshRate, List<Endpoint> endpoints, Thresholds thresholds,
      UpstreamProtocol protocol, int perConnectionBufferLimitBytes, int maxRequestsPerConnection, Duration idleTimeout,
      DnsLookupFamily dnsLookupFamily, String edsServiceName) {
    this(name, discoveryType, lbPolicy, leastRequestChoiceCount, connectTimeout, dnsRefreshRate, endpoints, thresholds,
        protocol, perConnectionBufferLimitBytes, maxRequestsPerConnection, idleTimeout, dnsLookupFamily, edsServiceName,
        Http2Options.UPSTREAM_DEFAULTS);
  }

  /** A STATIC or STRICT_DNS cluster. */
  public ClusterConfig(String name, DiscoveryType discoveryType, LbPolicy lbPolicy, int leastRequestChoiceCount,
      Duration connectTimeout, Duration dnsRefreshRate, List<Endpoint> endpoints, Thresholds thresholds,
      UpstreamProtocol protocol, int perConnectionBufferLimitBytes, int maxRequestsPerConnection, Duration idleTimeout,
      DnsLookupFamily dnsLookupFamily) {
    this(name, discoveryType, lbPolicy, leastRequestChoiceCount, connectTimeout, dnsRefreshRate, endpoints, thresholds,
        protocol, perConnectionBufferLimitBytes, maxRequestsPerConnection, idleTimeout, dnsLookupFamily, "");
  }

  /** The same cluster with other endpoints (an EDS update). */
  public ClusterConfig withEndpoints(List<Endpoint> newEndpoints) {
    return new ClusterConfig(name, discoveryType, lbPolicy, leastRequestChoiceCount, connectTimeout, dnsRefreshRate,
        newEndpoints, thresholds, protocol, perConnectionBufferLimitBytes, maxRequestsPerConnection, idleTimeout,
        dnsLookupFamily, edsServiceName, http2, lb, hostHealth, dnsRefresh, tls, assignmentPolicy);
  }

  /** The load assignment of a STATIC or DNS cluster: its endpoints and their policy. */
  public LoadAssignment loadAssignment() {
    return new LoadAssignment(endpoints, assignmentPolicy);
  }

  /**
   * Why this cluster's balancing cannot take {@code assignment}, or null when it can: the
   * client-side weighted round robin and pressure policies keep one schedule over one host set, so
   * they take endpoints of priority 0 only.
   */
  public String assignmentProblem(LoadAssignment assignment) {
    if (lbPolicy != LbPolicy.CLIENT_SIDE_WEIGHTED_ROUND_ROBIN && lbPolicy != LbPolicy.PRESSURE) {
      return null;
    }
    for (Endpoint e : assignment.endpoints()) {
      if (e.priority() != 0) {
        return "priority " + e.priority() + " is not supported for cluster \"" + name + "\": its " + lbPolicy
            + " policy balances one host set (priority 0 only); use ROUND_ROBIN, LEAST_REQUEST, RANDOM, RING_HASH"
            + " or MAGLEV for priority levels";
      }
    }
    return null;
  }

  /** A cluster with Envoy's default DNS lookup family (AUTO). */
  public ClusterConfig(String name, DiscoveryType discoveryType, LbPolicy lbPolicy, int leastRequestChoiceCount,
      Duration connectTimeout, Duration dnsRefreshRate, List<Endpoint> endpoints, Thresholds thresholds,
      UpstreamProtocol protocol, int perConnectionBufferLimitBytes, int maxRequestsPerConnection, Duration idleTimeout) {
    this(name, discoveryType, lbPolicy, leastRequestChoiceCount, connectTimeout, dnsRefreshRate, endpoints, thresholds,
        protocol, perConnectionBufferLimitBytes, maxRequestsPerConnection, idleTimeout, DnsLookupFamily.AUTO);
  }

  /**
   * Envoy's DnsLookupFamily: AUTO takes IPv6 addresses when there are any, else IPv4;
   * V4_PREFERRED the reverse; V4_ONLY / V6_ONLY one family; ALL every address.
   */
  public enum DnsLookupFamily { AUTO, V4_ONLY, V6_ONLY, V4_PREFERRED, ALL }

  public enum DiscoveryType {
    STATIC, STRICT_DNS, LOGICAL_DNS, EDS;

    /** Whether the endpoints are DNS names the cluster resolves and re-resolves. */
    public boolean resolvesNames() {
      return this == STRICT_DNS || this == LOGICAL_DNS;
    }
  }

  /**
   * How a STRICT_DNS or LOGICAL_DNS cluster re-resolves beyond {@code dns_refresh_rate}.
   *
   * @param failureRefresh {@code dns_failure_refresh_rate}: after a failed resolution the next one
   *     comes after a random delay below an interval that starts at {@code base} and doubles up to
   *     {@code max}; empty: after {@code dns_refresh_rate}, as after a success
   * @param jitter {@code dns_jitter}: a successful resolution's next one comes up to this much
   *     later, at random ({@link Duration#ZERO}: no jitter)
   * @param waitForWarmOnInit {@code wait_for_warm_on_init} (default true): the first resolution
   *     happens before the edge serves; false, it happens on the control thread just after
   */
  public record DnsRefresh(java.util.Optional<Backoff> failureRefresh, Duration jitter, boolean waitForWarmOnInit) {
    public static final DnsRefresh DEFAULTS = new DnsRefresh(java.util.Optional.empty(), Duration.ZERO, true);

    public DnsRefresh {
      java.util.Objects.requireNonNull(failureRefresh, "failureRefresh");
      java.util.Objects.requireNonNull(jitter, "jitter");
    }
  }

  /** Envoy's {@code RefreshRate}: {@code max} defaults to ten times {@code base}. */
  public record Backoff(Duration base, Duration max) {}

  /**
   * How a host is picked: Envoy's {@code lb_policy} values, or the {@code load_balancing_policy}
   * extension of the same name ({@code envoy.load_balancing_policies.round_robin}, {@code
   * least_request}, {@code random}, {@code client_side_weighted_round_robin}).
   */
  public enum LbPolicy {
    ROUND_ROBIN, LEAST_REQUEST, RANDOM, CLIENT_SIDE_WEIGHTED_ROUND_ROBIN, RING_HASH, MAGLEV,
    /** Spillway's pressure-aware policy ({@code spillway.edge.lb.v1.Pressure}). */
    PRESSURE;

    /** Whether the policy picks by the request's hash (the route's {@code hash_policy}). */
    public boolean hashed() {
      return this == RING_HASH || this == MAGLEV;
    }
  }

  /**
   * What a policy takes beyond its name.
   *
   * @param activeRequestBias LEAST_REQUEST with unequal weights: a host's weight is divided by
   *     {@code (active requests + 1)^bias} (Envoy default 1.0; 0 is weighted round robin)
   * @param slowStart ROUND_ROBIN and LEAST_REQUEST: ramp-up of hosts that join a running cluster, or null
   * @param weightedRoundRobin CLIENT_SIDE_WEIGHTED_ROUND_ROBIN's settings, null for the other policies
   * @param consistentHash RING_HASH's ring sizes and MAGLEV's table size ({@link ConsistentHash#DEFAULTS} otherwise)
   * @param pressure PRESSURE's settings, null for the other policies
   * @param localityWeighted {@code locality_weighted_lb_config}: a locality is picked first, by its
   *     {@code load_balancing_weight} times its availability, then a host within it
   */
  public record LbSettings(double activeRequestBias, SlowStart slowStart, WeightedRoundRobin weightedRoundRobin,
      ConsistentHash consistentHash, PressureConfig pressure, boolean localityWeighted) {
    public static final LbSettings DEFAULTS = new LbSettings(1.0, null, null);

    public LbSettings {
      java.util.Objects.requireNonNull(consistentHash, "consistentHash");
    }

    /** Settings without locality weighted balancing. */
    public LbSettings(double activeRequestBias, SlowStart slowStart, WeightedRoundRobin weightedRoundRobin,
        ConsistentHash consistentHash, PressureConfig pressure) {
      this(activeRequestBias, slowStart, weightedRoundRobin, consistentHash, pressure, false);
    }

    /** These settings with locality weighted balancing on. */
    public LbSettings withLocalityWeighted() {
      return new LbSettings(activeRequestBias, slowStart, weightedRoundRobin, consistentHash, pressure, true);
    }

    /** Settings with the default ring and table sizes. */
    public LbSettings(double activeRequestBias, SlowStart slowStart, WeightedRoundRobin weightedRoundRobin) {
      this(activeRequestBias, slowStart, weightedRoundRobin, ConsistentHash.DEFAULTS);
    }

    /** Settings of a policy other than PRESSURE. */
    public LbSettings(double activeRequestBias, SlowStart slowStart, WeightedRoundRobin weightedRoundRobin,
        ConsistentHash consistentHash) {
      this(activeRequestBias, slowStart, weightedRoundRobin, consistentHash, null);
    }

    /** The PRESSURE policy's settings. */
    public static LbSettings pressure(PressureConfig pressure) {
      return new LbSettings(1.0, null, null, ConsistentHash.DEFAULTS, java.util.Objects.requireNonNull(pressure));
    }

    /** Whether hosts must hand the cluster the ORCA load reports their responses carry. */
    public boolean wantsLoadReports() {
      return weightedRoundRobin != null || (pressure != null && pressure.dimensions().usesLoadReports());
    }
  }

  /**
   * RING_HASH's {@code minimum_ring_size} / {@code maximum_ring_size} (Envoy defaults 1024 and 8M)
   * and MAGLEV's {@code table_size} (a prime, Envoy default 65537).
   */
  public record ConsistentHash(long minimumRingSize, long maximumRingSize, int tableSize) {
    public static final ConsistentHash DEFAULTS = new ConsistentHash(1024, 8L * 1024 * 1024, 65537);
  }

  /**
   * Envoy's {@code slow_start_config}: a host that joins a running cluster gets {@code weight *
   * max(minWeightPercent / 100, (t / window)^(1 / aggression))} until {@code window} has passed.
   */
  public record SlowStart(Duration window, double aggression, double minWeightPercent) {}

  /**
   * Envoy's {@code ClientSideWeightedRoundRobin}: weights from the ORCA reports on responses.
   *
   * @param blackoutPeriod how long a host must report before its weight counts (Envoy default 10 s)
   * @param weightExpirationPeriod a weight older than this no longer counts (Envoy default 3 min)
   * @param weightUpdatePeriod how often the weights are rebuilt (Envoy default 1 s, at least 100 ms)
   * @param errorUtilizationPenalty multiplier of {@code eps / qps} added to the utilization (default 1.0)
   * @param metricNamesForComputingUtilization ORCA metrics to use when application_utilization is unset
   */
  public record WeightedRoundRobin(Duration blackoutPeriod, Duration weightExpirationPeriod,
      Duration weightUpdatePeriod, double errorUtilizationPenalty, List<String> metricNamesForComputingUtilization) {
    public WeightedRoundRobin {
      metricNamesForComputingUtilization = List.copyOf(metricNamesForComputingUtilization);
    }
  }

  public enum UpstreamProtocol { HTTP1, HTTP2 }

  /**
   * An endpoint of the load assignment.
   *
   * @param weight its {@code load_balancing_weight} (default 1)
   * @param hashKey its {@code metadata.filter_metadata["envoy.lb"].hash_key} (a string), which ring
   *     hash and Maglev hash instead of the address; "" when it has none
   * @param priority its {@code LocalityLbEndpoints.priority} (0, the highest, to 128)
   * @param locality its {@code LocalityLbEndpoints.locality} ({@link Locality#NONE} when unset)
   * @param localityWeight its {@code LocalityLbEndpoints.load_balancing_weight}, 0 when unset (a
   *     locality without a weight takes no traffic under locality weighted balancing, as in Envoy)
   * @param health its {@code LbEndpoint.health_status} as the load balancer reads it
   */
  public record Endpoint(SocketAddress address, int weight, String hashKey, int priority, Locality locality,
      int localityWeight, EndpointHealth health) {
    public Endpoint {
      java.util.Objects.requireNonNull(hashKey, "hashKey");
      java.util.Objects.requireNonNull(locality, "locality");
      java.util.Objects.requireNonNull(health, "health");
    }

    /** A healthy endpoint at its priority and locality. */
    public Endpoint(SocketAddress address, int weight, String hashKey, int priority, Locality locality,
        int localityWeight) {
      this(address, weight, hashKey, priority, locality, localityWeight, EndpointHealth.HEALTHY);
    }

    /** An endpoint of priority 0 without a locality. */
    public Endpoint(SocketAddress address, int weight, String hashKey) {
      this(address, weight, hashKey, 0, Locality.NONE, 0);
    }

    /** An endpoint without a hash key. */
    public Endpoint(SocketAddress address, int weight) {
      this(address, weight, "");
    }
  }

  /**
   * An endpoint's {@code health_status} (EDS, or a static {@code load_assignment}) as Envoy's hosts
   * carry it: {@code UNKNOWN} and {@code HEALTHY} are healthy; {@code DEGRADED} sets
   * {@code degraded_eds_health}; {@code UNHEALTHY} and {@code TIMEOUT} set {@code failed_eds_health};
   * {@code DRAINING} sets {@code eds_status_draining}. The last two take the host out of rotation
   * outside panic.
   */
  public enum EndpointHealth { HEALTHY, DEGRADED, UNHEALTHY, DRAINING }

  /** Envoy's {@code core.v3.Locality}: where an endpoint runs. */
  public record Locality(String region, String zone, String subZone) {
    public static final Locality NONE = new Locality("", "", "");

    public Locality {
      java.util.Objects.requireNonNull(region, "region");
      java.util.Objects.requireNonNull(zone, "zone");
      java.util.Objects.requireNonNull(subZone, "subZone");
    }

    @Override
    public String toString() {
      return "{region: \"" + region + "\", zone: \"" + zone + "\", sub_zone: \"" + subZone + "\"}";
    }
  }

  /**
   * Envoy's {@code ClusterLoadAssignment.Policy}.
   *
   * @param overprovisioningFactor in percent (Envoy default 140): a priority level or locality
   *     counts as fully available while its healthy share times this is at least 100
   * @param weightedPriorityHealth a priority level's health counts endpoint weights, not hosts
   */
  public record AssignmentPolicy(int overprovisioningFactor, boolean weightedPriorityHealth) {
    public static final AssignmentPolicy DEFAULTS = new AssignmentPolicy(140, false);

    public AssignmentPolicy {
      if (overprovisioningFactor <= 0) {
        throw new IllegalArgumentException("overprovisioningFactor must be positive");
      }
    }
  }

  /** A {@code ClusterLoadAssignment}: the endpoints (flattened over localities) and its policy. */
  public record LoadAssignment(List<Endpoint> endpoints, AssignmentPolicy policy) {
    public LoadAssignment {
      endpoints = List.copyOf(endpoints);
      java.util.Objects.requireNonNull(policy, "policy");
    }

    /** Endpoints with the default policy. */
    public static LoadAssignment of(List<Endpoint> endpoints) {
      return new LoadAssignment(endpoints, AssignmentPolicy.DEFAULTS);
    }
  }

  /** Circuit breaker thresholds (Envoy defaults 1024/1024/1024/3). */
  public record Thresholds(int maxConnections, int maxPendingRequests, int maxRequests, int maxRetries) {
    public static final Thresholds DEFAULTS = new Thresholds(1024, 1024, 1024, 3);
  }
}
