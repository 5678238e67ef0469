package io.spillway.edge.config;

import com.google.protobuf.Message;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.extensions.clusters.dns.v3.DnsCluster;
import io.spillway.edge.config.ClusterConfig.DiscoveryType;
import io.spillway.edge.config.ClusterConfig.DnsLookupFamily;
import io.spillway.edge.config.ExtensionRegistry.Category;
import java.time.Duration;
import java.util.Optional;

/**
 * How a cluster finds its hosts and, for DNS clusters, how it resolves them. Two forms, as in
 * Envoy: the cluster's {@code type} with the cluster-level DNS fields, or {@code cluster_type}
 * {@code envoy.clusters.dns} with a {@link DnsCluster} ({@code all_addresses_in_single_endpoint}
 * picks LOGICAL_DNS over STRICT_DNS). With the extension Envoy reads only its fields, so the
 * cluster-level DNS fields are then accepted and ignored, as there.
 */
final class DnsSettingsTranslator {

  /** Envoy's name of the DNS cluster extension. */
  static final String DNS_CLUSTER = "envoy.clusters.dns";
  private static final Duration DEFAULT_REFRESH_RATE = Duration.ofSeconds(5);
  private static final SupportedFields CLUSTER_TYPE = SupportedFields.of(
      Cluster.CustomClusterType.getDescriptor(), "name", "typed_config");
  private static final SupportedFields DNS_CLUSTER_FIELDS = SupportedFields.of(DnsCluster.getDescriptor(),
      "dns_refresh_rate", "dns_failure_refresh_rate", "respect_dns_ttl", "dns_jitter", "dns_lookup_family",
      "all_addresses_in_single_endpoint");
  private static final SupportedFields CLUSTER_REFRESH_RATE = SupportedFields.of(
      Cluster.RefreshRate.getDescriptor(), "base_interval", "max_interval");
  private static final SupportedFields DNS_CLUSTER_REFRESH_RATE = SupportedFields.of(
      DnsCluster.RefreshRate.getDescriptor(), "base_interval", "max_interval");

  /**
   * A cluster's discovery and DNS settings.
   *
   * @param refreshRate how often names are resolved again
   * @param family which address families a name resolves to
   * @param refresh the failure back-off, jitter and {@code wait_for_warm_on_init}
   */
  record Settings(DiscoveryType discovery, Duration refreshRate, DnsLookupFamily family,
      ClusterConfig.DnsRefresh refresh) {}

  private DnsSettingsTranslator() {}

  @SuppressWarnings("deprecation") // dns_refresh_rate: deprecated in Envoy, still accepted by it
  static Settings translate(Cluster c, ExtensionRegistry registry, FieldPath path) throws ConfigException {
    boolean waitForWarm = !c.hasWaitForWarmOnInit() || c.getWaitForWarmOnInit().getValue();
    if (c.hasClusterType()) {
      return fromExtension(c.getClusterType(), waitForWarm, registry, path.field("cluster_type"));
    }
    DiscoveryType discovery = switch (c.getType()) {
      case STATIC -> DiscoveryType.STATIC;
      case STRICT_DNS -> DiscoveryType.STRICT_DNS;
      case LOGICAL_DNS -> DiscoveryType.LOGICAL_DNS;
      case EDS -> DiscoveryType.EDS;
      default -> throw new ConfigException(path.field("type"), c.getType() + " is not supported");
    };
    if (!waitForWarm && discovery == DiscoveryType.EDS) {
      throw new ConfigException(path.field("wait_for_warm_on_init"), "false is not supported for EDS clusters"
          + " (a changed EDS cluster always waits for its endpoints)");
    }
    Duration refreshRate = refreshRate(c.hasDnsRefreshRate(), c.getDnsRefreshRate(), path.field("dns_refresh_rate"));
    DnsLookupFamily family = family(c.getDnsLookupFamily().name(), c.getDnsLookupFamilyValue(),
        path.field("dns_lookup_family"));
    Optional<ClusterConfig.Backoff> failure = Optional.empty();
    if (c.hasDnsFailureRefreshRate()) {
      Cluster.RefreshRate rate = c.getDnsFailureRefreshRate();
      failure = Optional.of(backoff(rate, CLUSTER_REFRESH_RATE, rate.hasBaseInterval(), rate.getBaseInterval(),
          rate.hasMaxInterval(), rate.getMaxInterval(), path.field("dns_failure_refresh_rate")));
    }
    return new Settings(discovery, refreshRate, family, refresh(c.getRespectDnsTtl(), c.hasDnsJitter(),
        c.getDnsJitter(), failure, waitForWarm, path));
  }

