package io.spillway.edge.config;

import com.google.protobuf.Any;
import io.envoyproxy.envoy.config.cluster.v3.CircuitBreakers;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.Http1ProtocolOptions;
import io.envoyproxy.envoy.config.core.v3.Http2ProtocolOptions;
import io.envoyproxy.envoy.config.core.v3.RoutingPriority;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.Endpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.extensions.upstreams.http.v3.HttpProtocolOptions;
import io.spillway.edge.config.AddressTranslator.HostKind;
import io.spillway.edge.config.ClusterConfig.DiscoveryType;
import io.spillway.edge.config.ClusterConfig.Thresholds;
import io.spillway.edge.config.ClusterConfig.UpstreamProtocol;
import io.spillway.edge.config.ExtensionRegistry.Category;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code static_resources.clusters} → {@link ClusterConfig}s: STATIC, STRICT_DNS, LOGICAL_DNS and EDS clusters with
 * ROUND_ROBIN, LEAST_REQUEST or RANDOM balancing, DEFAULT-priority circuit breakers and HTTP/1.1 or
 * HTTP/2 towards the upstream.
 */
final class ClusterTranslator {

  static final int DEFAULT_BUFFER_LIMIT = 1024 * 1024;
  private static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  /**
   * An upstream connection's idle timeout when the cluster sets none: 60 s, not Envoy's 1 h, so
   * that the connections a burst opened are given back to the cluster's {@code max_connections}
   * (shared by every worker) within a minute; see docs/configuration.md.
   */
  static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);

  private static final SupportedFields CLUSTER = SupportedFields.of(Cluster.getDescriptor(),
          "name", "type", "connect_timeout", "per_connection_buffer_limit_bytes", "lb_policy", "load_assignment",
          "max_requests_per_connection", "circuit_breakers", "common_http_protocol_options", "http_protocol_options",
          "http2_protocol_options", "typed_extension_protocol_options", "dns_refresh_rate", "dns_lookup_family",
          "least_request_lb_config", "metadata", "eds_cluster_config", "load_balancing_policy",
          "round_robin_lb_config", "ring_hash_lb_config", "maglev_lb_config", "health_checks", "outlier_detection",
          "common_lb_config", "dns_failure_refresh_rate",
          "dns_jitter", "respect_dns_ttl", "wait_for_warm_on_init", "transport_socket", "cluster_type");
  private static final SupportedFields TRANSPORT_SOCKET = SupportedFields.of(
      io.envoyproxy.envoy.config.core.v3.TransportSocket.getDescriptor(), "name", "typed_config");
  private static final SupportedFields EDS_CLUSTER_CONFIG = SupportedFields.of(
      Cluster.EdsClusterConfig.getDescriptor(), "eds_config", "service_name");
  private static final SupportedFields LOAD_ASSIGNMENT = SupportedFields.of(
      ClusterLoadAssignment.getDescriptor(), "cluster_name", "endpoints", "policy");
  private static final SupportedFields ASSIGNMENT_POLICY = SupportedFields.of(
      ClusterLoadAssignment.Policy.getDescriptor(), "overprovisioning_factor", "weighted_priority_health");
  private static final SupportedFields LOCALITY_ENDPOINTS = SupportedFields.of(
      LocalityLbEndpoints.getDescriptor(), "locality", "metadata", "lb_endpoints", "load_balancing_weight",
      "priority");
  private static final SupportedFields LOCALITY = SupportedFields.of(
      io.envoyproxy.envoy.config.core.v3.Locality.getDescriptor(), "region", "zone", "sub_zone");
  /** Envoy's bound on {@code LocalityLbEndpoints.priority}. */
  static final int MAX_PRIORITY = 128;
  /** Envoy's default {@code ClusterLoadAssignment.Policy.overprovisioning_factor}, in percent. */
  static final int DEFAULT_OVERPROVISIONING_FACTOR = 140;
  private static final SupportedFields LB_ENDPOINT = SupportedFields.of(
      LbEndpoint.getDescriptor(), "endpoint", "metadata", "load_balancing_weight", "health_status");
  private static final SupportedFields ENDPOINT = SupportedFields.of(Endpoint.getDescriptor(), "address");
  private static final SupportedFields CIRCUIT_BREAKERS = SupportedFields.of(
      CircuitBreakers.getDescriptor(), "thresholds");
  private static final SupportedFields THRESHOLDS = SupportedFields.of(CircuitBreakers.Thresholds.getDescriptor(),
      "priority", "max_connections", "max_pending_requests", "max_requests", "max_retries", "track_remaining");
  private static final SupportedFields HTTP_PROTOCOL_OPTIONS = SupportedFields.of(
      HttpProtocolOptions.getDescriptor(), "common_http_protocol_options", "explicit_http_config");
  private static final SupportedFields EXPLICIT_HTTP_CONFIG = SupportedFields.of(
      HttpProtocolOptions.ExplicitHttpConfig.getDescriptor(), "http_protocol_options", "http2_protocol_options");
  private static final SupportedFields COMMON_HTTP_OPTIONS = SupportedFields.of(
      io.envoyproxy.envoy.config.core.v3.HttpProtocolOptions.getDescriptor(),
      "idle_timeout", "max_requests_per_connection");
  private static final SupportedFields HTTP1_OPTIONS = SupportedFields.of(Http1ProtocolOptions.getDescriptor());

  private final ExtensionRegistry registry;
  private final boolean adsAvailable;
  private final DataSources dataSources = DataSources.system();

  ClusterTranslator(ExtensionRegistry registry) {
    this(registry, false);
  }

  /** @param adsAvailable whether the bootstrap has an ADS stream that can deliver EDS */
  ClusterTranslator(ExtensionRegistry registry, boolean adsAvailable) {
    this.registry = registry;
    this.adsAvailable = adsAvailable;
  }

  /** Translates every cluster; names must be unique. */
  Map<String, ClusterConfig> translate(List<Cluster> clusters, FieldPath path) throws ConfigException {
    Map<String, ClusterConfig> byName = new LinkedHashMap<>();
    Map<String, Integer> indexByName = new LinkedHashMap<>();
    for (int i = 0; i < clusters.size(); i++) {
      FieldPath clusterPath = path.index(i);
      ClusterConfig cluster = cluster(clusters.get(i), clusterPath);
      Integer first = indexByName.putIfAbsent(cluster.name(), i);
      if (first != null) {
        throw new ConfigException(clusterPath.field("name"), "duplicate cluster name \"" + cluster.name()
            + "\" (also " + path.index(first) + ")");
      }
      byName.put(cluster.name(), cluster);
    }
    return byName;
  }

  ClusterConfig cluster(Cluster c, FieldPath path) throws ConfigException {
    CLUSTER.check(c, path);
    if (c.getName().isEmpty()) {
      throw new ConfigException(path.field("name"), "name is required");
    }
    DnsSettingsTranslator.Settings dns = DnsSettingsTranslator.translate(c, registry, path);
    DiscoveryType discovery = dns.discovery();
    LoadBalancingTranslator.Balancing balancing = new LoadBalancingTranslator(registry).translate(c, path);
    Duration connectTimeout = ProtoValues.positiveDuration(c.hasConnectTimeout(), c.getConnectTimeout(),
        path.field("connect_timeout"), DEFAULT_CONNECT_TIMEOUT);
    String edsServiceName = "";
    if (discovery == DiscoveryType.EDS) {
      edsServiceName = edsServiceName(c, path);
    } else if (c.hasEdsClusterConfig()) {
      throw new ConfigException(path.field("eds_cluster_config"), "is only for clusters of type EDS");
    }
    if (discovery == DiscoveryType.LOGICAL_DNS) {
      requireSingleEndpoint(c, path);
    }
    ClusterConfig.LoadAssignment assignment = c.hasLoadAssignment()
        ? endpoints(c.getLoadAssignment(), discovery, path.field("load_assignment"))
        : ClusterConfig.LoadAssignment.of(List.of());
    Thresholds thresholds = c.hasCircuitBreakers()
        ? thresholds(c.getCircuitBreakers(), path.field("circuit_breakers"))
        : Thresholds.DEFAULTS;
    int bufferLimit = ProtoValues.uint32(c.hasPerConnectionBufferLimitBytes(), c.getPerConnectionBufferLimitBytes(),
        path.field("per_connection_buffer_limit_bytes"), 0, DEFAULT_BUFFER_LIMIT);
    HttpOptions http = httpOptions(c, path);
    ClusterConfig config = new ClusterConfig(c.getName(), discovery, balancing.policy(), balancing.choiceCount(),
        connectTimeout, dns.refreshRate(), assignment.endpoints(), thresholds, http.protocol(), bufferLimit,
        http.maxRequestsPerConnection(), http.idleTimeout(), dns.family(), edsServiceName, http.http2(),
        balancing.settings(), HostHealthTranslator.translate(c, path), dns.refresh(),
        transportSocket(c, http.protocol(), path), assignment.policy());
    String problem = config.assignmentProblem(assignment);
    if (problem != null) {
      throw new ConfigException(firstNonZeroPriority(c.getLoadAssignment(), path.field("load_assignment")), problem);
    }
    return config;
  }

  /** The path of the first {@code priority} above 0 in the assignment. */
  static FieldPath firstNonZeroPriority(ClusterLoadAssignment assignment, FieldPath path) {
    for (int l = 0; l < assignment.getEndpointsCount(); l++) {
      if (assignment.getEndpoints(l).getPriority() != 0) {
        return path.field("endpoints").index(l).field("priority");
      }
    }
    return path.field("endpoints");
  }

  /** {@code transport_socket}: {@code envoy.transport_sockets.tls} with an UpstreamTlsContext, or cleartext. */
  private java.util.Optional<UpstreamTlsConfig> transportSocket(Cluster c, UpstreamProtocol protocol, FieldPath path)
      throws ConfigException {
    if (!c.hasTransportSocket()) {
      return java.util.Optional.empty();
    }
    FieldPath socketPath = path.field("transport_socket");
    TRANSPORT_SOCKET.check(c.getTransportSocket(), socketPath);
    FieldPath configPath = socketPath.field("typed_config");
    if (!c.getTransportSocket().hasTypedConfig()) {
      throw new ConfigException(configPath, "typed_config is required");
    }
    var tls = registry.unpack(c.getTransportSocket().getTypedConfig(),
        io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext.class,
        Category.UPSTREAM_TRANSPORT_SOCKET, configPath);
    return java.util.Optional.of(TlsContextTranslator.upstream(tls, protocol, configPath, dataSources));
  }

  private String edsServiceName(Cluster c, FieldPath path) throws ConfigException {
    if (!adsAvailable) {
      throw new ConfigException(path.field("type"), "EDS needs dynamic_resources.ads_config (endpoints come over ADS)");
    }
    if (c.hasLoadAssignment()) {
      throw new ConfigException(path.field("load_assignment"), "an EDS cluster takes its endpoints from EDS;"
          + " remove load_assignment");
    }
    FieldPath edsPath = path.field("eds_cluster_config");
    if (!c.hasEdsClusterConfig()) {
      throw new ConfigException(edsPath, "is required for type EDS (eds_config: {ads: {}})");
    }
    Cluster.EdsClusterConfig eds = c.getEdsClusterConfig();
    EDS_CLUSTER_CONFIG.check(eds, edsPath);
    ConfigSources.requireAds(eds.hasEdsConfig(), eds.getEdsConfig(), edsPath.field("eds_config"));
    return eds.getServiceName().isEmpty() ? c.getName() : eds.getServiceName();
  }

  /** The endpoints of an EDS update ({@code ClusterLoadAssignment}); addresses must be IP literals. */
  static ClusterConfig.LoadAssignment edsEndpoints(ClusterLoadAssignment assignment, FieldPath path)
      throws ConfigException {
    if (assignment.getClusterName().isEmpty()) {
      throw new ConfigException(path.field("cluster_name"), "cluster_name is required");
    }
    return endpoints(assignment, DiscoveryType.EDS, path);
  }

  /** Envoy's rule: one locality with one endpoint, the name the cluster's one logical host resolves. */
  private static void requireSingleEndpoint(Cluster c, FieldPath path) throws ConfigException {
    ClusterLoadAssignment assignment = c.getLoadAssignment();
    if (assignment.getEndpointsCount() != 1 || assignment.getEndpoints(0).getLbEndpointsCount() != 1) {
      FieldPath at = assignment.getEndpointsCount() == 1
          ? path.field("load_assignment").field("endpoints").index(0).field("lb_endpoints")
          : path.field("load_assignment").field("endpoints");
      throw new ConfigException(at, "LOGICAL_DNS clusters must have a single locality_lb_endpoint and a single"
          + " lb_endpoint");
    }
  }

  /**
   * The endpoint's {@code envoy.lb} {@code hash_key} metadata, or ""; as in Envoy, a value that is
   * not a string counts as none.
   */
  private static String hashKey(LbEndpoint e) {
    com.google.protobuf.Struct lb = e.getMetadata().getFilterMetadataMap().get("envoy.lb");
    if (lb == null) {
      return "";
    }
    com.google.protobuf.Value v = lb.getFieldsMap().get("hash_key");
    return v != null && v.hasStringValue() ? v.getStringValue() : "";
  }

  /**
   * The endpoint's {@code health_status} as Envoy's hosts read it: {@code UNKNOWN} and
   * {@code HEALTHY} are healthy, {@code TIMEOUT} is unhealthy; a value the proto does not define is
   * refused.
   */
  private static ClusterConfig.EndpointHealth health(LbEndpoint e, FieldPath path) throws ConfigException {
    return switch (e.getHealthStatus()) {
      case UNKNOWN, HEALTHY -> ClusterConfig.EndpointHealth.HEALTHY;
      case DEGRADED -> ClusterConfig.EndpointHealth.DEGRADED;
      case UNHEALTHY, TIMEOUT -> ClusterConfig.EndpointHealth.UNHEALTHY;
      case DRAINING -> ClusterConfig.EndpointHealth.DRAINING;
      case UNRECOGNIZED -> throw new ConfigException(path.field("health_status"),
          e.getHealthStatusValue() + " is not a HealthStatus");
    };
  }

  /**
   * A load assignment: its endpoints with their priority and locality, and its {@code policy}.
   * Priorities are at most 128 (Envoy's bound); a locality appears once per priority (Spillway
   * refuses a second entry rather than merge the two); a locality's {@code load_balancing_weight}
   * is at least 1 when set.
   */
  private static ClusterConfig.LoadAssignment endpoints(ClusterLoadAssignment assignment, DiscoveryType discovery,
      FieldPath path) throws ConfigException {
    LOAD_ASSIGNMENT.check(assignment, path);
    ClusterConfig.AssignmentPolicy policy = policy(assignment, path);
    List<ClusterConfig.Endpoint> endpoints = new ArrayList<>();
    Map<String, Integer> seenLocalities = new java.util.HashMap<>();
    for (int l = 0; l < assignment.getEndpointsCount(); l++) {
      FieldPath localityPath = path.field("endpoints").index(l);
      LocalityLbEndpoints locality = assignment.getEndpoints(l);
      LOCALITY_ENDPOINTS.check(locality, localityPath);
      int priority = locality.getPriority();
      if (Integer.toUnsignedLong(priority) > MAX_PRIORITY) {
        throw new ConfigException(localityPath.field("priority"), "must be at most " + MAX_PRIORITY + " (got "
            + Integer.toUnsignedString(priority) + ")");
      }
      int localityWeight = ProtoValues.uint32(locality.hasLoadBalancingWeight(), locality.getLoadBalancingWeight(),
          localityPath.field("load_balancing_weight"), 1, 0);
      ClusterConfig.Locality where = ClusterConfig.Locality.NONE;
      if (locality.hasLocality()) {
        var proto = locality.getLocality();
        LOCALITY.check(proto, localityPath.field("locality"));
        where = new ClusterConfig.Locality(proto.getRegion(), proto.getZone(), proto.getSubZone());
      }
      Integer first = seenLocalities.putIfAbsent(priority + " " + where, l);
      if (first != null) {
        throw new ConfigException(localityPath.field("locality"), "locality " + where + " already has endpoints at"
            + " priority " + priority + " in " + path.field("endpoints").index(first) + "; list each locality once"
            + " per priority");
      }
      for (int e = 0; e < locality.getLbEndpointsCount(); e++) {
        FieldPath endpointPath = localityPath.field("lb_endpoints").index(e);
        LbEndpoint lbEndpoint = locality.getLbEndpoints(e);
        LB_ENDPOINT.check(lbEndpoint, endpointPath);
        if (!lbEndpoint.hasEndpoint()) {
          throw new ConfigException(endpointPath.field("endpoint"), "endpoint is required");
        }
        Endpoint endpoint = lbEndpoint.getEndpoint();
        ENDPOINT.check(endpoint, endpointPath.field("endpoint"));
        FieldPath addressPath = endpointPath.field("endpoint").field("address");
        if (!endpoint.hasAddress()) {
          throw new ConfigException(addressPath, "address is required");
        }
        SocketAddress address = !discovery.resolvesNames()
            ? AddressTranslator.translate(endpoint.getAddress(), addressPath, HostKind.IP_LITERAL,
                discovery == DiscoveryType.EDS ? " (EDS endpoints are IP addresses)"
                    : " (a STATIC cluster needs IP addresses; use STRICT_DNS or LOGICAL_DNS for names)", 1)
            : AddressTranslator.translate(endpoint.getAddress(), addressPath, HostKind.IP_OR_NAME, "", 1);
        int weight = ProtoValues.uint32(lbEndpoint.hasLoadBalancingWeight(), lbEndpoint.getLoadBalancingWeight(),
            endpointPath.field("load_balancing_weight"), 1, 1);
        endpoints.add(new ClusterConfig.Endpoint(address, weight, hashKey(lbEndpoint), priority, where,
            localityWeight, health(lbEndpoint, endpointPath)));
      }
    }
    return new ClusterConfig.LoadAssignment(endpoints, policy);
  }

  /** {@code policy}: the overprovisioning factor (above 0, default 140) and {@code weighted_priority_health}. */
  private static ClusterConfig.AssignmentPolicy policy(ClusterLoadAssignment assignment, FieldPath path)
      throws ConfigException {
    if (!assignment.hasPolicy()) {
      return ClusterConfig.AssignmentPolicy.DEFAULTS;
    }
    FieldPath policyPath = path.field("policy");
    ClusterLoadAssignment.Policy p = assignment.getPolicy();
    ASSIGNMENT_POLICY.check(p, policyPath);
    int factor = ProtoValues.uint32(p.hasOverprovisioningFactor(), p.getOverprovisioningFactor(),
        policyPath.field("overprovisioning_factor"), 1, DEFAULT_OVERPROVISIONING_FACTOR);
    return new ClusterConfig.AssignmentPolicy(factor, p.getWeightedPriorityHealth());
  }

  private static Thresholds thresholds(CircuitBreakers breakers, FieldPath path) throws ConfigException {
    CIRCUIT_BREAKERS.check(breakers, path);
    Thresholds result = Thresholds.DEFAULTS;
    int defaultIndex = -1;
    for (int i = 0; i < breakers.getThresholdsCount(); i++) {
      FieldPath tPath = path.field("thresholds").index(i);
      CircuitBreakers.Thresholds t = breakers.getThresholds(i);
      THRESHOLDS.check(t, tPath);
      if (t.getPriority() != RoutingPriority.DEFAULT) {
        throw new ConfigException(tPath.field("priority"), t.getPriority() + " is not supported");
      }
      if (defaultIndex >= 0) {
        throw new ConfigException(tPath.field("priority"), "DEFAULT is already configured by "
            + path.field("thresholds").index(defaultIndex));
      }
      defaultIndex = i;
      Thresholds d = Thresholds.DEFAULTS;
      result = new Thresholds(
          ProtoValues.uint32Clamped(t.hasMaxConnections(), t.getMaxConnections(), d.maxConnections()),
          ProtoValues.uint32Clamped(t.hasMaxPendingRequests(), t.getMaxPendingRequests(), d.maxPendingRequests()),
          ProtoValues.uint32Clamped(t.hasMaxRequests(), t.getMaxRequests(), d.maxRequests()),
          ProtoValues.uint32Clamped(t.hasMaxRetries(), t.getMaxRetries(), d.maxRetries()));
    }
    return result;
  }

  /** The upstream HTTP settings, from the typed protocol options or the deprecated cluster fields. */
  private record HttpOptions(UpstreamProtocol protocol, int maxRequestsPerConnection, Duration idleTimeout,
      Http2Options http2) {}

  @SuppressWarnings("deprecation") // the cluster-level protocol fields: deprecated, still accepted by Envoy
  private HttpOptions httpOptions(Cluster c, FieldPath path) throws ConfigException {
    FieldPath optionsPath = path.field("typed_extension_protocol_options");
    HttpProtocolOptions typed = null;
    FieldPath typedPath = null;
    for (Map.Entry<String, Any> e : c.getTypedExtensionProtocolOptionsMap().entrySet()) {
      FieldPath entryPath = optionsPath.key(e.getKey());
      if (!e.getKey().equals(ExtensionRegistry.UPSTREAM_HTTP_PROTOCOL_OPTIONS)) {
        throw new ConfigException(entryPath, e.getKey() + " is not supported");
      }
      typed = registry.unpack(e.getValue(), HttpProtocolOptions.class, Category.UPSTREAM_PROTOCOL_OPTIONS, entryPath);
      typedPath = entryPath;
    }
    if (typed != null) {
      for (String deprecated : List.of("http_protocol_options", "http2_protocol_options",
          "common_http_protocol_options", "max_requests_per_connection")) {
        if (c.hasField(Cluster.getDescriptor().findFieldByName(deprecated))) {
          throw new ConfigException(path.field(deprecated), deprecated + " cannot be combined with "
              + typedPath + "; set it there");
        }
      }
      return typedHttpOptions(typed, typedPath);
    }
    UpstreamProtocol protocol = UpstreamProtocol.HTTP1;
    Http2Options http2 = Http2Options.UPSTREAM_DEFAULTS;
    if (c.hasHttpProtocolOptions()) {
      HTTP1_OPTIONS.check(c.getHttpProtocolOptions(), path.field("http_protocol_options"));
    }
    if (c.hasHttp2ProtocolOptions()) {
      if (c.hasHttpProtocolOptions()) {
        throw new ConfigException(path.field("http2_protocol_options"),
            "http_protocol_options and http2_protocol_options cannot both be set");
      }
      http2 = upstreamHttp2(c.getHttp2ProtocolOptions(), path.field("http2_protocol_options"));
      protocol = UpstreamProtocol.HTTP2;
    }
    int maxRequests = ProtoValues.uint32(c.hasMaxRequestsPerConnection(), c.getMaxRequestsPerConnection(),
        path.field("max_requests_per_connection"), 0, 0);
    Duration idle = DEFAULT_IDLE_TIMEOUT;
    if (c.hasCommonHttpProtocolOptions()) {
      FieldPath commonPath = path.field("common_http_protocol_options");
      var common = c.getCommonHttpProtocolOptions();
      COMMON_HTTP_OPTIONS.check(common, commonPath);
      idle = ProtoValues.duration(common.hasIdleTimeout(), common.getIdleTimeout(), commonPath.field("idle_timeout"),
          DEFAULT_IDLE_TIMEOUT);
      if (common.hasMaxRequestsPerConnection()) {
        if (c.hasMaxRequestsPerConnection()) {
          throw new ConfigException(commonPath.field("max_requests_per_connection"),
              "max_requests_per_connection is also set on the cluster; set it once");
        }
        maxRequests = ProtoValues.uint32(common.getMaxRequestsPerConnection().getValue(),
            commonPath.field("max_requests_per_connection"), 0);
      }
    }
    return new HttpOptions(protocol, maxRequests, idle, http2);
  }

  private static Http2Options upstreamHttp2(Http2ProtocolOptions options, FieldPath path) throws ConfigException {
    return Http2OptionsTranslator.upstream(options, path);
  }

  private static HttpOptions typedHttpOptions(HttpProtocolOptions options, FieldPath path) throws ConfigException {
    HTTP_PROTOCOL_OPTIONS.check(options, path);
    FieldPath explicitPath = path.field("explicit_http_config");
    if (!options.hasExplicitHttpConfig()) {
      throw new ConfigException(explicitPath, "explicit_http_config is required");
    }
    HttpProtocolOptions.ExplicitHttpConfig explicit = options.getExplicitHttpConfig();
    EXPLICIT_HTTP_CONFIG.check(explicit, explicitPath);
    UpstreamProtocol protocol;
    Http2Options http2 = Http2Options.UPSTREAM_DEFAULTS;
    if (explicit.hasHttp2ProtocolOptions()) {
      http2 = upstreamHttp2(explicit.getHttp2ProtocolOptions(), explicitPath.field("http2_protocol_options"));
      protocol = UpstreamProtocol.HTTP2;
    } else if (explicit.hasHttpProtocolOptions()) {
      HTTP1_OPTIONS.check(explicit.getHttpProtocolOptions(), explicitPath.field("http_protocol_options"));
      protocol = UpstreamProtocol.HTTP1;
    } else {
      throw new ConfigException(explicitPath, "one of http_protocol_options or http2_protocol_options is required");
    }
    int maxRequests = 0;
    Duration idle = DEFAULT_IDLE_TIMEOUT;
    if (options.hasCommonHttpProtocolOptions()) {
      FieldPath commonPath = path.field("common_http_protocol_options");
      var common = options.getCommonHttpProtocolOptions();
      COMMON_HTTP_OPTIONS.check(common, commonPath);
      idle = ProtoValues.duration(common.hasIdleTimeout(), common.getIdleTimeout(), commonPath.field("idle_timeout"),
          DEFAULT_IDLE_TIMEOUT);
      maxRequests = ProtoValues.uint32(common.hasMaxRequestsPerConnection(), common.getMaxRequestsPerConnection(),
          commonPath.field("max_requests_per_connection"), 0, 0);
    }
    return new HttpOptions(protocol, maxRequests, idle, http2);
  }
}