  private static Settings fromExtension(Cluster.CustomClusterType type, boolean waitForWarm,
      ExtensionRegistry registry, FieldPath path) throws ConfigException {
    CLUSTER_TYPE.check(type, path);
    if (!type.getName().equals(DNS_CLUSTER)) {
      throw new ConfigException(path.field("name"), "'" + type.getName() + "' is not supported (the one cluster"
          + " extension is " + DNS_CLUSTER + "; ORIGINAL_DST, aggregate and dynamic forward proxy clusters are not"
          + " built)");
    }
    FieldPath configPath = path.field("typed_config");
    if (!type.hasTypedConfig()) {
      throw new ConfigException(configPath, "typed_config is required (a DnsCluster)");
    }
    DnsCluster dns = registry.unpack(type.getTypedConfig(), DnsCluster.class, Category.CLUSTER, configPath);
    DNS_CLUSTER_FIELDS.check(dns, configPath);
    DiscoveryType discovery = dns.getAllAddressesInSingleEndpoint() ? DiscoveryType.LOGICAL_DNS
        : DiscoveryType.STRICT_DNS;
    Duration refreshRate = refreshRate(dns.hasDnsRefreshRate(), dns.getDnsRefreshRate(),
        configPath.field("dns_refresh_rate"));
    DnsLookupFamily family = family(dns.getDnsLookupFamily().name(), dns.getDnsLookupFamilyValue(),
        configPath.field("dns_lookup_family"));
    Optional<ClusterConfig.Backoff> failure = Optional.empty();
    if (dns.hasDnsFailureRefreshRate()) {
      DnsCluster.RefreshRate rate = dns.getDnsFailureRefreshRate();
      failure = Optional.of(backoff(rate, DNS_CLUSTER_REFRESH_RATE, rate.hasBaseInterval(), rate.getBaseInterval(),
          rate.hasMaxInterval(), rate.getMaxInterval(), configPath.field("dns_failure_refresh_rate")));
    }
    return new Settings(discovery, refreshRate, family, refresh(dns.getRespectDnsTtl(), dns.hasDnsJitter(),
        dns.getDnsJitter(), failure, waitForWarm, configPath));
  }

  /**
   * A lookup family of either enum (the cluster's, or the DnsCluster's, whose {@code UNSPECIFIED}
   * is AUTO): both name the same families.
   */
  private static DnsLookupFamily family(String name, int number, FieldPath path) throws ConfigException {
    if (name.equals("UNSPECIFIED")) {
      return DnsLookupFamily.AUTO;
    }
    try {
      return DnsLookupFamily.valueOf(name);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(path, number + " is not a DnsLookupFamily");
    }
  }

  private static Duration refreshRate(boolean has, com.google.protobuf.Duration value, FieldPath path)
      throws ConfigException {
    Duration rate = ProtoValues.positiveDuration(has, value, path, DEFAULT_REFRESH_RATE);
    if (rate.compareTo(Duration.ofMillis(1)) < 0) {
      throw new ConfigException(path, "must be at least 1ms");
    }
    return rate;
  }

  /** A {@code dns_failure_refresh_rate}: {@code base_interval} (required, ≥ 1 ms), {@code max_interval} (default 10 × base). */
  private static ClusterConfig.Backoff backoff(Message rate, SupportedFields fields, boolean hasBase,
      com.google.protobuf.Duration baseValue, boolean hasMax, com.google.protobuf.Duration maxValue, FieldPath path)
      throws ConfigException {
    fields.check(rate, path);
    if (!hasBase) {
      throw new ConfigException(path.field("base_interval"), "base_interval is required");
    }
    Duration base = ProtoValues.positiveDuration(true, baseValue, path.field("base_interval"), Duration.ZERO);
    if (base.compareTo(Duration.ofMillis(1)) < 0) {
      throw new ConfigException(path.field("base_interval"), "must be at least 1ms");
    }
    Duration max = base.multipliedBy(10);
    if (hasMax) {
      max = ProtoValues.positiveDuration(true, maxValue, path.field("max_interval"), max);
      if (max.compareTo(base) < 0) {
        throw new ConfigException(path.field("max_interval"), "must be at least base_interval");
      }
    }
    return new ClusterConfig.Backoff(base, max);
  }

  /**
   * The jitter and the rest; {@code respect_dns_ttl: true} is refused: the JVM's resolver does not
   * tell the TTL of an answer.
   */
  private static ClusterConfig.DnsRefresh refresh(boolean respectTtl, boolean hasJitter,
      com.google.protobuf.Duration jitterValue, Optional<ClusterConfig.Backoff> failure, boolean waitForWarm,
      FieldPath path) throws ConfigException {
    if (respectTtl) {
      throw new ConfigException(path.field("respect_dns_ttl"), "true is not supported: names are resolved with the"
          + " JVM's resolver, which does not report TTLs (re-resolution follows dns_refresh_rate)");
    }
    Duration jitter = ProtoValues.duration(hasJitter, jitterValue, path.field("dns_jitter"), Duration.ZERO);
    return new ClusterConfig.DnsRefresh(failure, jitter, waitForWarm);
  }
}
